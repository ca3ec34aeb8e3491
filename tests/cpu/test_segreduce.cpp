// The segmented reduction family without a GPU: keys, segment specs (good and bad), offsets generation, the CPU
// reference (empty segments, argmin/argmax ties and NaN; halves and i8/i16 on hand-computed cases), the family's CLI
// options, and NVRTC compiles of the spaces (joint pairwise coverings of each case's problems).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "core/family.hpp"
#include "kernel_templates/segreduce/launcher.hpp"
#include "kernel_templates/segreduce/reference.hpp"
#include "kernel_templates/segreduce/space.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"

using namespace autotune;

namespace {

SegReduceProblem make(SegReduceOp op, ValueType t, std::string dist = "uniform", std::uint64_t n = 1 << 20) {
  SegReduceProblem p;
  p.op = op, p.type = t, p.distribution = std::move(dist), p.n = n;
  return p;
}

std::string bad_spec_message(const std::string& text) {
  try {
    (void)parse_segment_spec(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "accepted";
}

DeviceInfo sm90() {
  DeviceInfo d;
  d.name = "test device";
  d.cc_major = 9, d.cc_minor = 0;
  d.sm_count = 132;
  d.max_threads_per_block = 1024;
  d.shared_per_block_optin = 227 * 1024;
  return d;
}

}  // namespace

TEST_SUITE("segreduce") {
  TEST_CASE("a problem key names op, types, n and the canonical segment spec, and parses back to the same problem") {
    const SegReduceProblem p = make(SegReduceOp::sum, ValueType::f32, "fixed:32", 64ull << 20);
    CHECK(p.key() == "segreduce/sum/f32/acc=f32/n=67108864/dist=fixed:32");
    CHECK(make(SegReduceOp::sum, ValueType::i32).key() == "segreduce/sum/i32/acc=i64/n=1048576/dist=uniform");
    CHECK(make(SegReduceOp::argmax, ValueType::f64, "uniform:0..65536").key() ==
          "segreduce/argmax/f64/acc=f64/n=1048576/dist=uniform:0..64K");
    CHECK(make(SegReduceOp::min, ValueType::u32, "fixed:1048576").shape_key() ==
          "segreduce/min/u32/acc=u32/dist=fixed:1M");
    for (const SegReduceProblem& q : {p, make(SegReduceOp::argmin, ValueType::i64, "power-law:4..64K")}) {
      const auto parsed = Problem::parse(q.key());
      REQUIRE(parsed.has_value());
      CHECK(*parsed == Problem(q));
      CHECK(parsed->family_name() == "segreduce");
    }
    CHECK_FALSE(Problem::parse("segreduce/sum/f32/acc=f32/n=64/dist=fixed:0").has_value());
    CHECK_FALSE(Problem::parse("segreduce/argmin/f32/acc=f64/n=64/dist=uniform").has_value());
    CHECK_FALSE(Problem::parse("segreduce/sum/f32/acc=f32/n=64").has_value());
  }

  TEST_CASE("64-bit offsets: one more key field (none for 32 bits), n past 2^31 accepted, a shape of its own") {
    SegReduceProblem p = make(SegReduceOp::sum, ValueType::f32, "fixed:1M", (1ull << 31) + 5);
    CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("64-bit offsets"), UsageError);  // int offsets: n < 2^31
    p.offset_bits = 64;
    CHECK_NOTHROW(p.validate());
    CHECK(p.offset_bytes() == 8);
    CHECK(p.key() == "segreduce/sum/f32/acc=f32/n=2147483653/dist=fixed:1M/offsets=64");
    CHECK(p.shape_key() == "segreduce/sum/f32/acc=f32/dist=fixed:1M/offsets=64");
    const auto parsed = Problem::parse(p.key());
    REQUIRE(parsed.has_value());
    CHECK(*parsed == Problem(p));
    CHECK_FALSE(Problem::parse("segreduce/sum/f32/acc=f32/n=64/dist=fixed:1M/offsets=32").has_value());
    CHECK_FALSE(Problem::parse("segreduce/sum/f32/acc=f32/n=64/dist=fixed:1M/offsets=16").has_value());
    CHECK_FALSE(Problem::parse("segreduce/sum/f32/acc=f32/n=64/dist=fixed:1M/bits=64").has_value());
    SegReduceProblem odd = make(SegReduceOp::sum, ValueType::f32);
    odd.offset_bits = 16;
    CHECK_THROWS_WITH_AS(odd.validate(), doctest::Contains("32 (int) or 64"), UsageError);
    // A winner for int offsets says nothing about int64 ones (their code differs): no similar-problem distance.
    const KernelFamily& f = family_named("segreduce");
    SegReduceProblem narrow = p;
    narrow.offset_bits = 32;
    narrow.n = 1 << 20;
    CHECK_FALSE(f.shape_distance(Problem(p), Problem(narrow)).has_value());
    // The preamble declares the offsets' type the template reads.
    CHECK(kernel_source(p, SegReduceConfig::fallback(p)).find("typedef long long off_t_;") != std::string::npos);
    CHECK(kernel_source(narrow, SegReduceConfig::fallback(narrow)).find("typedef int off_t_;") != std::string::npos);
  }

  TEST_CASE("a configuration key round-trips and only canonical, valid keys parse") {
    const SegReduceConfig c{512, 4, 64, 0, 4, 4096};
    CHECK(c.key() == "block=512,group=4,small=64,vec=0,loads=4,chunk=4096");
    REQUIRE(SegReduceConfig::parse(c.key()).has_value());
    CHECK(*SegReduceConfig::parse(c.key()) == c);
    CHECK_FALSE(SegReduceConfig::parse("block=256,group=8").has_value());
    CHECK_FALSE(SegReduceConfig::parse("block=256,group=8,small=256,vec=16,loads=2,chunk=16384,x=1").has_value());
    // Only key()'s spelling: its field order, no leading zeros, no field twice, every field given.
    CHECK(SegReduceConfig::parse("block=256,group=8,small=256,vec=16,loads=2,chunk=16384").has_value());
    for (const char* bad : {"group=8,block=256,small=256,vec=16,loads=2,chunk=16384",
                            "block=0256,group=8,small=256,vec=16,loads=2,chunk=16384",
                            "block=256,group=8,small=256,vec=16,loads=2,chunk=16384,chunk=16384",
                            "block=256,group=8,small=256,vec=16,loads=2,chunk=",
                            "block=256,group=8,small=256,vec=16,chunk=16384"})
      CHECK_MESSAGE(!SegReduceConfig::parse(bad).has_value(), bad);
    const SegReduceProblem p = make(SegReduceOp::sum, ValueType::f32);
    CHECK(SegReduceConfig{256, 3, 64, 16, 2, 16384}.invalid_reason(p) != "");   // group not a power of two
    CHECK(SegReduceConfig{256, 8, 64, 16, 2, 1000}.invalid_reason(p) != "");    // chunk not a power of two
    CHECK(SegReduceConfig{256, 32, 8192, 16, 2, 4096}.invalid_reason(p) != ""); // chunk shorter than small
    CHECK(SegReduceConfig{256, 8, 64, 8, 2, 16384}.invalid_reason(p) != "");    // 8-byte vectors
    CHECK(SegReduceConfig::fallback(p).invalid_reason(p) == "");
    // A block per segment: group = block (no other group above a warp); small = 0: nothing queued, one launch.
    CHECK(SegReduceConfig{256, 256, 0, 16, 4, 16384}.invalid_reason(p) == "");
    CHECK(SegReduceConfig{512, 512, 65536, 16, 4, 262144}.invalid_reason(p) == "");
    CHECK(SegReduceConfig{256, 64, 1024, 16, 2, 16384}.invalid_reason(p) != "");
    CHECK(SegReduceConfig{256, 128, 1024, 16, 2, 16384}.invalid_reason(p) != "");
    CHECK(SegReduceConfig{256, 256, 0, 16, 4, 16384}.one_launch());
    CHECK_FALSE(SegReduceConfig::fallback(p).one_launch());
    const KernelFamily& f = family_named("segreduce");
    CHECK(f.launches(Config(SegReduceConfig{256, 256, 0, 16, 4, 16384})) == 1);
    CHECK(f.launches(Config(SegReduceConfig::fallback(p))) == 2);
    CHECK_FALSE(SegReduceConfig::parse("block=256,group=256,small=-1,vec=16,loads=4,chunk=16384").has_value());
  }

  TEST_CASE("the space starts with the fallback, has no duplicates and only valid configurations") {
    for (const SegReduceProblem& p : {make(SegReduceOp::sum, ValueType::f32), make(SegReduceOp::argmax, ValueType::f64)}) {
      const auto space = segreduce_space(p);
      REQUIRE(space.size() >= 20);
      CHECK(space.front() == SegReduceConfig::fallback(p));
      // It holds CUB's algorithm (a block per segment, one launch) and the long path with 8 loads in flight.
      int block_per_segment = 0, eight_loads = 0;
      for (const auto& c : space) {
        block_per_segment += c.group == c.block && c.one_launch();
        eight_loads += c.loads == 8 && c.group < c.block;
      }
      CHECK(block_per_segment >= 3);
      CHECK(eight_loads >= 2);
      const DeviceInfo device = sm90();
      for (std::size_t i = 0; i < space.size(); ++i) {
        CHECK(segreduce_violation(p, space[i], &device) == "");
        for (std::size_t j = 0; j < i; ++j) CHECK_FALSE(space[i] == space[j]);
      }
    }
  }

  TEST_CASE("segment specs parse to kinds and ranges; bad ones name the problem") {
    CHECK(parse_segment_spec("fixed:32") == SegmentSpec{SegmentSpec::Kind::fixed, 32, 32});
    CHECK(parse_segment_spec("fixed:1M") == SegmentSpec{SegmentSpec::Kind::fixed, 1u << 20, 1u << 20});
    CHECK(parse_segment_spec("uniform:1..64K") == SegmentSpec{SegmentSpec::Kind::uniform, 1, 65536});
    CHECK(parse_segment_spec("uniform:0..8") == SegmentSpec{SegmentSpec::Kind::uniform, 0, 8});
    CHECK(parse_segment_spec("power-law") == SegmentSpec{SegmentSpec::Kind::power_law, 1, 1u << 20});
    CHECK(parse_segment_spec("uniform") == SegmentSpec{SegmentSpec::Kind::uniform, 1, 1024});
    for (const char* s : {"fixed:32", "fixed:4K", "uniform:1..64K", "power-law", "power-law:2..3", "uniform"})
      CHECK(format_segment_spec(parse_segment_spec(s)) == s);
    CHECK(bad_spec_message("fixed") .find("unknown segment spec") != std::string::npos);
    CHECK(bad_spec_message("fixed:0").find("at least 1") != std::string::npos);
    CHECK(bad_spec_message("fixed:abc").find("is not a length") != std::string::npos);
    CHECK(bad_spec_message("uniform:9..3").find("range is empty") != std::string::npos);
    CHECK(bad_spec_message("uniform:5").find("expected a range") != std::string::npos);
    CHECK(bad_spec_message("uniform:0..0").find("empty") != std::string::npos);
    CHECK(bad_spec_message("power-law:0..10").find("starts at length 1") != std::string::npos);
    CHECK(bad_spec_message("zipf:3").find("unknown segment spec") != std::string::npos);
    CHECK(bad_spec_message("fixed:4G").find("2^31") != std::string::npos);
  }

  TEST_CASE("generated offsets start at 0, end at n, rise, and follow the spec's lengths") {
    const auto fixed = generate_offsets(parse_segment_spec("fixed:32"), 1000, 1);
    REQUIRE(fixed.size() == 33);  // 31 segments of 32 and one of 8
    CHECK(fixed[1] == 32);
    CHECK(fixed.back() == 1000);
    for (const char* spec : {"uniform:0..8", "power-law:1..4K", "uniform:1..64K"}) {
      const SegmentSpec s = parse_segment_spec(spec);
      const auto o = generate_offsets(s, 200000, 7);
      CHECK(o.front() == 0);
      CHECK(o.back() == 200000);
      bool in_range = true, empty_seen = false;
      for (std::size_t i = 1; i < o.size(); ++i) {
        const auto len = static_cast<std::uint64_t>(o[i] - o[i - 1]);
        empty_seen |= len == 0;
        in_range &= len <= s.hi && (len >= s.lo || i + 1 == o.size());
      }
      CHECK(in_range);
      CHECK(empty_seen == (s.lo == 0));
    }
    CHECK(generate_offsets(parse_segment_spec("fixed:32"), 0, 1) == std::vector<int>{0});
    // 64-bit offsets: the same segments for the same seed; past 2^31 only they can spell n.
    const SegmentSpec power = parse_segment_spec("power-law:1..4K");
    const auto narrow = generate_offsets(power, 100000, 3);
    const auto wide = generate_offsets<std::int64_t>(power, 100000, 3);
    CHECK(std::vector<std::int64_t>(narrow.begin(), narrow.end()) == wide);
    CHECK_THROWS_AS(generate_offsets(parse_segment_spec("fixed:1M"), 1ull << 31, 1), UsageError);
    // The workload's offsets (and CUB's in `autotune bench`) come from the problem alone, in its offsets' width.
    SegReduceProblem p = make(SegReduceOp::sum, ValueType::f32, "power-law:1..4K", 100000);
    const auto bytes32 = problem_offsets(p);
    CHECK(bytes32 == problem_offsets(p));
    CHECK(bytes32.size() == generate_offsets(power, 100000, kOffsetsSeed).size() * 4);
    p.offset_bits = 64;
    const auto bytes64 = problem_offsets(p);
    const auto expect64 = generate_offsets<std::int64_t>(power, 100000, kOffsetsSeed);
    REQUIRE(bytes64.size() == expect64.size() * 8);
    CHECK(std::memcmp(bytes64.data(), expect64.data(), bytes64.size()) == 0);
  }

  TEST_CASE("the reference: sums, min/max identities for empty segments, begin/end arrays with gaps") {
    const std::vector<float> x{1, 2, 3, 4, -5, 6, 7, 8};
    // Segments [0,3), [3,3) empty, [5,8), [6,2) empty (end before begin), [1,2).
    const std::vector<int> begin{0, 3, 5, 6, 1}, end{3, 3, 8, 2, 2};
    auto sum = reference_segreduce(make(SegReduceOp::sum, ValueType::f32), x.data(), begin.data(), end.data(), 5);
    REQUIRE(sum.value.size() == 5);
    CHECK(double(sum.value[0].value) == 6.0);
    CHECK(double(sum.value[1].value) == 0.0);
    CHECK(double(sum.value[2].value) == 21.0);
    CHECK(double(sum.value[3].value) == 0.0);
    CHECK(double(sum.value[4].value) == 2.0);
    auto mn = reference_segreduce(make(SegReduceOp::min, ValueType::f32), x.data(), begin.data(), end.data(), 5);
    CHECK(double(mn.value[0].value) == 1.0);
    CHECK(std::isinf(double(mn.value[1].value)));  // the identity of min: +inf
    CHECK(double(mn.value[1].value) > 0);
    auto mx = reference_segreduce(make(SegReduceOp::max, ValueType::f32), x.data(), begin.data(), end.data(), 5);
    CHECK(double(mx.value[2].value) == 8.0);
    CHECK(double(mx.value[3].value) < 0);
    CHECK(std::isinf(double(mx.value[3].value)));

    // Results as a kernel would write them: the comparison accepts the right ones and names the first wrong one.
    std::vector<float> got{6, 0, 21, 0, 2};
    CHECK(compare_segreduce(make(SegReduceOp::sum, ValueType::f32), sum, got.data()) == "");
    got[2] = 20;
    const std::string diff = compare_segreduce(make(SegReduceOp::sum, ValueType::f32), sum, got.data());
    CHECK(diff.find("1 of 5 segments wrong") != std::string::npos);
    CHECK(diff.find("segment 2") != std::string::npos);

    // The same segments as 64-bit offsets give the same answers.
    const std::vector<std::int64_t> begin64(begin.begin(), begin.end()), end64(end.begin(), end.end());
    auto sum64 = reference_segreduce(make(SegReduceOp::sum, ValueType::f32), x.data(), begin64.data(), end64.data(), 5);
    REQUIRE(sum64.value.size() == 5);
    for (int s = 0; s < 5; ++s) CHECK(double(sum64.value[s].value) == double(sum.value[s].value));
    CHECK(sum64.length == sum.length);
  }

  TEST_CASE("the reference's argmin/argmax: first of equal values, NaN wins, CUB's {1, max()} for empty segments") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> x{3, 1, 2, 1, 5, 5, -0.0f, 0.0f, 4, nan, 2, nan};
    const std::vector<int> begin{0, 4, 6, 8, 8}, end{4, 6, 8, 12, 8};
    auto amin = reference_segreduce(make(SegReduceOp::argmin, ValueType::f32), x.data(), begin.data(), end.data(), 5);
    auto amax = reference_segreduce(make(SegReduceOp::argmax, ValueType::f32), x.data(), begin.data(), end.data(), 5);
    auto bits = [](float f) {
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      return std::uint64_t{b};
    };
    CHECK(amin.key == std::vector<int>{1, 0, 0, 1, 1});  // 1 at 1 and 3: the first; -0.0 == +0.0: the first; NaN
    CHECK(amax.key == std::vector<int>{0, 0, 0, 1, 1});
    CHECK(amin.bits[0] == bits(1.0f));
    CHECK(amin.bits[2] == bits(-0.0f));
    CHECK(std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(amin.bits[3]))));
    CHECK(amin.bits[4] == bits(std::numeric_limits<float>::max()));
    CHECK(amax.bits[4] == bits(std::numeric_limits<float>::lowest()));
  }

  TEST_CASE("the family reads --segments or --dist (not both) and says which option is wrong") {
    const KernelFamily& f = family_named("segreduce");
    ProblemOptions o{{"n", "64M"}, {"segments", "fixed:32"}};
    const Problem p = f.make_problem(o);
    CHECK(p.key() == "segreduce/sum/f32/acc=f32/n=67108864/dist=fixed:32");
    CHECK(f.make_problem({{"n", "1K"}, {"dist", "power-law"}, {"op", "argmax"}, {"type", "i32"}}).key() ==
          "segreduce/argmax/i32/acc=i32/n=1024/dist=power-law");
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1K"}, {"segments", "fixed:8"}, {"dist", "fixed:8"}}),
                         doctest::Contains("give one"), UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1K"}, {"segments", "fixed:-3"}}), doctest::Contains("--segments"),
                         UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1K"}, {"op", "median"}}), doctest::Contains("--op"), UsageError);
    CHECK(f.robust_across_distributions());
    CHECK(f.distributions().front() == "uniform");
    // The command the lookup suggests reads back to the same problem (the CLI adds --dist).
    CHECK(f.command_options(p).find("--segments") == std::string::npos);
    // --offsets 64: int64 offsets, a key of its own, and the command the lookup suggests says so.
    const Problem wide = f.make_problem({{"n", "3G"}, {"segments", "fixed:1M"}, {"offsets", "64"}});
    CHECK(wide.key() == "segreduce/sum/f32/acc=f32/n=3221225472/dist=fixed:1M/offsets=64");
    CHECK(f.command_options(wide).find("--offsets 64") != std::string::npos);
    CHECK(f.make_problem({{"n", "1K"}, {"offsets", "32"}}).key() == "segreduce/sum/f32/acc=f32/n=1024/dist=uniform");
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1K"}, {"offsets", "16"}}), doctest::Contains("--offsets"), UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "3G"}}), doctest::Contains("64-bit offsets"), UsageError);
  }

  TEST_CASE("the first kernel's grid covers the segments with groups, capped at the resident grid") {
    const SegReduceConfig c{256, 8, 256, 16, 2, 16384};  // 32 groups per block
    CHECK(segreduce_short_grid(c, 0, 1000) == 0);
    CHECK(segreduce_short_grid(c, 1, 1000) == 1);
    CHECK(segreduce_short_grid(c, 33, 1000) == 2);
    CHECK(segreduce_short_grid(c, 2u << 20, 1056) == 1056);
    // A block per segment covers every segment, past the resident grid (the hardware balances unequal lengths).
    const SegReduceConfig b{256, 256, 0, 16, 4, 16384};
    CHECK(segreduce_short_grid(b, 0, 1056) == 0);
    CHECK(segreduce_short_grid(b, 65536, 1056) == 65536);
    CHECK(segreduce_short_grid(b, 1ull << 40, 1056) == (1u << 31) - 1);
  }
}

TEST_SUITE("segreduce") {
  TEST_CASE("f16, bf16, i8, i16: keys with the reduce family's accumulators, results of their own width, validation") {
    CHECK(make(SegReduceOp::sum, ValueType::bf16).key() == "segreduce/sum/bf16/acc=f32/n=1048576/dist=uniform");
    CHECK(make(SegReduceOp::sum, ValueType::f16).key() == "segreduce/sum/f16/acc=f32/n=1048576/dist=uniform");
    CHECK(make(SegReduceOp::sum, ValueType::i8).key() == "segreduce/sum/i8/acc=i64/n=1048576/dist=uniform");
    CHECK(make(SegReduceOp::sum, ValueType::i16).key() == "segreduce/sum/i16/acc=i64/n=1048576/dist=uniform");
    CHECK(make(SegReduceOp::min, ValueType::f16).key() == "segreduce/min/f16/acc=f16/n=1048576/dist=uniform");
    CHECK(make(SegReduceOp::max, ValueType::i8).key() == "segreduce/max/i8/acc=i8/n=1048576/dist=uniform");
    const SegReduceProblem target = make(SegReduceOp::argmax, ValueType::bf16, "fixed:131072", 536870912);
    CHECK(target.key() == "segreduce/argmax/bf16/acc=bf16/n=536870912/dist=fixed:128K");
    for (const SegReduceProblem& q : {target, make(SegReduceOp::sum, ValueType::f16, "power-law"),
                                      make(SegReduceOp::argmin, ValueType::i16),
                                      make(SegReduceOp::min, ValueType::i8)}) {
      const auto parsed = Problem::parse(q.key());
      REQUIRE(parsed.has_value());
      CHECK(*parsed == Problem(q));
    }
    // Results: a KeyValuePair<int, T> of 8 bytes (value at byte 4) for every narrow T; min/max the type itself; sums
    // the accumulator.
    for (ValueType t : narrow_value_types()) {
      CHECK(make(SegReduceOp::argmin, t).result_bytes() == 8);
      CHECK(make(SegReduceOp::argmax, t).result_bytes() == 8);
    }
    CHECK(make(SegReduceOp::min, ValueType::f16).result_bytes() == 2);
    CHECK(make(SegReduceOp::max, ValueType::bf16).result_bytes() == 2);
    CHECK(make(SegReduceOp::max, ValueType::i8).result_bytes() == 1);
    CHECK(make(SegReduceOp::min, ValueType::i16).result_bytes() == 2);
    CHECK(make(SegReduceOp::sum, ValueType::bf16).result_bytes() == 4);
    CHECK(make(SegReduceOp::sum, ValueType::i16).result_bytes() == 8);
    // The reduce family's rules: sums accumulate in 32 or 64 bits of the same kind; min/max in their own type.
    auto with_acc = [](SegReduceOp op, ValueType t, ValueType acc) {
      SegReduceProblem p = make(op, t);
      p.accumulator = acc;
      return p;
    };
    CHECK_NOTHROW(with_acc(SegReduceOp::sum, ValueType::bf16, ValueType::f64).validate());
    CHECK_NOTHROW(with_acc(SegReduceOp::sum, ValueType::i8, ValueType::i32).validate());
    CHECK_THROWS_WITH_AS(with_acc(SegReduceOp::sum, ValueType::f16, ValueType::f16).validate(),
                         doctest::Contains("32 or 64 bits"), UsageError);
    CHECK_THROWS_AS(with_acc(SegReduceOp::sum, ValueType::i16, ValueType::f32).validate(), UsageError);
    CHECK_THROWS_AS(with_acc(SegReduceOp::max, ValueType::bf16, ValueType::f32).validate(), UsageError);
    CHECK_THROWS_WITH_AS(with_acc(SegReduceOp::argmax, ValueType::bf16, ValueType::f32).validate(),
                         doctest::Contains("no accumulator"), UsageError);
    // The CLI's options take them.
    const KernelFamily& f = family_named("segreduce");
    CHECK(f.make_problem({{"n", "536870912"}, {"dist", "fixed:128K"}, {"op", "argmax"}, {"type", "bf16"}}).key() ==
          target.key());
    CHECK_THROWS_WITH_AS(f.make_problem({{"n", "1K"}, {"type", "u8"}}), doctest::Contains("bf16"), UsageError);
  }

  TEST_CASE("the preamble of a bf16 argmax: the half's bits in, float arithmetic, CUB's empty value, 8-byte pairs") {
    const SegReduceProblem p = make(SegReduceOp::argmax, ValueType::bf16);
    const std::string src = kernel_source(p, SegReduceConfig::fallback(p));
    for (const char* line : {"typedef unsigned short in_t;", "typedef float work_t;", "kStorage = Storage::bf16;",
                             "kArgEmptyBits = 0xff7fULL;", "kIdentityBits = 0xff800000ULL;", "kResultBytes = 8;"})
      CHECK_MESSAGE(src.find(line) != std::string::npos, line);
    const SegReduceProblem m = make(SegReduceOp::min, ValueType::f16);
    const std::string msrc = kernel_source(m, SegReduceConfig::fallback(m));
    for (const char* line : {"typedef unsigned short acc_t;", "typedef float work_t;", "kStorage = Storage::f16;",
                             "kNaNBits = 0x7e00ULL;", "kIdentityBits = 0x7f800000ULL;", "kResultBytes = 2;"})
      CHECK_MESSAGE(msrc.find(line) != std::string::npos, line);
    const SegReduceProblem i = make(SegReduceOp::max, ValueType::i8);
    const std::string isrc = kernel_source(i, SegReduceConfig::fallback(i));
    for (const char* line : {"typedef signed char in_t;", "typedef int work_t;", "kIdentityBits = 0xffffff80ULL;"})
      CHECK_MESSAGE(isrc.find(line) != std::string::npos, line);
    CHECK(kernel_source(make(SegReduceOp::argmin, ValueType::f16), SegReduceConfig::fallback(p))
              .find("kArgEmptyBits = 0x7bffULL;") != std::string::npos);
  }

  TEST_CASE("the reference of halves: argmin/argmax as float with the element's own bits, NaN first, -0 == +0 to the "
            "smaller index, CUB's empty values; sums in f32; min/max exact with the canonical NaN") {
    // bf16 bits: 1.0 0x3f80, 2.0 0x4000, -1.0 0xbf80, -0.0 0x8000, +0.0 0x0000, NaN 0x7fc1 (a payload), 0.5 0x3f00.
    const std::vector<std::uint16_t> b{0x3f80, 0x4000, 0xbf80, 0x4000,   // [0,4): max 2.0 at 1 (and 3), min -1 at 2
                                       0x8000, 0x0000, 0xbf80, 0x0000,   // [4,8): max -0.0 at 4 (== +0.0 at 5)
                                       0x3f00, 0x7fc1, 0x7fc0, 0x4000};  // [8,12): the NaN at 9 wins both
    // Segments [0,4), [4,8), [8,12), [2,2) empty, [6,7) one element.
    const std::vector<int> begin{0, 4, 8, 2, 6}, end{4, 8, 12, 2, 7};
    auto amax = reference_segreduce(make(SegReduceOp::argmax, ValueType::bf16), b.data(), begin.data(), end.data(), 5);
    auto amin = reference_segreduce(make(SegReduceOp::argmin, ValueType::bf16), b.data(), begin.data(), end.data(), 5);
    CHECK(amax.key == std::vector<int>{1, 0, 1, 1, 0});
    CHECK(amax.bits == std::vector<std::uint64_t>{0x4000, 0x8000, 0x7fc1, 0xff7f, 0xbf80});
    CHECK(amin.key == std::vector<int>{2, 2, 1, 1, 0});
    CHECK(amin.bits == std::vector<std::uint64_t>{0xbf80, 0xbf80, 0x7fc1, 0x7f7f, 0xbf80});
    // The comparison reads the value at byte 4 of each 8-byte pair.
    std::vector<unsigned char> got(5 * 8, 0);
    auto put = [&](int s, int key, std::uint16_t bits) {
      std::memcpy(&got[s * 8], &key, 4);
      std::memcpy(&got[s * 8 + 4], &bits, 2);
    };
    put(0, 1, 0x4000), put(1, 0, 0x8000), put(2, 1, 0x7fc1), put(3, 1, 0xff7f), put(4, 0, 0xbf80);
    CHECK(compare_segreduce(make(SegReduceOp::argmax, ValueType::bf16), amax, got.data()) == "");
    put(1, 0, 0x0000);  // +0.0 where the element was -0.0: the wrong bits
    CHECK(compare_segreduce(make(SegReduceOp::argmax, ValueType::bf16), amax, got.data()).find("segment 1") !=
          std::string::npos);

    // f16: the empty values are 0x7bff (argmin) and 0xfbff (argmax); 1.0 0x3c00, -2.0 0xc000, NaN 0x7e00.
    const std::vector<std::uint16_t> h{0x3c00, 0xc000, 0x3c00};
    const std::vector<int> hb{0, 0, 3}, he{3, 0, 3};
    auto hmax = reference_segreduce(make(SegReduceOp::argmax, ValueType::f16), h.data(), hb.data(), he.data(), 3);
    auto hmin = reference_segreduce(make(SegReduceOp::argmin, ValueType::f16), h.data(), hb.data(), he.data(), 3);
    CHECK(hmax.key == std::vector<int>{0, 1, 1});
    CHECK(hmax.bits == std::vector<std::uint64_t>{0x3c00, 0xfbff, 0xfbff});
    CHECK(hmin.key == std::vector<int>{1, 1, 1});
    CHECK(hmin.bits == std::vector<std::uint64_t>{0xc000, 0x7bff, 0x7bff});

    // Sums in f32: 1 + 2 - 1 + 2 = 4 and 0.5 + ... of bf16; min/max give the half, a NaN the canonical 0x7fc0.
    const std::vector<int> sb{0, 2}, se{4, 2};
    auto sum = reference_segreduce(make(SegReduceOp::sum, ValueType::bf16), b.data(), sb.data(), se.data(), 2);
    CHECK(double(sum.value[0].value) == 4.0);
    CHECK(double(sum.value[1].value) == 0.0);
    const std::vector<float> sums{4.0f, 0.0f};
    CHECK(compare_segreduce(make(SegReduceOp::sum, ValueType::bf16), sum, sums.data()) == "");
    const std::vector<float> off{4.5f, 0.0f};
    CHECK(compare_segreduce(make(SegReduceOp::sum, ValueType::bf16), sum, off.data()) != "");
    const std::vector<int> mb{0, 8, 3}, me{4, 12, 3};
    auto mx = reference_segreduce(make(SegReduceOp::max, ValueType::bf16), b.data(), mb.data(), me.data(), 3);
    const std::vector<std::uint16_t> mgot{0x4000, 0x7fc0, 0xff80};  // 2.0, the canonical NaN, -inf for the empty one
    CHECK(compare_segreduce(make(SegReduceOp::max, ValueType::bf16), mx, mgot.data()) == "");
    const std::vector<std::uint16_t> mwrong{0x4000, 0x7fc0, 0xff7f};  // lowest() is CUB's argmax value, not max's
    CHECK(compare_segreduce(make(SegReduceOp::max, ValueType::bf16), mx, mwrong.data()) != "");
  }

  TEST_CASE("the reference of i8 and i16: the first extreme, CUB's empty values, min/max of their own width") {
    const std::vector<std::int8_t> x{5, -128, 127, -128, 127, 3};
    const std::vector<int> begin{0, 3, 1}, end{6, 3, 2};
    auto amin = reference_segreduce(make(SegReduceOp::argmin, ValueType::i8), x.data(), begin.data(), end.data(), 3);
    auto amax = reference_segreduce(make(SegReduceOp::argmax, ValueType::i8), x.data(), begin.data(), end.data(), 3);
    CHECK(amin.key == std::vector<int>{1, 1, 0});
    CHECK(amin.bits == std::vector<std::uint64_t>{0x80, 0x7f, 0x80});
    CHECK(amax.key == std::vector<int>{2, 1, 0});
    CHECK(amax.bits == std::vector<std::uint64_t>{0x7f, 0x80, 0x80});
    const std::vector<std::int16_t> y{-7, 300, -7, 300};
    const std::vector<int> yb{0, 4}, ye{4, 4};
    auto ymin = reference_segreduce(make(SegReduceOp::argmin, ValueType::i16), y.data(), yb.data(), ye.data(), 2);
    auto ymax = reference_segreduce(make(SegReduceOp::argmax, ValueType::i16), y.data(), yb.data(), ye.data(), 2);
    CHECK(ymin.key == std::vector<int>{0, 1});
    CHECK(ymin.bits == std::vector<std::uint64_t>{0xfff9, 0x7fff});
    CHECK(ymax.key == std::vector<int>{1, 1});
    CHECK(ymax.bits == std::vector<std::uint64_t>{300, 0x8000});
    // min of i8 writes one byte; a sum of i16 8 bytes (i64).
    auto mn = reference_segreduce(make(SegReduceOp::min, ValueType::i8), x.data(), begin.data(), end.data(), 3);
    const std::vector<std::int8_t> mgot{-128, 127, -128};  // the empty segment: min's identity, the largest i8
    CHECK(compare_segreduce(make(SegReduceOp::min, ValueType::i8), mn, mgot.data()) == "");
    auto sum = reference_segreduce(make(SegReduceOp::sum, ValueType::i16), y.data(), yb.data(), ye.data(), 2);
    const std::vector<std::int64_t> sgot{586, 0};
    CHECK(compare_segreduce(make(SegReduceOp::sum, ValueType::i16), sum, sgot.data()) == "");
  }
}

TEST_SUITE("nvrtc_segreduce") {
  TEST_CASE("f32 sum (int offsets), f32 argmin (int64 offsets), and f16, bf16, i8, i16 with sum, min, max, argmin and "
            "argmax: one pairwise covering of the 22 problems' joint space compiles for sm_90 (every variant under "
            "nvrtc_full)") {
    // compile_all_joint compiles a subset in which every pair of a problem's value (type, operation, offsets) and a
    // configuration value, or of two configuration values, occurs, every problem at least once (every variant in
    // nvrtc_full, tests/cpu/nvrtc_fixtures.hpp); bench/segreduce_bench and the GPU suite compile the whole spaces.
    SegReduceProblem wide = make(SegReduceOp::argmin, ValueType::f32);
    wide.offset_bits = 64;
    std::vector<SegReduceProblem> problems{make(SegReduceOp::sum, ValueType::f32), wide};
    for (ValueType t : narrow_value_types())
      for (SegReduceOp op : {SegReduceOp::sum, SegReduceOp::min, SegReduceOp::max, SegReduceOp::argmin,
                             SegReduceOp::argmax})
        problems.push_back(make(op, t));
    std::vector<std::vector<SegReduceConfig>> spaces;
    for (const SegReduceProblem& p : problems) spaces.push_back(segreduce_space(p));
    const std::string failures = test::compile_all_joint(problems, spaces, "sm_90",
                                                         {kSegReduceKernelName, kSegReduceLongKernelName});
    CHECK_MESSAGE(failures == "", failures);
  }
  TEST_CASE("the fallback, a block per segment and one-element loads compile for sm_90 for every type and operation: "
            "one pairwise covering of the problems' joint space (each type and each operation with each of the three, "
            "every problem at least once; all three for every problem under nvrtc_full)") {
    std::vector<SegReduceProblem> problems;
    std::vector<std::vector<SegReduceConfig>> spaces;
    std::vector<ValueType> types = all_value_types();
    types.insert(types.end(), narrow_value_types().begin(), narrow_value_types().end());
    for (ValueType t : types)
      for (SegReduceOp op : {SegReduceOp::sum, SegReduceOp::min, SegReduceOp::max, SegReduceOp::argmin,
                             SegReduceOp::argmax}) {
        problems.push_back(make(op, t));
        // The fallback (two launches), a block per segment (one launch), and one element per load.
        spaces.push_back({SegReduceConfig::fallback(problems.back()), SegReduceConfig{256, 256, 0, 16, 4, 16384},
                          SegReduceConfig{128, 1, 32, 0, 4, 1024}});
      }
    const std::string failures = test::compile_all_joint(problems, spaces, "sm_90");
    CHECK_MESSAGE(failures == "", failures);
  }
}
