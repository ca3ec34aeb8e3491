// Reductions of halves and narrow integers, the transform-reductions and operators of the user's own, without a GPU:
// keys (every key of before still names the same problem), parsing, the operator's hash, validation, the CPU
// reference on inputs worked out by hand, and (suite nvrtc_half_reduce) that every new kind of variant compiles and
// that an operator which does not compile is a UsageError carrying NVRTC's log.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "autotune/reduce.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "core/family.hpp"
#include "kernel_templates/half_host.hpp"
#include "kernel_templates/reduce/handle.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "kernel_templates/user_op.hpp"
#include "kernel_templates/value_types.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"
#include "tests/test_devices.hpp"

using namespace autotune;
using reduce_detail::float_to_half;
using reduce_detail::half_to_float;

namespace {

ReduceProblem make(ReduceOp op, ValueType t, std::optional<ValueType> acc = std::nullopt) {
  ReduceProblem p;
  p.op = op, p.type = t, p.accumulator = acc;
  return p;
}

ReduceProblem user(ValueType t, std::string op, std::string identity, std::string transform = "") {
  ReduceProblem p;
  p.op = ReduceOp::user, p.type = t, p.user = UserOp{std::move(op), std::move(identity), std::move(transform)};
  return p;
}

std::vector<unsigned char> halves(ValueType t, const std::vector<float>& values) { return rounded_to_halves(t, values); }

template <class T>
ReduceExpected reference(const ReduceProblem& p, const std::vector<T>& v) {
  return reference_reduce(p, v.data(), v.size());
}

const KernelFamily& reduce_family() { return family_named("reduce"); }

}  // namespace

TEST_SUITE("half_reduce") {
  TEST_CASE("f16 and bf16 host conversions give the known bit patterns, ties to even") {
    CHECK(float_to_half(ValueType::f16, 1.0f) == 0x3C00);
    CHECK(float_to_half(ValueType::f16, -2.0f) == 0xC000);
    CHECK(float_to_half(ValueType::f16, 0.1f) == 0x2E66);
    CHECK(float_to_half(ValueType::f16, 65504.0f) == 0x7BFF);       // the largest f16
    CHECK(float_to_half(ValueType::f16, 65520.0f) == 0x7C00);       // halfway to 65536: ties to even, overflows
    CHECK(float_to_half(ValueType::f16, 0x1p-24f) == 0x0001);       // the smallest subnormal
    CHECK(float_to_half(ValueType::f16, 1.0f + 0x1p-11f) == 0x3C00);  // halfway between 1 and 1 + 2^-10: even
    CHECK(float_to_half(ValueType::f16, 1.0f + 0x3p-11f) == 0x3C02);  // halfway between odd and even: up
    CHECK(half_to_float(ValueType::f16, 0x3555) == 0.333251953125f);
    CHECK(half_to_float(ValueType::f16, 0x0001) == 0x1p-24f);
    CHECK(half_to_float(ValueType::f16, 0xFC00) == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(half_to_float(ValueType::f16, 0x7E00)));
    CHECK(float_to_half(ValueType::bf16, 1.0f) == 0x3F80);
    CHECK(float_to_half(ValueType::bf16, 3.0f) == 0x4040);
    CHECK(float_to_half(ValueType::bf16, 0.1f) == 0x3DCD);
    CHECK(float_to_half(ValueType::bf16, 1.0f + 0x1p-8f) == 0x3F80);   // halfway: even
    CHECK(float_to_half(ValueType::bf16, 1.0f + 0x3p-8f) == 0x3F82);   // halfway from odd: up
    CHECK(half_to_float(ValueType::bf16, 0xC0A0) == -5.0f);
    CHECK(half_to_float(ValueType::bf16, 0x0001) == 0x1p-133f);
  }

  TEST_CASE("the value types' extremes (numeric_limits', or a float's infinities) and their widening to work types") {
    using reduce_detail::extreme_bits;
    using reduce_detail::widened_bits;
    const auto bits = [](auto v) {
      std::uint64_t b = 0;
      std::memcpy(&b, &v, sizeof v);
      return b;
    };
    const auto limits = [&](auto v, ValueType t) {
      using T = decltype(v);
      CAPTURE(to_string(t));
      CHECK(extreme_bits(t, true, true) == bits(std::numeric_limits<T>::max()));
      CHECK(extreme_bits(t, false, true) == bits(std::numeric_limits<T>::lowest()));
      // Without `finite`: a float's infinities, an integer's limits again.
      constexpr bool has_inf = std::numeric_limits<T>::has_infinity;
      const T high = has_inf ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
      CHECK(extreme_bits(t, true, false) == bits(high));
      CHECK(extreme_bits(t, false, false) == bits(has_inf ? T(-high) : std::numeric_limits<T>::lowest()));
    };
    limits(std::int32_t{}, ValueType::i32), limits(std::uint32_t{}, ValueType::u32);
    limits(std::int64_t{}, ValueType::i64), limits(std::uint64_t{}, ValueType::u64);
    limits(float{}, ValueType::f32), limits(double{}, ValueType::f64);
    limits(std::int8_t{}, ValueType::i8), limits(std::int16_t{}, ValueType::i16);
    // Halves: cuda::std::numeric_limits' largest finite values (65504, (2 - 2^-7) * 2^127), and the infinities.
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(half_to_float(ValueType::f16, extreme_bits(ValueType::f16, true, true)) == 65504.0f);
    CHECK(half_to_float(ValueType::f16, extreme_bits(ValueType::f16, false, true)) == -65504.0f);
    CHECK(half_to_float(ValueType::bf16, extreme_bits(ValueType::bf16, true, true)) == 0x1.FEp127f);
    CHECK(half_to_float(ValueType::bf16, extreme_bits(ValueType::bf16, false, true)) == -0x1.FEp127f);
    for (ValueType h : {ValueType::f16, ValueType::bf16}) {
      CHECK(half_to_float(h, extreme_bits(h, true, false)) == inf);
      CHECK(half_to_float(h, extreme_bits(h, false, false)) == -inf);
    }
    // The canonical quiet NaNs (positive, the top mantissa bit only).
    CHECK(reduce_detail::nan_bits(ValueType::f16) == 0x7E00u);
    CHECK(reduce_detail::nan_bits(ValueType::bf16) == 0x7FC0u);
    CHECK(reduce_detail::nan_bits(ValueType::f32) == 0x7FC00000u);
    CHECK(reduce_detail::nan_bits(ValueType::f64) == 0x7FF8000000000000ull);
    CHECK(reduce_detail::nan_bits(ValueType::i32) == 0);
    // Widened: an i8 or i16 to the int of the same value, a half to the float, a type to itself unchanged.
    for (int v = -128; v < 128; ++v)
      CHECK(widened_bits(ValueType::i8, static_cast<std::uint8_t>(v), ValueType::i32) == static_cast<std::uint32_t>(v));
    for (int v : {-32768, -129, -1, 0, 255, 32767})
      CHECK(widened_bits(ValueType::i16, static_cast<std::uint16_t>(v), ValueType::i32) ==
            static_cast<std::uint32_t>(v));
    CHECK(widened_bits(ValueType::f16, 0x3C00, ValueType::f32) == std::bit_cast<std::uint32_t>(1.0f));
    CHECK(widened_bits(ValueType::f16, 0xFC00, ValueType::f32) == std::bit_cast<std::uint32_t>(-inf));
    CHECK(widened_bits(ValueType::bf16, 0xC0A0, ValueType::f32) == std::bit_cast<std::uint32_t>(-5.0f));
    CHECK(widened_bits(ValueType::u64, ~0ull, ValueType::u64) == ~0ull);
  }

  TEST_CASE("a user operator known by its hash alone (from a key) is refused before NVRTC, in both families") {
    ReduceProblem r;
    r.op = ReduceOp::user, r.type = ValueType::f32, r.user_hash = "0123456789abcdef";
    CHECK_THROWS_WITH_AS(check_user_op_compiles(r, "sm_90"), doctest::Contains("reduce/user:0123456789abcdef"),
                         UsageError);
    SegReduceProblem s;
    s.op = SegReduceOp::user, s.type = ValueType::f32, s.user_hash = "0123456789abcdef";
    CHECK_THROWS_WITH_AS(check_user_op_compiles(s, "sm_90"), doctest::Contains("source is not known here"), UsageError);
    CHECK_THROWS_WITH_AS(check_user_op_compiles(s, "sm_90"), doctest::Contains("segreduce/user:0123456789abcdef"),
                         UsageError);
    // The segmented problem's own rules are checked first: an offset width other than 32 or 64 bits.
    SegReduceProblem bad = s;
    bad.user = UserOp{"a + b", "0", ""}, bad.offset_bits = 16;
    CHECK_THROWS_WITH_AS(check_user_op_compiles(bad, "sm_90"), doctest::Contains("offsets of 16 bits"), UsageError);
  }

  TEST_CASE("the new value types and operations: names, sizes, parsing") {
    CHECK(all_value_types().size() == 6);  // the 32- and 64-bit types every family takes
    CHECK(narrow_value_types() == std::vector<ValueType>{ValueType::f16, ValueType::bf16, ValueType::i8, ValueType::i16});
    for (ValueType t : narrow_value_types()) CHECK(parse_value_type(to_string(t)) == t);
    CHECK(size_of(ValueType::f16) == 2);
    CHECK(size_of(ValueType::bf16) == 2);
    CHECK(size_of(ValueType::i8) == 1);
    CHECK(size_of(ValueType::i16) == 2);
    CHECK(is_float(ValueType::bf16));
    CHECK_FALSE(is_float(ValueType::i16));
    for (const char* op : {"absmax", "sumsq", "sumabs", "l2norm"}) CHECK(to_string(*parse_reduce_op(op)) == op);
    CHECK_FALSE(parse_reduce_op("user").has_value());  // a user operator is spelled user:<hash> in a key
    CHECK(is_additive(ReduceOp::sumsq));
    CHECK_FALSE(is_additive(ReduceOp::absmax));
  }

  TEST_CASE("every key of before names the same problem") {
    struct Old {
      const char* key;
      ReduceOp op;
      ValueType type, acc;
      std::uint64_t n;
      const char* dist;
      bool deterministic;
    };
    const Old old[] = {
        {"reduce/sum/f32/acc=f32/n=1048576/dist=uniform", ReduceOp::sum, ValueType::f32, ValueType::f32, 1048576,
         "uniform", true},
        {"reduce/sum/f32/acc=f32/n=1048576/dist=uniform/mode=fast", ReduceOp::sum, ValueType::f32, ValueType::f32,
         1048576, "uniform", false},
        {"reduce/sum/i32/acc=i64/n=77/dist=uniform", ReduceOp::sum, ValueType::i32, ValueType::i64, 77, "uniform", true},
        {"reduce/sum/i32/acc=i32/n=5/dist=constant", ReduceOp::sum, ValueType::i32, ValueType::i32, 5, "constant", true},
        {"reduce/max/f64/acc=f64/n=0/dist=sorted", ReduceOp::max, ValueType::f64, ValueType::f64, 0, "sorted", true},
        {"reduce/min/u32/acc=u32/n=268435456/dist=uniform", ReduceOp::min, ValueType::u32, ValueType::u32, 268435456,
         "uniform", true},
        {"reduce/sum/f32/acc=f64/n=16/dist=uniform", ReduceOp::sum, ValueType::f32, ValueType::f64, 16, "uniform", true},
    };
    for (const Old& o : old) {
      CAPTURE(o.key);
      const auto parsed = Problem::parse(o.key);
      REQUIRE(parsed.has_value());
      const ReduceProblem* r = parsed->as<ReduceProblem>();
      REQUIRE(r != nullptr);
      CHECK(r->op == o.op);
      CHECK(r->type == o.type);
      CHECK(r->accumulator_type() == o.acc);
      CHECK(r->n == o.n);
      CHECK(r->distribution == o.dist);
      CHECK(r->normalized().deterministic == o.deterministic);
      CHECK(r->user_hash.empty());
    }
  }

  TEST_CASE("default accumulators and keys of the new types and transforms") {
    CHECK(make(ReduceOp::sum, ValueType::f16).accumulator_type() == ValueType::f32);
    CHECK(make(ReduceOp::sum, ValueType::bf16).accumulator_type() == ValueType::f32);
    CHECK(make(ReduceOp::sum, ValueType::i8).accumulator_type() == ValueType::i64);
    CHECK(make(ReduceOp::sum, ValueType::i16).accumulator_type() == ValueType::i64);
    CHECK(make(ReduceOp::max, ValueType::f16).accumulator_type() == ValueType::f16);
    CHECK(make(ReduceOp::min, ValueType::i8).accumulator_type() == ValueType::i8);
    CHECK(make(ReduceOp::absmax, ValueType::bf16).accumulator_type() == ValueType::bf16);
    CHECK(make(ReduceOp::absmax, ValueType::i8).accumulator_type() == ValueType::u32);
    CHECK(make(ReduceOp::absmax, ValueType::i32).accumulator_type() == ValueType::u32);
    CHECK(make(ReduceOp::absmax, ValueType::i64).accumulator_type() == ValueType::u64);
    CHECK(make(ReduceOp::absmax, ValueType::u64).accumulator_type() == ValueType::u64);
    CHECK(make(ReduceOp::sumsq, ValueType::bf16).accumulator_type() == ValueType::f32);
    CHECK(make(ReduceOp::sumsq, ValueType::i32).accumulator_type() == ValueType::i64);
    CHECK(make(ReduceOp::sumabs, ValueType::u32).accumulator_type() == ValueType::u64);
    CHECK(make(ReduceOp::l2norm, ValueType::f16).accumulator_type() == ValueType::f32);
    CHECK(make(ReduceOp::l2norm, ValueType::i16).accumulator_type() == ValueType::f64);
    CHECK(make(ReduceOp::l2norm, ValueType::f64).accumulator_type() == ValueType::f64);
    CHECK(user(ValueType::f16, "a + b", "0").accumulator_type() == ValueType::f32);
    CHECK(user(ValueType::i8, "a + b", "0").accumulator_type() == ValueType::i32);
    CHECK(user(ValueType::u64, "a + b", "0").accumulator_type() == ValueType::u64);

    ReduceProblem p = make(ReduceOp::absmax, ValueType::bf16);
    p.n = 1 << 28;
    CHECK(p.key() == "reduce/absmax/bf16/acc=bf16/n=268435456/dist=uniform");
    p.deterministic = false;  // no effect on a max: normalized away
    CHECK(p.key() == "reduce/absmax/bf16/acc=bf16/n=268435456/dist=uniform");
    ReduceProblem s = make(ReduceOp::sumsq, ValueType::f16);
    s.deterministic = false;
    CHECK(s.key() == "reduce/sumsq/f16/acc=f32/n=0/dist=uniform/mode=fast");
    ReduceProblem l = make(ReduceOp::l2norm, ValueType::f32);
    l.deterministic = false;  // the root is taken once, at the end: never atomics
    CHECK(l.key() == "reduce/l2norm/f32/acc=f32/n=0/dist=uniform");
    for (const std::string key : {"reduce/absmax/i8/acc=u32/n=1/dist=uniform", "reduce/sum/bf16/acc=f64/n=3/dist=sorted",
                                  "reduce/sumabs/i16/acc=i64/n=9/dist=constant", "reduce/l2norm/i32/acc=f64/n=2/dist=uniform",
                                  "reduce/user:74e613c30ecaeb13/f32/acc=f32/n=4096/dist=uniform"}) {
      CAPTURE(key);
      const auto parsed = Problem::parse(key);
      REQUIRE(parsed.has_value());
      CHECK(parsed->key() == key);
    }
    // Not keys: a hash of the wrong length or case, a narrow accumulator, min into another type.
    for (const char* bad : {"reduce/user:74e613c30ecaeb1/f32/acc=f32/n=1/dist=uniform",
                            "reduce/user:74E613C30ECAEB13/f32/acc=f32/n=1/dist=uniform",
                            "reduce/user/f32/acc=f32/n=1/dist=uniform", "reduce/sum/f16/acc=f16/n=1/dist=uniform",
                            "reduce/max/f16/acc=f32/n=1/dist=uniform", "reduce/absmax/i32/acc=i32/n=1/dist=uniform",
                            "reduce/sum/i8/acc=u64/n=1/dist=uniform", "reduce/l2norm/f32/acc=i64/n=1/dist=uniform"})
      CHECK_MESSAGE(!Problem::parse(bad).has_value(), bad);
  }

  TEST_CASE("the user operator's hash: a pinned format, different operators differ, whitespace runs do not") {
    // SHA-256 of "autotune user operator 1\0f32\0f32\0\0a > b ? a : b\0-INFINITY" (computed apart, with Python's
    // hashlib), first 16 hex digits: the key format stays what caches already hold.
    CHECK(user_op_hash({"a > b ? a : b", "-INFINITY", ""}, ValueType::f32, ValueType::f32) == "74e613c30ecaeb13");
    CHECK(user_op_hash({"a + b", "0", "x * x"}, ValueType::bf16, ValueType::f32) == "1bdda21858830ae4");
    ReduceProblem a = user(ValueType::f32, "a > b ? a : b", "-INFINITY");
    a.n = 4096;
    CHECK(a.key() == "reduce/user:74e613c30ecaeb13/f32/acc=f32/n=4096/dist=uniform");
    // Runs of whitespace, line breaks and the ends do not change the operator; a transform "x" is none.
    CHECK(user(ValueType::f32, "  a >  b\n ?\ta : b ", " -INFINITY", " x ").shape_key() == a.shape_key());
    // Another text, identity, transform, type or accumulator is another operator.
    CHECK(user(ValueType::f32, "a>b?a:b", "-INFINITY").shape_key() != a.shape_key());
    CHECK(user(ValueType::f32, "a > b ? a : b", "-FLT_MAX").shape_key() != a.shape_key());
    CHECK(user(ValueType::f32, "a > b ? a : b", "-INFINITY", "x * x").shape_key() != a.shape_key());
    CHECK(user(ValueType::f32, "a < b ? a : b", "INFINITY").shape_key() != a.shape_key());
    ReduceProblem f64 = user(ValueType::f32, "a > b ? a : b", "-INFINITY");
    f64.accumulator = ValueType::f64;
    CHECK(f64.shape_key() != a.shape_key());
    CHECK(user(ValueType::f16, "a > b ? a : b", "-INFINITY").shape_key() != a.shape_key());
    // Read back from its key, the problem knows the hash, not the source: it can be looked up, not compiled.
    const auto parsed = Problem::parse(a.key());
    REQUIRE(parsed.has_value());
    CHECK(parsed->as<ReduceProblem>()->user.op.empty());
    CHECK_THROWS_WITH_AS(kernel_source(*parsed->as<ReduceProblem>(), ReduceConfig{}),
                         doctest::Contains("source is not known"), UsageError);
    // Winners of another operator say nothing about this one.
    const Problem b(user(ValueType::f32, "a < b ? a : b", "INFINITY")), same(a);
    CHECK_FALSE(reduce_family().shape_distance(same, b).has_value());
    CHECK_FALSE(reduce_family().shape_distance(same, Problem(make(ReduceOp::max, ValueType::f32))).has_value());
    CHECK(reduce_family().shape_distance(same, *parsed) == 0.0);
  }

  TEST_CASE("a user operator's text stays one expression") {
    CHECK_NOTHROW(user(ValueType::f32, "fmaxf(a, b)", "-INFINITY", "x * x").validate());
    CHECK_NOTHROW(user(ValueType::i32, "(a & 1) == 0 ? b : a", "0").validate());
    const char* escapes[] = {"a); } __global__ void k() { (b", "a; b", "{a}", "a) + (b", "a + (b", "a ]",
                             "a /* b */", "a // b", "a\\\nb", "\"a\"", "'a'", "#define X", "a <% b %>", "%:define Y 1",
                             "a<:0:>"};
    for (const char* text : escapes) {
      CAPTURE(text);
      CHECK_THROWS_AS(user(ValueType::f32, text, "0").validate(), UsageError);
      CHECK_THROWS_AS(user(ValueType::f32, "a + b", text).validate(), UsageError);
      CHECK_THROWS_AS(user(ValueType::f32, "a + b", "0", text).validate(), UsageError);
    }
    CHECK_THROWS_WITH_AS(user(ValueType::f32, "a + b", "").validate(), doctest::Contains("identity"), UsageError);
    CHECK_THROWS_WITH_AS(user(ValueType::f32, "  ", "0").validate(), doctest::Contains("empty"), UsageError);
    CHECK_THROWS_AS(user(ValueType::f32, std::string(5000, 'a'), "0").validate(), UsageError);
    ReduceProblem sum = make(ReduceOp::sum, ValueType::f32);
    sum.user.op = "a + b";
    CHECK_THROWS_WITH_AS(sum.validate(), doctest::Contains("takes no operator source"), UsageError);
  }

  TEST_CASE("accumulators the new types and transforms refuse") {
    CHECK_THROWS_AS(make(ReduceOp::sum, ValueType::f16, ValueType::f16).validate(), UsageError);
    CHECK_THROWS_AS(make(ReduceOp::sum, ValueType::i8, ValueType::u64).validate(), UsageError);
    CHECK_THROWS_AS(make(ReduceOp::sum, ValueType::bf16, ValueType::i64).validate(), UsageError);
    CHECK_THROWS_AS(make(ReduceOp::max, ValueType::f16, ValueType::f32).validate(), UsageError);
    CHECK_THROWS_AS(make(ReduceOp::absmax, ValueType::i32, ValueType::i32).validate(), UsageError);
    CHECK_THROWS_AS(make(ReduceOp::l2norm, ValueType::f32, ValueType::i64).validate(), UsageError);
    ReduceProblem wide_user = user(ValueType::bf16, "a + b", "0");
    wide_user.accumulator = ValueType::f64;  // a user operator computes in any 32- or 64-bit type
    CHECK_NOTHROW(wide_user.validate());
    wide_user.accumulator = ValueType::f16;
    CHECK_THROWS_AS(wide_user.validate(), UsageError);
  }

  TEST_CASE("configurations: atomics only where the result is the work type, warp_reduce on 32-bit integer work") {
    ReduceConfig atomic_finish;
    atomic_finish.finish = Finish::atomic;
    ReduceProblem fast_f16_sum = make(ReduceOp::sum, ValueType::f16);
    fast_f16_sum.deterministic = false;
    CHECK(atomic_finish.invalid_reason(fast_f16_sum) == "");  // f32 work, f32 result
    CHECK(atomic_finish.invalid_reason(make(ReduceOp::max, ValueType::f16)) != "");   // f16 result from float work
    CHECK(atomic_finish.invalid_reason(make(ReduceOp::min, ValueType::i8)) != "");    // i8 result from int work
    CHECK(atomic_finish.invalid_reason(make(ReduceOp::absmax, ValueType::i32)) == "");  // u32 atomicMax
    CHECK(atomic_finish.invalid_reason(make(ReduceOp::l2norm, ValueType::f32)) != "");  // the root comes last
    CHECK(atomic_finish.invalid_reason(user(ValueType::i32, "a + b", "0")) != "");
    ReduceConfig redux;
    redux.block_reduce = BlockReduce::warp_reduce;
    CHECK(redux.invalid_reason(make(ReduceOp::min, ValueType::i8)) == "");      // __reduce_min_sync on int
    CHECK(redux.invalid_reason(make(ReduceOp::absmax, ValueType::i16)) == "");  // __reduce_max_sync on unsigned
    CHECK(redux.invalid_reason(make(ReduceOp::max, ValueType::bf16)) != "");    // float work
    CHECK(redux.invalid_reason(user(ValueType::i32, "a + b", "0")) != "");
    // Shared memory holds the work type: 4 bytes per warp for a min of halves, not 2.
    CHECK(ReduceConfig{}.shared_bytes(make(ReduceOp::min, ValueType::f16)) == 8 * 4);
    ReduceConfig one;
    one.vec_bytes = 0;
    CHECK(one.elems_per_load(make(ReduceOp::sum, ValueType::bf16)) == 1);
    CHECK(ReduceConfig{}.elems_per_load(make(ReduceOp::sum, ValueType::bf16)) == 8);  // 16-byte loads of 8 halves
    CHECK(ReduceConfig{}.elems_per_load(make(ReduceOp::sum, ValueType::i8)) == 16);
  }

  TEST_CASE("the spaces of the new problems hold the fallback and only valid variants") {
    std::vector<ReduceProblem> problems;
    for (ValueType t : {ValueType::f16, ValueType::bf16, ValueType::i8, ValueType::i16, ValueType::f32, ValueType::i64})
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::absmax, ReduceOp::sumsq,
                          ReduceOp::sumabs, ReduceOp::l2norm})
        problems.push_back(make(op, t));
    problems.push_back(user(ValueType::bf16, "a + b", "0", "x * x"));
    for (const auto& p : problems) {
      CAPTURE(p.shape_key());
      const auto space = reduce_space(p);
      CHECK(space.size() > 10);
      CHECK(space.front() == ReduceConfig::fallback(p));
      for (const auto& c : space) CHECK(c.invalid_reason(p) == "");
    }
  }

  TEST_CASE("the CPU reference on inputs worked out by hand") {
    const auto f16 = halves(ValueType::f16, {1.0f, 2.0f, 0.5f, -0.25f});
    CHECK(reference_reduce(make(ReduceOp::sum, ValueType::f16), f16.data(), 4).value == 3.25L);
    CHECK(reference_reduce(make(ReduceOp::sumsq, ValueType::f16), f16.data(), 4).value == 5.3125L);
    CHECK(reference_reduce(make(ReduceOp::sumabs, ValueType::f16), f16.data(), 4).value == 3.75L);
    CHECK(reference_reduce(make(ReduceOp::min, ValueType::f16), f16.data(), 4).bits == 0xB400);   // -0.25
    CHECK(reference_reduce(make(ReduceOp::absmax, ValueType::f16), f16.data(), 4).bits == 0x4000);  // 2
    const auto bf = halves(ValueType::bf16, {-3.0f, 2.0f, -0.0f});
    CHECK(reference_reduce(make(ReduceOp::absmax, ValueType::bf16), bf.data(), 3).bits == 0x4040);  // |-3|
    CHECK(reference_reduce(make(ReduceOp::max, ValueType::bf16), bf.data(), 3).bits == 0x4000);
    const auto l2 = halves(ValueType::bf16, {3.0f, -4.0f});
    CHECK(reference_reduce(make(ReduceOp::l2norm, ValueType::bf16), l2.data(), 2).value == 5.0L);
    // NaN: the canonical NaN of the result type; n = 0: the identity (absmax 0, max -inf).
    std::vector<unsigned char> nan = halves(ValueType::f16, {1.0f, 2.0f});
    const std::uint16_t payload = 0x7D01;  // a signalling-looking NaN with a payload
    std::memcpy(&nan[2], &payload, 2);
    CHECK(reference_reduce(make(ReduceOp::max, ValueType::f16), nan.data(), 2).bits == 0x7E00);
    CHECK(reference_reduce(make(ReduceOp::absmax, ValueType::f16), nan.data(), 2).bits == 0x7E00);
    CHECK(std::isnan(reference_reduce(make(ReduceOp::sum, ValueType::f16), nan.data(), 2).value));
    CHECK(reference_reduce(make(ReduceOp::absmax, ValueType::bf16), nullptr, 0).bits == 0);
    CHECK(reference_reduce(make(ReduceOp::max, ValueType::f16), nullptr, 0).bits == 0xFC00);
    CHECK(reference_reduce(make(ReduceOp::min, ValueType::bf16), nullptr, 0).bits == 0x7F80);
    // Infinities squared are +inf; -inf and +inf in a sum are NaN.
    const auto infs = halves(ValueType::f16, {-INFINITY, 1.0f});
    CHECK(reference_reduce(make(ReduceOp::sumsq, ValueType::f16), infs.data(), 2).value == INFINITY);
    // Integers: |lowest| in the unsigned result, squares and |x| summed modulo 2^64.
    const std::vector<std::int8_t> i8{-128, 5, 127};
    CHECK(reference(make(ReduceOp::absmax, ValueType::i8), i8).bits == 128);
    CHECK(reference(make(ReduceOp::min, ValueType::i8), i8).bits == 0x80);  // -128 as i8 bits
    CHECK(reference(make(ReduceOp::sum, ValueType::i8), i8).bits == 4);
    CHECK(reference(make(ReduceOp::sumsq, ValueType::i8), i8).bits == 16384 + 25 + 16129);
    CHECK(reference(make(ReduceOp::sumabs, ValueType::i8), i8).bits == 260);
    CHECK(reference(make(ReduceOp::l2norm, ValueType::i8), i8).value == std::sqrt(32538.0L));
    const std::vector<std::int16_t> i16{-3, 4, -32768};
    CHECK(reference(make(ReduceOp::max, ValueType::i16), i16).bits == 4);
    CHECK(reference(make(ReduceOp::sum, ValueType::i16), i16).bits == static_cast<std::uint64_t>(-32767LL));
    const std::vector<std::int32_t> i32{std::numeric_limits<std::int32_t>::lowest(), 7};
    CHECK(reference(make(ReduceOp::absmax, ValueType::i32), i32).bits == 2147483648ull);
    const std::vector<std::int64_t> i64{std::numeric_limits<std::int64_t>::lowest(), 1};
    CHECK(reference(make(ReduceOp::sumabs, ValueType::i64), i64).bits == (1ull << 63) + 1);  // wraps as documented
    CHECK(reference(make(ReduceOp::absmax, ValueType::i64), i64).bits == 1ull << 63);
    const std::vector<float> f32{-0.0f, -7.5f, 2.0f};
    CHECK(reference(make(ReduceOp::absmax, ValueType::f32), f32).bits == std::bit_cast<std::uint32_t>(7.5f));
    CHECK_THROWS_AS(reference(user(ValueType::f32, "a + b", "0"), f32), UsageError);
  }

  TEST_CASE("compare_reduce: tolerances of the transforms and the root, exact maxima of halves") {
    std::vector<float> values(1000);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5f + static_cast<float>(i % 7) / 8;
    const ReduceProblem sq = make(ReduceOp::sumsq, ValueType::f32);
    const ReduceExpected e = reference(sq, values);
    // gamma_k * sum x^2, k = ceil(log2 1000) + 32 + 2 = 44, by hand: 44 * 2^-24 / (1 - 44 * 2^-24).
    const long double bound = 44 * 0x1p-24L / (1 - 44 * 0x1p-24L) * e.abs_sum;
    const float inside = static_cast<float>(e.value + bound * 0.9L), outside = static_cast<float>(e.value + bound * 1.5L);
    CHECK(compare_reduce(sq, e, &inside, values.size()) == "");
    CHECK(compare_reduce(sq, e, &outside, values.size()) != "");
    const ReduceProblem l2 = make(ReduceOp::l2norm, ValueType::f32);
    const ReduceExpected r = reference(l2, values);
    CHECK(r.value == std::sqrt(e.value));
    const float root = static_cast<float>(r.value), wrong = static_cast<float>(r.value * (1 + 1e-3L));
    CHECK(compare_reduce(l2, r, &root, values.size()) == "");
    CHECK(compare_reduce(l2, r, &wrong, values.size()) != "");
    // A half's max is exact: one ulp off is wrong; NaN must be the canonical 0x7e00.
    const auto h = halves(ValueType::f16, {0.1f, 0.2f});
    const ReduceProblem mx = make(ReduceOp::max, ValueType::f16);
    const ReduceExpected hx = reference_reduce(mx, h.data(), 2);
    const std::uint16_t right = 0x3266, off = 0x3267, other_nan = 0x7FFF;  // f16(0.2) = 0x3266
    CHECK(compare_reduce(mx, hx, &right, 2) == "");
    CHECK(compare_reduce(mx, hx, &off, 2) != "");
    auto nan_in = h;
    std::memcpy(&nan_in[0], &other_nan, 2);
    const ReduceExpected hn = reference_reduce(mx, nan_in.data(), 2);
    const std::uint16_t canonical = 0x7E00;
    CHECK(compare_reduce(mx, hn, &canonical, 2) == "");
    CHECK(compare_reduce(mx, hn, &other_nan, 2) != "");
    // A user operator against the fallback's result: integers exactly, floats within gamma_k relative.
    const ReduceProblem u = user(ValueType::f32, "a + b", "0");
    const float ref = 1000.0f, close = 1000.0f * (1 + 0x1p-20f), far = 1001.0f;
    CHECK(compare_user_results(u, &ref, &close, 1 << 20) == "");
    CHECK(compare_user_results(u, &ref, &far, 1 << 20) != "");
    const ReduceProblem ui = user(ValueType::i32, "a + b", "0");
    const std::int32_t seven = 7, eight = 8;
    CHECK(compare_user_results(ui, &seven, &seven, 3) == "");
    CHECK(compare_user_results(ui, &seven, &eight, 3) != "");
  }

  TEST_CASE("generated halves and narrow integers follow their distributions") {
    ReduceProblem p = make(ReduceOp::sum, ValueType::bf16);
    p.distribution = "sorted";
    const auto bytes = generate_values(p, 10000, 3);
    float previous = -2;
    for (std::size_t i = 0; i < 10000; ++i) {
      std::uint16_t b;
      std::memcpy(&b, &bytes[i * 2], 2);
      const float v = half_to_float(ValueType::bf16, b);
      CHECK(v >= -1.0f);
      CHECK(v <= 1.0f);  // a float just below 1 may round up to 1 in bf16
      CHECK(v >= previous);
      previous = v;
    }
    p.type = ValueType::f16;
    p.distribution = "constant";
    const auto constant = generate_values(p, 100, 5);
    std::uint16_t first;
    std::memcpy(&first, constant.data(), 2);
    const float k = half_to_float(ValueType::f16, first) * 8;
    CHECK(k == std::round(k));  // k/8, exactly summable
    CHECK(std::fabs(k) >= 1);
    CHECK(std::fabs(k) <= 7);
    ReduceProblem i8 = make(ReduceOp::min, ValueType::i8);
    const auto ints = generate_values(i8, 100000, 9);
    CHECK(std::count(ints.begin(), ints.end(), static_cast<unsigned char>(0x80)) > 0);  // -128 occurs
  }

  TEST_CASE("the command line: --user-op with --identity and --transform, and what it refuses") {
    const KernelFamily& f = reduce_family();
    CHECK_THROWS_WITH_AS(f.make_problem({{"user-op", "a + b"}, {"type", "f32"}, {"n", "1M"}}),
                         doctest::Contains("--identity"), UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"op", "sum"}, {"user-op", "a + b"}, {"identity", "0"}, {"type", "f32"},
                                         {"n", "1M"}}),
                         doctest::Contains("exclude"), UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"op", "sum"}, {"transform", "x*x"}, {"type", "f32"}, {"n", "1M"}}),
                         doctest::Contains("--transform goes with --user-op"), UsageError);
    CHECK_THROWS_WITH_AS(f.make_problem({{"op", "sumsq"}, {"type", "f8"}, {"n", "1M"}}),
                         doctest::Contains("bf16"), UsageError);  // the message lists the known types
    const Problem absmax = f.make_problem({{"op", "absmax"}, {"type", "bf16"}, {"n", "256M"}});
    CHECK(absmax.key() == "reduce/absmax/bf16/acc=bf16/n=268435456/dist=uniform");
    CHECK(f.command_options(absmax) == "--op absmax --type bf16 --acc bf16");
    ReduceProblem u = user(ValueType::bf16, "a  +  b", "0", "x * x");
    CHECK(f.command_options(Problem(u)) == "--user-op 'a + b' --identity '0' --transform 'x * x' --type bf16 --acc f32");
    const auto parsed = Problem::parse(Problem(u).key());
    REQUIRE(parsed.has_value());
    CHECK(f.command_options(*parsed).find("<the source of user:") != std::string::npos);
  }

  TEST_CASE("the handle's typed calls name halves and narrow integers") {
    static_assert(value_type_of<__half>() == ValueType::f16);
    static_assert(value_type_of<__nv_bfloat16>() == ValueType::bf16);
    static_assert(value_type_of<std::int8_t>() == ValueType::i8);
    static_assert(value_type_of<std::int16_t>() == ValueType::i16);
    static_assert(ReduceValue<__half> && ReduceValue<std::int8_t> && ReduceValue<std::int16_t>);
    static_assert(!ReduceValue<char> && !ReduceValue<std::uint8_t> && !ReduceValue<std::uint16_t>);
    const ReduceProblem absmax = make(ReduceOp::absmax, ValueType::i8);
    CHECK_NOTHROW(check_reduce_types(absmax, ValueType::i8, ValueType::u32));
    CHECK_THROWS_AS(check_reduce_types(absmax, ValueType::i8, ValueType::i8), UsageError);  // the result is u32
    const ReduceProblem f16max = make(ReduceOp::max, ValueType::f16);
    CHECK_NOTHROW(check_reduce_types(f16max, value_type_of<__half>(), value_type_of<__half>()));
    CHECK_THROWS_AS(check_reduce_types(f16max, value_type_of<__nv_bfloat16>(), std::nullopt), UsageError);
  }

  TEST_CASE("arg-reductions and segmented reductions take every narrow type (their suites check the results: "
            "test_argreduce.cpp, test_segreduce.cpp)") {
    for (ValueType t : narrow_value_types()) {
      CAPTURE(to_string(t));
      const Problem arg =
          family_named("argreduce").make_problem({{"op", "argmax"}, {"type", std::string(to_string(t))}, {"n", "1M"}});
      CHECK(arg.key().find(std::string("/") + std::string(to_string(t)) + "/") != std::string::npos);
      const Problem seg =
          family_named("segreduce").make_problem({{"op", "sum"}, {"type", std::string(to_string(t))}, {"n", "1M"}});
      CHECK(seg.key().find(std::string("/") + std::string(to_string(t)) + "/") != std::string::npos);
    }
  }
}

namespace {

// Compiles one pairwise covering of the problems' joint space (test::compile_all_joint: every problem at least once,
// every pair of a problem field and a configuration field, or of two configuration fields, in one compiled variant;
// every variant under nvrtc_full), each space the configurations an sm_90 device runs.
void check_compiles(const std::vector<ReduceProblem>& problems) {
  const DeviceInfo sm90 = test::h100_device("test");
  std::vector<std::vector<ReduceConfig>> spaces;
  for (const ReduceProblem& p : problems) {
    spaces.emplace_back();
    for (const auto& c : reduce_space(p))
      if (reduce_violation(p, c, &sm90).empty()) spaces.back().push_back(c);
    CHECK_MESSAGE(!spaces.back().empty(), p.shape_key());
  }
  const std::string failures = test::compile_all_joint(problems, spaces, "sm_90");
  CHECK_MESSAGE(failures == "", failures);
}

}  // namespace

TEST_SUITE("nvrtc_half_reduce") {
  // Each case compiles one pairwise covering of its problems' joint space (every pair of a problem's value, its type,
  // operation or accumulator, and a configuration value, or of two configuration values, meets in a compiled variant;
  // all of it in the nvrtc_full.* tests): the halves with every operation, the narrow integers with each kind of
  // arithmetic (add, min/max, |x| in unsigned, squares, the root), the transforms on the wide types, and user
  // operators.
  TEST_CASE("f16 and bf16 variants of every operation compile for sm_90: one pairwise covering of the 16 problems' "
            "joint space") {
    std::vector<ReduceProblem> problems;
    for (ValueType t : {ValueType::f16, ValueType::bf16})
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::absmax, ReduceOp::sumsq,
                          ReduceOp::sumabs, ReduceOp::l2norm})
        problems.push_back(make(op, t));
    ReduceProblem fast = make(ReduceOp::sumsq, ValueType::bf16);
    fast.deterministic = false;  // float atomics
    problems.push_back(fast);
    problems.push_back(make(ReduceOp::sum, ValueType::f16, ValueType::f64));
    check_compiles(problems);
  }
  TEST_CASE("i8 and i16 variants compile for sm_90: one pairwise covering of the eight problems' joint space") {
    std::vector<ReduceProblem> problems;
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::absmax, ReduceOp::sumsq, ReduceOp::l2norm})
      problems.push_back(make(op, ValueType::i8));
    for (ReduceOp op : {ReduceOp::max, ReduceOp::sumabs}) problems.push_back(make(op, ValueType::i16));
    problems.push_back(make(ReduceOp::sum, ValueType::i16, ValueType::i32));
    check_compiles(problems);
  }
  TEST_CASE("the transforms on the 32- and 64-bit types compile for sm_90: one pairwise covering of the five "
            "problems' joint space") {
    check_compiles({make(ReduceOp::absmax, ValueType::f32), make(ReduceOp::absmax, ValueType::i64),
                    make(ReduceOp::sumsq, ValueType::i32), make(ReduceOp::sumabs, ValueType::f64),
                    make(ReduceOp::l2norm, ValueType::f64)});
  }
  TEST_CASE("user operators compile for sm_90, on floats, halves and integers: one pairwise covering of the four "
            "problems' joint space") {
    ReduceProblem f64 = user(ValueType::f32, "fmax(a, b)", "-DBL_MAX", "fabs(x)");
    f64.accumulator = ValueType::f64;
    check_compiles({user(ValueType::f32, "a > b ? a : b", "-INFINITY"), user(ValueType::bf16, "a + b", "0", "x * x"),
                    user(ValueType::i8, "max(a, b)", "INT_MIN", "x < 0 ? -x : x"), f64});
  }

  TEST_CASE("the preamble of halves and of a user operator") {
    std::string src = kernel_source(make(ReduceOp::min, ValueType::f16), ReduceConfig{});
    CHECK(src.find("typedef unsigned short in_t;") != std::string::npos);
    CHECK(src.find("typedef unsigned short acc_t;") != std::string::npos);
    CHECK(src.find("typedef float work_t;") != std::string::npos);
    CHECK(src.find("constexpr Storage kStorage = Storage::f16;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0x7f800000ULL;") != std::string::npos);  // +inf
    CHECK(src.find("constexpr unsigned long long kOutNaNBits = 0x7e00ULL;") != std::string::npos);
    CHECK(src.find("constexpr bool kAtomics = false;") != std::string::npos);
    CHECK(src.find("constexpr int kVecBytes = 16;") != std::string::npos);  // 8 halves per load
    src = kernel_source(make(ReduceOp::max, ValueType::i8), ReduceConfig{});
    CHECK(src.find("typedef int work_t;") != std::string::npos);
    CHECK(src.find("constexpr unsigned long long kIdentityBits = 0xffffff80ULL;") != std::string::npos);  // -128
    src = kernel_source(make(ReduceOp::absmax, ValueType::i32), ReduceConfig{});
    CHECK(src.find("typedef unsigned int work_t;") != std::string::npos);
    CHECK(src.find("constexpr bool kSignedIn = true;") != std::string::npos);
    src = kernel_source(user(ValueType::f32, "a > b ? a : b", "-INFINITY"), ReduceConfig{});
    CHECK(src.find("#line 1 \"op\"\na > b ? a : b\n") != std::string::npos);
    CHECK(src.find("#line 1 \"identity\"\n-INFINITY\n") != std::string::npos);
    CHECK(src.find("constexpr ReduceOp kOp = ReduceOp::user;") != std::string::npos);
  }

  TEST_CASE("a user operator that does not compile is a UsageError with NVRTC's log, at the handle and the CLI") {
    const ReduceProblem bad = user(ValueType::f32, "a + c", "0");
    CHECK_THROWS_WITH_AS(check_user_op_compiles(bad, "sm_90"), doctest::Contains("identifier \"c\" is undefined"),
                         UsageError);
    CHECK_THROWS_WITH_AS(check_user_op_compiles(bad, "sm_90"), doctest::Contains("op(1)"), UsageError);
    CHECK_THROWS_WITH_AS(check_user_op_compiles(user(ValueType::f32, "a + b", "zero"), "sm_90"),
                         doctest::Contains("identity(1)"), UsageError);
    CHECK_THROWS_WITH_AS(check_user_op_compiles(user(ValueType::f32, "a + b", "0", "sqrtf(x, x)"), "sm_90"),
                         doctest::Contains("transform(1)"), UsageError);
    CHECK_NOTHROW(check_user_op_compiles(user(ValueType::f32, "fmaxf(a, b)", "-INFINITY", "fabsf(x)"), "sm_90"));
    CHECK_THROWS_WITH_AS(reduce_family().make_problem({{"user-op", "a + c"}, {"identity", "0"}, {"type", "f32"},
                                                       {"n", "1M"}}),
                         doctest::Contains("identifier \"c\" is undefined"), UsageError);
    // The handle checks before it looks for a device: the same error on a machine without one.
    CHECK_THROWS_WITH_AS(Reduce(ValueType::f32, UserOp{"a + c", "0", ""}, 1024),
                         doctest::Contains("identifier \"c\" is undefined"), UsageError);
  }
}
