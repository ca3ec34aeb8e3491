// The histogram sample types f16, bf16, i8 and i16, and MultiHistogramRange (range histograms of pixels with levels
// per channel), without a GPU: names and keys (every key of the earlier types still parses to the same problem),
// the command line, the 16-bit float conversions, the CPU references against bins computed by hand from chosen bit
// patterns, the configuration rules, and NVRTC compiling a pairwise-covering subset of the new variants.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "kernel_templates/half_float.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/histogram/value_bins.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/histogram_range/space.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"

using namespace autotune;

namespace {

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

HistogramProblem even(SampleType t, int bins, double lower, double upper) {
  return HistogramProblem{.type = t, .bins = bins, .lower = lower, .upper = upper};
}

HistogramRangeProblem range(SampleType t, int bins, std::uint64_t n = 1 << 20) {
  HistogramRangeProblem p;
  p.type = t, p.bins = bins, p.n = n;
  return p;
}

}  // namespace

TEST_SUITE("hist_types") {
  TEST_CASE("the new sample types: names, sizes, float-ness, and the old ones numbered as before") {
    CHECK(parse_sample_type("f16") == SampleType::f16);
    CHECK(parse_sample_type("bf16") == SampleType::bf16);
    CHECK(parse_sample_type("i8") == SampleType::i8);
    CHECK(parse_sample_type("i16") == SampleType::i16);
    CHECK_FALSE(parse_sample_type("f8").has_value());
    CHECK(size_of(SampleType::f16) == 2);
    CHECK(size_of(SampleType::bf16) == 2);
    CHECK(size_of(SampleType::i8) == 1);
    CHECK(size_of(SampleType::i16) == 2);
    CHECK(is_float(SampleType::f16));
    CHECK(is_float(SampleType::bf16));
    CHECK(is_half(SampleType::bf16));
    CHECK_FALSE(is_half(SampleType::f32));
    CHECK_FALSE(is_float(SampleType::i8));
    // The CUB baselines and stored seeds number the first six as they always were.
    CHECK(static_cast<int>(SampleType::f64) == 5);
    CHECK(all_sample_types().size() == 10);
    CHECK(sample_type_names() == "u8, u16, i32, u32, f32, f64, f16, bf16, i8, i16");
    CHECK(default_upper(SampleType::i8, 10, 0.0) == 128.0);
    CHECK(default_upper(SampleType::i16, 10, -5.0) == 32768.0);
    CHECK(default_upper(SampleType::f16, 10, 0.0) == 1.0);
  }

  TEST_CASE("every key of the earlier types and shapes parses to the same problem and prints back the same") {
    for (const char* key : {
             "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform",
             "histogram/u16/bins=1024/range=[0,65536)/n=1048576/dist=narrow/counters=64",
             "histogram/i32/bins=1024/range=[-512,512)/n=16777216/dist=uniform",
             "histogram/u32/bins=256/range=[0,256)/n=65536/dist=runs",
             "histogram/f32/bins=1000/range=[0,1)/n=67108864/dist=uniform",
             "histogram/f64/bins=1000/range=[-2.5,7.25)/n=1000/dist=image",
             "histogram/u8/bins=256/range=[0,256)/n=1000/dist=image/channels=4/active=3",
             "histogram/u8/bins=256/range=[0,256)/n=1000/dist=image/channels=4/active=3/ch1=64:[0,256)/ch2=17:[10,200)",
             "histogram/u8/bins=256/range=[0,256)/n=1000/dist=uniform/row=10/stride=64",
             "histogram_range/u8/bins=255/edges=irregular/n=67108864/dist=uniform",
             "histogram_range/u16/bins=4096/edges=even/n=1048576/dist=narrow/counters=64",
             "histogram_range/i32/bins=100/edges=irregular/n=1/dist=uniform",
             "histogram_range/u32/bins=1000/edges=irregular/n=0/dist=runs",
             "histogram_range/f32/bins=999/edges=irregular/n=16777216/dist=image",
             "histogram_range/f64/bins=999/edges=even/n=33554432/dist=constant",
         }) {
      INFO(key);
      const auto p = Problem::parse(key);
      REQUIRE(p.has_value());
      CHECK(p->key() == key);
    }
    // And the fields of two of them, spelled out.
    const auto h = Problem::parse("histogram/f64/bins=1000/range=[-2.5,7.25)/n=1000/dist=image");
    REQUIRE(h->as<HistogramProblem>() != nullptr);
    CHECK(*h->as<HistogramProblem>() ==
          HistogramProblem{.type = SampleType::f64, .bins = 1000, .lower = -2.5, .upper = 7.25, .n = 1000,
                           .distribution = "image"});
    const auto r = Problem::parse("histogram_range/u16/bins=4096/edges=even/n=1048576/dist=narrow/counters=64");
    REQUIRE(r->as<HistogramRangeProblem>() != nullptr);
    HistogramRangeProblem want = range(SampleType::u16, 4096, 1048576);
    want.edges = EdgeLayout::even, want.distribution = "narrow", want.counter_bits = 64;
    CHECK(*r->as<HistogramRangeProblem>() == want);
  }

  TEST_CASE("keys of the new types and of pixels with levels per channel parse back to the same problem") {
    const HistogramProblem f16{.type = SampleType::f16, .bins = 1000, .n = 64ull << 20};
    CHECK(f16.key() == "histogram/f16/bins=1000/range=[0,1)/n=67108864/dist=uniform");
    CHECK(f16.bytes() == (64ull << 20) * 2);
    const HistogramProblem i8{.type = SampleType::i8, .bins = 256, .lower = -128, .upper = 128, .n = 512ull << 20};
    CHECK(i8.key() == "histogram/i8/bins=256/range=[-128,128)/n=536870912/dist=uniform");
    for (const Problem& p : {Problem(f16), Problem(i8)}) CHECK(Problem::parse(p.key())->key() == p.key());
    CHECK(*Problem::parse(i8.key())->as<HistogramProblem>() == i8);

    HistogramRangeProblem rgba = range(SampleType::u8, 255, 128ull << 20).with_channel_bins(4, {255, 255, 255});
    CHECK(rgba.per_channel_bins.empty());  // equal bins: the one-list form
    CHECK(rgba.key() == "histogram_range/u8/bins=255/edges=irregular/n=134217728/dist=uniform/channels=4/active=3");
    CHECK(rgba.bytes() == 512ull << 20);
    CHECK(rgba.counters() == 765);
    CHECK(rgba.levels() == 768);
    HistogramRangeProblem own = range(SampleType::u8, 255).with_channel_bins(4, {255, 63, 16});
    CHECK(own.key() ==
          "histogram_range/u8/bins=255/edges=irregular/n=1048576/dist=uniform/channels=4/active=3/ch1=63/ch2=16");
    CHECK(own.channel_offset(2) == 255 + 63);
    CHECK(own.level_offset(2) == 256 + 64);
    CHECK(own.counters() == 255 + 63 + 16);
    for (const HistogramRangeProblem& p : {rgba, own, range(SampleType::bf16, 999), range(SampleType::i16, 65536)}) {
      const auto parsed = Problem::parse(p.key());
      REQUIRE(parsed.has_value());
      REQUIRE(parsed->as<HistogramRangeProblem>() != nullptr);
      CHECK(*parsed->as<HistogramRangeProblem>() == p);
    }
  }

  TEST_CASE("range keys with channels that are not canonical do not parse") {
    for (const char* key : {
             // equal bins spelled out per channel
             "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/channels=4/active=3/ch1=255/ch2=255",
             // a channel's bins missing, or given for an inactive channel
             "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/channels=4/active=3/ch1=63",
             "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/channels=4/active=2/ch1=63/ch2=16",
             // bins without channels, channels without active, more active than channels, one channel spelled out
             "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/ch1=63",
             "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/channels=4",
             "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/channels=2/active=3",
             "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/channels=1/active=1",
             // a channel with more bins than u8 has values
             "histogram_range/u8/bins=255/edges=even/n=1/dist=uniform/channels=2/active=2/ch1=300",
         })
      CHECK_MESSAGE(!Problem::parse(key).has_value(), key);
  }

  TEST_CASE("range problems with channels are validated: active, per-channel entries, each channel's bins") {
    HistogramRangeProblem p = range(SampleType::u8, 255);
    p.channels = 4, p.active = 5;
    CHECK_THROWS_WITH_AS(p.validate(), "active channels must be 1..4 (the channels; got 5)", UsageError);
    p.active = 3, p.per_channel_bins = {255, 63};
    CHECK_THROWS_WITH_AS(p.validate(), "per_channel_bins has 2 entries for 3 active channels (one per active channel)",
                         UsageError);
    p.per_channel_bins = {64, 63, 16};
    CHECK_THROWS_WITH_AS(p.validate(), "per_channel_bins[0] (64) must equal bins (255)", UsageError);
    p.per_channel_bins = {255, 63, 257};
    CHECK_THROWS_WITH_AS(p.validate(), "channel 2: bins must be in 1..256 for u8 samples (got 257)", UsageError);
    p.channels = 5, p.active = 1, p.per_channel_bins.clear();
    CHECK_THROWS_WITH_AS(p.validate(), "channels must be 1..4 (got 5)", UsageError);
  }

  TEST_CASE("levels per channel: each channel's count and order checked, channel named") {
    const HistogramRangeProblem p = range(SampleType::u8, 2).with_channel_bins(4, {2, 1, 3});
    CHECK(p.levels() == 3 + 2 + 4);
    const std::vector<int> good{0, 128, 256, 10, 20, 0, 1, 2, 3};  // channel 2 starts below channel 1's last level
    CHECK(levels_violation(p, good.data(), good.size()) == "");
    const std::vector<int> bad{0, 128, 256, 20, 10, 0, 1, 2, 3};
    CHECK(levels_violation(p, bad.data(), bad.size()) ==
          "channel 1: the levels are not strictly ascending: level 0 is 20 and level 1 is 10");
    CHECK(levels_violation(p, good.data(), 8) ==
          "3 active channels of 6 bins in all take 9 levels (bins + 1 each), not 8");
    const HistogramRangeProblem h = range(SampleType::f16, 2);
    const std::vector<float> nan{0.0f, std::numeric_limits<float>::quiet_NaN(), 1.0f};
    CHECK(levels_violation(h, nan.data(), nan.size()) == "level 1 is NaN");
  }

  TEST_CASE("the command line: --type takes the new types, --bins a list per active channel for range histograms") {
    const KernelFamily& even_family = family_named("histogram");
    ProblemOptions f16{{"type", "f16"}, {"bins", "1000"}, {"n", "64M"}};
    CHECK(even_family.make_problem(f16).key() == "histogram/f16/bins=1000/range=[0,1)/n=67108864/dist=uniform");
    ProblemOptions i8{{"type", "i8"}, {"bins", "256"}, {"lower", "-128"}, {"n", "1M"}};
    CHECK(even_family.make_problem(i8).key() == "histogram/i8/bins=256/range=[-128,128)/n=1048576/dist=uniform");
    ProblemOptions i8_wide{{"type", "i8"}, {"bins", "10"}, {"lower", "-200"}, {"n", "1M"}};
    CHECK_THROWS_WITH_AS(even_family.make_problem(i8_wide), "range [-200, 128) does not fit i8 samples", UsageError);
    ProblemOptions unknown{{"type", "f8"}, {"bins", "10"}, {"n", "1M"}};
    CHECK_THROWS_WITH_AS(even_family.make_problem(unknown),
                         "--type: unknown sample type 'f8' (known: u8, u16, i32, u32, f32, f64, f16, bf16, i8, i16)",
                         UsageError);

    const KernelFamily& range_family = family_named("histogram_range");
    ProblemOptions rgba{{"channels", "4"}, {"active", "3"}, {"bins", "255,63,16"}, {"n", "1M"}};
    const Problem p = range_family.make_problem(rgba);
    CHECK(p.key() == "histogram_range/u8/bins=255/edges=irregular/n=1048576/dist=uniform/channels=4/active=3/"
                     "ch1=63/ch2=16");
    CHECK(range_family.command_options(p) == "--type u8 --bins 255,63,16 --edges irregular --channels 4 --active 3");
    ProblemOptions one{{"channels", "4"}, {"active", "3"}, {"bins", "255"}, {"n", "1M"}};
    CHECK(range_family.make_problem(one).key() ==
          "histogram_range/u8/bins=255/edges=irregular/n=1048576/dist=uniform/channels=4/active=3");
    ProblemOptions two{{"channels", "4"}, {"active", "3"}, {"bins", "255,63"}, {"n", "1M"}};
    CHECK_THROWS_WITH_AS(range_family.make_problem(two),
                         "--bins: 2 values for 3 active channels (give one for all, or one per active channel)",
                         UsageError);
    ProblemOptions bf16{{"type", "bf16"}, {"bins", "999"}, {"n", "64M"}};
    CHECK(range_family.make_problem(bf16).key() == "histogram_range/bf16/bins=999/edges=irregular/n=67108864/dist=uniform");
  }

  TEST_CASE("16-bit floats: chosen bit patterns convert to the floats they are, and floats round to nearest even") {
    CHECK(to_float(F16{0x3C00}) == 1.0f);
    CHECK(to_float(F16{0x7BFF}) == 65504.0f);
    CHECK(to_float(F16{0x0001}) == 0x1p-24f);  // the smallest subnormal
    CHECK(to_float(F16{0x03FF}) == 1023 * 0x1p-24f);
    CHECK(to_float(F16{0x3555}) == 0.333251953125f);
    CHECK(std::signbit(to_float(F16{0x8000})));
    CHECK(to_float(F16{0xFC00}) == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(to_float(F16{0x7E00})));
    CHECK(to_float(BF16{0x3F80}) == 1.0f);
    CHECK(to_float(BF16{0x3EAB}) == 0.333984375f);
    CHECK(to_float(BF16{0xFF80}) == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(to_float(BF16{0x7FC1})));
    CHECK(f16_from_float(1.0f + 0x1p-11f).bits == 0x3C00);      // a tie: to the even 1.0
    CHECK(f16_from_float(1.0f + 3 * 0x1p-11f).bits == 0x3C02);  // a tie: to the even 1 + 2^-9
    CHECK(f16_from_float(65519.0f).bits == 0x7BFF);
    CHECK(f16_from_float(65520.0f).bits == 0x7C00);  // rounds to infinity
    CHECK(f16_from_float(0x1p-25f).bits == 0x0000);  // half the smallest subnormal: the even zero
    CHECK(f16_from_float(3 * 0x1p-25f).bits == 0x0002);
    CHECK(f16_from_float(-2.0f).bits == 0xC000);
    CHECK((f16_from_float(std::numeric_limits<float>::quiet_NaN()).bits & 0x7C00) == 0x7C00);
    CHECK(bf16_from_float(1.0f + 0x1p-8f).bits == 0x3F80);  // a tie: to the even 1.0
    CHECK(bf16_from_float(1.0f + 3 * 0x1p-8f).bits == 0x3F82);
    CHECK(bf16_from_float(-0.0f).bits == 0x8000);
  }

  TEST_CASE("even reference: f16 samples binned in float, bins computed by hand from the bit patterns") {
    // 10 bins over [0, 1): scale = 10.0f; bin = (int)(s * 10) in float.
    const HistogramProblem p = even(SampleType::f16, 10, 0.0, 1.0);
    const std::vector<std::uint16_t> bits{
        0x0000,  // 0        -> bin 0
        0x3800,  // 0.5      -> bin 5
        0x3BFF,  // 0.99951  -> bin 9
        0x3C00,  // 1.0      -> upper: nowhere
        0xBC00,  // -1.0     -> nowhere
        0x7E00,  // NaN      -> nowhere
        0x7C00,  // +inf     -> nowhere
        0x2E66,  // 0.0999755859375 * 10 = 0.99976 -> bin 0
        0x2E67,  // 0.10003662109375 * 10 = 1.00037 -> bin 1
        0x8000,  // -0.0 >= 0 -> bin 0
    };
    const std::vector<int> bins = reference_bins(p, bits.data(), bits.size());
    CHECK(bins == std::vector<int>{0, 5, 9, -1, -1, -1, -1, 0, 1, 0});
    CHECK(reference_histogram(p, bits.data(), bits.size()) ==
          std::vector<std::uint64_t>{3, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  }

  TEST_CASE("even reference: bf16 over [-8, 8), i8 over [-128, 128) and i16 by hand") {
    const HistogramProblem b = even(SampleType::bf16, 4, -8.0, 8.0);  // scale 0.25
    const std::vector<std::uint16_t> bf{0xC100 /* -8 -> 0 */, 0xC0FF /* -7.96875 -> 0 */, 0x4100 /* 8: nowhere */,
                                        0x40FF /* 7.96875 -> 3 */, 0x0000 /* 0 -> 2 */, 0x8000 /* -0 -> 2 */,
                                        0xFF80 /* -inf */, 0x7FC1 /* NaN */, 0x3F80 /* 1 -> (9 * 0.25) 2 */};
    CHECK(reference_bins(b, bf.data(), bf.size()) == std::vector<int>{0, 0, -1, 3, 2, 2, -1, -1, 2});
    const HistogramProblem i8 = even(SampleType::i8, 256, -128, 128);
    const std::vector<std::int8_t> s8{-128, 127, 0, -1, 1};
    CHECK(reference_bins(i8, s8.data(), s8.size()) == std::vector<int>{0, 255, 128, 127, 129});
    const HistogramProblem i16 = even(SampleType::i16, 10, -1000, 1000);
    const std::vector<std::int16_t> s16{-1000, 999, -1, 0, 1000, -1001, 32767, -32768};
    // (s + 1000) * 10 / 2000: -1 -> 999 * 10 / 2000 = 4
    CHECK(reference_bins(i16, s16.data(), s16.size()) == std::vector<int>{0, 9, 4, 5, -1, -1, -1, -1});
  }

  TEST_CASE("even reference for i8 with a range off the middle: the bins value counting maps each byte to") {
    // Value counting (histogram.cu's value_counter) bins the byte v as the sample v (v - 256 from 128 on), and the
    // GPU suites compare it with this reference.
    const HistogramProblem p = even(SampleType::i8, 3, -6, 6);  // bin = (s + 6) * 3 / 12
    const std::vector<std::int8_t> s{-6, -1, 0, 5, 6, -128, -7};
    CHECK(reference_bins(p, s.data(), s.size()) == std::vector<int>{0, 1, 1, 2, -1, -1, -1});
    // i8's whole range in 256 bins is byte v ^ 0x80: a permutation value counting applies once per block.
    const std::vector<std::int8_t> whole{-128, -1, 0, 127};
    CHECK(reference_bins(even(SampleType::i8, 256, -128, 128), whole.data(), whole.size()) ==
          std::vector<int>{0, 127, 128, 255});
    CHECK_FALSE(histogram_detail::values_are_bins(even(SampleType::i8, 256, -128, 128)));
    CHECK_FALSE(histogram_detail::values_are_bins(even(SampleType::i8, 256, 0, 256 - 128)));
  }

  TEST_CASE("range reference: f16 and bf16 compare in float with float levels; i8 below its levels") {
    const HistogramRangeProblem p = range(SampleType::f16, 3);
    const std::vector<float> levels{0.0f, 0.25f, 0.5f, 1.0f};
    const std::vector<std::uint16_t> bits{0x3400 /* 0.25 -> 1 */, 0x33FF /* 0.2499 -> 0 */, 0x3C00 /* 1: nowhere */,
                                          0x7E00 /* NaN */,       0x3800 /* 0.5 -> 2 */,   0xBC00 /* -1: nowhere */,
                                          0x0000 /* 0 -> 0 */,    0x3BFF /* 0.9995 -> 2 */};
    CHECK(reference_range_histogram(p, bits.data(), bits.size(), levels.data()) ==
          std::vector<std::uint64_t>{2, 1, 2});
    const HistogramRangeProblem b = range(SampleType::bf16, 2);
    const std::vector<float> bl{-1.0f, 0.0f, 2.0f};
    const std::vector<std::uint16_t> bb{0xBF80 /* -1 -> 0 */, 0x8000 /* -0 == 0 -> 1 */, 0x4000 /* 2: nowhere */,
                                        0x3FFF /* 1.99 -> 1 */, 0xFF80 /* -inf */};
    CHECK(reference_range_histogram(b, bb.data(), bb.size(), bl.data()) == std::vector<std::uint64_t>{1, 2});
    const HistogramRangeProblem i8 = range(SampleType::i8, 2);
    const std::vector<int> il{-100, 0, 100};
    const std::vector<std::int8_t> is{-128, -100, -1, 0, 99, 100, 127};
    CHECK(reference_range_histogram(i8, is.data(), is.size(), il.data()) == std::vector<std::uint64_t>{2, 2});
  }

  TEST_CASE("range reference of pixels: each active channel over its own levels, the inactive one unread") {
    // RGBA, 3 of 4: R has 2 bins [0,128,256), G 1 bin [10,20), B 3 bins [0,1,2,3).
    const HistogramRangeProblem p = range(SampleType::u8, 2).with_channel_bins(4, {2, 1, 3});
    const std::vector<int> levels{0, 128, 256, 10, 20, 0, 1, 2, 3};
    const std::vector<std::uint8_t> pixels{
        5,   10, 0, 99,   // R 0, G 0, B 0
        200, 19, 2, 0,    // R 1, G 0, B 2
        128, 20, 3, 255,  // R 1, G nowhere, B nowhere
        127, 9,  1, 7,    // R 0, G nowhere, B 1
    };
    CHECK(reference_range_histogram(p, pixels.data(), 4, levels.data()) ==
          std::vector<std::uint64_t>{2, 2, /* G */ 2, /* B */ 1, 1, 1});
    // Two of those pixels as rows of a region, one pixel each, 8 bytes apart: rows 0 and 2.
    CHECK(reference_range_histogram_region(p, pixels.data(), 1, 2, 8, levels.data()) ==
          std::vector<std::uint64_t>{1, 1, 1, 1, 0, 0});
  }

  TEST_CASE("the tuner's levels for pixels: each channel's own ascending levels, channel after channel") {
    const HistogramRangeProblem p = range(SampleType::u8, 255).with_channel_bins(4, {255, 63, 16});
    const std::vector<unsigned char> raw = generate_levels(p);
    REQUIRE(raw.size() == static_cast<std::size_t>(p.levels()) * 4);
    CHECK(levels_violation(p, raw.data(), static_cast<std::size_t>(p.levels())) == "");
    // Channel 0's levels are the one-channel problem's.
    const std::vector<unsigned char> one = generate_levels(range(SampleType::u8, 255));
    CHECK(std::equal(one.begin(), one.end(), raw.begin()));
    // Two channels of equal bins draw different irregular levels.
    const std::vector<unsigned char> two = generate_levels(range(SampleType::u8, 100).with_channel_bins(2, {100, 100}));
    CHECK(!std::equal(two.begin(), two.begin() + 101 * 4, two.begin() + 101 * 4));
    // Samples of n pixels: n * channels.
    CHECK(generate_range_samples(p, 1000, 1).size() == 4000);
  }

  TEST_CASE("configuration rules of the new types and of channels") {
    HistogramRangeConfig c;
    c.binning = RangeBinning::values;
    CHECK(c.invalid_reason(range(SampleType::i8, 255)).empty());
    CHECK(!c.invalid_reason(range(SampleType::f16, 255)).empty());
    c.binning = RangeBinning::lut;
    CHECK(c.invalid_reason(range(SampleType::f16, 999)).empty());
    CHECK(c.invalid_reason(range(SampleType::i16, 999)).empty());
    c.binning = RangeBinning::prebin;
    CHECK(c.invalid_reason(range(SampleType::u8, 255).with_channel_bins(4, {255, 255, 255})) ==
          "the pre-bin table is for one active channel");
    // values for RGBA, 3 of 4, 16 copies: 768 counters per copy, 765 per-bin totals, 768 int levels.
    c.binning = RangeBinning::values, c.replicas = 16;
    CHECK(c.shared_bytes(range(SampleType::u8, 255).with_channel_bins(4, {255, 255, 255})) ==
          ((768 * 16 + 765) * 4 + 4) + 768 * 4);
    // lut for 2 channels of i8: one 256-entry table per channel.
    c.binning = RangeBinning::lut, c.replicas = 1;
    CHECK(c.shared_bytes(range(SampleType::i8, 100).with_channel_bins(2, {100, 30})) == 130 * 4 + 2 * 256 * 2);
    // The RGBA space counts values with fewer copies too; every configuration is well formed.
    const auto rgba = range(SampleType::u8, 255, 128ull << 20).with_channel_bins(4, {255, 255, 255});
    const auto space = histogram_range_space(rgba);
    CHECK(std::any_of(space.begin(), space.end(),
                      [](const auto& s) { return s.binning == RangeBinning::values && s.replicas == 8; }));
    for (const auto& s : space) CHECK(s.invalid_reason(rgba).empty());
  }
}

TEST_SUITE("nvrtc_histtypes") {
  // One pairwise covering of each case's problems together (tests/cpu/nvrtc_fixtures.hpp, compile_all_joint); every
  // variant of every problem with AUTOTUNE_NVRTC_FULL=1.
  TEST_CASE("even histograms of f16, bf16, i8 and i16 samples compile for sm_90: one pairwise covering of the five "
            "problems' joint space, every variant under nvrtc_full") {
    const std::vector<HistogramProblem> problems{
        even(SampleType::f16, 1000, 0, 1), even(SampleType::bf16, 64, -8, 8), even(SampleType::i8, 256, -128, 128),
        even(SampleType::i8, 37, -100, 100), even(SampleType::i16, 4096, -32768, 32768)};
    std::vector<std::vector<HistogramConfig>> spaces;
    for (const auto& p : problems) spaces.push_back(space_decl::any_n(p, histogram_space));
    CHECK(test::compile_all_joint(problems, spaces, "sm_90") == "");
  }
  TEST_CASE("range histograms of the new types and of pixels with levels per channel compile for sm_90: one pairwise "
            "covering of the seven problems' joint space, every variant under nvrtc_full") {
    const std::vector<HistogramRangeProblem> problems{
        range(SampleType::f16, 999), range(SampleType::bf16, 999), range(SampleType::i8, 255),
        range(SampleType::i16, 4096), range(SampleType::u8, 255).with_channel_bins(4, {255, 63, 16}),
        range(SampleType::u8, 63).with_channel_bins(3, {63, 16, 200}),
        range(SampleType::f32, 10).with_channel_bins(2, {10, 20})};
    std::vector<std::vector<HistogramRangeConfig>> spaces;
    for (const auto& p : problems) spaces.push_back(space_decl::any_n(p, histogram_range_space));
    CHECK(test::compile_all_joint(problems, spaces, "sm_90") == "");
  }
}
