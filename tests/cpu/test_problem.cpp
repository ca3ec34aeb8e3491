#include <doctest/doctest.h>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/problem.hpp"

using namespace autotune;

namespace {
// What validate() says of `p`: empty when it accepts it.
std::string refused(const HistogramProblem& p) {
  try {
    p.validate();
    return std::string();
  } catch (const UsageError& e) {
    return std::string(e.what());
  }
}
}  // namespace

TEST_SUITE("problem") {
  TEST_CASE("sample types round-trip through their names") {
    CHECK(all_sample_types().size() == 10);  // u8 u16 i32 u32 f32 f64 f16 bf16 i8 i16 (tests/cpu/test_hist_types.cpp)
    for (SampleType t : all_sample_types()) CHECK(parse_sample_type(to_string(t)) == t);
    CHECK(size_of(SampleType::u8) == 1);
    CHECK(size_of(SampleType::u16) == 2);
    CHECK(size_of(SampleType::f32) == 4);
    CHECK(parse_sample_type("f64") == SampleType::f64);
    CHECK(size_of(SampleType::f64) == 8);
    CHECK_FALSE(parse_sample_type("f8").has_value());
    CHECK_FALSE(parse_sample_type("").has_value());
  }

  TEST_CASE("sizes accept plain numbers and binary suffixes, and nothing else") {
    CHECK(parse_size("0") == 0);
    CHECK(parse_size("4096") == 4096);
    CHECK(parse_size("64K") == 65536);
    CHECK(parse_size("64M") == 67108864);
    CHECK(parse_size("1G") == 1073741824ull);
    CHECK(parse_size("1.5K") == 1536);
    CHECK_THROWS_AS(parse_size("abc"), UsageError);
    CHECK_THROWS_AS(parse_size("-5"), UsageError);
    CHECK_THROWS_AS(parse_size("64X"), UsageError);
    CHECK_THROWS_AS(parse_size("0.3"), UsageError);
    CHECK_THROWS_AS(parse_size(""), UsageError);
  }

  TEST_CASE("sizes are digits, an optional decimal fraction and an optional suffix: nothing std::stod also reads") {
    CHECK(parse_size("2.25M") == 2359296);  // 2.25 * 1048576
    CHECK(parse_size("007") == 7);
    CHECK(parse_size("8796093022208K") == 9007199254740992ull);  // 2^43 K = 2^53, exact
    CHECK(parse_size("9000000000000000000") == 9000000000000000000ull);  // not rounded through a double
    for (const char* bad : {"0x10", " 5", "5 ", "\t5", "+5", "1e3", "1E3", "inf", "nan", "5.", ".5", "1.5.2", "1KB",
                            "1 K", "K", "0x1p4", "1,000", "99999999999999999999", "9000000000000000001", "-0",
                            "9999999999G", "9.5G0"}) {
      CAPTURE(bad);
      CHECK_THROWS_AS(parse_size(bad), UsageError);
    }
  }

  TEST_CASE("float ranges that cannot be binned are refused, with the reason") {
    auto refusal = [](SampleType type, double lower, double upper, int bins = 16) {
      HistogramProblem q;
      q.type = type, q.bins = bins, q.lower = lower, q.upper = upper;
      try {
        q.validate();
      } catch (const UsageError& e) {
        return std::string(e.what());
      }
      return std::string("accepted");
    };
    auto says = [](const std::string& message, const char* part) {
      CAPTURE(message);
      CHECK(message.find(part) != std::string::npos);
    };
    says(refusal(SampleType::f32, 0, 1e-46), "empty in f32");            // 1e-46 rounds to 0 in float
    says(refusal(SampleType::f32, 0, 1e39), "does not fit f32");          // beyond FLT_MAX (3.4e38)
    says(refusal(SampleType::f32, -3e38, 3e38), "f32 arithmetic");        // 6e38 overflows a float
    says(refusal(SampleType::f64, -1.7e308, 1.7e308), "too wide");        // 3.4e308 overflows a double
    says(refusal(SampleType::f64, 0, 1e-320), "too narrow");              // 16 / 1e-320 overflows a double
    says(refusal(SampleType::f32, 0, 1e-37, 1 << 24), "f32 arithmetic");  // 2^24 / 1e-37 = 1.7e44 > FLT_MAX
    // Narrow or wide, but representable: still accepted.
    CHECK(refusal(SampleType::f64, 0, 1e-46) == "accepted");
    CHECK(refusal(SampleType::f32, -1e38, 1e38) == "accepted");
    CHECK(refusal(SampleType::f64, -1e307, 1e307) == "accepted");
    CHECK(refusal(SampleType::f32, 0, 1e-30) == "accepted");
  }

  TEST_CASE("validation refuses malformed problems") {
    HistogramProblem p;  // u8, 256 bins, [0, 256)
    CHECK_NOTHROW(p.validate());
    auto bad = [](auto edit) {
      HistogramProblem q;
      edit(q);
      return q;
    };
    CHECK_THROWS_AS(bad([](auto& q) { q.bins = 0; }).validate(), UsageError);
    CHECK_THROWS_AS(bad([](auto& q) { q.bins = -5; }).validate(), UsageError);
    CHECK_THROWS_AS(bad([](auto& q) { q.lower = 10, q.upper = 10; }).validate(), UsageError);
    CHECK_THROWS_AS(bad([](auto& q) { q.lower = 10, q.upper = 5; }).validate(), UsageError);
    CHECK_THROWS_AS(bad([](auto& q) { q.upper = 257; }).validate(), UsageError);     // beyond u8
    CHECK_THROWS_AS(bad([](auto& q) { q.lower = -1; }).validate(), UsageError);      // below u8
    CHECK_THROWS_AS(bad([](auto& q) { q.upper = 100.5; }).validate(), UsageError);   // integer type, fractional bound
    CHECK_THROWS_AS(bad([](auto& q) { q.distribution = "zipf"; }).validate(), UsageError);
    CHECK_NOTHROW(bad([](auto& q) { q.type = SampleType::f32, q.lower = -0.5, q.upper = 0.25; }).validate());
    CHECK_NOTHROW(bad([](auto& q) { q.type = SampleType::i32, q.lower = -100, q.upper = 100; }).validate());
  }

  TEST_CASE("keys are canonical and separate what must be separate") {
    HistogramProblem p;
    p.n = 1000;
    CHECK(p.key() == "histogram/u8/bins=256/range=[0,256)/n=1000/dist=uniform");
    CHECK(p.shape_key() == "histogram/u8/bins=256/range=[0,256)/dist=uniform");
    HistogramProblem q = p;
    q.n = 2000;
    CHECK(q.key() != p.key());
    CHECK(q.shape_key() == p.shape_key());
    q = p;
    q.type = SampleType::f32;
    q.upper = 0.5;
    CHECK(q.shape_key() == "histogram/f32/bins=256/range=[0,0.5)/dist=uniform");
    CHECK(p.bytes() == 1000);
    CHECK(q.bytes() == 4000);
  }

  TEST_CASE("pixels of several channels: keys name them, parse back, count bytes and counters per pixel") {
    HistogramProblem p;
    p.channels = 4, p.active = 3, p.n = 1000;
    CHECK(p.key() == "histogram/u8/bins=256/range=[0,256)/n=1000/dist=uniform/channels=4/active=3");
    CHECK(p.shape_key() == "histogram/u8/bins=256/range=[0,256)/dist=uniform/channels=4/active=3");
    CHECK(p.bytes() == 4000);     // 1000 RGBA pixels
    CHECK(p.counters() == 768);   // 3 channels x 256 bins
    const auto parsed = Problem::parse(p.key());
    REQUIRE(parsed);
    CHECK(*parsed->as<HistogramProblem>() == p);
    // Malformed channel parts are not keys: one without the other, active above channels, 5 channels, 1 of 1.
    for (const char* bad : {"histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4",
                            "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=2/active=3",
                            "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=5/active=1",
                            "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=1/active=1"})
      CHECK_MESSAGE(!Problem::parse(bad), bad);
  }

  TEST_CASE("levels per channel: keys add channels 1.., equal channels key as before, parse back, count counters") {
    HistogramProblem p =
        HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}, {17, 10, 200}});
    p.n = 1000;
    CHECK(p.bins == 256);  // channel 0 stays the problem's bins and range (the cache's columns)
    CHECK(p.channels == 4);
    CHECK(p.active == 3);
    CHECK(!p.uniform_channels());
    CHECK(p.key() ==
          "histogram/u8/bins=256/range=[0,256)/n=1000/dist=uniform/channels=4/active=3/ch1=64:[0,256)/ch2=17:[10,200)");
    CHECK(p.counters() == 337);
    CHECK(p.channel_offset(1) == 256);
    CHECK(p.channel_offset(2) == 320);
    CHECK(p.channel(2) == HistogramChannel{17, 10, 200});
    const auto parsed = Problem::parse(p.key());
    REQUIRE(parsed);
    CHECK(*parsed->as<HistogramProblem>() == p);
    // Channels that all equal channel 0 are the problem without levels: the key of before, nothing stored.
    HistogramProblem same = HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {256, 0, 256}});
    same.n = 1000;
    CHECK(same.per_channel.empty());
    CHECK(same.key() == "histogram/u8/bins=256/range=[0,256)/n=1000/dist=uniform/channels=4/active=2");
    HistogramProblem spelled = same;  // per_channel written out with equal entries: the same key and counters
    spelled.per_channel = {{256, 0, 256}, {256, 0, 256}};
    CHECK(spelled.key() == same.key());
    CHECK(spelled.counters() == 512);
    // Not keys: levels for a channel that is not active, a missing one, equal levels spelled out, bad text.
    for (const char* bad :
         {"histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4/active=2/ch1=64:[0,256)/ch2=17:[10,200)",
          "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4/active=3/ch1=64:[0,256)",
          "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4/active=2/ch1=256:[0,256)",
          "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4/active=2/ch1=64[0,256)",
          "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/channels=4/active=2/ch1=0:[0,256)",
          "histogram/u8/bins=256/range=[0,256)/n=1/dist=uniform/ch1=64:[0,256)"})
      CHECK_MESSAGE(!Problem::parse(bad), bad);
  }

  TEST_CASE("levels per channel are refused when not one per active channel, when the first is not bins/lower/upper, "
            "or when a channel's range is invalid for the type") {
    HistogramProblem p = HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}});
    CHECK(refused(p).empty());
    HistogramProblem q = p;
    q.active = 3;
    CHECK(refused(q).find("2 entries for 3 active channels") != std::string::npos);
    q = p;
    q.bins = 128;
    CHECK(refused(q).find("per_channel[0]") != std::string::npos);
    q = p;
    q.per_channel[1].upper = 300;  // past u8
    CHECK(refused(q).find("channel 1: range [0, 300) does not fit u8") != std::string::npos);
    q = p;
    q.per_channel[1].lower = 0.5;
    CHECK(refused(q).find("channel 1") != std::string::npos);
    HistogramProblem f = HistogramProblem::multi_channel(SampleType::f32, 2, {{10, 0, 1}, {10, 1, 1}});
    CHECK(refused(f).find("channel 1: lower (1) must be less than upper (1)") != std::string::npos);
    HistogramProblem big =
        HistogramProblem::multi_channel(SampleType::u32, 2, {{1 << 23, 0, 1 << 23}, {(1 << 23) + 1, 0, (1 << 23) + 1}});
    CHECK(refused(big).find("more than 16777216 counters") != std::string::npos);
  }

  TEST_CASE("a 2D region to measure on keys as /row=W/stride=B, parses back, and must hold whole rows and pixels") {
    HistogramProblem p;
    p.channels = 4, p.active = 3, p.n = 7680 * 4320, p.row_pixels = 7680, p.row_stride_bytes = 32768;
    CHECK(p.key() ==
          "histogram/u8/bins=256/range=[0,256)/n=33177600/dist=uniform/channels=4/active=3/row=7680/stride=32768");
    CHECK(p.shape_key() == "histogram/u8/bins=256/range=[0,256)/dist=uniform/channels=4/active=3/row=7680/stride=32768");
    CHECK(p.bytes() == 7680ull * 4320 * 4);  // the pixels' bytes, not the padding
    const auto parsed = Problem::parse(p.key());
    REQUIRE(parsed);
    CHECK(*parsed->as<HistogramProblem>() == p);
    CHECK(refused(p).empty());
    HistogramProblem q = p;
    q.n += 1;
    CHECK(refused(q).find("not whole rows of 7680 pixels") != std::string::npos);
    q = p;
    q.row_stride_bytes = 7680 * 4 - 4;  // shorter than the row
    CHECK(refused(q).find("does not hold rows of 7680 pixels") != std::string::npos);
    q = p;
    q.row_stride_bytes = 7680 * 4 + 2;  // not a whole pixel
    CHECK(refused(q).find("in whole pixels") != std::string::npos);
    q = p;
    q.row_pixels = 0;
    CHECK(refused(q).find("needs a row length") != std::string::npos);
    for (const char* bad : {"histogram/u8/bins=256/range=[0,256)/n=100/dist=uniform/row=10",
                            "histogram/u8/bins=256/range=[0,256)/n=100/dist=uniform/stride=10",
                            "histogram/u8/bins=256/range=[0,256)/n=100/dist=uniform/row=0/stride=10",
                            "histogram/u8/bins=256/range=[0,256)/n=100/dist=uniform/row=30/stride=30"})
      CHECK_MESSAGE(!Problem::parse(bad), bad);
  }

  TEST_CASE("channels outside 1..4, active outside 1..channels and more than 2^24 counters are refused") {
    auto refused = [](int channels, int active, int bins) {
      HistogramProblem p = HistogramProblem::with_defaults(SampleType::u16, bins);
      p.channels = channels, p.active = active;
      try {
        p.validate();
        return std::string();
      } catch (const UsageError& e) {
        return std::string(e.what());
      }
    };
    CHECK(refused(4, 3, 256).empty());
    CHECK(refused(3, 3, 65536).empty());
    CHECK(refused(5, 1, 256).find("channels") != std::string::npos);
    CHECK(refused(0, 1, 256).find("channels") != std::string::npos);
    CHECK(refused(2, 3, 256).find("active") != std::string::npos);
    CHECK(refused(4, 0, 256).find("active") != std::string::npos);
    CHECK(refused(4, 2, 1 << 24).find("counters") != std::string::npos);
  }
}
