// Reductions without a GPU: problem and configuration vocabulary, the search space, the input generator and the CPU
// reference. Expected values are worked out by hand in the test, never taken from the code under test.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "core/family.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "kernel_templates/reduce/space.hpp"

using namespace autotune;

namespace {

ReduceProblem make(ReduceOp op, ValueType t, std::optional<ValueType> acc = std::nullopt, bool deterministic = true) {
  ReduceProblem p;
  p.op = op, p.type = t, p.accumulator = acc, p.deterministic = deterministic;
  return p;
}

template <class T>
ReduceExpected reference(const ReduceProblem& p, const std::vector<T>& v) {
  return reference_reduce(p, v.data(), v.size());
}

// compare_reduce on a result given as a host value of the accumulator type.
template <class A>
std::string compare(const ReduceProblem& p, const ReduceExpected& e, A got, std::uint64_t n) {
  return compare_reduce(p, e, &got, n);
}

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kInf = std::numeric_limits<double>::infinity();
const float kNaNF = std::numeric_limits<float>::quiet_NaN();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

int count_if(const std::vector<ReduceConfig>& space, auto pred) {
  int n = 0;
  for (const auto& c : space) n += pred(c) ? 1 : 0;
  return n;
}

DeviceInfo h100_like() {
  DeviceInfo d;
  d.name = "test";
  d.cc_major = 9, d.cc_minor = 0, d.sm_count = 132, d.max_threads_per_block = 1024;
  d.shared_per_block_optin = 227 * 1024;
  return d;
}

}  // namespace

TEST_SUITE("reduction") {
  TEST_CASE("value types and operations: names, sizes, parsing") {
    CHECK(all_value_types().size() == 6);
    for (ValueType t : all_value_types()) CHECK(parse_value_type(to_string(t)) == t);
    CHECK(to_string(ValueType::i32) == "i32");
    CHECK(to_string(ValueType::f64) == "f64");
    CHECK(size_of(ValueType::u32) == 4);
    CHECK(size_of(ValueType::i64) == 8);
    CHECK(size_of(ValueType::f64) == 8);
    CHECK(is_float(ValueType::f32));
    CHECK_FALSE(is_float(ValueType::u64));
    CHECK_FALSE(parse_value_type("u8").has_value());
    CHECK_FALSE(parse_value_type("F32").has_value());
    CHECK(parse_reduce_op("sum") == ReduceOp::sum);
    CHECK(parse_reduce_op("min") == ReduceOp::min);
    CHECK(parse_reduce_op("max") == ReduceOp::max);
    CHECK_FALSE(parse_reduce_op("prod").has_value());
    CHECK(to_string(ReduceOp::max) == "max");
  }

  TEST_CASE("default accumulators, normalization and keys") {
    CHECK(make(ReduceOp::sum, ValueType::i32).accumulator_type() == ValueType::i64);
    CHECK(make(ReduceOp::sum, ValueType::u32).accumulator_type() == ValueType::u64);
    CHECK(make(ReduceOp::sum, ValueType::i64).accumulator_type() == ValueType::i64);
    CHECK(make(ReduceOp::sum, ValueType::f32).accumulator_type() == ValueType::f32);
    CHECK(make(ReduceOp::min, ValueType::i32).accumulator_type() == ValueType::i32);
    CHECK(make(ReduceOp::max, ValueType::u32).accumulator_type() == ValueType::u32);
    CHECK(make(ReduceOp::sum, ValueType::f32, ValueType::f64).accumulator_type() == ValueType::f64);

    ReduceProblem p = make(ReduceOp::sum, ValueType::f32);
    p.n = 1048576;
    CHECK(p.key() == "reduce/sum/f32/acc=f32/n=1048576/dist=uniform");
    CHECK(p.shape_key() == "reduce/sum/f32/acc=f32/dist=uniform");
    p.deterministic = false;
    CHECK(p.key() == "reduce/sum/f32/acc=f32/n=1048576/dist=uniform/mode=fast");
    CHECK(p.shape_key() == "reduce/sum/f32/acc=f32/dist=uniform/mode=fast");
    p.accumulator = ValueType::f64;
    CHECK(p.key() == "reduce/sum/f32/acc=f64/n=1048576/dist=uniform/mode=fast");

    // Equivalent spellings share one key: the default accumulator made explicit, the flag ignored where it has no
    // effect (integers, min/max).
    ReduceProblem a = make(ReduceOp::sum, ValueType::i32), b = make(ReduceOp::sum, ValueType::i32, ValueType::i64, false);
    a.n = b.n = 77;
    CHECK(a.key() == b.key());
    CHECK(a.key() == "reduce/sum/i32/acc=i64/n=77/dist=uniform");
    CHECK(b.normalized().deterministic);
    CHECK(b.normalized().accumulator == ValueType::i64);
    CHECK(a.normalized() == b.normalized());
    ReduceProblem m = make(ReduceOp::max, ValueType::f64, std::nullopt, false);
    m.distribution = "sorted";
    CHECK(m.normalized().deterministic);
    CHECK(m.key() == "reduce/max/f64/acc=f64/n=0/dist=sorted");
    // The fast flag survives for float sums only.
    CHECK_FALSE(make(ReduceOp::sum, ValueType::f64, std::nullopt, false).normalized().deterministic);
    CHECK_FALSE(make(ReduceOp::sum, ValueType::f32, ValueType::f64, false).normalized().deterministic);
    // i32 into i32 is another problem than i32 into i64.
    CHECK(make(ReduceOp::sum, ValueType::i32, ValueType::i32).key() != make(ReduceOp::sum, ValueType::i32).key());
  }

  TEST_CASE("identities, as bits of the accumulator") {
    CHECK(make(ReduceOp::sum, ValueType::f32).identity_bits() == 0);
    CHECK(make(ReduceOp::sum, ValueType::i32).identity_bits() == 0);
    CHECK(make(ReduceOp::min, ValueType::i32).identity_bits() == 0x7FFFFFFFu);          // INT32_MAX
    CHECK(make(ReduceOp::max, ValueType::i32).identity_bits() == 0x80000000u);          // INT32_MIN
    CHECK(make(ReduceOp::min, ValueType::u32).identity_bits() == 0xFFFFFFFFu);
    CHECK(make(ReduceOp::max, ValueType::u64).identity_bits() == 0);
    CHECK(make(ReduceOp::min, ValueType::i64).identity_bits() == 0x7FFFFFFFFFFFFFFFull);
    CHECK(make(ReduceOp::min, ValueType::f32).identity_bits() == 0x7F800000u);          // +inf
    CHECK(make(ReduceOp::max, ValueType::f64).identity_bits() == 0xFFF0000000000000ull);  // -inf
  }

  TEST_CASE("malformed problems are refused with a reason") {
    auto refused = [](const ReduceProblem& p) {
      try {
        p.validate();
      } catch (const UsageError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(refused(make(ReduceOp::sum, ValueType::f32)) == "");
    CHECK(refused(make(ReduceOp::sum, ValueType::f32, ValueType::f64)) == "");
    CHECK(refused(make(ReduceOp::sum, ValueType::i32, ValueType::i32)) == "");
    CHECK(refused(make(ReduceOp::sum, ValueType::u32, ValueType::u64)) == "");
    CHECK(refused(make(ReduceOp::min, ValueType::f32, ValueType::f64)).find("not supported") != std::string::npos);
    CHECK(refused(make(ReduceOp::max, ValueType::i32, ValueType::i64)) != "");
    CHECK(refused(make(ReduceOp::sum, ValueType::f32, ValueType::i64)).find("float into integer") != std::string::npos);
    CHECK(refused(make(ReduceOp::sum, ValueType::i32, ValueType::f64)).find("integer into float") != std::string::npos);
    CHECK(refused(make(ReduceOp::sum, ValueType::i64, ValueType::i32)).find("narrower") != std::string::npos);
    CHECK(refused(make(ReduceOp::sum, ValueType::f64, ValueType::f32)).find("narrower") != std::string::npos);
    CHECK(refused(make(ReduceOp::sum, ValueType::i32, ValueType::u64)).find("signedness") != std::string::npos);
    CHECK(refused(make(ReduceOp::sum, ValueType::u32, ValueType::i64)).find("signedness") != std::string::npos);
    ReduceProblem d = make(ReduceOp::sum, ValueType::f32);
    d.distribution = "narrow";  // a histogram distribution, not a reduction one
    CHECK(refused(d).find("unknown distribution") != std::string::npos);
  }

  TEST_CASE("configuration keys: the canonical text, and parse() as its inverse") {
    CHECK(ReduceConfig{}.key() == "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0");
    ReduceConfig c;
    c.block_reduce = BlockReduce::shared_tree, c.block = 1024, c.vec_bytes = 0, c.loads = 4, c.accumulators = 4;
    c.finish = Finish::two_pass, c.grid_blocks = -1;
    CHECK(c.key() == "red=shared_tree,block=1024,vec=0,loads=4,acc=4,finish=two_pass,grid=-1");
    CHECK(ReduceConfig::parse(c.key()) == c);

    for (const auto& p : {make(ReduceOp::sum, ValueType::f32), make(ReduceOp::min, ValueType::u32),
                          make(ReduceOp::sum, ValueType::f64, std::nullopt, false), make(ReduceOp::max, ValueType::i64)})
      for (const auto& cfg : reduce_space(p)) {
        const auto back = ReduceConfig::parse(cfg.key());
        REQUIRE(back.has_value());
        CHECK(*back == cfg);
      }

    const std::string good = ReduceConfig{}.key();
    CHECK_FALSE(ReduceConfig::parse("").has_value());
    CHECK_FALSE(ReduceConfig::parse("red=warp_shuffle").has_value());
    CHECK_FALSE(ReduceConfig::parse(good + ",extra=1").has_value());
    CHECK_FALSE(ReduceConfig::parse(good + ",grid=0").has_value());  // a field twice
    CHECK_FALSE(ReduceConfig::parse("red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block").has_value());
    CHECK_FALSE(ReduceConfig::parse("red=warp,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0").has_value());
    CHECK_FALSE(ReduceConfig::parse("red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last,grid=0").has_value());
    CHECK_FALSE(ReduceConfig::parse("red=warp_shuffle,block=2x,vec=16,loads=2,acc=1,finish=last_block,grid=0").has_value());
    CHECK_FALSE(ReduceConfig::parse("red=warp_shuffle,block=256,vec=16,loads=0,acc=1,finish=last_block,grid=0").has_value());
    CHECK_FALSE(ReduceConfig::parse("red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=-2").has_value());
    // Evict-first loads: "ld=cs" at the end when set, absent when not (keys from before the field keep their meaning),
    // never spelled at the default or with another value.
    ReduceConfig cs;
    cs.load_cs = true;
    CHECK(cs.key() == good + ",ld=cs");
    CHECK(ReduceConfig::parse(good + ",ld=cs") == cs);
    CHECK(ReduceConfig::parse(good)->load_cs == false);
    CHECK_FALSE(ReduceConfig::parse(good + ",ld=nc").has_value());
    CHECK_FALSE(ReduceConfig::parse(good + ",ld=").has_value());
    CHECK_FALSE(ReduceConfig::parse("ld=cs," + good).has_value());  // the table's order only
    // A histogram key is not a reduction key.
    CHECK_FALSE(ReduceConfig::parse("priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,"
                                    "merge=atomic,grid=0").has_value());
  }

  TEST_CASE("malformed configurations are named") {
    const ReduceProblem f32 = make(ReduceOp::sum, ValueType::f32);
    const ReduceProblem f64 = make(ReduceOp::max, ValueType::f64);
    auto why = [](const ReduceProblem& p, auto edit) {
      ReduceConfig c;
      edit(c);
      return c.invalid_reason(p);
    };
    CHECK(why(f32, [](auto&) {}) == "");
    CHECK(why(f32, [](auto& c) { c.block = 48; }).find("multiple of 32") != std::string::npos);
    CHECK(why(f32, [](auto& c) { c.block = 32; }).find("64..1024") != std::string::npos);
    CHECK(why(f32, [](auto& c) { c.block = 2048; }) != "");
    CHECK(why(f32, [](auto& c) { c.vec_bytes = 2; }).find("vector width") != std::string::npos);
    CHECK(why(f32, [](auto& c) { c.vec_bytes = 32; }) != "");
    CHECK(why(f64, [](auto& c) { c.vec_bytes = 4; }).find("narrower than f64") != std::string::npos);
    CHECK(why(f64, [](auto& c) { c.vec_bytes = 8; }) == "");
    CHECK(why(f32, [](auto& c) { c.loads = 0; }).find("loads") != std::string::npos);
    CHECK(why(f32, [](auto& c) { c.loads = 17; }) != "");
    CHECK(why(f32, [](auto& c) { c.accumulators = 3; }).find("accumulators") != std::string::npos);
    CHECK(why(f32, [](auto& c) { c.grid_blocks = 2; }).find("grid") != std::string::npos);
    CHECK(why(f32, [](auto& c) { c.grid_blocks = -2; }) != "");
    // ld=cs: the 16-byte vectors only (the template's __ldcs takes the vector as uint4).
    CHECK(why(f32, [](auto& c) { c.load_cs = true; }) == "");
    CHECK(why(f32, [](auto& c) { c.load_cs = true, c.vec_bytes = 8; }).find("ld=cs applies to 16-byte loads, not 8-byte") == 0);
    CHECK(why(f32, [](auto& c) { c.load_cs = true, c.vec_bytes = 0; }).find("one element per load") != std::string::npos);
    // warp_reduce: 32-bit integer accumulators only.
    auto warp_reduce = [](auto& c) { c.block_reduce = BlockReduce::warp_reduce; };
    CHECK(why(f32, warp_reduce).find("32-bit integers") != std::string::npos);
    CHECK(why(make(ReduceOp::min, ValueType::i64), warp_reduce) != "");
    CHECK(why(make(ReduceOp::sum, ValueType::i32), warp_reduce) != "");  // i32 sums into i64 by default
    CHECK(why(make(ReduceOp::sum, ValueType::i32, ValueType::i32), warp_reduce) == "");
    CHECK(why(make(ReduceOp::min, ValueType::u32), warp_reduce) == "");
    CHECK(why(make(ReduceOp::max, ValueType::i32), warp_reduce) == "");
    // Per-thread atomics go to the output: only with the atomic finish.
    CHECK(why(make(ReduceOp::min, ValueType::i32), [](auto& c) { c.block_reduce = BlockReduce::atomic; })
              .find("finish=atomic") != std::string::npos);
    CHECK(why(make(ReduceOp::min, ValueType::i32),
              [](auto& c) { c.block_reduce = BlockReduce::atomic, c.finish = Finish::atomic; }) == "");
    // One block writes directly: spelled with the last-block finish only.
    CHECK(why(f32, [](auto& c) { c.grid_blocks = 1, c.finish = Finish::two_pass; }).find("grid=1") != std::string::npos);
    CHECK(why(f32, [](auto& c) { c.grid_blocks = 1; }) == "");
    // Float atomics only in fast mode; integer and min/max atomics are exact and always allowed.
    auto atomic_finish = [](auto& c) { c.finish = Finish::atomic; };
    CHECK(why(f32, atomic_finish).find("deterministic") != std::string::npos);
    CHECK(why(make(ReduceOp::sum, ValueType::f32, ValueType::f64), atomic_finish) != "");
    CHECK(why(make(ReduceOp::sum, ValueType::f32, std::nullopt, false), atomic_finish) == "");
    CHECK(why(make(ReduceOp::sum, ValueType::i32, std::nullopt, true), atomic_finish) == "");
    CHECK(why(f64, atomic_finish) == "");
    // The workspace word's atomic finish (atomic_last): where the atomic finish is, and not on one block or under
    // per-thread atomics (those go straight to the output).
    auto atomic_last = [](auto& c) { c.finish = Finish::atomic_last; };
    CHECK(why(f32, atomic_last).find("deterministic") != std::string::npos);
    CHECK(why(make(ReduceOp::sum, ValueType::f32, std::nullopt, false), atomic_last) == "");
    CHECK(why(make(ReduceOp::min, ValueType::i32), atomic_last) == "");
    // A half's absmax, min and sum into f32: the last block converts the float word to the result (the atomic
    // finish, into `out`, cannot); i8 min works in int. Not an l2norm (a float sum, always deterministic: its root
    // is taken once).
    CHECK(why(make(ReduceOp::absmax, ValueType::f16), atomic_finish) != "");
    CHECK(why(make(ReduceOp::absmax, ValueType::f16), atomic_last) == "");
    CHECK(why(make(ReduceOp::min, ValueType::bf16), atomic_last) == "");
    CHECK(why(make(ReduceOp::min, ValueType::i8), atomic_last) == "");
    CHECK(why(make(ReduceOp::l2norm, ValueType::f32, std::nullopt, false), atomic_last).find("deterministic") !=
          std::string::npos);
    CHECK(why(make(ReduceOp::sum, ValueType::f32, ValueType::f64), atomic_last) != "");
    CHECK(why(make(ReduceOp::min, ValueType::i32), [](auto& c) { c.finish = Finish::atomic_last, c.grid_blocks = 1; })
              .find("grid=1") != std::string::npos);
    CHECK(why(make(ReduceOp::min, ValueType::i32),
              [](auto& c) { c.finish = Finish::atomic_last, c.block_reduce = BlockReduce::atomic; })
              .find("finish=atomic") != std::string::npos);
    const auto key = ReduceConfig::parse("red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=atomic_last,grid=0");
    REQUIRE(key);
    CHECK(key->finish == Finish::atomic_last);
  }

  TEST_CASE("shared memory and elements per load, by hand") {
    ReduceConfig c;
    c.block_reduce = BlockReduce::shared_tree;
    CHECK(c.shared_bytes(make(ReduceOp::sum, ValueType::f64)) == 256 * 8);
    CHECK(c.shared_bytes(make(ReduceOp::sum, ValueType::f32)) == 256 * 4);
    c.block_reduce = BlockReduce::warp_shuffle, c.block = 512;  // 16 warps
    CHECK(c.shared_bytes(make(ReduceOp::sum, ValueType::i32)) == 16 * 8);  // i64 accumulator
    CHECK(c.shared_bytes(make(ReduceOp::min, ValueType::i32)) == 16 * 4);
    c.block_reduce = BlockReduce::atomic;
    CHECK(c.shared_bytes(make(ReduceOp::sum, ValueType::f32)) == 0);
    c.vec_bytes = 16;
    CHECK(c.elems_per_load(make(ReduceOp::sum, ValueType::f32)) == 4);
    CHECK(c.elems_per_load(make(ReduceOp::sum, ValueType::f64)) == 2);
    c.vec_bytes = 0;
    CHECK(c.elems_per_load(make(ReduceOp::sum, ValueType::u64)) == 1);
  }

  TEST_CASE("the space: every family, well formed, no duplicates, a size CI can compile") {
    using R = BlockReduce;
    const ReduceProblem u32min = make(ReduceOp::min, ValueType::u32);
    const auto space = reduce_space(u32min);
    std::set<std::string> keys;
    for (const auto& c : space) {
      CHECK(c.invalid_reason(u32min) == "");
      keys.insert(c.key());
    }
    CHECK(keys.size() == space.size());
    CHECK(space.size() >= 60);
    CHECK(space.size() <= 150);
    CHECK(keys.count(ReduceConfig::fallback(u32min).key()) == 1);
    CHECK(count_if(space, [](auto& c) { return c.block_reduce == R::atomic; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.block_reduce == R::shared_tree; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.block_reduce == R::warp_reduce; }) > 0);
    for (int vec : {0, 4, 8, 16}) CHECK(count_if(space, [&](auto& c) { return c.vec_bytes == vec; }) > 0);
    for (int block : {64, 128, 256, 512, 1024}) CHECK(count_if(space, [&](auto& c) { return c.block == block; }) > 0);
    for (int acc : {1, 2, 4}) CHECK(count_if(space, [&](auto& c) { return c.accumulators == acc; }) > 0);
    for (int loads : {1, 2, 4}) CHECK(count_if(space, [&](auto& c) { return c.loads == loads; }) > 0);
    for (Finish f : {Finish::atomic, Finish::last_block, Finish::two_pass, Finish::atomic_last})
      CHECK(count_if(space, [&](auto& c) { return c.finish == f; }) > 0);
    for (int grid : {-1, 0, 1}) CHECK(count_if(space, [&](auto& c) { return c.grid_blocks == grid; }) > 0);

    // A deterministic float sum has no atomics at all; fast mode brings them in.
    const auto det = reduce_space(make(ReduceOp::sum, ValueType::f32));
    CHECK(det.size() >= 60);
    CHECK(count_if(det, [](auto& c) {
            return c.finish == Finish::atomic || c.finish == Finish::atomic_last || c.block_reduce == R::atomic;
          }) == 0);
    const auto fast = reduce_space(make(ReduceOp::sum, ValueType::f32, std::nullopt, false));
    CHECK(count_if(fast, [](auto& c) { return c.finish == Finish::atomic; }) > 0);
    CHECK(count_if(fast, [](auto& c) { return c.finish == Finish::atomic_last; }) == 8);
    // absmax of halves (a half result, converted by the last block): the eight atomic_last variants too.
    CHECK(count_if(reduce_space(make(ReduceOp::absmax, ValueType::f16)),
                   [](auto& c) { return c.finish == Finish::atomic_last; }) == 8);
    CHECK(count_if(fast, [](auto& c) { return c.block_reduce == R::atomic; }) > 0);
    // 8-byte elements: no 4-byte loads, no warp_reduce.
    const auto f64 = reduce_space(make(ReduceOp::max, ValueType::f64));
    CHECK(count_if(f64, [](auto& c) { return c.vec_bytes == 4 || c.block_reduce == R::warp_reduce; }) == 0);
    // Large inputs leave out the single-block path.
    ReduceProblem big = u32min;
    big.n = 64ull << 20;
    CHECK(count_if(reduce_space(big), [](auto& c) { return c.grid_blocks == 1; }) == 0);
    // Evict-first loads from 8 MiB of input (and for any n): 2M f32 elements have them, 2M - 1 and 1M do not; f64
    // reaches 8 MiB at 1M elements. Always 16-byte loads.
    auto cs_count = [&](ValueType t, std::uint64_t n) {
      ReduceProblem p = make(ReduceOp::sum, t);
      p.n = n;
      const auto s = reduce_space(p);
      for (const auto& c : s) CHECK((!c.load_cs || c.vec_bytes == 16));
      return count_if(s, [](auto& c) { return c.load_cs; });
    };
    CHECK(cs_count(ValueType::f32, 0) > 0);
    CHECK(cs_count(ValueType::f32, 2u << 20) > 0);
    CHECK(cs_count(ValueType::f32, (2u << 20) - 1) == 0);
    CHECK(cs_count(ValueType::f32, 1u << 20) == 0);
    CHECK(cs_count(ValueType::f64, 1u << 20) > 0);
    CHECK(cs_count(ValueType::f32, 2u << 20) == cs_count(ValueType::f32, 256u << 20));
    for (ValueType t : all_value_types())
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max}) {
        const auto s = reduce_space(make(op, t));
        CHECK(s.size() >= 60);
        CHECK(s.size() <= 150);
      }
  }

  TEST_CASE("device constraints prune block size, shared memory and warp_reduce before sm_80") {
    const ReduceProblem p = make(ReduceOp::min, ValueType::i32);
    DeviceInfo d = h100_like();
    ReduceConfig c;
    CHECK(reduce_violation(p, c, &d) == "");
    c.block = 1024;
    d.max_threads_per_block = 512;
    CHECK(reduce_violation(p, c, &d).find("threads per block") != std::string::npos);
    d = h100_like();
    c = ReduceConfig{};
    c.block_reduce = BlockReduce::warp_reduce;
    CHECK(reduce_violation(p, c, &d) == "");
    d.cc_major = 7;
    CHECK(reduce_violation(p, c, &d).find("sm_80") != std::string::npos);
    d = h100_like();
    d.shared_per_block_optin = 1024;  // a shared tree of 256 f64 slots needs 2048 bytes
    c = ReduceConfig{};
    c.block_reduce = BlockReduce::shared_tree;
    CHECK(reduce_violation(make(ReduceOp::sum, ValueType::f64), c, &d).find("shared memory") !=
          std::string::npos);
    CHECK(reduce_violation(make(ReduceOp::sum, ValueType::f64), ReduceConfig{}, &d) == "");
    // invalid_reason first.
    c = ReduceConfig{};
    c.block = 48;
    d = h100_like();
    CHECK(reduce_violation(p, c, &d).find("multiple of 32") != std::string::npos);
  }

  TEST_CASE("the family's one-block bound is the largest n its launch plan runs in one block") {
    const KernelFamily& family = family_named("reduce");
    const ReduceProblem f32 = make(ReduceOp::sum, ValueType::f32);
    ReduceConfig c;  // block 256, 2 loads of 4 floats: tiles of 2048, two of them in one block
    CHECK(family.one_block_up_to(Problem(f32), Config(c)) == 4096);
    c.loads = 4;
    c.block = 128;
    CHECK(family.one_block_up_to(Problem(f32), Config(c)) == 4096);
    c.vec_bytes = 0;  // one f64 per load: 128 x 4 per tile
    CHECK(family.one_block_up_to(Problem(make(ReduceOp::max, ValueType::f64)), Config(c)) == 1024);
    for (const ReduceConfig& x : {ReduceConfig{}, c}) {
      const std::uint64_t bound = family.one_block_up_to(Problem(f32), Config(x));
      CHECK(plan_reduce_launch(f32, x, bound, 264).grid == 1);
      CHECK(plan_reduce_launch(f32, x, bound + 1, 264).grid > 1);
    }
    c.grid_blocks = 1;
    CHECK(family.one_block_up_to(Problem(f32), Config(c)) == std::numeric_limits<std::uint64_t>::max());
  }

  TEST_CASE("launch plans: grid sizes, the identity preset and the second launch, by hand") {
    const ReduceProblem f32 = make(ReduceOp::sum, ValueType::f32);
    const unsigned resident = 264;
    ReduceConfig c;  // block 256, 2 loads of 16 bytes = 4 floats: 2048 elements per block and tile
    auto plan = [&](const ReduceProblem& p, std::uint64_t n) { return plan_reduce_launch(p, c, n, resident); };
    CHECK(plan(f32, 0).grid == 1);  // one block writes the identity
    CHECK_FALSE(plan(f32, 0).preset);
    CHECK(plan(f32, 2048).grid == 1);
    CHECK(plan(f32, 2049).grid == 1);  // two tiles: one block reads both (kOneBlockTiles)
    CHECK(plan(f32, 4096).grid == 1);
    CHECK_FALSE(plan(f32, 4096).finish_launch);
    CHECK(plan(f32, 4097).grid == 3);  // three tiles: a block each
    CHECK(plan(f32, 1ull << 30).grid == 264);  // resident cap
    CHECK_FALSE(plan(f32, 1ull << 30).finish_launch);
    c.grid_blocks = -1;
    CHECK(plan(f32, 100 * 2048).grid == 100);
    CHECK(plan(f32, 1ull << 30).grid == 65536);  // 2^30 / 2048 = 2^19 tiles, capped
    c.grid_blocks = 1;
    CHECK(plan(f32, 1ull << 30).grid == 1);
    // One element per load of f64: 256 * 2 elements per block.
    c = ReduceConfig{};
    c.vec_bytes = 0;
    CHECK(plan(make(ReduceOp::max, ValueType::f64), 1024).grid == 1);
    CHECK(plan(make(ReduceOp::max, ValueType::f64), 1025).grid == 3);
    // Two passes: the second launch only when there are partials to combine.
    c = ReduceConfig{};
    c.finish = Finish::two_pass;
    CHECK_FALSE(plan(f32, 100).finish_launch);
    CHECK_FALSE(plan(f32, 4096).finish_launch);  // two tiles in one block: no partials
    CHECK(plan(f32, 4097).finish_launch);
    CHECK(plan(f32, 1ull << 20).grid == 264);
    CHECK(plan(f32, 1ull << 20).finish_launch);
    // The atomic finish presets the output unless a single block writes it directly.
    const ReduceProblem imin = make(ReduceOp::min, ValueType::i32);
    c = ReduceConfig{};
    c.finish = Finish::atomic;
    CHECK_FALSE(plan(imin, 0).preset);
    CHECK(plan(imin, 0).grid == 1);
    CHECK(plan(imin, 5000).preset);
    CHECK(plan(imin, 5000).grid == 3);
    // Per-thread atomics always need the preset; with nothing to add, nothing is launched.
    c.block_reduce = BlockReduce::atomic;
    CHECK(plan(imin, 0).preset);
    CHECK(plan(imin, 0).grid == 0);
    CHECK(plan(imin, 10).preset);
    CHECK(plan(imin, 10).grid == 1);
    // atomic_last: one launch, no preset, no second launch, whatever n.
    c = ReduceConfig{};
    c.finish = Finish::atomic_last;
    for (std::uint64_t n : {0ull, 10ull, 5000ull, 1ull << 20}) {
      CHECK_FALSE(plan(imin, n).preset);
      CHECK_FALSE(plan(imin, n).finish_launch);
      CHECK(plan(imin, n).grid >= 1);
    }
  }

  TEST_CASE("the workspace prefix: ticket 0, the accumulator's identity at byte 8, atomic_last's word at byte 16 "
            "holding the identity in the work type (a half's as a float's, an i8's as an int's)") {
    auto word = [](const std::vector<unsigned char>& prefix, std::size_t at, std::size_t bytes) {
      std::uint64_t v = 0;
      REQUIRE(prefix.size() >= at + bytes);
      std::memcpy(&v, prefix.data() + at, bytes);
      return v;
    };
    // min of f16 (a half result): +inf as a half (0x7c00), then as a float (0x7f800000).
    const auto f16min = reduce_workspace_prefix(make(ReduceOp::min, ValueType::f16));
    CHECK(word(f16min, 0, 4) == 0);
    CHECK(word(f16min, 8, 2) == 0x7c00);
    CHECK(word(f16min, 16, 4) == 0x7f800000);
    // min and max of i8: 127 and -128, as i8 and as int.
    const auto i8min = reduce_workspace_prefix(make(ReduceOp::min, ValueType::i8));
    CHECK(word(i8min, 8, 1) == 0x7f);
    CHECK(word(i8min, 16, 4) == 0x7f);
    const auto i8max = reduce_workspace_prefix(make(ReduceOp::max, ValueType::i8));
    CHECK(word(i8max, 8, 1) == 0x80);
    CHECK(word(i8max, 16, 4) == 0xffffff80u);
    // max of f64: -inf in both; an i32 sum into i64: zeros; absmax of bf16 (a half result): zero.
    const auto f64max = reduce_workspace_prefix(make(ReduceOp::max, ValueType::f64));
    CHECK(word(f64max, 8, 8) == 0xfff0000000000000ull);
    CHECK(word(f64max, 16, 8) == 0xfff0000000000000ull);
    const auto i32sum = reduce_workspace_prefix(make(ReduceOp::sum, ValueType::i32));
    CHECK(word(i32sum, 8, 8) == 0);
    CHECK(word(i32sum, 16, 8) == 0);
    CHECK(word(reduce_workspace_prefix(make(ReduceOp::absmax, ValueType::bf16)), 16, 4) == 0);
  }

  TEST_CASE("generated values: ranges that cannot overflow, constant, sorted, reproducible") {
    const std::uint64_t n = 100000;
    auto values = [&](ReduceOp op, ValueType t, const char* dist, std::uint64_t seed = 5) {
      ReduceProblem p = make(op, t);
      p.distribution = dist;
      return generate_values(p, n, seed);
    };
    {
      const auto bytes = values(ReduceOp::sum, ValueType::i32, "uniform");
      REQUIRE(bytes.size() == n * 4);
      std::vector<std::int32_t> v(n);
      std::memcpy(v.data(), bytes.data(), bytes.size());
      CHECK(std::count_if(v.begin(), v.end(), [](auto x) { return x < -(1 << 30) || x >= (1 << 30); }) == 0);
      CHECK(std::count_if(v.begin(), v.end(), [](auto x) { return x < 0; }) > 0);
    }
    {
      const auto bytes = values(ReduceOp::sum, ValueType::u64, "uniform");
      std::vector<std::uint64_t> v(n);
      std::memcpy(v.data(), bytes.data(), bytes.size());
      CHECK(std::count_if(v.begin(), v.end(), [](auto x) { return x >= (1ull << 31); }) == 0);
    }
    {  // min/max reach the whole range
      const auto bytes = values(ReduceOp::min, ValueType::i64, "uniform");
      std::vector<std::int64_t> v(n);
      std::memcpy(v.data(), bytes.data(), bytes.size());
      CHECK(std::count_if(v.begin(), v.end(), [](auto x) { return x > (1ll << 62) || x < -(1ll << 62); }) > 0);
    }
    {
      const auto bytes = values(ReduceOp::sum, ValueType::f32, "uniform");
      std::vector<float> v(n);
      std::memcpy(v.data(), bytes.data(), bytes.size());
      CHECK(std::count_if(v.begin(), v.end(), [](auto x) { return !(x >= -1.0f && x < 1.0f); }) == 0);
    }
    {  // constant floats are multiples of 1/8: sums of them are exact
      const auto bytes = values(ReduceOp::sum, ValueType::f64, "constant");
      std::vector<double> v(n);
      std::memcpy(v.data(), bytes.data(), bytes.size());
      CHECK(v[0] != 0.0);
      CHECK(v[0] * 8 == std::round(v[0] * 8));
      CHECK(std::count_if(v.begin(), v.end(), [&](auto x) {
              return std::bit_cast<std::uint64_t>(x) != std::bit_cast<std::uint64_t>(v[0]);
            }) == 0);
    }
    {
      const auto bytes = values(ReduceOp::max, ValueType::i32, "sorted");
      std::vector<std::int32_t> v(n);
      std::memcpy(v.data(), bytes.data(), bytes.size());
      CHECK(std::is_sorted(v.begin(), v.end()));
      CHECK(v.front() < v.back());
    }
    CHECK(values(ReduceOp::sum, ValueType::u32, "uniform", 1) == values(ReduceOp::sum, ValueType::u32, "uniform", 1));
    CHECK(values(ReduceOp::sum, ValueType::u32, "uniform", 1) != values(ReduceOp::sum, ValueType::u32, "uniform", 2));
    ReduceProblem bad = make(ReduceOp::sum, ValueType::f32);
    bad.distribution = "image";
    CHECK_THROWS_AS(generate_values(bad, 10, 1), UsageError);
  }

  TEST_CASE("the reference on integers, by hand: wrapping sums, min/max, identities") {
    const auto i32sum = make(ReduceOp::sum, ValueType::i32);
    CHECK(reference(i32sum, std::vector<std::int32_t>{1, -2, 3}).bits == 2);
    // -5 in i64: two's complement
    CHECK(reference(i32sum, std::vector<std::int32_t>{-7, 2}).bits == 0xFFFFFFFFFFFFFFFBull);
    // Two INT32_MAX fit the i64 accumulator: 2^32 - 2.
    CHECK(reference(i32sum, std::vector<std::int32_t>{2147483647, 2147483647}).bits == 4294967294ull);
    // Into i32 the same sum wraps: 0x7FFFFFFF + 0x7FFFFFFF = 0xFFFFFFFE (-2).
    CHECK(reference(make(ReduceOp::sum, ValueType::i32, ValueType::i32), std::vector<std::int32_t>{2147483647, 2147483647})
              .bits == 0xFFFFFFFEull);
    CHECK(reference(make(ReduceOp::sum, ValueType::u32), std::vector<std::uint32_t>{0xFFFFFFFFu, 1}).bits ==
          0x100000000ull);
    CHECK(reference(make(ReduceOp::sum, ValueType::u64), std::vector<std::uint64_t>{~0ull, 2}).bits == 1);
    CHECK(reference(make(ReduceOp::min, ValueType::i32), std::vector<std::int32_t>{5, -7, 3}).bits == 0xFFFFFFF9ull);
    CHECK(reference(make(ReduceOp::max, ValueType::i32), std::vector<std::int32_t>{5, -7, 3}).bits == 5);
    CHECK(reference(make(ReduceOp::min, ValueType::u32), std::vector<std::uint32_t>{9, 0xFFFFFFFFu, 4}).bits == 4);
    CHECK(reference(make(ReduceOp::max, ValueType::u64), std::vector<std::uint64_t>{9, ~0ull, 4}).bits == ~0ull);
    CHECK(reference(make(ReduceOp::min, ValueType::i64), std::vector<std::int64_t>{-(1ll << 40), 3}).bits ==
          static_cast<std::uint64_t>(-(1ll << 40)));
    // n = 0: the identities.
    CHECK(reference(i32sum, std::vector<std::int32_t>{}).bits == 0);
    CHECK(reference(make(ReduceOp::min, ValueType::i32), std::vector<std::int32_t>{}).bits == 0x7FFFFFFFull);
    CHECK(reference(make(ReduceOp::max, ValueType::i32), std::vector<std::int32_t>{}).bits == 0x80000000ull);
    CHECK(reference(make(ReduceOp::min, ValueType::u64), std::vector<std::uint64_t>{}).bits == ~0ull);
    CHECK(reference(make(ReduceOp::max, ValueType::u32), std::vector<std::uint32_t>{}).bits == 0);
  }

  TEST_CASE("the reference on floats, by hand: exact sums, NaN, infinities, signed zeros, identities") {
    const auto f32sum = make(ReduceOp::sum, ValueType::f32);
    CHECK(reference(f32sum, std::vector<float>{0.5f, 0.25f, -1.0f}).value == -0.25L);
    // Compensation: 1 + 2^-70 - 1 is 2^-70 exactly, which plain long double summation would lose.
    CHECK(reference(make(ReduceOp::sum, ValueType::f64), std::vector<double>{1.0, 0x1p-70, -1.0}).value == 0x1p-70L);
    CHECK(reference(f32sum, std::vector<float>{0.5f, -2.0f}).abs_sum == 2.5L);
    CHECK(std::isnan(reference(f32sum, std::vector<float>{1.0f, kNaNF, 2.0f}).value));
    CHECK(reference(f32sum, std::vector<float>{1.0f, kInfF}).value == kInf);
    CHECK(reference(f32sum, std::vector<float>{-kInfF, 1.0f}).value == -kInf);
    CHECK(std::isnan(reference(f32sum, std::vector<float>{kInfF, -kInfF}).value));
    CHECK(reference(f32sum, std::vector<float>{}).value == 0.0L);

    const auto f32min = make(ReduceOp::min, ValueType::f32), f64max = make(ReduceOp::max, ValueType::f64);
    CHECK(reference(f32min, std::vector<float>{0.5f, -3.0f, 2.0f}).value == -3.0L);
    CHECK(reference(f32min, std::vector<float>{0.5f, -3.0f, 2.0f}).bits == 0xC0400000u);  // -3.0f
    CHECK(reference(f64max, std::vector<double>{0.5, -3.0, kInf}).value == kInf);
    // Any NaN gives the canonical quiet NaN, wherever it is.
    for (std::size_t at : {0, 1, 2}) {
      std::vector<float> v{1.0f, 2.0f, 3.0f};
      v[at] = -kNaNF;
      const auto e = reference(f32min, v);
      CHECK(std::isnan(e.value));
      CHECK(e.bits == 0x7FC00000u);
    }
    CHECK(reference(f64max, std::vector<double>{kNaN, kInf}).bits == 0x7FF8000000000000ull);
    CHECK(reference(f32min, std::vector<float>{}).bits == 0x7F800000u);       // +inf
    CHECK(reference(f64max, std::vector<double>{}).bits == 0xFFF0000000000000ull);  // -inf
    CHECK(reference(f32min, std::vector<float>{-0.0f, 0.0f}).value == 0.0L);
  }

  TEST_CASE("the float-sum tolerance follows its documented formula") {
    // n = 1024: k = 10 + 32 = 42; u = 2^-24 for f32.
    const long double u32 = 0x1p-24L, u64 = 0x1p-53L;
    CHECK(reduce_sum_tolerance(ValueType::f32, 1024, 100.0L) == doctest::Approx(static_cast<double>(42 * u32 / (1 - 42 * u32) * 100)));
    // n = 1025 rounds log2 up: k = 11 + 32 = 43. f64: u = 2^-53.
    CHECK(reduce_sum_tolerance(ValueType::f64, 1025, 1.0L) == doctest::Approx(static_cast<double>(43 * u64 / (1 - 43 * u64))).epsilon(1e-12));
    CHECK(reduce_sum_tolerance(ValueType::f32, 1, 3.0L) == doctest::Approx(static_cast<double>(32 * u32 / (1 - 32 * u32) * 3)));
    CHECK(reduce_sum_tolerance(ValueType::f32, 1 << 20, 0.0L) == 0.0L);
  }

  TEST_CASE("compare_reduce: integers exact, float sums within the tolerance, min/max exact, NaN rules") {
    const auto i32sum = make(ReduceOp::sum, ValueType::i32);
    const auto e = reference(i32sum, std::vector<std::int32_t>{40, 2});
    CHECK(compare(i32sum, e, std::int64_t{42}, 2) == "");
    CHECK(compare(i32sum, e, std::int64_t{41}, 2) == "expected 42, got 41");
    CHECK(compare(make(ReduceOp::min, ValueType::i32), reference(make(ReduceOp::min, ValueType::i32),
                                                                 std::vector<std::int32_t>{-5, 7}),
                  std::int32_t{-5}, 2) == "");
    // Only the accumulator's bytes are read: what follows a 4-byte result does not matter.
    const auto u32max = make(ReduceOp::max, ValueType::u32);
    const std::uint32_t two[2] = {7, 0xABABABABu};
    CHECK(compare_reduce(u32max, reference(u32max, std::vector<std::uint32_t>{7, 3}), two, 2) == "");

    // Float sum: 1024 values of 0.5 (sum 512, sum|x| 512); tolerance 42 * 2^-24 * 512 ~ 1.28e-3.
    const auto f32sum = make(ReduceOp::sum, ValueType::f32);
    const std::vector<float> halves(1024, 0.5f);
    const auto s = reference(f32sum, halves);
    CHECK(s.value == 512.0L);
    CHECK(compare(f32sum, s, 512.0f, 1024) == "");
    CHECK(compare(f32sum, s, 512.0f + 0x1p-14f * 16, 1024) == "");  // 0.98e-3: inside
    CHECK(compare(f32sum, s, 512.0f + 0x1p-14f * 24, 1024) != "");  // 1.46e-3: outside
    CHECK(compare(f32sum, s, 511.0f, 1024).find("exceeds the tolerance") != std::string::npos);
    CHECK(compare(f32sum, s, kNaNF, 1024) != "");
    CHECK(compare(f32sum, s, kInfF, 1024).find("cannot overflow") != std::string::npos);
    // f64 accumulation of f32 values: the tolerance is 2^29 times tighter.
    const auto f32in64 = make(ReduceOp::sum, ValueType::f32, ValueType::f64);
    CHECK(compare(f32in64, reference(f32in64, halves), 512.0, 1024) == "");
    CHECK(compare(f32in64, reference(f32in64, halves), 512.0 + 1e-9, 1024) != "");
    // An infinity where the finite sum can overflow f32 is accepted.
    const std::vector<float> big{3e38f, 3e38f};
    CHECK(compare(f32sum, reference(f32sum, big), kInfF, 2) == "");
    // Specials.
    const auto nan_sum = reference(f32sum, std::vector<float>{1.0f, kNaNF});
    CHECK(compare(f32sum, nan_sum, -kNaNF, 2) == "");  // any NaN for sums
    CHECK(compare(f32sum, nan_sum, 1.0f, 2) == "expected NaN, got 1");
    const auto inf_sum = reference(f32sum, std::vector<float>{1.0f, -kInfF});
    CHECK(compare(f32sum, inf_sum, -kInfF, 2) == "");
    CHECK(compare(f32sum, inf_sum, kInfF, 2) != "");

    // min/max: equal values, signed zeros equal, the NaN must be canonical.
    const auto f32min = make(ReduceOp::min, ValueType::f32);
    const auto zeros = reference(f32min, std::vector<float>{0.0f, 1.0f, -0.0f});
    CHECK(compare(f32min, zeros, -0.0f, 3) == "");
    CHECK(compare(f32min, zeros, 0.0f, 3) == "");
    CHECK(compare(f32min, zeros, 1e-45f, 3) != "");  // the smallest subnormal is not zero
    const auto nan_min = reference(f32min, std::vector<float>{1.0f, kNaNF});
    CHECK(compare(f32min, nan_min, std::bit_cast<float>(0x7FC00000u), 2) == "");
    CHECK(compare(f32min, nan_min, std::bit_cast<float>(0xFFC00000u), 2).find("canonical") != std::string::npos);
    CHECK(compare(f32min, nan_min, 1.0f, 2) != "");
    const auto f64max = make(ReduceOp::max, ValueType::f64);
    CHECK(compare(f64max, reference(f64max, std::vector<double>{1.0, 2.0}), kNaN, 2) == "expected 2, got nan");
  }
}
