// The range-histogram problem: its key, its checks, and the check of an application's levels.
#include "autotune/histogram_range_problem.hpp"

#include <fmt/format.h>

#include <cmath>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/histogram_range/enums.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/histogram_samples.hpp"
#include "kernel_templates/sample_types.hpp"

namespace autotune {

std::string_view to_string(EdgeLayout e) { return enum_text::name_of(histogram_range_detail::kEdgeLayoutNames, e); }

std::optional<EdgeLayout> parse_edge_layout(std::string_view text) {
  return enum_text::parse(histogram_range_detail::kEdgeLayoutNames, text);
}

SampleType level_type(SampleType t) {
  if (t == SampleType::u32 || t == SampleType::f64) return t;
  return is_float(t) ? SampleType::f32 : SampleType::i32;
}
std::size_t level_size(SampleType t) { return size_of(level_type(t)); }
std::string_view level_type_name(SampleType t) { return histogram_samples::cuda_type(level_type(t)); }

int HistogramRangeProblem::max_bins(SampleType t) {
  // The tuner's levels are distinct values of the span: 257 of them for 8-bit integers, 65537 for 16-bit ones.
  return is_float(t) || size_of(t) > 2 ? 1 << 20 : 1 << (8 * size_of(t));
}

int HistogramRangeProblem::channel_bins(int c) const {
  return histogram_samples::channel_entry(per_channel_bins, c, bins);
}
int HistogramRangeProblem::channel_offset(int c) const {
  return histogram_samples::channel_offset(*this, per_channel_bins, c, [&](int k) { return channel_bins(k); });
}
int HistogramRangeProblem::level_offset(int c) const { return channel_offset(c) + c; }
bool HistogramRangeProblem::uniform_channels() const { return histogram_samples::all_first(per_channel_bins, bins); }

HistogramRangeProblem HistogramRangeProblem::with_channel_bins(int pixel_channels, std::vector<int> channel_bins) const {
  if (channel_bins.empty()) throw UsageError("with_channel_bins: at least one active channel's bins");
  HistogramRangeProblem p = *this;
  p.bins = channel_bins[0];
  return histogram_samples::with_channel_list(p, pixel_channels, &HistogramRangeProblem::per_channel_bins,
                                              std::move(channel_bins));
}

void HistogramRangeProblem::validate() const {
  const auto check_bins = [&](int b) {
    if (b < 1 || b > max_bins(type))
      throw UsageError(
          fmt::format("bins must be in 1..{} for {} samples (got {})", max_bins(type), to_string(type), b));
  };
  check_bins(bins);
  histogram_samples::check_channels(*this, per_channel_bins, "per_channel_bins", bins, "bins", [](int b) { return b; },
                                    check_bins);
  histogram_samples::check_counter_bits(*this);
  if (distribution != kRobustDistribution) enum_text::require_distribution(distribution, histogram_distributions());
}

std::pair<double, double> HistogramRangeProblem::span() const {
  // 8- and 16-bit integers: the whole type; 32-bit ones: 2^24 values from 0; floats: [0, 1).
  if (is_float(type)) return {0.0, 1.0};
  if (size_of(type) == 4) return {0.0, 16777216.0};
  const auto& t = histogram_samples::info(type);
  return {t.min, t.max + 1.0};
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
  const auto wanted = static_cast<std::size_t>(problem.levels());
  if (count != wanted) {
    if (problem.active == 1)
      return fmt::format("{} bins take {} levels (bins + 1), not {}", problem.bins, problem.bins + 1, count);
    return fmt::format("{} active channels of {} bins in all take {} levels (bins + 1 each), not {}", problem.active,
                       problem.counters(), wanted, count);
  }
  if (levels == nullptr) return "the levels pointer is null";
  for (int c = 0; c < problem.active; ++c) {
    // Each channel's levels are ascending on their own: channel c + 1's first may be below channel c's last.
    const auto first = static_cast<std::size_t>(problem.level_offset(c)) * level_size(problem.type);
    const auto* raw = static_cast<const unsigned char*>(levels) + first;
    const auto n = static_cast<std::size_t>(problem.channel_bins(c)) + 1;
    const std::string why = with_level_type(problem.type, [&](auto level) {
      return ascending_violation(reinterpret_cast<const decltype(level)*>(raw), n);
    });
    if (!why.empty()) return problem.active == 1 ? why : fmt::format("channel {}: {}", c, why);
  }
  return {};
}

void validate_levels(const HistogramRangeProblem& problem, const void* levels, std::size_t count) {
  if (std::string why = levels_violation(problem, levels, count); !why.empty())
    throw UsageError(fmt::format("levels of {}: {}", problem.shape_key(), why));
}

}  // namespace autotune
