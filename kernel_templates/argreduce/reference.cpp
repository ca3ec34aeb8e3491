#include "kernel_templates/argreduce/reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "autotune/error.hpp"
#include "core/splitmix.hpp"

namespace autotune {

namespace {

template <class T>
T draw(SplitMix64& rng) {
  if constexpr (std::is_floating_point_v<T>) {
    const T v = static_cast<T>(rng.unit() * 2.0 - 1.0);
    return v < T(1) ? v : T(-1);  // rounding to f32 can reach 1
  } else {
    return static_cast<T>(rng.next());  // the whole range
  }
}

// `step` scales a float walk's steps (halves: 2^-8, so that an f16 walk of 2^28 steps stays below 65504).
template <class T>
void fill(const ArgReduceProblem& p, std::uint64_t n, std::uint64_t seed, T* out, double step = 1.0) {
  SplitMix64 rng{seed};
  if (p.distribution == "uniform" || p.distribution == "sorted") {
    fill_draws(out, n, seed, [](SplitMix64& r, std::uint64_t) { return draw<T>(r); });  // one draw each
    if (p.distribution == "sorted") std::sort(out, out + n);
  } else if (p.distribution == "constant") {
    std::fill(out, out + n, draw<T>(rng));
  } else if (p.distribution == "skewed") {
    if constexpr (std::is_floating_point_v<T>) {
      double x = 0;
      for (std::uint64_t i = 0; i < n; ++i) out[i] = static_cast<T>(x += (rng.unit() - 0.45) * step);
    } else {
      // From the middle of the range (0 for signed types): fewer than 2^29 steps of at most 4 stay inside a 32-bit
      // range; a longer walk (an i8's or i16's soon) wraps around, which is still a valid input.
      using U = std::make_unsigned_t<T>;
      U x = std::is_signed_v<T> ? U(0) : static_cast<U>(U(1) << (8 * sizeof(T) - 1));
      for (std::uint64_t i = 0; i < n; ++i) {
        x = static_cast<U>(x + static_cast<U>(static_cast<std::int64_t>(rng.next() % 8) - 3));
        out[i] = static_cast<T>(x);
      }
    }
  } else {
    throw UsageError(fmt::format("unknown distribution '{}'", p.distribution));
  }
}

}  // namespace

std::vector<unsigned char> generate_arg_values(const ArgReduceProblem& problem, std::uint64_t n, std::uint64_t seed) {
  // A half's: the floats' distribution, each rounded to the nearest half, its walk in steps of 2^-8.
  const double step = problem.type == ValueType::f16 || problem.type == ValueType::bf16 ? 0x1p-8 : 1.0;
  return typed_values(problem.type, n, [&](auto* out) { fill(problem, n, seed, out, step); });
}

ArgExpected reference_argreduce(const ArgReduceProblem& problem, const void* data, std::uint64_t n) {
  return reference_arg_extreme(problem.type, problem.op == ArgOp::argmax, data, n);
}

std::string compare_argreduce(const ArgReduceProblem& problem, const ArgExpected& expected, const void* got) {
  std::uint64_t bits = 0, index = 0;
  std::memcpy(&bits, got, size_of(problem.type));  // little-endian: a narrower value lands in the low bytes
  std::memcpy(&index, static_cast<const unsigned char*>(got) + 8, 8);
  if (bits == expected.value_bits && index == expected.index) return {};
  return fmt::format("expected {} at index {}, got {} at index {}", show_value(problem.type, expected.value_bits),
                     expected.index, show_value(problem.type, bits), index);
}

}  // namespace autotune
