#include "kernel_templates/reduce/reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "autotune/error.hpp"
#include "tuner/splitmix.hpp"

namespace autotune {

namespace {


template <class T>
T draw(const ReduceProblem& p, SplitMix64& rng) {
  if constexpr (std::is_floating_point_v<T>) {
    const T v = static_cast<T>(rng.unit() * 2.0 - 1.0);
    return v < T(1) ? v : T(-1);  // rounding to f32 can reach 1
  } else if (p.op != ReduceOp::sum) {
    return static_cast<T>(rng.next());  // min/max: the whole range, extremes included
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    return static_cast<T>(rng.next());  // n * (2^32 - 1) < 2^64 for n <= 2^32
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(static_cast<std::int64_t>(rng.next() % (1ull << 31)) - (1ll << 30));  // [-2^30, 2^30)
  } else {
    return static_cast<T>(rng.next() % (1ull << 31));  // u64: [0, 2^31)
  }
}

template <class T>
void fill(const ReduceProblem& p, std::uint64_t n, std::uint64_t seed, T* out) {
  SplitMix64 rng{seed};
  if (p.distribution == "uniform" || p.distribution == "sorted") {
    for (std::uint64_t i = 0; i < n; ++i) out[i] = draw<T>(p, rng);
    if (p.distribution == "sorted") std::sort(out, out + n);
  } else if (p.distribution == "constant") {
    T v;
    if constexpr (std::is_floating_point_v<T>) {
      const int k = 1 + static_cast<int>(rng.next() % 7);
      v = static_cast<T>((rng.next() & 1 ? -k : k) / 8.0);
    } else {
      v = draw<T>(p, rng);
    }
    std::fill(out, out + n, v);
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
ReduceExpected integer_reduce(const ReduceProblem& p, const T* x, std::uint64_t n) {
  ReduceExpected e;
  if (p.op == ReduceOp::sum) {
    // Two's complement: the sum modulo 2^64 (signed values sign-extended), then cut to the accumulator's width.
    std::uint64_t s = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      if constexpr (std::is_signed_v<T>) s += static_cast<std::uint64_t>(static_cast<std::int64_t>(x[i]));
      else s += static_cast<std::uint64_t>(x[i]);
    }
    e.bits = size_of(p.accumulator_type()) == 4 ? (s & 0xFFFFFFFFull) : s;
    return e;
  }
  T r = p.op == ReduceOp::min ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
  for (std::uint64_t i = 0; i < n; ++i) r = p.op == ReduceOp::min ? std::min(r, x[i]) : std::max(r, x[i]);
  e.bits = bits_of(r);
  return e;
}

template <class T>
ReduceExpected float_reduce(const ReduceProblem& p, const T* x, std::uint64_t n) {
  ReduceExpected e;
  if (p.op != ReduceOp::sum) {
    bool nan = false;
    T r = p.op == ReduceOp::min ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    for (std::uint64_t i = 0; i < n; ++i) {
      if (std::isnan(x[i])) nan = true;
      else if (p.op == ReduceOp::min ? x[i] < r : x[i] > r) r = x[i];
    }
    if (nan) r = std::numeric_limits<T>::quiet_NaN();
    e.value = r;
    e.bits = bits_of(r);
    return e;
  }
  // Neumaier's compensated sum in long double over the finite elements; the non-finite ones decide by IEEE rules.
  bool nan = false, pos_inf = false, neg_inf = false;
  long double sum = 0, compensation = 0, abs_sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const long double v = x[i];
    if (std::isnan(v)) nan = true;
    else if (std::isinf(v)) (v > 0 ? pos_inf : neg_inf) = true;
    else {
      const long double t = sum + v;
      compensation += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;
      sum = t;
      abs_sum += std::fabs(v);
    }
  }
  if (nan || (pos_inf && neg_inf)) e.value = std::numeric_limits<long double>::quiet_NaN();
  else if (pos_inf) e.value = std::numeric_limits<long double>::infinity();
  else if (neg_inf) e.value = -std::numeric_limits<long double>::infinity();
  else e.value = sum + compensation;
  e.abs_sum = abs_sum;
  return e;
}

long double as_long_double(ValueType t, std::uint64_t bits) {
  if (t == ValueType::f32) return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  return std::bit_cast<double>(bits);
}

std::string show_int(ValueType t, std::uint64_t bits) {
  switch (t) {
    case ValueType::i32: return fmt::format("{}", static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)));
    case ValueType::i64: return fmt::format("{}", static_cast<std::int64_t>(bits));
    default: return fmt::format("{}", bits);
  }
}

std::string show_float(long double v) { return fmt::format("{:.17g}", static_cast<double>(v)); }

}  // namespace

std::vector<unsigned char> generate_values(const ReduceProblem& problem, std::uint64_t n, std::uint64_t seed) {
  std::vector<unsigned char> bytes(n * size_of(problem.type));
  with_value_type(problem.type, [&](auto tag) {
    using T = decltype(tag);
    fill<T>(problem, n, seed, reinterpret_cast<T*>(bytes.data()));
  });
  return bytes;
}

ReduceExpected reference_reduce(const ReduceProblem& problem, const void* data, std::uint64_t n) {
  return with_value_type(problem.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(data);
    if constexpr (std::is_floating_point_v<T>) return float_reduce<T>(problem, x, n);
    else return integer_reduce<T>(problem, x, n);
  });
}

long double reduce_sum_tolerance(ValueType accumulator, std::uint64_t n, long double abs_sum, std::uint64_t chain) {
  const long double u = accumulator == ValueType::f32 ? 0x1p-24L : 0x1p-53L;
  const int log2n = n <= 1 ? 0 : static_cast<int>(std::bit_width(n - 1));  // ceil(log2 n)
  const long double k = static_cast<long double>(chain) + log2n + 32;
  if (k * u >= 1) return std::numeric_limits<long double>::infinity();  // no bound: only exact inputs can check it
  return k * u / (1 - k * u) * abs_sum;
}

std::uint64_t unordered_chain(const ReduceConfig& config, std::uint64_t n, std::uint64_t grid) {
  if (config.block_reduce != BlockReduce::atomic) return 0;
  return std::min<std::uint64_t>(n, grid * static_cast<std::uint64_t>(config.block));
}

std::string compare_reduce(const ReduceProblem& problem, const ReduceExpected& expected, const void* got,
                           std::uint64_t n, std::uint64_t chain) {
  const ValueType acc = problem.accumulator_type();
  std::uint64_t bits = 0;
  std::memcpy(&bits, got, size_of(acc));  // little-endian: a 32-bit value lands in the low half
  if (!is_float(acc)) {
    if (bits == expected.bits) return {};
    return fmt::format("expected {}, got {}", show_int(acc, expected.bits), show_int(acc, bits));
  }
  const long double value = as_long_double(acc, bits);
  if (problem.op != ReduceOp::sum) {
    if (std::isnan(expected.value)) {
      if (bits == expected.bits) return {};
      return fmt::format("expected the canonical NaN 0x{:x}, got 0x{:x} ({})", expected.bits, bits, show_float(value));
    }
    if (value == expected.value) return {};  // -0.0 == +0.0
    return fmt::format("expected {}, got {}", show_float(expected.value), show_float(value));
  }
  if (std::isnan(expected.value)) {
    if (std::isnan(value)) return {};
    return fmt::format("expected NaN, got {}", show_float(value));
  }
  if (std::isinf(expected.value)) {
    if (value == expected.value) return {};
    return fmt::format("expected {}, got {}", show_float(expected.value), show_float(value));
  }
  if (std::isnan(value)) return fmt::format("expected {}, got NaN", show_float(expected.value));
  const long double largest = acc == ValueType::f32 ? std::numeric_limits<float>::max()
                                                     : std::numeric_limits<double>::max();
  const long double tolerance = reduce_sum_tolerance(acc, n, expected.abs_sum, chain);
  if (std::isinf(value)) {
    // Partial sums never exceed sum|x| (plus rounding): below the largest finite value no order can overflow.
    if (expected.abs_sum + tolerance >= largest) return {};
    return fmt::format("expected {}, got {} (sum|x| = {} cannot overflow)", show_float(expected.value),
                       show_float(value), show_float(expected.abs_sum));
  }
  const long double error = std::fabs(value - expected.value);
  if (error <= tolerance) return {};
  return fmt::format("expected {}, got {}: error {:.3g} exceeds the tolerance {:.3g} (n = {}, sum|x| = {:.6g})",
                     show_float(expected.value), show_float(value), static_cast<double>(error),
                     static_cast<double>(tolerance), n, static_cast<double>(expected.abs_sum));
}

}  // namespace autotune
