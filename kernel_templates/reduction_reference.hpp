// Test inputs for reductions and the CPU reference every reduction variant is checked against: the reduction
// family's, and what the arg-reductions (with_value_type, reference_detail::with_reader) and the segmented reductions
// (each segment's reduction) reuse of it.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/reduce_problem.hpp"
#include "kernel_templates/half_host.hpp"

namespace autotune {

namespace reference_detail {

/// Element i of an input as the host type the references compare and compute in: the value itself (i8 and i16 too),
/// a half as float (exactly: half_host.hpp). R::V is that type, R::get(data, i) the value.
template <class T>
struct Plain {
  using V = T;
  static V get(const void* data, std::uint64_t i) {
    T v;
    std::memcpy(&v, static_cast<const unsigned char*>(data) + i * sizeof(T), sizeof(T));
    return v;
  }
};
template <ValueType H>
struct Half {
  using V = float;
  static V get(const void* data, std::uint64_t i) {
    std::uint16_t b;
    std::memcpy(&b, static_cast<const unsigned char*>(data) + i * 2, 2);
    return reduce_detail::half_to_float(H, b);
  }
};

/// Calls f with the reader (Plain<T> or Half<H>) of every ValueType `t`.
template <class F>
decltype(auto) with_reader(ValueType t, F&& f) {
  switch (t) {
    case ValueType::i32: return f(Plain<std::int32_t>{});
    case ValueType::u32: return f(Plain<std::uint32_t>{});
    case ValueType::i64: return f(Plain<std::int64_t>{});
    case ValueType::u64: return f(Plain<std::uint64_t>{});
    case ValueType::f32: return f(Plain<float>{});
    case ValueType::f64: return f(Plain<double>{});
    case ValueType::f16: return f(Half<ValueType::f16>{});
    case ValueType::bf16: return f(Half<ValueType::bf16>{});
    case ValueType::i8: return f(Plain<std::int8_t>{});
    case ValueType::i16: return f(Plain<std::int16_t>{});
  }
  throw UsageError("unknown value type");
}

}  // namespace reference_detail

/// Calls f with a value of the C++ type of `t` (int32_t, uint32_t, int64_t, uint64_t, float, double): the 32- and
/// 64-bit types of all_value_types(). The narrow ones (no host arithmetic type for halves) throw UsageError.
template <class F>
decltype(auto) with_value_type(ValueType t, F&& f) {
  switch (t) {
    case ValueType::i32: return f(std::int32_t{});
    case ValueType::u32: return f(std::uint32_t{});
    case ValueType::i64: return f(std::int64_t{});
    case ValueType::u64: return f(std::uint64_t{});
    case ValueType::f32: return f(float{});
    case ValueType::f64: return f(double{});
    default: break;
  }
  throw UsageError("with_value_type: only the 32- and 64-bit value types have a host type here");
}

/// `values` each rounded to the nearest `half` (f16 or bf16, ties to even: half_host.hpp), as raw bytes.
std::vector<unsigned char> rounded_to_halves(ValueType half, const std::vector<float>& values);

/// n values of `type` as raw bytes, written by fill(T* out) with T the type's host type (reference_detail::with_reader);
/// a half's as floats rounded to the nearest half (rounding is monotone: sorted floats stay sorted).
template <class Fill>
std::vector<unsigned char> typed_values(ValueType type, std::uint64_t n, Fill&& fill) {
  if (type == ValueType::f16 || type == ValueType::bf16) {
    std::vector<float> values(n);
    fill(values.data());
    return rounded_to_halves(type, values);
  }
  std::vector<unsigned char> bytes(n * size_of(type));
  reference_detail::with_reader(type, [&](auto reader) {
    using T = typename decltype(reader)::V;
    fill(reinterpret_cast<T*>(bytes.data()));
  });
  return bytes;
}

/// n values of problem.type following problem.distribution, reproducible from `seed`, as raw bytes:
///   uniform:  integer sums (and sumsq, sumabs, l2norm, user operators): i32 and i64 in [-2^30, 2^30), u32 over its
///             whole range, u64 in [0, 2^31), i8 and i16 over their whole range, so the default accumulator of a sum
///             cannot overflow for n up to 2^32; integer min/max/absmax: any value of the type; floats: [-1, 1)
///             (halves: a float of [-1, 1) rounded to the nearest half).
///   constant: one value drawn as above, repeated; for floats a multiple of 1/8 (k/8, 1 <= |k| <= 7), so that every
///             partial sum a kernel forms below 2^21 (f32) is exact whatever its order.
///   sorted:   the uniform values in ascending order.
/// Throws UsageError for an unknown distribution.
std::vector<unsigned char> generate_values(const ReduceProblem& problem, std::uint64_t n, std::uint64_t seed);

/// What the reduction of some input must give, computed by reference_reduce.
struct ReduceExpected {
  /// Integer accumulators, and float min/max/absmax: the bits of the exact result in the accumulator type,
  /// zero-extended (a NaN min/max/absmax is the canonical quiet NaN of reduce_problem.hpp).
  std::uint64_t bits = 0;
  /// Float results. min/max/absmax: exact. Sums (sum, sumsq, sumabs): the compensated (Neumaier, long double) sum of
  /// the transformed finite elements, or the IEEE special that the non-finite ones force (NaN, +inf, -inf). l2norm:
  /// the root of that sum of squares.
  long double value = 0;
  /// Float sums: the sum of |t(x)| over the finite elements (t the transform), the scale of the tolerance. l2norm:
  /// the sum of squares.
  long double abs_sum = 0;
};

/// The reduction of `n` values of problem.type at `data`, by the semantics of reduce_problem.hpp (integer sums
/// modulo the accumulator's width, NaN-propagating min/max/absmax, identities for n = 0), for every built-in
/// operation; halves are decoded by half_host.hpp. Plain sequential C++, written independently of the kernel
/// template. A user operator has no CPU reference (its text is CUDA): UsageError.
ReduceExpected reference_reduce(const ReduceProblem& problem, const void* data, std::uint64_t n);

/// The error compare_reduce allows a float sum of n elements whose absolute values add up to abs_sum:
///   gamma_k * abs_sum, gamma_k = k u / (1 - k u), k = chain + ceil(log2 n) + 32,
/// u the accumulator's unit roundoff (2^-24 for f32, 2^-53 for f64). gamma_k * sum|x| bounds the error of any
/// summation of n values in which no value passes through more than k additions (Higham, Accuracy and Stability of
/// Numerical Algorithms, 4.2): a pairwise tree has height ceil(log2 n); `chain` is the longest sequential run of
/// additions the variant adds on top of its trees (addition_chain). The bound holds in any order and for any input.
/// A statistical bound (sequential rounding errors random in sign, growing like sqrt(chain) u) does not hold: bf16
/// sums of squares on one block of 512 threads (chains of 2048) erred by up to 2.8x such a bound on an H200
/// (bench/results/2026-12-02-h200-gpu-quick-tier-final.log), every error of the same sign. An order-independent
/// exact check needs exactly summable inputs (small integers as floats), as the GPU suites do.
long double reduce_sum_tolerance(ValueType accumulator, std::uint64_t n, long double abs_sum, std::uint64_t chain = 0);

/// The longest sequential run of float additions `config` makes for n elements on `grid` blocks, beyond the
/// log-depth trees (of the block, of the blocks): the elements one thread adds in turn, ceil(n / (grid * block)),
/// plus, for per-thread atomics (BlockReduce::atomic), the adds of every thread into the one output in an order the
/// hardware picks, min(n, grid * block). A bound, not the exact count: several accumulators and vector loads only
/// shorten a thread's chain.
std::uint64_t addition_chain(const ReduceConfig& config, std::uint64_t n, std::uint64_t grid);

/// Empty when `got` (the raw accumulator-type bytes the kernel wrote) is correct for n elements, else one line
/// saying what was expected and what came back. Integers: exact. Float min/max/absmax: equal values (-0.0 equals
/// +0.0); an expected NaN must be the canonical NaN. Float sums: an expected NaN must be a NaN, an infinity that
/// infinity; otherwise within reduce_sum_tolerance of the reference (k two larger for a transform: the rounding of
/// each converted and squared term), and an infinity is accepted only where the finite sum could overflow the
/// accumulator (sum|x| near its largest value). l2norm: within the root's image of that interval plus two roundings.
std::string compare_reduce(const ReduceProblem& problem, const ReduceExpected& expected, const void* got,
                           std::uint64_t n, std::uint64_t chain = 0);

/// What an arg-reduction (arg-min or arg-max) of some input must give.
struct ArgExpected {
  std::uint64_t value_bits = 0;  ///< the value's bits, zero-extended (4-byte types in the low half)
  std::uint64_t index = 0;
};

/// The arg-min (`max` false) or arg-max of `n` values of `type` at `data`, by the semantics of argreduce_problem.hpp:
/// the first index of the extreme (ties by ==, halves compared as their floats, decoded by half_host.hpp), the first
/// NaN if any; n = 0 gives index 1 and CUB's value for an empty input (numeric_limits' lowest() for arg-max, max() for
/// arg-min; a half's those of cuda::std::numeric_limits). Plain sequential C++, written independently of the kernel
/// templates: the reference of the arg-reductions and of each segment of a segmented argmin/argmax.
ArgExpected reference_arg_extreme(ValueType type, bool max, const void* data, std::uint64_t n);

/// A value of `t` from its `bits` (zero-extended), as messages show it: an integer's value, a float's value and its
/// bits in hex.
std::string show_value(ValueType t, std::uint64_t bits);

/// A user operator's check (it has no CPU reference): `got` against `reference`, the result of the fallback
/// configuration on the same input, both raw accumulator-type bytes. Integers: equal bits. Floats: both NaN, or equal,
/// or within gamma_k * max(|got|, |reference|) (k as reduce_sum_tolerance's, `chain` the two variants' addition
/// chains together): a variant that is broken is far off, another order of an addition-like operator is not. Empty
/// when they agree, else one line.
std::string compare_user_results(const ReduceProblem& problem, const void* reference, const void* got,
                                 std::uint64_t n, std::uint64_t chain = 0);

}  // namespace autotune
