// Arg-reductions without a GPU: problem keys, the family's parse and CLI options, configuration keys and validity,
// the search space, the launch plan, the input generator and the CPU reference (ties, NaN, signed zeros, empty input,
// the first index); then NVRTC compiles a pairwise-covering subset of each space, every variant under nvrtc_full (suite
// nvrtc_argreduce). Expected values are worked out by hand here, never taken from the code under test.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <random>
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

// The template's own order of pairs and packed keys (kernel_templates/argreduce/order.cuh) compiled for the host, once
// per 32-bit type and operation (the types of the packed keys), each in a namespace holding the constants the
// preamble gives it (checked against kernel_source() below). Anonymous: each test file's host copies stay its own.
#define AT_HOST_DEVICE inline
#define ARG_HOST_ORDER_CONSTANTS(NS, T, MAX, FLOAT, IDENTITY, EMPTY) \
  namespace NS::at {                                                 \
  typedef unsigned long long u64;                                    \
  typedef T in_t;                                                    \
  constexpr bool kArgMax = MAX, kIsFloat = FLOAT;                    \
  constexpr u64 kIdentityBits = IDENTITY, kEmptyBits = EMPTY;        \
  }
// What the checks below call, by the same names.
#define ARG_HOST_ORDER_API(NS, TYPE, OP)                                                                    \
  namespace NS {                                                                                            \
  struct Api {                                                                                              \
    typedef at::in_t T;                                                                                     \
    typedef at::Pair Pair;                                                                                  \
    static constexpr ValueType kType = TYPE;                                                                \
    static constexpr ArgOp kOp = OP;                                                                        \
    static constexpr unsigned long long kIdentityBits = at::kIdentityBits, kEmptyBits = at::kEmptyBits;     \
    static constexpr bool kArgMax = at::kArgMax;                                                            \
    static T identity_value() { return at::from_bits(at::kIdentityBits); }                                  \
    static Pair none() { return at::identity(); }                                                           \
    static bool better(T b, T a) { return at::better(b, a); }                                              \
    static Pair combine(Pair a, Pair b) { return at::combine(a, b); }                                       \
    static void store(unsigned char* out, Pair p, unsigned long long n) { at::store(out, p, n); }           \
    static unsigned long long pack(Pair p) { return at::pack(p); }                                          \
    static void unpack_store(unsigned char* out, unsigned long long k, const T* in, unsigned long long n) { \
      at::unpack_store(out, k, in, n);                                                                      \
    }                                                                                                       \
  };                                                                                                        \
  }
namespace {
ARG_HOST_ORDER_CONSTANTS(f32_max, float, true, true, 0xff800000ull, 0xff7fffffull)   // -inf; -FLT_MAX
ARG_HOST_ORDER_CONSTANTS(f32_min, float, false, true, 0x7f800000ull, 0x7f7fffffull)  // +inf; FLT_MAX
ARG_HOST_ORDER_CONSTANTS(i32_max, int, true, false, 0x80000000ull, 0x80000000ull)    // INT_MIN
ARG_HOST_ORDER_CONSTANTS(i32_min, int, false, false, 0x7fffffffull, 0x7fffffffull)   // INT_MAX
ARG_HOST_ORDER_CONSTANTS(u32_max, unsigned int, true, false, 0ull, 0ull)
ARG_HOST_ORDER_CONSTANTS(u32_min, unsigned int, false, false, 0xffffffffull, 0xffffffffull)
namespace f32_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace f32_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i32_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace i32_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace u32_max::at {
#include "kernel_templates/argreduce/order.cuh"
}
namespace u32_min::at {
#include "kernel_templates/argreduce/order.cuh"
}
ARG_HOST_ORDER_API(f32_max, ValueType::f32, ArgOp::argmax)
ARG_HOST_ORDER_API(f32_min, ValueType::f32, ArgOp::argmin)
ARG_HOST_ORDER_API(i32_max, ValueType::i32, ArgOp::argmax)
ARG_HOST_ORDER_API(i32_min, ValueType::i32, ArgOp::argmin)
ARG_HOST_ORDER_API(u32_max, ValueType::u32, ArgOp::argmax)
ARG_HOST_ORDER_API(u32_min, ValueType::u32, ArgOp::argmin)

// Values that meet the order's corners often: both zeros, NaNs of other signs and payloads, infinities, the
// denormals, the extremes, the identity, and a few small numbers that tie.
template <class T>
T interesting_value(std::mt19937_64& rng) {
  const int pick = static_cast<int>(rng() % 16);
  if constexpr (std::is_floating_point_v<T>) {
    switch (pick) {
      case 0: return 0.0f;
      case 1: return -0.0f;
      case 2: return std::bit_cast<float>(0x7FC00000u | static_cast<std::uint32_t>(rng() % 0x3FFFFF));  // NaN payloads
      case 3: return std::bit_cast<float>(0xFFC00000u | static_cast<std::uint32_t>(rng() % 0x3FFFFF));  // negative NaN
      case 4: return kInfF;
      case 5: return -kInfF;
      case 6: return std::numeric_limits<float>::denorm_min() * static_cast<float>(rng() % 3 + 1);
      case 7: return -std::numeric_limits<float>::denorm_min();
      case 8: return std::numeric_limits<float>::max();
      case 9: return std::numeric_limits<float>::lowest();
      default: return static_cast<float>(static_cast<int>(rng() % 7) - 3) * 0.5f;
    }
  } else {
    switch (pick) {
      case 0: return std::numeric_limits<T>::max();
      case 1: return std::numeric_limits<T>::lowest();
      case 2: return static_cast<T>(rng());
      default: return static_cast<T>(rng() % 5);
    }
  }
}

// One input as the kernel splits it: a scalar head (before the first 16-byte-aligned element) and tail taken with
// combine() at their indices, the vectors between dealt to `threads` threads in interleaved tiles, each thread
// scanning its elements in index order into `acc` accumulators with better() (strictly better only, the index of the
// first), as argreduce.cu's loops do. Returns each thread's candidate (its accumulators and its edge combined).
template <class Api>
std::vector<typename Api::Pair> thread_candidates(const std::vector<typename Api::T>& v, std::uint64_t head,
                                                  std::uint64_t threads, int acc) {
  typedef typename Api::Pair Pair;
  constexpr std::uint64_t kElems = 4;  // 16-byte vectors of 4-byte values
  const std::uint64_t n = v.size(), nvec = (n - head) / kElems, tail = head + nvec * kElems;
  std::vector<Pair> out;
  for (std::uint64_t t = 0; t < threads; ++t) {
    Pair edge = Api::none();
    if (t < head) edge = Api::combine(edge, Pair{v[t], t});
    if (t < n - tail) edge = Api::combine(edge, Pair{v[tail + t], tail + t});
    std::vector<Pair> best(acc, Api::none());
    int taken = 0;  // the accumulator is chosen by the element's position in the thread's sequence
    for (std::uint64_t j = t; j < nvec; j += threads)
      for (std::uint64_t e = 0; e < kElems; ++e, ++taken) {
        Pair& b = best[taken % acc];
        const std::uint64_t i = head + j * kElems + e;
        if (Api::better(v[i], b.v)) b = Pair{v[i], i};
      }
    Pair p = edge;
    for (const Pair& b : best) p = Api::combine(p, b);
    out.push_back(p);
  }
  return out;
}

// Over `inputs` random inputs (n in 0..72, values from interesting_value(), some all the identity): the pair path
// (the candidates combined in a random order, store()) and the packed path (their keys' maximum, unpack_store()) each
// give exactly reference_argreduce's value bits and index. The first difference, or empty.
template <class Api>
std::string host_order_difference(std::uint64_t seed, int inputs) {
  typedef typename Api::T T;
  std::mt19937_64 rng(seed);
  ArgReduceProblem p;
  p.op = Api::kOp, p.type = Api::kType;
  for (int k = 0; k < inputs; ++k) {
    const std::uint64_t n = rng() % 73;
    std::vector<T> v(n);
    const bool all_identity = rng() % 8 == 0;
    for (T& x : v) x = all_identity ? Api::identity_value() : interesting_value<T>(rng);
    if (!all_identity && n > 0 && rng() % 4 == 0) v[rng() % n] = Api::identity_value();
    const std::uint64_t head = std::min<std::uint64_t>(n, rng() % 4);  // 0: an aligned start
    const std::uint64_t threads = 4 + rng() % 6;  // at least the head's and the tail's elements (< 4 each)
    const int acc = 1 << (rng() % 3);
    auto candidates = thread_candidates<Api>(v, head, threads, acc);
    const ArgExpected want = reference_argreduce(p, v.data(), n);
    std::shuffle(candidates.begin(), candidates.end(), rng);
    typename Api::Pair folded = Api::none();
    unsigned long long key = 0;  // the greatest key, as the kernel's atomicMax and __reduce_max_sync give it
    for (const auto& c : candidates) folded = Api::combine(folded, c), key = std::max(key, Api::pack(c));
    unsigned char pair_out[16] = {}, packed_out[16] = {};
    Api::store(pair_out, folded, n);
    Api::unpack_store(packed_out, key, v.data(), n);
    for (const auto& [path, out] : {std::pair{"pair", pair_out}, std::pair{"packed", packed_out}}) {
      const std::string diff = compare_argreduce(p, want, out);
      if (diff.empty()) continue;
      std::string values;
      for (T x : v) values += fmt::format(" {:#x}", static_cast<std::uint32_t>(std::bit_cast<std::uint32_t>(x)));
      return fmt::format("{} {} path, n={} head={} threads={} acc={}: {}; values:{}", p.shape_key(), path, n, head,
                         threads, acc, diff, values);
    }
  }
  return "";
}

// The host constants of each namespace are the preamble's (kernel_source() of the fallback configuration).
template <class Api>
std::string host_constants_difference() {
  ArgReduceProblem p;
  p.op = Api::kOp, p.type = Api::kType;
  const std::string src = kernel_source(p, ArgReduceConfig{});
  for (const std::string& line :
       {fmt::format("constexpr bool kArgMax = {};", Api::kArgMax),
        fmt::format("constexpr unsigned long long kIdentityBits = 0x{:x}ULL;", Api::kIdentityBits),
        fmt::format("constexpr unsigned long long kEmptyBits = 0x{:x}ULL;", Api::kEmptyBits)})
    if (src.find(line) == std::string::npos) return p.shape_key() + ": the preamble has no '" + line + "'";
  return "";
}

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

  TEST_CASE("the template's order and packed keys, compiled for the host: threads' candidates combined in any order "
            "and their keys' maximum both give the reference's value and first index") {
    // Zeros of both signs, NaN payloads, infinities, ties and inputs all the identity, aligned (the identity's
    // elements in the scalar tail only) or not, over 4-9 emulated threads of 1, 2 or 4 accumulators.
    CHECK(host_constants_difference<f32_max::Api>() == "");
    CHECK(host_constants_difference<f32_min::Api>() == "");
    CHECK(host_constants_difference<i32_max::Api>() == "");
    CHECK(host_constants_difference<i32_min::Api>() == "");
    CHECK(host_constants_difference<u32_max::Api>() == "");
    CHECK(host_constants_difference<u32_min::Api>() == "");
    constexpr int kInputs = 20000;
    CHECK(host_order_difference<f32_max::Api>(1, kInputs) == "");
    CHECK(host_order_difference<f32_min::Api>(2, kInputs) == "");
    CHECK(host_order_difference<i32_max::Api>(3, kInputs) == "");
    CHECK(host_order_difference<i32_min::Api>(4, kInputs) == "");
    CHECK(host_order_difference<u32_max::Api>(5, kInputs) == "");
    CHECK(host_order_difference<u32_min::Api>(6, kInputs) == "");
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
