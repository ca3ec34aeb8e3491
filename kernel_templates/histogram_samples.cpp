// The sample types' names and sizes, the generated inputs and the comparison of counts of both histogram families
// (histogram_samples.hpp, sample_types.hpp).
#include "kernel_templates/histogram_samples.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/enum_text.hpp"
#include "core/splitmix.hpp"
#include "kernel_templates/sample_types.hpp"

namespace autotune {

using histogram_samples::info;
using histogram_samples::kSampleTypes;

std::string_view to_string(SampleType t) { return info(t).name; }
std::size_t size_of(SampleType t) { return info(t).size; }
bool is_float(SampleType t) { return t == SampleType::f32 || t == SampleType::f64 || is_half(t); }
bool is_half(SampleType t) { return t == SampleType::f16 || t == SampleType::bf16; }

std::string sample_type_names() { return enum_text::names(kSampleTypes); }

std::optional<SampleType> parse_sample_type(std::string_view text) { return enum_text::parse(kSampleTypes, text); }

const std::vector<SampleType>& all_sample_types() {
  static constexpr auto kAll = enum_text::values(kSampleTypes);
  static const std::vector<SampleType> all(kAll.begin(), kAll.end());
  return all;
}

const std::vector<std::string>& histogram_distributions() {
  // Described in histogram_samples.hpp (generate_samples).
  static const std::vector<std::string> d{"uniform", "constant", "narrow", "runs", "image"};
  return d;
}

namespace {

using histogram_samples::below_upper;
using histogram_samples::dispatch;
using histogram_samples::kFloatLike;

template <class T>
void fill(const HistogramProblem& p, std::uint64_t n, std::uint64_t seed, T* out) {
  // One sample of [lower, upper) from one draw of `r`.
  auto draw_from = [&p](SplitMix64& r) -> T {
    if constexpr (kFloatLike<T>) {
      return below_upper<T>(p.lower + r.unit() * (p.upper - p.lower), p.lower, p.upper);
    } else {
      const auto lo = static_cast<long long>(p.lower);
      const auto width = static_cast<std::uint64_t>(static_cast<long long>(p.upper) - lo);
      return static_cast<T>(lo + static_cast<long long>(r.next() % width));
    }
  };
  SplitMix64 rng{seed};
  auto draw = [&] { return draw_from(rng); };
  if (p.distribution == "uniform") {
    fill_draws(out, n, seed, [&](SplitMix64& r, std::uint64_t) { return draw_from(r); });  // one draw each
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
    fill_draws(out, n, seed, [&p](SplitMix64& noise, std::uint64_t i) -> T {  // one draw each: the noise
      const double x = static_cast<double>(i % kWidth) / kWidth, y = static_cast<double>(i / kWidth % kWidth) / kWidth;
      const double r = std::hypot(x - 0.5, y - 0.5);
      double v = 0.35 * x + 0.25 * y + 0.3 * (r < 0.3 ? 1.0 - r / 0.3 : 0.0) + 0.02 * noise.unit();
      v = std::min(std::max(v, 0.0), 0.999999);
      if constexpr (kFloatLike<T>) return below_upper<T>(p.lower + v * (p.upper - p.lower), p.lower, p.upper);
      else return static_cast<T>(p.lower + v * (p.upper - p.lower));
    });
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
