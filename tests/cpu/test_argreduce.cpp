// Arg-reductions without a GPU: problem keys, the family's parse and CLI options, configuration keys and validity,
// the search space, the launch plan, the input generator and the CPU reference (ties, NaN, signed zeros, empty input,
// the first index); then NVRTC compiles a pairwise-covering subset of each space, every variant under nvrtc_full (suite
// nvrtc_argreduce). Expected values are worked out by hand here, never taken from the code under test.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "autotune/argreduce_problem.hpp"
#include "autotune/error.hpp"
#include "core/family.hpp"
#include "kernel_templates/argreduce/launcher.hpp"
#include "kernel_templates/argreduce/reference.hpp"
#include "kernel_templates/argreduce/space.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"

using namespace autotune;

namespace {

ArgReduceProblem make(ArgOp op, ValueType t, std::uint64_t n = 0, const char* dist = "uniform") {
  ArgReduceProblem p;
  p.op = op, p.type = t, p.n = n, p.distribution = dist;
  return p;
}

template <class T>
ArgExpected reference(ArgOp op, const std::vector<T>& v) {
  constexpr ValueType t = std::is_same_v<T, float>          ? ValueType::f32
                          : std::is_same_v<T, double>       ? ValueType::f64
                          : std::is_same_v<T, std::int32_t> ? ValueType::i32
                          : std::is_same_v<T, std::uint32_t> ? ValueType::u32
                          : std::is_same_v<T, std::int64_t> ? ValueType::i64
                                                            : ValueType::u64;
  return reference_argreduce(make(op, t), v.data(), v.size());
}

std::uint64_t fbits(float f) { return std::bit_cast<std::uint32_t>(f); }
std::uint64_t dbits(double d) { return std::bit_cast<std::uint64_t>(d); }

DeviceInfo h100_like() {
  DeviceInfo d;
  d.name = "test";
  d.cc_major = 9, d.cc_minor = 0, d.sm_count = 132, d.max_threads_per_block = 1024;
  d.shared_per_block_optin = 227 * 1024;
  return d;
}

const float kNaNF = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfF = std::numeric_limits<float>::infinity();

}  // namespace

TEST_SUITE("argreduce") {
  TEST_CASE("problem keys name the operation, the type, n and the distribution, and parse back through the registry") {
    const ArgReduceProblem p = make(ArgOp::argmax, ValueType::f32, 1 << 20);
    CHECK(p.key() == "argreduce/argmax/f32/n=1048576/dist=uniform");
    CHECK(p.shape_key() == "argreduce/argmax/f32/dist=uniform");
    CHECK(make(ArgOp::argmin, ValueType::u64, 7, "skewed").key() == "argreduce/argmin/u64/n=7/dist=skewed");
    CHECK(p.bytes() == 4ull << 20);
    CHECK(make(ArgOp::argmin, ValueType::f64, 1000).bytes() == 8000);
    for (ArgOp op : {ArgOp::argmin, ArgOp::argmax})
      for (ValueType t : all_value_types())
        for (const char* d : {"uniform", "constant", "sorted", "skewed"}) {
          const ArgReduceProblem q = make(op, t, 12345, d);
          const auto parsed = Problem::parse(q.key());
          REQUIRE(parsed);
          REQUIRE(parsed->as<ArgReduceProblem>());
          CHECK(*parsed->as<ArgReduceProblem>() == q);
          CHECK(parsed->family_name() == "argreduce");
        }
    for (const char* bad : {"argreduce/argmax/f32/n=10", "argreduce/max/f32/n=10/dist=uniform",
                            "argreduce/argmax/f16/n=10/dist=uniform", "argreduce/argmax/f32/n=x/dist=uniform",
                            "argreduce/argmax/f32/n=10/dist=zipf", "argreduce/argmax/f32/n=10/dist=uniform/acc=f32",
                            "argreduce/argmax/f32/dist=uniform/n=10"})
      CHECK_MESSAGE(!Problem::parse(bad), bad);
    CHECK_THROWS_AS(make(ArgOp::argmax, ValueType::f32, 10, "zipf").validate(), UsageError);
  }

  TEST_CASE("the family is registered, takes --op and --type, and names its problems on a command line") {
    const KernelFamily* f = find_family("argreduce");
    REQUIRE(f);
    ProblemOptions o{{"op", "argmin"}, {"type", "i64"}, {"n", "64K"}, {"dist", "sorted"}};
    const Problem p = f->make_problem(o);
    CHECK(p.key() == "argreduce/argmin/i64/n=65536/dist=sorted");
    CHECK(f->command_options(p) == "--op argmin --type i64");
    CHECK_THROWS_WITH_AS(f->make_problem({{"type", "f32"}, {"n", "1M"}}), doctest::Contains("--op is required"),
                         UsageError);
    CHECK_THROWS_WITH_AS(f->make_problem({{"op", "max"}, {"type", "f32"}, {"n", "1M"}}),
                         doctest::Contains("unknown operation 'max'"), UsageError);
    CHECK_THROWS_WITH_AS(f->make_problem({{"op", "argmax"}, {"type", "u8"}, {"n", "1M"}}),
                         doctest::Contains("unknown type 'u8'"), UsageError);
    // Another operation of the same type and distribution is a near shape; another type is none.
    const ArgReduceProblem a = make(ArgOp::argmax, ValueType::f32, 100), b = make(ArgOp::argmin, ValueType::f32, 100);
    CHECK(f->shape_distance(a, a) == 0.0);
    CHECK(f->shape_distance(a, b) == 1.0);
    CHECK(!f->shape_distance(a, make(ArgOp::argmax, ValueType::f64, 100)));
    // The standard preset: f32, f64 and i32, both operations, four sizes.
    CHECK(f->preset_problems("standard").size() == 24);
    CHECK(f->launches(ArgReduceConfig{}) == 1);
    ArgReduceConfig two;
    two.finish = Finish::two_pass;
    CHECK(f->launches(two) == 2);
  }

  TEST_CASE("configuration keys print and parse back; anything else does not parse") {
    ArgReduceConfig c;
    CHECK(c.key() == "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0");
    c.block_reduce = BlockReduce::shared_tree, c.block = 1024, c.vec_bytes = 0, c.loads = 8, c.accumulators = 4;
    c.finish = Finish::two_pass, c.grid_blocks = -1;
    CHECK(c.key() == "red=shared_tree,block=1024,vec=0,loads=8,acc=4,finish=two_pass,grid=-1");
    REQUIRE(ArgReduceConfig::parse(c.key()));
    CHECK(*ArgReduceConfig::parse(c.key()) == c);
    // Packed keys: ",pack=u64" after the grid, only when set (the pair variants' keys are those cached before).
    ArgReduceConfig packed;
    packed.block_reduce = BlockReduce::warp_reduce, packed.pack = true, packed.grid_blocks = 16;
    CHECK(packed.key() == "red=warp_reduce,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=16,pack=u64");
    REQUIRE(ArgReduceConfig::parse(packed.key()));
    CHECK(*ArgReduceConfig::parse(packed.key()) == packed);
    CHECK_FALSE(ArgReduceConfig::parse(ArgReduceConfig{}.key())->pack);
    for (const char* bad : {"red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0,pack=1",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0,pack=",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,pack=u64",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=atomic,grid=0",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block",
                            "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0,x=1",
                            "red=warp_shuffle,block=-5,vec=16,loads=2,acc=1,finish=last_block,grid=0", ""})
      CHECK_MESSAGE(!ArgReduceConfig::parse(bad), bad);
    CHECK(Config::parse("argreduce", ArgReduceConfig{}.key()));
  }

  TEST_CASE("invalid configurations say why; the fallback is valid for every problem") {
    const ArgReduceProblem f64 = make(ArgOp::argmax, ValueType::f64);
    auto why = [&](auto edit) {
      ArgReduceConfig c;
      edit(c);
      return c.invalid_reason(f64);
    };
    CHECK(why([](ArgReduceConfig&) {}) == "");
    CHECK(why([](ArgReduceConfig& c) { c.block = 48; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.block = 2048; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.vec_bytes = 4; }).find("narrower") != std::string::npos);
    CHECK(why([](ArgReduceConfig& c) { c.vec_bytes = 12; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.loads = 17; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.accumulators = 3; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 2; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.finish = Finish::atomic; }).find("no atomic finish") != std::string::npos);
    CHECK(why([](ArgReduceConfig& c) { c.block_reduce = BlockReduce::warp_reduce; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 1, c.finish = Finish::two_pass; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 8; }) == "");  // one cluster of 8 blocks
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 8, c.finish = Finish::two_pass; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 16; }) == "");  // one cluster of 16 (non-portable)
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 16, c.finish = Finish::two_pass; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 12; }) != "");
    CHECK(why([](ArgReduceConfig& c) { c.grid_blocks = 32; }) != "");
    // Packed keys: 32-bit types only, warp_shuffle or warp_reduce, the last-block finish.
    CHECK(why([](ArgReduceConfig& c) { c.pack = true; }).find("32-bit") != std::string::npos);  // f64
    auto why32 = [](ValueType t, auto edit) {
      ArgReduceConfig c;
      c.pack = true;
      edit(c);
      return c.invalid_reason(make(ArgOp::argmin, t));
    };
    for (ValueType t : {ValueType::f32, ValueType::i32, ValueType::u32}) {
      CHECK(why32(t, [](ArgReduceConfig&) {}) == "");
      CHECK(why32(t, [](ArgReduceConfig& c) { c.block_reduce = BlockReduce::warp_reduce; }) == "");
      CHECK(why32(t, [](ArgReduceConfig& c) { c.block_reduce = BlockReduce::warp_reduce, c.grid_blocks = 8; }) == "");
      CHECK(why32(t, [](ArgReduceConfig& c) { c.block_reduce = BlockReduce::shared_tree; }) != "");
      CHECK(why32(t, [](ArgReduceConfig& c) { c.finish = Finish::two_pass; }) != "");
    }
    for (ValueType t : {ValueType::i64, ValueType::u64, ValueType::f64})
      CHECK(why32(t, [](ArgReduceConfig&) {}) != "");
    for (ArgOp op : {ArgOp::argmin, ArgOp::argmax})
      for (ValueType t : all_value_types()) CHECK(ArgReduceConfig::fallback(make(op, t)).invalid_reason(make(op, t)) == "");
  }

  TEST_CASE("the space: the fallback first, every configuration valid and distinct, small-n paths only up to 1M") {
    for (ValueType t : all_value_types()) {
      const auto small = argreduce_space(make(ArgOp::argmax, t, 1 << 20));
      const auto large = argreduce_space(make(ArgOp::argmax, t, (1 << 20) + 1));
      REQUIRE(!small.empty());
      CHECK(small.front() == ArgReduceConfig::fallback(make(ArgOp::argmax, t)));
      CHECK(large.front() == small.front());
      std::set<std::string> keys;
      for (const auto& c : small) {
        CHECK(c.invalid_reason(make(ArgOp::argmax, t)) == "");
        keys.insert(c.key());
      }
      CHECK(keys.size() == small.size());
      int single = 0, cluster = 0, cluster16 = 0, packed = 0, packed_large = 0, redux = 0;
      for (const auto& c : small) {
        single += c.grid_blocks == 1, cluster += c.grid_blocks == 8, cluster16 += c.grid_blocks == 16;
        packed += c.pack, redux += c.block_reduce == BlockReduce::warp_reduce;
      }
      for (const auto& c : large) packed_large += c.pack;
      CHECK(single >= 10);
      CHECK(cluster >= 6);
      CHECK(cluster16 >= 4);
      if (size_of(t) == 4) {  // packed keys on every grid, the finish of the last block by atomicMax above 1M too
        CHECK(packed >= 25);
        CHECK(packed_large >= 15);
        CHECK(redux >= 15);
      } else {
        CHECK(packed == 0);
        CHECK(redux == 0);
      }
      for (const auto& c : large) CHECK((c.grid_blocks != 1 && c.grid_blocks != 8 && c.grid_blocks != 16));
      CHECK(large.size() >= 40);
      CHECK(small.size() <= 140);
      for (const auto& c : small) CHECK(argreduce_constraint_violation(make(ArgOp::argmax, t), c, h100_like()) == "");
    }
    DeviceInfo tiny = h100_like();
    tiny.max_threads_per_block = 512;
    ArgReduceConfig big;
    big.block = 1024;
    CHECK(argreduce_constraint_violation(make(ArgOp::argmax, ValueType::f32), big, tiny).find("threads") !=
          std::string::npos);
    DeviceInfo ampere = h100_like();
    ampere.cc_major = 8;
    ArgReduceConfig cluster;
    cluster.grid_blocks = 8;
    CHECK(argreduce_constraint_violation(make(ArgOp::argmax, ValueType::f32), cluster, ampere).find("sm_90") !=
          std::string::npos);
    CHECK(argreduce_constraint_violation(make(ArgOp::argmax, ValueType::f32), cluster, h100_like()) == "");
    cluster.grid_blocks = 16;
    CHECK(argreduce_constraint_violation(make(ArgOp::argmax, ValueType::f32), cluster, ampere).find("sm_90") !=
          std::string::npos);
    CHECK(argreduce_constraint_violation(make(ArgOp::argmax, ValueType::f32), cluster, h100_like()) == "");
    ArgReduceConfig redux;
    redux.pack = true, redux.block_reduce = BlockReduce::warp_reduce;
    DeviceInfo turing = h100_like();
    turing.cc_major = 7, turing.cc_minor = 5;
    CHECK(argreduce_constraint_violation(make(ArgOp::argmax, ValueType::f32), redux, turing).find("sm_80") !=
          std::string::npos);
    CHECK(argreduce_constraint_violation(make(ArgOp::argmax, ValueType::f32), redux, ampere) == "");
  }

  TEST_CASE("the launch plan: one block, cover-n grids, resident grids, and the second launch of two passes") {
    const ArgReduceProblem p = make(ArgOp::argmax, ValueType::f32);
    ArgReduceConfig c;  // 256 threads x 2 loads x 4 floats = 2048 elements per block
    CHECK(plan_argreduce_launch(p, c, 0, 264).grid == 1);
    CHECK(plan_argreduce_launch(p, c, 2048, 264).grid == 1);
    CHECK(plan_argreduce_launch(p, c, 2049, 264).grid == 2);
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 264);
    CHECK_FALSE(plan_argreduce_launch(p, c, 1ull << 30, 264).finish_launch);
    c.grid_blocks = -1;
    // 2^30 / 2048 = 2^19 tiles, capped at 64K blocks: 64K partials of 16 bytes, the workspace's 1 MiB.
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 65536);
    CHECK(plan_argreduce_launch(p, c, 100 * 2048, 264).grid == 100);
    c.finish = Finish::two_pass;
    CHECK(plan_argreduce_launch(p, c, 100 * 2048, 264).finish_launch);
    CHECK_FALSE(plan_argreduce_launch(p, c, 2048, 264).finish_launch);  // one block writes its own result
    c = ArgReduceConfig{};
    c.grid_blocks = 1;
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 1);
    c.grid_blocks = 8;  // one cluster of 8 blocks, whatever n
    CHECK(plan_argreduce_launch(p, c, 0, 264).grid == 8);
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 8);
    c.grid_blocks = 16;  // one cluster of 16 blocks, whatever n
    CHECK(plan_argreduce_launch(p, c, 0, 264).grid == 16);
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 16);
    // Packed keys change no grid: a resident grid is still at most the resident blocks.
    c = ArgReduceConfig{};
    c.pack = true, c.block_reduce = BlockReduce::warp_reduce;
    CHECK(plan_argreduce_launch(p, c, 2049, 264).grid == 2);
    CHECK(plan_argreduce_launch(p, c, 1ull << 30, 264).grid == 264);
    CHECK_FALSE(plan_argreduce_launch(p, c, 1ull << 30, 264).finish_launch);
    // f64 with 16-byte loads: 2 elements per load, 1024 per block.
    const ArgReduceProblem d = make(ArgOp::argmax, ValueType::f64);
    CHECK(plan_argreduce_launch(d, ArgReduceConfig{}, 1025, 264).grid == 2);
  }

  TEST_CASE("the reference: the first index of the extreme, ties by ==") {
    const std::vector<std::int32_t> v{3, 9, -4, 9, 1, -4};
    CHECK(reference(ArgOp::argmax, v).index == 1);
    CHECK(reference(ArgOp::argmax, v).value_bits == 9);
    CHECK(reference(ArgOp::argmin, v).index == 2);
    CHECK(reference(ArgOp::argmin, v).value_bits == static_cast<std::uint32_t>(-4));
    const std::vector<std::uint64_t> u{5, 5, 5};
    CHECK(reference(ArgOp::argmax, u).index == 0);
    CHECK(reference(ArgOp::argmin, u).index == 0);
    // The integer extremes themselves.
    const std::vector<std::int64_t> e{0, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                                      std::numeric_limits<std::int64_t>::min()};
    CHECK(reference(ArgOp::argmin, e).index == 1);
    CHECK(reference(ArgOp::argmax, e).index == 2);
    CHECK(reference(ArgOp::argmax, e).value_bits == 0x7FFFFFFFFFFFFFFFull);
    // Every element the lowest value: index 0.
    const std::vector<std::uint32_t> zeros(10, 0u);
    CHECK(reference(ArgOp::argmax, zeros).index == 0);
    const std::vector<float> neg_inf(5, -kInfF);
    CHECK(reference(ArgOp::argmax, neg_inf).index == 0);
    CHECK(reference(ArgOp::argmax, neg_inf).value_bits == 0xFF800000u);
  }

  TEST_CASE("the reference: -0.0 equals +0.0 (the first wins, its sign kept); NaN is the first NaN for both ops") {
    const std::vector<float> z{-1.0f, -0.0f, 0.0f, -2.0f};
    CHECK(reference(ArgOp::argmax, z).index == 1);
    CHECK(reference(ArgOp::argmax, z).value_bits == 0x80000000u);
    const std::vector<float> z2{1.0f, 0.0f, -0.0f, 2.0f};
    CHECK(reference(ArgOp::argmin, z2).index == 1);
    CHECK(reference(ArgOp::argmin, z2).value_bits == 0u);
    std::vector<float> n{1.0f, kInfF, -kInfF, kNaNF, 5.0f, -kNaNF};
    CHECK(reference(ArgOp::argmax, n).index == 3);
    CHECK(reference(ArgOp::argmin, n).index == 3);
    CHECK(reference(ArgOp::argmax, n).value_bits == fbits(kNaNF));
    n[0] = -kNaNF;  // a NaN first, with its sign bit: its own bits come back
    CHECK(reference(ArgOp::argmin, n).index == 0);
    CHECK(reference(ArgOp::argmin, n).value_bits == fbits(-kNaNF));
    const std::vector<double> d{2.0, -std::numeric_limits<double>::infinity(), 7.5, 7.5};
    CHECK(reference(ArgOp::argmax, d).index == 2);
    CHECK(reference(ArgOp::argmax, d).value_bits == dbits(7.5));
    CHECK(reference(ArgOp::argmin, d).index == 1);
  }

  TEST_CASE("the reference: an empty input gives CUB's {1, lowest()} for argmax and {1, max()} for argmin") {
    CHECK(reference(ArgOp::argmax, std::vector<float>{}).index == 1);
    CHECK(reference(ArgOp::argmax, std::vector<float>{}).value_bits == fbits(-std::numeric_limits<float>::max()));
    CHECK(reference(ArgOp::argmin, std::vector<float>{}).value_bits == fbits(std::numeric_limits<float>::max()));
    CHECK(reference(ArgOp::argmin, std::vector<double>{}).value_bits == dbits(std::numeric_limits<double>::max()));
    CHECK(reference(ArgOp::argmax, std::vector<std::int32_t>{}).value_bits == 0x80000000u);
    CHECK(reference(ArgOp::argmin, std::vector<std::uint64_t>{}).value_bits == ~0ull);
    CHECK(reference(ArgOp::argmin, std::vector<std::uint64_t>{}).index == 1);
  }

  TEST_CASE("compare_argreduce: exact value bits and index, and a readable difference") {
    const ArgReduceProblem p = make(ArgOp::argmax, ValueType::f32);
    unsigned char got[16] = {};
    const float v = 0.0f;
    std::uint64_t i = 7;
    std::memcpy(got, &v, 4);
    std::memcpy(got + 8, &i, 8);
    CHECK(compare_argreduce(p, ArgExpected{0u, 7}, got) == "");
    CHECK(compare_argreduce(p, ArgExpected{0x80000000u, 7}, got) != "");  // -0.0 is not +0.0 bit for bit
    const std::string diff = compare_argreduce(p, ArgExpected{0u, 8}, got);
    CHECK(diff.find("index 8") != std::string::npos);
    CHECK(diff.find("index 7") != std::string::npos);
  }

  TEST_CASE("the generator: reproducible, each distribution as documented") {
    const std::uint64_t n = 10000;
    for (ValueType t : all_value_types())
      for (const char* d : {"uniform", "constant", "sorted", "skewed"}) {
        const ArgReduceProblem p = make(ArgOp::argmax, t, n, d);
        const auto a = generate_arg_values(p, n, 3), b = generate_arg_values(p, n, 3);
        CHECK(a.size() == n * size_of(t));
        CHECK(a == b);
      }
    const auto c = generate_arg_values(make(ArgOp::argmax, ValueType::f32, n, "constant"), n, 4);
    CHECK(reference_argreduce(make(ArgOp::argmax, ValueType::f32), c.data(), n).index == 0);
    const auto s = generate_arg_values(make(ArgOp::argmin, ValueType::i32, n, "sorted"), n, 5);
    std::vector<std::int32_t> sv(n);
    std::memcpy(sv.data(), s.data(), s.size());
    CHECK(std::is_sorted(sv.begin(), sv.end()));
    const auto u = generate_arg_values(make(ArgOp::argmax, ValueType::f32, n), n, 6);
    std::vector<float> uv(n);
    std::memcpy(uv.data(), u.data(), u.size());
    for (float x : uv) CHECK((x >= -1.0f && x < 1.0f));
    // The skewed walk drifts upward: its maximum is in the second half, its minimum in the first.
    const auto w = generate_arg_values(make(ArgOp::argmax, ValueType::f64, n, "skewed"), n, 7);
    CHECK(reference_argreduce(make(ArgOp::argmax, ValueType::f64), w.data(), n).index > n / 2);
    CHECK(reference_argreduce(make(ArgOp::argmin, ValueType::f64), w.data(), n).index < n / 2);
  }
}

TEST_SUITE("nvrtc_argreduce") {
  TEST_CASE("the preamble carries the type, the operation's identity and CUB's empty values") {
    std::string src = kernel_source(make(ArgOp::argmax, ValueType::f32), ArgReduceConfig{});
    CHECK(src.find("typedef float in_t;") != std::string::npos);
    CHECK(src.find("constexpr bool kArgMax = true;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0xff800000ULL;") != std::string::npos);  // -inf
    CHECK(src.find("constexpr unsigned long long kEmptyBits = 0xff7fffffULL;") != std::string::npos);     // -FLT_MAX
    CHECK(src.find("constexpr Finish kFinish = Finish::last_block;") != std::string::npos);
    CHECK(src.find("constexpr int kPartialsOffset = 256;") != std::string::npos);
    CHECK(src.find("constexpr int kCluster = 0;") != std::string::npos);
    CHECK(src.find("constexpr bool kPack = false;") != std::string::npos);
    CHECK(src.find("constexpr int kKeyOffset = 128;") != std::string::npos);
    ArgReduceConfig pk;
    pk.pack = true, pk.block_reduce = BlockReduce::warp_reduce, pk.grid_blocks = 16;
    const std::string packed_src = kernel_source(make(ArgOp::argmin, ValueType::i32), pk);
    CHECK(packed_src.find("constexpr bool kPack = true;") != std::string::npos);
    CHECK(packed_src.find("constexpr int kCluster = 16;") != std::string::npos);
    CHECK(packed_src.find("constexpr BlockReduce kBlockReduce = BlockReduce::warp_reduce;") != std::string::npos);
    // __reduce_max_sync refuses to compile below sm_80.
    pk.grid_blocks = 0;
    const auto turing = jit::compile(kernel_source(make(ArgOp::argmin, ValueType::i32), pk), "redux.cu", "sm_75");
    CHECK_FALSE(turing.ok);
    CHECK(turing.log.find("sm_80") != std::string::npos);
    ArgReduceConfig pk64;
    pk64.pack = true;
    CHECK_THROWS_AS(kernel_source(make(ArgOp::argmax, ValueType::f64), pk64), UsageError);
    ArgReduceConfig cl;
    cl.grid_blocks = 8;
    CHECK(kernel_source(make(ArgOp::argmax, ValueType::f32), cl).find("constexpr int kCluster = 8;") !=
          std::string::npos);
    // A cluster variant refuses to compile for an architecture without clusters.
    const auto old = jit::compile(kernel_source(make(ArgOp::argmax, ValueType::f32), cl), "cluster.cu", "sm_80");
    CHECK_FALSE(old.ok);
    CHECK(old.log.find("sm_90") != std::string::npos);
    src = kernel_source(make(ArgOp::argmin, ValueType::u32), ArgReduceConfig{});
    CHECK(src.find("typedef unsigned int in_t;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0xffffffffULL;") != std::string::npos);
    ArgReduceConfig one;
    one.vec_bytes = 0;
    src = kernel_source(make(ArgOp::argmin, ValueType::f64), one);
    CHECK(src.find("constexpr int kVecBytes = 8;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kEmptyBits = 0x7fefffffffffffffULL;") != std::string::npos);
    // The source does not depend on n.
    CHECK(kernel_source(make(ArgOp::argmax, ValueType::f32, 10), ArgReduceConfig{}) ==
          kernel_source(make(ArgOp::argmax, ValueType::f32, 1 << 28), ArgReduceConfig{}));
    ArgReduceConfig bad;
    bad.finish = Finish::atomic;
    CHECK_THROWS_AS(kernel_source(make(ArgOp::argmax, ValueType::f32), bad), UsageError);
  }

  TEST_CASE("the variants of f32 argmax, i32 argmin, u32 argmax (packed keys) and i64 argmin compile for sm_90 with "
            "both entry points (a pairwise-covering subset, every variant under nvrtc_full); the fallback of every "
            "shape too") {
    // test::coverage() of each space (n = 0: the small-n paths included): all of it in the nvrtc_full.* tests,
    // else a pairwise subset, in which every pair of parameter values (pack=u64 and the 16-block clusters with the
    // others) still meets in one compiled variant.
    for (const ArgReduceProblem& p : {make(ArgOp::argmax, ValueType::f32), make(ArgOp::argmin, ValueType::i32),
                                      make(ArgOp::argmax, ValueType::u32), make(ArgOp::argmin, ValueType::i64)}) {
      const auto space = argreduce_space(p);
      MESSAGE(p.shape_key(), ": ", test::coverage(space).size(), " of ", space.size(), " variants");
      CHECK(test::compile_all(p, space, "sm_90", {kArgReduceKernelName, kArgReduceFinishKernelName}) == "");
    }
    std::vector<ArgReduceConfig> fallback{ArgReduceConfig{}};
    for (ArgOp op : {ArgOp::argmin, ArgOp::argmax})
      for (ValueType t : all_value_types()) {
        CHECK(test::compile_all(make(op, t), fallback, "sm_90") == "");
        CHECK(test::compile_all(make(op, t), fallback, "sm_75") == "");
      }
  }
}
