#include "kernel_templates/argreduce/reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "autotune/error.hpp"
#include "kernel_templates/reduction_reference.hpp"  // with_value_type
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

template <class T>
void fill(const ArgReduceProblem& p, std::uint64_t n, std::uint64_t seed, T* out) {
  SplitMix64 rng{seed};
  if (p.distribution == "uniform" || p.distribution == "sorted") {
    for (std::uint64_t i = 0; i < n; ++i) out[i] = draw<T>(rng);
    if (p.distribution == "sorted") std::sort(out, out + n);
  } else if (p.distribution == "constant") {
    std::fill(out, out + n, draw<T>(rng));
  } else if (p.distribution == "skewed") {
    if constexpr (std::is_floating_point_v<T>) {
      double x = 0;
      for (std::uint64_t i = 0; i < n; ++i) out[i] = static_cast<T>(x += rng.unit() - 0.45);
    } else {
      // From the middle of the range (0 for signed types): fewer than 2^29 steps of at most 4 stay inside a 32-bit
      // range; a longer walk may wrap around, which is still a valid input.
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

template <class T>
std::uint64_t bits_of(T v) {
  if constexpr (sizeof(T) == 4) return std::bit_cast<std::uint32_t>(v);
  else return std::bit_cast<std::uint64_t>(v);
}

template <class T>
ArgExpected arg_reduce(const ArgReduceProblem& p, const T* x, std::uint64_t n) {
  const bool max = p.op == ArgOp::argmax;
  if (n == 0) return {bits_of(max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max()), 1};
  std::uint64_t best = 0;
  bool nan = false;
  if constexpr (std::is_floating_point_v<T>) nan = std::isnan(x[0]);
  for (std::uint64_t i = 1; i < n && !nan; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x[i])) {
        best = i, nan = true;  // the first NaN ends the search
        break;
      }
    }
    if (max ? x[i] > x[best] : x[i] < x[best]) best = i;  // strictly: a tie keeps the first
  }
  return {bits_of(x[best]), best};
}

std::string show(ValueType t, std::uint64_t bits) {
  switch (t) {
    case ValueType::i32: return fmt::format("{}", static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)));
    case ValueType::u32: return fmt::format("{}", static_cast<std::uint32_t>(bits));
    case ValueType::i64: return fmt::format("{}", static_cast<std::int64_t>(bits));
    case ValueType::u64: return fmt::format("{}", bits);
    case ValueType::f32:
      return fmt::format("{:.9g} (0x{:08x})", std::bit_cast<float>(static_cast<std::uint32_t>(bits)), bits);
    case ValueType::f64: return fmt::format("{:.17g} (0x{:016x})", std::bit_cast<double>(bits), bits);
    default: break;  // the narrow types: refused by ArgReduceProblem::validate
  }
  return "?";
}

}  // namespace

std::vector<unsigned char> generate_arg_values(const ArgReduceProblem& problem, std::uint64_t n, std::uint64_t seed) {
  std::vector<unsigned char> bytes(n * size_of(problem.type));
  with_value_type(problem.type, [&](auto tag) {
    using T = decltype(tag);
    fill<T>(problem, n, seed, reinterpret_cast<T*>(bytes.data()));
  });
  return bytes;
}

ArgExpected reference_argreduce(const ArgReduceProblem& problem, const void* data, std::uint64_t n) {
  return with_value_type(problem.type, [&](auto tag) {
    using T = decltype(tag);
    return arg_reduce<T>(problem, static_cast<const T*>(data), n);
  });
}

std::string compare_argreduce(const ArgReduceProblem& problem, const ArgExpected& expected, const void* got) {
  std::uint64_t bits = 0, index = 0;
  std::memcpy(&bits, got, size_of(problem.type));  // little-endian: a 4-byte value lands in the low half
  std::memcpy(&index, static_cast<const unsigned char*>(got) + 8, 8);
  if (bits == expected.value_bits && index == expected.index) return {};
  return fmt::format("expected {} at index {}, got {} at index {}", show(problem.type, expected.value_bits),
                     expected.index, show(problem.type, bits), index);
}

}  // namespace autotune
