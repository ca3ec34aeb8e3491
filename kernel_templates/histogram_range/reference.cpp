#include "kernel_templates/histogram_range/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <type_traits>

#include "autotune/error.hpp"
#include "core/splitmix.hpp"

namespace autotune {

namespace {

// One channel's bins + 1 levels; channel c > 0 draws its irregular levels from its own seed (channel 0's are those
// of the one-channel problem).
template <class L>
std::vector<L> levels_of(const HistogramRangeProblem& p, int bins, int channel) {
  const auto [lo, hi] = p.span();
  const std::size_t count = static_cast<std::size_t>(bins) + 1;
  std::vector<L> out(count);
  if (p.edges == EdgeLayout::even) {
    for (std::size_t i = 0; i < count; ++i) {
      const double v = lo + (hi - lo) * static_cast<double>(i) / bins;
      out[i] = std::is_floating_point_v<L> ? static_cast<L>(v) : static_cast<L>(std::floor(v));
    }
    return out;
  }
  // Irregular: seeded by the shape, so that every caller draws the same levels for the problem.
  SplitMix64 rng{0x5EED0000u + static_cast<std::uint64_t>(bins) * 16 + static_cast<std::uint64_t>(p.type) +
                 static_cast<std::uint64_t>(channel) * 0x9E3779B97F4A7C15ull};
  if constexpr (std::is_floating_point_v<L>) {
    // Gaps of random widths (1 to 16 units), scaled to a random part of the span in its middle.
    std::vector<double> cum(count, 0.0);
    for (std::size_t i = 1; i < count; ++i) cum[i] = cum[i - 1] + 1.0 + 15.0 * rng.unit() * rng.unit();
    const double first = lo + 0.02 * (hi - lo), last = hi - 0.03 * (hi - lo);
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<L>(first + (last - first) * cum[i] / cum.back());
    for (std::size_t i = 1; i < count; ++i)
      if (!(out[i - 1] < out[i])) throw Error("generate_levels: float levels collided");  // not for these spans
  } else {
    // count distinct integers of [lo, hi]: random ones until there are enough (Floyd's method when dense).
    const auto width = static_cast<std::uint64_t>(hi - lo) + 1;
    std::set<std::uint64_t> chosen;
    for (std::uint64_t j = width - count; j < width; ++j) {
      const std::uint64_t t = rng.next() % (j + 1);
      if (!chosen.insert(t).second) chosen.insert(j);
    }
    std::size_t i = 0;
    for (std::uint64_t v : chosen) out[i++] = static_cast<L>(static_cast<long long>(lo) + static_cast<long long>(v));
  }
  return out;
}

// The bin of a sample among `count` levels from `first` (std::upper_bound: the bin before the first level above
// it, if there is one and it is not the last), or -1.
template <class L, class S>
auto level_binner(const L* first, int count) {
  return [first, count](S sample) -> std::ptrdiff_t {
    const L x = static_cast<L>(histogram_samples::binned(sample));  // halves exactly to float
    if constexpr (std::is_floating_point_v<L>)
      if (std::isnan(x)) return -1;
    const auto k = std::upper_bound(first, first + count, x) - first;
    return k >= 1 && k < count ? k - 1 : -1;
  };
}

}  // namespace

std::vector<unsigned char> generate_levels(const HistogramRangeProblem& problem) {
  problem.validate();
  return with_level_type(problem.type, [&](auto tag) {
    using L = decltype(tag);
    std::vector<L> levels;
    for (int c = 0; c < problem.active; ++c) {
      const std::vector<L> one = levels_of<L>(problem, problem.channel_bins(c), c);
      levels.insert(levels.end(), one.begin(), one.end());
    }
    std::vector<unsigned char> bytes(levels.size() * sizeof(L));
    std::memcpy(bytes.data(), levels.data(), bytes.size());
    validate_levels(problem, bytes.data(), levels.size());
    return bytes;
  });
}

std::vector<unsigned char> generate_range_samples(const HistogramRangeProblem& problem, std::uint64_t n,
                                                  std::uint64_t seed) {
  // The interleaved samples of every channel are one stream of the distribution over the span.
  const auto [lo, hi] = problem.span();
  const HistogramProblem h{.type = problem.type, .bins = problem.bins, .lower = lo, .upper = hi,
                           .distribution = problem.distribution};
  return generate_samples(h, problem.samples(n), seed);
}

std::vector<std::uint64_t> reference_range_histogram(const HistogramRangeProblem& problem, const void* samples,
                                                     std::uint64_t n, const void* levels) {
  return with_level_type(problem.type, [&](auto ltag) {
    using L = decltype(ltag);
    return histogram_samples::dispatch(problem.type, [&](auto stag) {
      using S = decltype(stag);
      return histogram_samples::count_pixels<S>(problem, samples, n, [&](int c) {
        return level_binner<L, S>(static_cast<const L*>(levels) + problem.level_offset(c), problem.channel_bins(c) + 1);
      });
    });
  });
}

std::vector<std::uint64_t> reference_range_histogram_region(const HistogramRangeProblem& problem, const void* samples,
                                                            std::uint64_t row_samples, std::uint64_t rows,
                                                            std::size_t row_stride_bytes, const void* levels) {
  std::vector<std::uint64_t> h(static_cast<std::size_t>(problem.counters()), 0);
  for (std::uint64_t r = 0; r < rows; ++r) {
    const auto* row = static_cast<const unsigned char*>(samples) + r * row_stride_bytes;
    const auto part = reference_range_histogram(problem, row, row_samples, levels);
    for (std::size_t b = 0; b < h.size(); ++b) h[b] += part[b];
  }
  return h;
}

}  // namespace autotune
