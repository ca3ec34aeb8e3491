#include "kernel_templates/reduction_reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "autotune/error.hpp"
#include "kernel_templates/half_host.hpp"
#include "kernel_templates/value_types.hpp"  // nan_bits
#include "core/chunks.hpp"
#include "core/splitmix.hpp"

namespace autotune {

using reduce_detail::float_to_half;
using reduce_detail::half_to_float;
using reference_detail::with_reader;

namespace {

bool takes_whole_range(ReduceOp op) { return op == ReduceOp::min || op == ReduceOp::max || op == ReduceOp::absmax; }

// --- generating inputs -------------------------------------------------------------------------------------------

template <class T>
T draw(const ReduceProblem& p, SplitMix64& rng) {
  if constexpr (std::is_floating_point_v<T>) {
    const T v = static_cast<T>(rng.unit() * 2.0 - 1.0);
    return v < T(1) ? v : T(-1);  // rounding to f32 can reach 1
  } else if (sizeof(T) < 4 || takes_whole_range(p.op)) {
    return static_cast<T>(rng.next());  // the whole range, extremes included (i8/i16 sums fit i64 for any n)
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
    fill_draws(out, n, seed, [&p](SplitMix64& r, std::uint64_t) { return draw<T>(p, r); });  // one draw each
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

// --- bits ----------------------------------------------------------------------------------------------------------

template <class T>
std::uint64_t bits_of(T v) {
  if constexpr (sizeof(T) == 1) return std::bit_cast<std::uint8_t>(v);
  else if constexpr (sizeof(T) == 2) return std::bit_cast<std::uint16_t>(v);
  else if constexpr (sizeof(T) == 4) return std::bit_cast<std::uint32_t>(v);
  else return std::bit_cast<std::uint64_t>(v);
}

std::uint64_t width_mask(ValueType t) { return size_of(t) == 8 ? ~0ull : (1ull << (8 * size_of(t))) - 1; }

// The bits of a float value in float type t; exact for the values a min/max/absmax gives (elements, infinities).
std::uint64_t float_bits(ValueType t, long double v) {
  switch (t) {
    case ValueType::f16:
    case ValueType::bf16: return float_to_half(t, static_cast<float>(v));
    case ValueType::f32: return std::bit_cast<std::uint32_t>(static_cast<float>(v));
    default: return std::bit_cast<std::uint64_t>(static_cast<double>(v));
  }
}

long double as_long_double(ValueType t, std::uint64_t bits) {
  switch (t) {
    case ValueType::f16:
    case ValueType::bf16: return half_to_float(t, static_cast<std::uint16_t>(bits));
    case ValueType::f32: return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    default: return std::bit_cast<double>(bits);
  }
}

// --- the reference -------------------------------------------------------------------------------------------------

// Integer results: sums modulo 2^64 cut to the accumulator, min/max in the type, absmax in 64 bits unsigned.
template <class R>
ReduceExpected integer_reduce(const ReduceProblem& p, const void* x, std::uint64_t n) {
  using T = typename R::V;
  ReduceExpected e;
  const ValueType acc = p.accumulator_type();
  auto wide = [](T v) {  // two's complement: signed values sign-extended to 64 bits
    if constexpr (std::is_signed_v<T>) return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    else return static_cast<std::uint64_t>(v);
  };
  auto magnitude = [&](T v) { return std::is_signed_v<T> && v < 0 ? 0 - wide(v) : wide(v); };  // |lowest| fits
  // Each over chunks on every core (core/chunks.hpp): sums modulo 2^64 and extremes do not depend on the order.
  if (is_additive(p.op)) {
    const std::uint64_t s = chunks::reduce(
        n,
        [&](std::uint64_t begin, std::uint64_t end) {
          std::uint64_t part = 0;
          for (std::uint64_t i = begin; i < end; ++i) {
            const T v = R::get(x, i);
            part += p.op == ReduceOp::sum ? wide(v) : p.op == ReduceOp::sumsq ? wide(v) * wide(v) : magnitude(v);
          }
          return part;
        },
        [](std::uint64_t& into, std::uint64_t next) { into += next; });
    e.bits = s & width_mask(acc);
  } else if (p.op == ReduceOp::absmax) {
    e.bits = chunks::reduce(
        n,
        [&](std::uint64_t begin, std::uint64_t end) {
          std::uint64_t m = 0;
          for (std::uint64_t i = begin; i < end; ++i) m = std::max(m, magnitude(R::get(x, i)));
          return m;
        },
        [](std::uint64_t& into, std::uint64_t next) { into = std::max(into, next); });
  } else {
    const bool min = p.op == ReduceOp::min;
    auto better = [min](T a, T b) { return min ? std::min(a, b) : std::max(a, b); };
    const T r = chunks::reduce(
        n,
        [&](std::uint64_t begin, std::uint64_t end) {
          T part = min ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
          for (std::uint64_t i = begin; i < end; ++i) part = better(part, R::get(x, i));
          return part;
        },
        [&](T& into, T next) { into = better(into, next); });
    e.bits = bits_of(r);
  }
  return e;
}

// Float min/max/absmax: exact, NaN wins (canonical), the result's bits in the accumulator (= result) type.
template <class R>
ReduceExpected float_extreme(const ReduceProblem& p, const void* x, std::uint64_t n) {
  ReduceExpected e;
  const long double inf = std::numeric_limits<long double>::infinity();
  struct Part {
    long double r;
    bool nan;
  };
  // Strictly better replaces: of equal values (-0 and +0) the first stays, in a chunk and across chunks.
  auto better = [&p](long double v, long double r) { return p.op == ReduceOp::min ? v < r : v > r; };
  const auto [r, nan] = chunks::reduce(
      n,
      [&](std::uint64_t begin, std::uint64_t end) {
        Part part{p.op == ReduceOp::min ? inf : p.op == ReduceOp::max ? -inf : 0.0L, false};
        for (std::uint64_t i = begin; i < end; ++i) {
          long double v = R::get(x, i);
          if (std::isnan(v)) {
            part.nan = true;
            continue;
          }
          if (p.op == ReduceOp::absmax) v = std::fabs(v);
          if (better(v, part.r)) part.r = v;
        }
        return part;
      },
      [&](Part& into, const Part& next) {
        into.nan |= next.nan;
        if (better(next.r, into.r)) into.r = next.r;
      });
  const ValueType acc = p.accumulator_type();
  e.value = nan ? std::numeric_limits<long double>::quiet_NaN() : r;
  e.bits = nan ? reduce_detail::nan_bits(acc) : float_bits(acc, r);
  return e;
}

// Float sums of t(x) (t: x, x^2, |x|): Neumaier's compensated sum in long double over the finite elements; the
// non-finite ones decide by IEEE rules. l2norm: the root at the end. Integer inputs (l2norm) are exact in long double.
template <class R>
ReduceExpected float_sum(const ReduceProblem& p, const void* x, std::uint64_t n) {
  ReduceExpected e;
  bool nan = false, pos_inf = false, neg_inf = false;
  long double sum = 0, compensation = 0, abs_sum = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    long double v = static_cast<long double>(R::get(x, i));
    if (std::isnan(v)) {
      nan = true;
      continue;
    }
    if (p.op == ReduceOp::sumsq || p.op == ReduceOp::l2norm) v = v * v;
    else if (p.op == ReduceOp::sumabs) v = std::fabs(v);
    if (std::isinf(v)) {
      (v > 0 ? pos_inf : neg_inf) = true;
    } else {
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
  if (p.op == ReduceOp::l2norm && !std::isnan(e.value)) e.value = std::sqrt(e.value);
  e.abs_sum = abs_sum;
  return e;
}

// The bits of element i of `t` values at `data`, zero-extended.
std::uint64_t bits_at(ValueType t, const void* data, std::uint64_t i) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const unsigned char*>(data) + i * size_of(t), size_of(t));  // little-endian
  return bits;
}

// CUB's value for an empty input: numeric_limits<T>::lowest() for arg-max, max() for arg-min; for halves those of
// cuda::std::numeric_limits<__half> and <__nv_bfloat16>: -65504 / 65504 and -(2 - 2^-7) * 2^127 / its negation.
template <class R>
std::uint64_t empty_arg_bits(ValueType t, bool max) {
  if (t == ValueType::f16) return max ? 0xFBFFu : 0x7BFFu;
  if (t == ValueType::bf16) return max ? 0xFF7Fu : 0x7F7Fu;
  using V = typename R::V;
  const V v = max ? std::numeric_limits<V>::lowest() : std::numeric_limits<V>::max();
  return bits_at(t, &v, 0);
}

// The first index of the extreme value (strictly better: a tie keeps the first), or of the first NaN.
template <class R>
ArgExpected arg_extreme(ValueType t, bool max, const void* x, std::uint64_t n) {
  using V = typename R::V;  // a half's float, an i8's or i16's own type: compared as they promote
  if (n == 0) return {empty_arg_bits<R>(t, max), 1};
  struct Part {
    std::uint64_t best;
    V b;
    bool nan;
  };
  // Each chunk's first best (or first NaN); merged in order, a later chunk replaces only when strictly better or
  // when it found the first NaN: the first index of the whole, as one loop finds it.
  const Part whole = chunks::reduce(
      n,
      [&](std::uint64_t begin, std::uint64_t end) {
        Part part{begin, R::get(x, begin), false};
        if constexpr (std::is_floating_point_v<V>) part.nan = std::isnan(part.b);
        for (std::uint64_t i = begin + 1; i < end && !part.nan; ++i) {
          const V v = R::get(x, i);
          if constexpr (std::is_floating_point_v<V>) {
            if (std::isnan(v)) {
              part.best = i, part.b = v, part.nan = true;  // the first NaN ends the search
              break;
            }
          }
          if (max ? v > part.b : v < part.b) part.best = i, part.b = v;  // strictly: a tie keeps the first
        }
        return part;
      },
      [max](Part& into, const Part& next) {
        if (into.nan) return;
        if (next.nan || (max ? next.b > into.b : next.b < into.b)) into = next;
      });
  return {bits_at(t, x, whole.best), whole.best};
}

std::string show_float(long double v) { return fmt::format("{:.17g}", static_cast<double>(v)); }

long double unit_roundoff(ValueType acc) { return acc == ValueType::f64 ? 0x1p-53L : 0x1p-24L; }

}  // namespace

std::vector<unsigned char> rounded_to_halves(ValueType half, const std::vector<float>& values) {
  std::vector<unsigned char> bytes(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t h = float_to_half(half, values[i]);
    std::memcpy(&bytes[i * 2], &h, 2);
  }
  return bytes;
}

std::vector<unsigned char> generate_values(const ReduceProblem& problem, std::uint64_t n, std::uint64_t seed) {
  // A half's: a float of [-1, 1) (or k/8) rounded to the half.
  return typed_values(problem.type, n, [&](auto* out) { fill(problem, n, seed, out); });
}

ReduceExpected reference_reduce(const ReduceProblem& problem, const void* data, std::uint64_t n) {
  if (problem.op == ReduceOp::user)
    throw UsageError("a user operator has no CPU reference (its text is CUDA): compare with another variant");
  return with_reader(problem.type, [&](auto reader) {
    using R = decltype(reader);
    if (is_float(problem.accumulator_type()))
      return is_additive(problem.op) ? float_sum<R>(problem, data, n) : float_extreme<R>(problem, data, n);
    if constexpr (std::is_integral_v<typename R::V>) return integer_reduce<R>(problem, data, n);
    throw UsageError("a float input has a float result");  // validate() allows no other
  });
}

std::string show_value(ValueType t, std::uint64_t bits) {
  switch (t) {
    case ValueType::i32: return fmt::format("{}", static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)));
    case ValueType::u32: return fmt::format("{}", static_cast<std::uint32_t>(bits));
    case ValueType::i64: return fmt::format("{}", static_cast<std::int64_t>(bits));
    case ValueType::u64: return fmt::format("{}", bits);
    case ValueType::f32:
      return fmt::format("{:.9g} (0x{:08x})", std::bit_cast<float>(static_cast<std::uint32_t>(bits)), bits);
    case ValueType::f64: return fmt::format("{:.17g} (0x{:016x})", std::bit_cast<double>(bits), bits);
    case ValueType::f16:
    case ValueType::bf16:
      return fmt::format("{:.9g} (0x{:04x})", half_to_float(t, static_cast<std::uint16_t>(bits)), bits);
    case ValueType::i8: return fmt::format("{}", static_cast<std::int8_t>(static_cast<std::uint8_t>(bits)));
    case ValueType::i16: return fmt::format("{}", static_cast<std::int16_t>(static_cast<std::uint16_t>(bits)));
  }
  return "?";
}

ArgExpected reference_arg_extreme(ValueType type, bool max, const void* data, std::uint64_t n) {
  return with_reader(type, [&](auto reader) { return arg_extreme<decltype(reader)>(type, max, data, n); });
}

long double reduce_sum_tolerance(ValueType accumulator, std::uint64_t n, long double abs_sum, std::uint64_t chain) {
  const long double u = unit_roundoff(accumulator);
  const int log2n = n <= 1 ? 0 : static_cast<int>(std::bit_width(n - 1));  // ceil(log2 n)
  const long double k = static_cast<long double>(chain) + log2n + 32;
  if (k * u >= 1) return std::numeric_limits<long double>::infinity();  // no bound: only exact inputs can check it
  return k * u / (1 - k * u) * abs_sum;
}

std::uint64_t addition_chain(const ReduceConfig& config, std::uint64_t n, std::uint64_t grid) {
  const std::uint64_t threads = std::max<std::uint64_t>(1, grid) * static_cast<std::uint64_t>(config.block);
  const std::uint64_t per_thread = n == 0 ? 0 : (n - 1) / threads + 1;
  if (config.block_reduce != BlockReduce::atomic) return per_thread;
  return per_thread + std::min<std::uint64_t>(n, threads);
}

namespace {

// A float sum's (or l2norm's) check, past the specials: within the tolerance of the reference.
std::string compare_float_sum(const ReduceProblem& problem, const ReduceExpected& expected, long double value,
                              std::uint64_t n, std::uint64_t chain) {
  const ValueType acc = problem.accumulator_type();
  const long double largest = acc == ValueType::f32 ? std::numeric_limits<float>::max()
                                                     : std::numeric_limits<double>::max();
  // A transform rounds each term once more (the conversion to the accumulator and the square): two more levels.
  const long double tolerance =
      reduce_sum_tolerance(acc, n, expected.abs_sum, chain + (problem.op == ReduceOp::sum ? 0 : 2));
  if (std::isinf(value)) {
    // Partial sums never exceed sum|x| (plus rounding): below the largest finite value no order can overflow.
    if (expected.abs_sum + tolerance >= largest) return {};
    return fmt::format("expected {}, got {} (sum|x| = {} cannot overflow)", show_float(expected.value),
                       show_float(value), show_float(expected.abs_sum));
  }
  long double allowed = tolerance;
  if (problem.op == ReduceOp::l2norm) {
    // The root of [S - tol, S + tol], and the root's own rounding (and the sum's last one) on top.
    const long double s = expected.abs_sum;
    allowed = std::sqrt(s) - std::sqrt(std::max(0.0L, s - tolerance)) + 2 * unit_roundoff(acc) * std::sqrt(s + tolerance);
  }
  const long double error = std::fabs(value - expected.value);
  if (error <= allowed) return {};
  return fmt::format("expected {}, got {}: error {:.3g} exceeds the tolerance {:.3g} (n = {}, sum|t(x)| = {:.6g})",
                     show_float(expected.value), show_float(value), static_cast<double>(error),
                     static_cast<double>(allowed), n, static_cast<double>(expected.abs_sum));
}

}  // namespace

std::string compare_reduce(const ReduceProblem& problem, const ReduceExpected& expected, const void* got,
                           std::uint64_t n, std::uint64_t chain) {
  const ValueType acc = problem.accumulator_type();
  std::uint64_t bits = 0;
  std::memcpy(&bits, got, size_of(acc));  // little-endian: a narrower value lands in the low bytes
  if (!is_float(acc)) {
    if (bits == expected.bits) return {};
    return fmt::format("expected {}, got {}", show_value(acc, expected.bits), show_value(acc, bits));
  }
  const long double value = as_long_double(acc, bits);
  if (!is_additive(problem.op)) {
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
  return compare_float_sum(problem, expected, value, n, chain);
}

std::string compare_user_results(const ReduceProblem& problem, const void* reference, const void* got,
                                 std::uint64_t n, std::uint64_t chain) {
  const ValueType acc = problem.accumulator_type();
  std::uint64_t want = 0, have = 0;
  std::memcpy(&want, reference, size_of(acc));
  std::memcpy(&have, got, size_of(acc));
  if (want == have) return {};
  if (!is_float(acc))
    return fmt::format("expected {} (the fallback's result), got {}", show_value(acc, want), show_value(acc, have));
  const long double a = as_long_double(acc, want), b = as_long_double(acc, have);
  if ((std::isnan(a) && std::isnan(b)) || a == b) return {};
  const long double scale = std::max(std::fabs(a), std::fabs(b));
  if (std::isfinite(a) && std::isfinite(b) && std::fabs(a - b) <= reduce_sum_tolerance(acc, n, scale, chain)) return {};
  return fmt::format("expected {} (the fallback's result), got {}", show_float(a), show_float(b));
}

}  // namespace autotune
