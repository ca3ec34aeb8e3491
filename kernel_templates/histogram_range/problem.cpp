// The range-histogram problem: its key, its checks, and the check of an application's levels.
#include "autotune/histogram_range_problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "kernel_templates/histogram_range/enums.hpp"

namespace autotune {

std::string_view to_string(EdgeLayout e) { return e == EdgeLayout::even ? "even" : "irregular"; }

std::optional<EdgeLayout> parse_edge_layout(std::string_view text) {
  for (EdgeLayout e : histogram_range_detail::kEdgeLayouts)
    if (to_string(e) == text) return e;
  return std::nullopt;
}

std::size_t level_size(SampleType t) { return t == SampleType::f64 ? 8 : 4; }

std::string_view level_type_name(SampleType t) {
  switch (t) {
    case SampleType::u32: return "unsigned int";
    case SampleType::f32: return "float";
    case SampleType::f64: return "double";
    default: return "int";
  }
}

int HistogramRangeProblem::max_bins(SampleType t) {
  // The tuner's levels are distinct values of the span: 257 of them for u8, 65537 for u16.
  if (t == SampleType::u8) return 256;
  if (t == SampleType::u16) return 65536;
  return 1 << 20;
}

void HistogramRangeProblem::validate() const {
  if (bins < 1 || bins > max_bins(type))
    throw UsageError(fmt::format("bins must be in 1..{} for {} samples (got {})", max_bins(type), to_string(type), bins));
  if (counter_bits != 32 && counter_bits != 64)
    throw UsageError(fmt::format("counters must be 32 or 64 bits wide (got {})", counter_bits));
  const auto& dists = histogram_distributions();
  if (distribution != kRobustDistribution && std::find(dists.begin(), dists.end(), distribution) == dists.end())
    throw UsageError(fmt::format("unknown distribution '{}' (known: {})", distribution, fmt::join(dists, ", ")));
}

std::pair<double, double> HistogramRangeProblem::span() const {
  switch (type) {
    case SampleType::u8: return {0.0, 256.0};
    case SampleType::u16: return {0.0, 65536.0};
    case SampleType::i32:
    case SampleType::u32: return {0.0, 16777216.0};
    default: return {0.0, 1.0};
  }
}

std::string HistogramRangeProblem::shape_key() const {
  return fmt::format("histogram_range/{}/bins={}/edges={}/dist={}{}", to_string(type), bins, to_string(edges),
                     distribution, counter_bits == 64 ? "/counters=64" : "");
}

std::string HistogramRangeProblem::key() const {
  return fmt::format("histogram_range/{}/bins={}/edges={}/n={}/dist={}{}", to_string(type), bins, to_string(edges), n,
                     distribution, counter_bits == 64 ? "/counters=64" : "");
}

namespace {

template <class L>
std::string ascending_violation(const L* levels, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if constexpr (std::is_floating_point_v<L>) {
      if (std::isnan(levels[i])) return fmt::format("level {} is NaN", i);
      if (std::isinf(levels[i])) return fmt::format("level {} is infinite ({})", i, levels[i]);
    }
    if (i > 0 && !(levels[i - 1] < levels[i]))
      return fmt::format("the levels are not strictly ascending: level {} is {} and level {} is {}", i - 1,
                         levels[i - 1], i, levels[i]);
  }
  return {};
}

}  // namespace

std::string levels_violation(const HistogramRangeProblem& problem, const void* levels, std::size_t count) {
  if (count != static_cast<std::size_t>(problem.bins) + 1)
    return fmt::format("{} bins take {} levels (bins + 1), not {}", problem.bins, problem.bins + 1, count);
  if (levels == nullptr) return "the levels pointer is null";
  switch (problem.type) {
    case SampleType::u32: return ascending_violation(static_cast<const unsigned*>(levels), count);
    case SampleType::f32: return ascending_violation(static_cast<const float*>(levels), count);
    case SampleType::f64: return ascending_violation(static_cast<const double*>(levels), count);
    default: return ascending_violation(static_cast<const int*>(levels), count);
  }
}

void validate_levels(const HistogramRangeProblem& problem, const void* levels, std::size_t count) {
  if (std::string why = levels_violation(problem, levels, count); !why.empty())
    throw UsageError(fmt::format("levels of {}: {}", problem.shape_key(), why));
}

}  // namespace autotune
