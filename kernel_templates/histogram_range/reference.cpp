#include "kernel_templates/histogram_range/reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <type_traits>

#include "autotune/error.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "tuner/splitmix.hpp"

namespace autotune {

namespace {

template <class L>
std::vector<L> levels_of(const HistogramRangeProblem& p) {
  const auto [lo, hi] = p.span();
  const std::size_t count = static_cast<std::size_t>(p.bins) + 1;
  std::vector<L> out(count);
  if (p.edges == EdgeLayout::even) {
    for (std::size_t i = 0; i < count; ++i) {
      const double v = lo + (hi - lo) * static_cast<double>(i) / p.bins;
      out[i] = std::is_floating_point_v<L> ? static_cast<L>(v) : static_cast<L>(std::floor(v));
    }
    return out;
  }
  // Irregular: seeded by the shape, so that every caller draws the same levels for the problem.
  SplitMix64 rng{0x5EED0000u + static_cast<std::uint64_t>(p.bins) * 16 + static_cast<std::uint64_t>(p.type)};
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
    for (std::uint64_t v : chosen) out[i++] = static_cast<L>(static_cast<std::uint64_t>(lo) + v);
  }
  return out;
}

template <class F>
decltype(auto) with_level_type(SampleType t, F&& f) {
  switch (t) {
    case SampleType::u32: return f(unsigned{});
    case SampleType::f32: return f(float{});
    case SampleType::f64: return f(double{});
    default: return f(int{});
  }
}

template <class F>
decltype(auto) with_sample_type(SampleType t, F&& f) {
  switch (t) {
    case SampleType::u8: return f(std::uint8_t{});
    case SampleType::u16: return f(std::uint16_t{});
    case SampleType::i32: return f(std::int32_t{});
    case SampleType::u32: return f(std::uint32_t{});
    case SampleType::f32: return f(float{});
    case SampleType::f64: return f(double{});
  }
  throw UsageError("unknown sample type");
}

}  // namespace

std::vector<unsigned char> generate_levels(const HistogramRangeProblem& problem) {
  problem.validate();
  return with_level_type(problem.type, [&](auto tag) {
    using L = decltype(tag);
    const std::vector<L> levels = levels_of<L>(problem);
    std::vector<unsigned char> bytes(levels.size() * sizeof(L));
    std::memcpy(bytes.data(), levels.data(), bytes.size());
    validate_levels(problem, bytes.data(), levels.size());
    return bytes;
  });
}

std::vector<unsigned char> generate_range_samples(const HistogramRangeProblem& problem, std::uint64_t n,
                                                  std::uint64_t seed) {
  HistogramProblem h;
  h.type = problem.type;
  h.bins = problem.bins;
  const auto [lo, hi] = problem.span();
  h.lower = lo;
  h.upper = hi;
  h.distribution = problem.distribution;
  return generate_samples(h, n, seed);
}

std::vector<std::uint64_t> reference_range_histogram(const HistogramRangeProblem& problem, const void* samples,
                                                     std::uint64_t n, const void* levels) {
  std::vector<std::uint64_t> h(static_cast<std::size_t>(problem.bins), 0);
  with_level_type(problem.type, [&](auto ltag) {
    using L = decltype(ltag);
    const L* first = static_cast<const L*>(levels);
    const L* last = first + problem.bins + 1;
    with_sample_type(problem.type, [&](auto stag) {
      using S = decltype(stag);
      const S* s = static_cast<const S*>(samples);
      auto bin_of = [&](L x) -> std::ptrdiff_t {
        // upper_bound: the first level above x; the bin is the one before it, if there is one and it is not last.
        const auto k = std::upper_bound(first, last, x) - first;
        return k >= 1 && k <= problem.bins ? k - 1 : -1;
      };
      if constexpr (sizeof(S) <= 2) {
        // 8- and 16-bit samples: count each value, then bin each value once (the same rule, far fewer searches).
        std::vector<std::uint64_t> per_value(std::size_t{1} << (8 * sizeof(S)), 0);
        for (std::uint64_t i = 0; i < n; ++i) ++per_value[s[i]];
        for (std::size_t v = 0; v < per_value.size(); ++v)
          if (const auto b = bin_of(static_cast<L>(v)); b >= 0) h[static_cast<std::size_t>(b)] += per_value[v];
        return;
      }
      for (std::uint64_t i = 0; i < n; ++i) {
        const L x = static_cast<L>(s[i]);
        if constexpr (std::is_floating_point_v<L>)
          if (std::isnan(x)) continue;
        if (const auto b = bin_of(x); b >= 0) ++h[static_cast<std::size_t>(b)];
      }
    });
  });
  return h;
}

std::vector<std::uint64_t> reference_range_histogram_region(const HistogramRangeProblem& problem, const void* samples,
                                                            std::uint64_t row_samples, std::uint64_t rows,
                                                            std::size_t row_stride_bytes, const void* levels) {
  std::vector<std::uint64_t> h(static_cast<std::size_t>(problem.bins), 0);
  for (std::uint64_t r = 0; r < rows; ++r) {
    const auto* row = static_cast<const unsigned char*>(samples) + r * row_stride_bytes;
    const auto part = reference_range_histogram(problem, row, row_samples, levels);
    for (std::size_t b = 0; b < h.size(); ++b) h[b] += part[b];
  }
  return h;
}

std::vector<std::uint64_t> widen_range_counts(const HistogramRangeProblem& problem, const void* raw) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(problem.bins));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = problem.counter_bits == 64 ? static_cast<const std::uint64_t*>(raw)[i]
                                        : static_cast<const std::uint32_t*>(raw)[i];
  return out;
}

std::vector<std::uint64_t> range_counts_as_written(const HistogramRangeProblem& problem,
                                                   std::vector<std::uint64_t> counts) {
  if (problem.counter_bits == 32)
    for (auto& c : counts) c &= 0xFFFFFFFFull;
  return counts;
}

}  // namespace autotune
