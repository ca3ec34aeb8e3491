// Inputs of the GPU suites that are worth checking without a GPU (tests/cpu/test_gpu_tier.cpp holds each to what its
// comment promises): adversarial histogram samples, and the 2D region shapes of the image and range suites; and how
// the reduction suites write a value of a type (put_value).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "kernel_templates/half_float.hpp"
#include "kernel_templates/half_host.hpp"
#include "kernel_templates/histogram/reference.hpp"

namespace autotune::testing {

/// Writes `v` as sample `i` of `p.type` into `bytes` (nothing past the end).
inline void put_sample(const HistogramProblem& p, std::vector<unsigned char>& bytes, std::uint64_t i, double v) {
  const std::size_t size = size_of(p.type);
  if ((i + 1) * size > bytes.size()) return;
  unsigned char* at = &bytes[i * size];
  // Integers through long long: a value past the type wraps (a defined conversion) instead of being undefined.
  const auto wide = std::isfinite(v) ? static_cast<long long>(v) : 0LL;
  switch (p.type) {
    case SampleType::u8: { auto t = static_cast<std::uint8_t>(wide); std::memcpy(at, &t, size); break; }
    case SampleType::u16: { auto t = static_cast<std::uint16_t>(wide); std::memcpy(at, &t, size); break; }
    case SampleType::i32: { auto t = static_cast<std::int32_t>(wide); std::memcpy(at, &t, size); break; }
    case SampleType::u32: { auto t = static_cast<std::uint32_t>(wide); std::memcpy(at, &t, size); break; }
    case SampleType::f32: { auto t = static_cast<float>(v); std::memcpy(at, &t, size); break; }
    case SampleType::f64: std::memcpy(at, &v, size); break;
    case SampleType::f16: { auto t = f16_from_float(static_cast<float>(v)); std::memcpy(at, &t.bits, size); break; }
    case SampleType::bf16: { auto t = bf16_from_float(static_cast<float>(v)); std::memcpy(at, &t.bits, size); break; }
    case SampleType::i8: { auto t = static_cast<std::int8_t>(wide); std::memcpy(at, &t, size); break; }
    case SampleType::i16: { auto t = static_cast<std::int16_t>(wide); std::memcpy(at, &t, size); break; }
  }
}

/// Writes `v` as element `i` of value type `t` into `bytes`: halves rounded to nearest (reduce_detail::float_to_half),
/// the other floats and the integers converted (a value the type holds is stored exactly).
inline void put_value(ValueType t, std::vector<unsigned char>& bytes, std::uint64_t i, double v) {
  const std::size_t size = size_of(t);
  auto store = [&](auto x) { std::memcpy(&bytes[i * size], &x, size); };
  switch (t) {
    case ValueType::f16:
    case ValueType::bf16: store(reduce_detail::float_to_half(t, static_cast<float>(v))); break;
    case ValueType::f32: store(static_cast<float>(v)); break;
    case ValueType::f64: store(v); break;
    case ValueType::i8: store(static_cast<std::int8_t>(v)); break;
    case ValueType::i16: store(static_cast<std::int16_t>(v)); break;
    case ValueType::i32: store(static_cast<std::int32_t>(v)); break;
    case ValueType::u32: store(static_cast<std::uint32_t>(v)); break;
    case ValueType::i64: store(static_cast<std::int64_t>(v)); break;
    case ValueType::u64: store(static_cast<std::uint64_t>(v)); break;
  }
}

/// The 16-bit float next to x (a value of that type) above it or below it.
template <class H>
double half_step(double x, bool up) {
  H h = std::is_same_v<H, F16> ? H{f16_from_float(static_cast<float>(x)).bits}
                               : H{bf16_from_float(static_cast<float>(x)).bits};
  const float f = to_float(h);
  if (f == 0.0f) return up ? to_float(H{1}) : -to_float(H{1});
  h.bits = static_cast<std::uint16_t>((up != (f < 0)) ? h.bits + 1 : h.bits - 1);
  return to_float(h);
}

/// The special values of one channel's range: its bounds, the values just inside and outside them, and for floats
/// NaN and -infinity.
inline std::vector<double> channel_specials(const HistogramProblem& p, const HistogramChannel& ch) {
  if (is_half(p.type)) {  // the bounds as the 16-bit type holds them, and their neighbours in it
    const bool f16 = p.type == SampleType::f16;
    auto held = [&](double v) { return f16 ? to_float(f16_from_float(static_cast<float>(v)))
                                           : to_float(bf16_from_float(static_cast<float>(v))); };
    auto step = [&](double v, bool up) { return f16 ? half_step<F16>(held(v), up) : half_step<BF16>(held(v), up); };
    return {held(ch.lower), held(ch.upper), step(ch.upper, false), std::numeric_limits<double>::quiet_NaN(),
            -std::numeric_limits<double>::infinity(), step(ch.lower, true), step(ch.lower, false)};
  }
  if (p.type == SampleType::f32) {
    const auto lo = static_cast<float>(ch.lower), hi = static_cast<float>(ch.upper);
    return {lo, hi, std::nextafter(hi, lo), std::numeric_limits<double>::quiet_NaN(),
            -std::numeric_limits<double>::infinity(), std::nextafter(lo, hi), std::nextafter(lo, -1e30f)};
  }
  if (p.type == SampleType::f64)
    return {ch.lower, ch.upper, std::nextafter(ch.upper, ch.lower), std::numeric_limits<double>::quiet_NaN(),
            -std::numeric_limits<double>::infinity(), std::nextafter(ch.lower, ch.upper),
            std::nextafter(ch.lower, -1e300)};
  // The first values past the range, where the type holds them.
  const double top = p.type == SampleType::i8 ? 127.0 : p.type == SampleType::i16 ? 32767.0 : 4294967295.0;
  const double bottom = p.type == SampleType::i8 ? -128.0 : p.type == SampleType::i16 ? -32768.0
                        : p.type == SampleType::i32 ? -2147483648.0 : 0.0;
  std::vector<double> out{ch.lower, ch.upper - 1};
  if (ch.upper <= top) out.push_back(ch.upper);
  if (ch.lower - 1 >= bottom) out.push_back(ch.lower - 1);
  return out;
}

/// `n` pixels (p.samples(n) samples) from the problem's distribution, with every third sample replaced by random bits
/// (out-of-range values, NaN, infinities and denormals for floats), and each channel's special values
/// (channel_specials) written into that channel at pixels 0, 3, 6, ... and again at the last pixels: every channel of
/// every pixel can hold any of them, not only the first n samples.
inline std::vector<unsigned char> adversarial_samples(const HistogramProblem& p, std::uint64_t n, std::uint64_t seed) {
  std::vector<unsigned char> bytes = generate_samples(p, n, seed);
  const std::size_t size = size_of(p.type);
  const std::uint64_t total = p.samples(n), channels = static_cast<std::uint64_t>(p.channels);
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (std::uint64_t i = 1; i < total; i += 3) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(&bytes[i * size], &x, size);
  }
  for (std::uint64_t c = 0; c < channels; ++c) {
    const auto specials = channel_specials(p, p.channel(static_cast<int>(c)));
    for (std::uint64_t k = 0; k < specials.size(); ++k) {
      const std::uint64_t head = 3 * k, tail = n - 1 - 3 * k;
      if (head < n) put_sample(p, bytes, head * channels + c, specials[k]);
      if (3 * k < n && tail > head) put_sample(p, bytes, tail * channels + c, specials[k]);
    }
  }
  return bytes;
}

/// A 2D region of pixels for the image suite: rows of `row_pixels` pixels `stride_bytes` apart, from `offset_bytes`
/// into a buffer.
struct ImageRegion {
  std::string name;
  std::uint64_t row_pixels, rows;
  std::size_t stride_bytes, offset_bytes;
};

/// The image suite's regions for pixels of `pixel` bytes: a padded crop on the 16-byte grid, one off it, long rows
/// whose stride is not a multiple of 16 bytes (a whole number of pixels: 1001 of them, odd), rows shorter than a
/// vector, and one row (1D).
inline std::vector<ImageRegion> image_regions(std::size_t pixel) {
  return {{"padded crop on the 16-byte grid", 1000, 300, 1024 * pixel, 64 * pixel},
          {"crop off the 16-byte grid", 1001, 257, 1040 * pixel, 3 * pixel},
          {"stride not a multiple of 16 bytes", 999, 200, 1001 * pixel, pixel},
          {"rows shorter than a vector", 3, 1000, 7 * pixel, 0},
          {"rows one pixel apart (a span, its gaps taken back)", 2000, 300, 2001 * pixel, 5 * pixel},
          {"rows with no gap (a span)", 1500, 40, 1500 * pixel, 0},
          {"one row", 5000, 1, 0, pixel}};
}

/// A 2D region of samples for the range suite: rows `stride` samples apart from a pointer `offset` samples into an
/// allocation; `own_heads` when each row must start at another 16-byte alignment than the row before.
struct RangeRegion {
  std::string name;
  std::uint64_t row_samples, rows;
  std::size_t stride, offset;  // samples
  bool own_heads = false;
};

/// The range suite's regions for samples of `sample_bytes`: strides off the 16-byte grid (each row its own head, for
/// every sample size: an odd number of samples), strides of whole vectors (rows share row 0's alignment), rows
/// narrower than a vector, one row (1D), no rows; 300 x 7001 samples fill whole tiles of a cover-n grid.
inline std::vector<RangeRegion> range_regions(std::size_t sample_bytes) {
  const std::size_t whole = 16 / sample_bytes;  // samples per 16-byte vector
  return {{"stride off the vector grid, odd", 1001, 37, 1001 + 14, 1, true},
          {"stride of whole vectors", 4099, 29, (4099 + 2 * whole) / whole * whole, 0},
          {"stride of whole vectors, unaligned start", 4099, 29, (4099 + whole) / whole * whole + whole, 3},
          {"rows narrower than a vector", 3, 1001, 8, 0},
          {"one row", 5000, 1, 5000, 3},
          {"no rows", 100, 0, 100, 0},
          {"300 rows x 7001, stride + 6 (odd)", 7001, 300, 7007, 0, true}};
}

}  // namespace autotune::testing
