#include "kernel_templates/histogram/reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "autotune/error.hpp"
#include "kernel_templates/half_float.hpp"
#include "core/splitmix.hpp"

namespace autotune {

namespace {

// Floats and the 16-bit floats (binned in float: histogram_problem.hpp).
template <class T>
inline constexpr bool kFloatLike = std::is_floating_point_v<T> || is_half_v<T>;
// The arithmetic type a sample is binned in: float for the halves, the sample type otherwise.
template <class T>
using binned_t = std::conditional_t<is_half_v<T>, float, T>;

// v as a sample of type T (halves: rounded to nearest from float) and back.
template <class T>
T sample_from(double v) {
  if constexpr (std::is_same_v<T, F16>) return f16_from_float(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, BF16>) return bf16_from_float(static_cast<float>(v));
  else return static_cast<T>(v);
}
template <class T>
binned_t<T> binned(T s) {
  if constexpr (is_half_v<T>) return to_float(s);
  else return s;
}
// A float-like sample drawn as v: kept when it lies below `upper` as the sample type holds it, else `lower` (a
// rounding up to the upper bound would leave the range).
template <class T>
T below_upper(double v, double lower, double upper) {
  const T t = sample_from<T>(v);
  return binned(t) < binned(sample_from<T>(upper)) ? t : sample_from<T>(lower);
}

template <class T>
void fill(const HistogramProblem& p, std::uint64_t n, std::uint64_t seed, T* out) {
  SplitMix64 rng{seed};
  auto draw = [&]() -> T {
    if constexpr (kFloatLike<T>) {
      return below_upper<T>(p.lower + rng.unit() * (p.upper - p.lower), p.lower, p.upper);
    } else {
      const auto lo = static_cast<long long>(p.lower);
      const auto width = static_cast<std::uint64_t>(static_cast<long long>(p.upper) - lo);
      return static_cast<T>(lo + static_cast<long long>(rng.next() % width));
    }
  };
  if (p.distribution == "uniform") {
    for (std::uint64_t i = 0; i < n; ++i) out[i] = draw();
  } else if (p.distribution == "constant") {
    const T v = draw();
    for (std::uint64_t i = 0; i < n; ++i) out[i] = v;
  } else if (p.distribution == "narrow") {
    // 16 bins' worth of the range around the middle: a hot band.
    const double width = (p.upper - p.lower) * std::min(1.0, 16.0 / p.bins);
    const double lo = p.lower + (p.upper - p.lower) / 2 - width / 2;
    HistogramProblem band = p;
    band.lower = kFloatLike<T> ? lo : std::floor(lo);
    band.upper = kFloatLike<T> ? lo + width : std::max(band.lower + 1, std::floor(lo + width));
    band.distribution = "uniform";
    fill<T>(band, n, seed, out);
  } else if (p.distribution == "image") {
    // Rows of 4096 samples: two gradients and a ring, plus noise of about 2 % of the range.
    constexpr std::uint64_t kWidth = 4096;
    for (std::uint64_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(i % kWidth) / kWidth, y = static_cast<double>(i / kWidth % kWidth) / kWidth;
      const double r = std::hypot(x - 0.5, y - 0.5);
      double v = 0.35 * x + 0.25 * y + 0.3 * (r < 0.3 ? 1.0 - r / 0.3 : 0.0) + 0.02 * rng.unit();
      v = std::min(std::max(v, 0.0), 0.999999);
      if constexpr (kFloatLike<T>) out[i] = below_upper<T>(p.lower + v * (p.upper - p.lower), p.lower, p.upper);
      else out[i] = static_cast<T>(p.lower + v * (p.upper - p.lower));
    }
  } else if (p.distribution == "runs") {
    constexpr std::uint64_t kRun = 1000;
    T v{};
    for (std::uint64_t i = 0; i < n; ++i) {
      if (i % kRun == 0) v = draw();
      out[i] = v;
    }
  } else {
    throw UsageError(fmt::format("unknown distribution '{}'", p.distribution));
  }
}

// The bin of one sample or -1, as CUB's ScaleTransform computes it (cub/device/dispatch/dispatch_histogram.cuh), with
// the level types of bench/cub_baseline.cu (int or long long for integers, the sample type for floats, float for
// the halves: CUB's common type of a half sample and a float level is float).
template <class T>
struct Binner {
  using F = binned_t<T>;  // the arithmetic of float-like samples
  explicit Binner(const HistogramProblem& p) : Binner(p.channel(0)) {}
  explicit Binner(const HistogramChannel& p) : bins(p.bins) {
    if constexpr (kFloatLike<T>) {
      // Bounds rounded to F, then the scale in F arithmetic: bins / (upper - lower), each operation rounded to F.
      lo = static_cast<F>(p.lower);
      hi = static_cast<F>(p.upper);
      const F width = hi - lo;
      scale = static_cast<F>(p.bins) / width;
    } else {
      ilo = static_cast<long long>(p.lower);
      ihi = static_cast<long long>(p.upper);
      width = static_cast<unsigned __int128>(ihi - ilo);
    }
  }
  int operator()(T sample) const {
    if constexpr (kFloatLike<T>) {
      const F s = binned(sample);
      if (std::isnan(s) || s < lo || s >= hi) return -1;
      const F offset = s - lo;
      const F scaled = offset * scale;
      const int b = static_cast<int>(scaled);
      return b < bins ? b : -1;  // rounded up to bins: CUB's shared path counts it nowhere
    } else {
      const auto v = static_cast<long long>(sample);
      if (v < ilo || v >= ihi) return -1;
      return static_cast<int>(static_cast<unsigned __int128>(v - ilo) * static_cast<unsigned>(bins) / width);
    }
  }
  int bins;
  F lo{}, hi{}, scale{};
  long long ilo = 0, ihi = 0;
  unsigned __int128 width = 1;
};

// n pixels of p.channels samples; channel c < p.active counts into h[offset of c + bin], each channel with its own
// bins and range.
template <class T>
void count(const HistogramProblem& p, const T* s, std::uint64_t n, std::vector<std::uint64_t>& h) {
  std::vector<Binner<T>> bin;
  std::vector<std::size_t> offset;
  for (int c = 0; c < p.active; ++c) {
    bin.emplace_back(p.channel(c));
    offset.push_back(c == 0 ? 0 : offset.back() + static_cast<std::size_t>(p.channel(c - 1).bins));
  }
  const auto channels = static_cast<std::uint64_t>(p.channels);
  for (std::uint64_t pixel = 0; pixel < n; ++pixel)
    for (std::size_t c = 0; c < bin.size(); ++c)
      if (const int b = bin[c](s[pixel * channels + c]); b >= 0) ++h[offset[c] + static_cast<std::size_t>(b)];
}

// A colour photograph's pixels: the grey field of fill's "image" (gradients, a bright disc), tinted per channel
// (each channel its own mix of the gradients, a vignette) with noise of about 2 % per sample; the alpha channel
// (the fourth) is opaque with a few translucent patches. Rows of 4096 pixels.
template <class T>
void fill_image_pixels(const HistogramProblem& p, std::uint64_t n, std::uint64_t seed, T* out) {
  SplitMix64 rng{seed};
  constexpr std::uint64_t kWidth = 4096;
  const int channels = p.channels;
  for (std::uint64_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i % kWidth) / kWidth, y = static_cast<double>(i / kWidth % kWidth) / kWidth;
    const double r = std::hypot(x - 0.5, y - 0.5);
    const double disc = r < 0.3 ? 1.0 - r / 0.3 : 0.0, vignette = 1.0 - 0.5 * r;
    for (int c = 0; c < channels; ++c) {
      double v;
      if (c == 3) v = std::fmod(x * 7.0 + y * 3.0, 1.0) < 0.1 ? 0.5 : 0.999;
      else v = vignette * (0.2 + 0.3 * (c == 0 ? x : c == 1 ? y : 1.0 - x) + 0.25 * disc * (c == 2 ? 0.5 : 1.0)) +
               0.02 * rng.unit();
      v = std::min(std::max(v, 0.0), 0.999999);
      const HistogramChannel ch = p.channel(c < p.active ? c : 0);  // each channel over its own range
      T t{};
      if constexpr (kFloatLike<T>) t = below_upper<T>(ch.lower + v * (ch.upper - ch.lower), ch.lower, ch.upper);
      else t = static_cast<T>(ch.lower + v * (ch.upper - ch.lower));
      out[i * static_cast<std::uint64_t>(channels) + static_cast<std::uint64_t>(c)] = t;
    }
  }
}

template <class F>
decltype(auto) dispatch(SampleType t, F&& f) {
  switch (t) {
    case SampleType::u8: return f(std::uint8_t{});
    case SampleType::u16: return f(std::uint16_t{});
    case SampleType::i32: return f(std::int32_t{});
    case SampleType::u32: return f(std::uint32_t{});
    case SampleType::f32: return f(float{});
    case SampleType::f64: return f(double{});
    case SampleType::f16: return f(F16{});
    case SampleType::bf16: return f(BF16{});
    case SampleType::i8: return f(std::int8_t{});
    case SampleType::i16: return f(std::int16_t{});
  }
  throw UsageError("unknown sample type");
}

}  // namespace

std::vector<unsigned char> generate_samples(const HistogramProblem& problem, std::uint64_t n, std::uint64_t seed) {
  std::vector<unsigned char> bytes(problem.samples(n) * size_of(problem.type));
  dispatch(problem.type, [&](auto tag) {
    using T = decltype(tag);
    if (problem.channels > 1 && problem.distribution == "image") {
      fill_image_pixels<T>(problem, n, seed, reinterpret_cast<T*>(bytes.data()));
    } else if (!problem.uniform_channels()) {
      // Channels of their own bins and ranges: each channel's stream of the distribution over its levels (the
      // inactive ones over channel 0's), interleaved.
      T* out = reinterpret_cast<T*>(bytes.data());
      const auto channels = static_cast<std::uint64_t>(problem.channels);
      std::vector<T> one(n);
      for (int c = 0; c < problem.channels; ++c) {
        const HistogramChannel ch = problem.channel(c < problem.active ? c : 0);
        HistogramProblem q{.type = problem.type, .bins = ch.bins, .lower = ch.lower, .upper = ch.upper,
                           .distribution = problem.distribution};
        fill<T>(q, n, seed + static_cast<std::uint64_t>(c), one.data());
        for (std::uint64_t i = 0; i < n; ++i) out[i * channels + static_cast<std::uint64_t>(c)] = one[i];
      }
    } else {  // every other distribution over the interleaved samples as one stream
      fill<T>(problem, problem.samples(n), seed, reinterpret_cast<T*>(bytes.data()));
    }
  });
  return bytes;
}

std::vector<std::uint64_t> reference_histogram(const HistogramProblem& problem, const void* samples, std::uint64_t n) {
  std::vector<std::uint64_t> h(static_cast<std::size_t>(problem.counters()), 0);
  dispatch(problem.type, [&](auto tag) {
    using T = decltype(tag);
    count<T>(problem, static_cast<const T*>(samples), n, h);
  });
  return h;
}

std::vector<int> reference_bins(const HistogramProblem& problem, const void* samples, std::uint64_t n) {
  std::vector<int> out(n);
  dispatch(problem.type, [&](auto tag) {
    using T = decltype(tag);
    const Binner<T> bin(problem);
    for (std::uint64_t i = 0; i < n; ++i) out[i] = bin(static_cast<const T*>(samples)[i]);
  });
  return out;
}

std::vector<std::uint64_t> widen_counts(const HistogramProblem& problem, const void* raw) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(problem.counters()));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = problem.counter_bits == 64 ? static_cast<const std::uint64_t*>(raw)[i]
                                        : static_cast<const std::uint32_t*>(raw)[i];
  return out;
}

std::vector<std::uint64_t> counts_as_written(const HistogramProblem& problem, std::vector<std::uint64_t> counts) {
  if (problem.counter_bits == 32)
    for (auto& c : counts) c &= 0xFFFFFFFFull;
  return counts;
}

std::string compare_histograms(const std::vector<std::uint64_t>& expected, const std::vector<std::uint64_t>& got) {
  if (expected.size() != got.size())
    return fmt::format("expected {} bins, got {}", expected.size(), got.size());
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != got[i] && wrong++ == 0) first = i;
  if (wrong == 0) return {};
  return fmt::format("{} of {} bins differ; first: bin {} expected {} got {}", wrong, expected.size(), first,
                     expected[first], got[first]);
}

}  // namespace autotune
