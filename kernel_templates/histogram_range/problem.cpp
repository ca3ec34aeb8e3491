// The range-histogram problem: its key, its checks, and the check of an application's levels.
#include "autotune/histogram_range_problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/histogram_range/enums.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/histogram_samples.hpp"

namespace autotune {

std::string_view to_string(EdgeLayout e) { return enum_text::name_of(histogram_range_detail::kEdgeLayoutNames, e); }

std::optional<EdgeLayout> parse_edge_layout(std::string_view text) {
  return enum_text::parse(histogram_range_detail::kEdgeLayoutNames, text);
}

std::size_t level_size(SampleType t) { return t == SampleType::f64 ? 8 : 4; }

std::string_view level_type_name(SampleType t) {
  switch (t) {
    case SampleType::u32: return "unsigned int";
    case SampleType::f32:
    case SampleType::f16:
    case SampleType::bf16: return "float";
    case SampleType::f64: return "double";
    default: return "int";
  }
}

int HistogramRangeProblem::max_bins(SampleType t) {
  // The tuner's levels are distinct values of the span: 257 of them for 8-bit integers, 65537 for 16-bit ones.
  if (t == SampleType::u8 || t == SampleType::i8) return 256;
  if (t == SampleType::u16 || t == SampleType::i16) return 65536;
  return 1 << 20;
}

int HistogramRangeProblem::channel_bins(int c) const {
  if (!per_channel_bins.empty() && c >= 0 && static_cast<std::size_t>(c) < per_channel_bins.size())
    return per_channel_bins[static_cast<std::size_t>(c)];
  return bins;
}

int HistogramRangeProblem::channel_offset(int c) const {
  if (per_channel_bins.empty()) return bins * c;
  int offset = 0;
  for (int k = 0; k < c; ++k) offset += channel_bins(k);
  return offset;
}

int HistogramRangeProblem::level_offset(int c) const { return channel_offset(c) + c; }

bool HistogramRangeProblem::uniform_channels() const {
  return std::all_of(per_channel_bins.begin(), per_channel_bins.end(), [&](int b) { return b == bins; });
}

HistogramRangeProblem HistogramRangeProblem::with_channel_bins(int pixel_channels, std::vector<int> channel_bins) const {
  if (channel_bins.empty()) throw UsageError("with_channel_bins: at least one active channel's bins");
  HistogramRangeProblem p = *this;
  p.channels = pixel_channels;
  p.active = static_cast<int>(channel_bins.size());
  p.bins = channel_bins[0];
  p.per_channel_bins = std::move(channel_bins);
  if (p.uniform_channels()) p.per_channel_bins.clear();
  return p;
}

void HistogramRangeProblem::validate() const {
  if (bins < 1 || bins > max_bins(type))
    throw UsageError(fmt::format("bins must be in 1..{} for {} samples (got {})", max_bins(type), to_string(type), bins));
  histogram_samples::check_channel_counts(*this, per_channel_bins, "per_channel_bins");
  if (!per_channel_bins.empty()) {
    if (per_channel_bins[0] != bins)
      throw UsageError(fmt::format("per_channel_bins[0] ({}) must equal bins ({})", per_channel_bins[0], bins));
    for (int c = 1; c < active; ++c)
      if (channel_bins(c) < 1 || channel_bins(c) > max_bins(type))
        throw UsageError(fmt::format("channel {}: bins must be in 1..{} for {} samples (got {})", c, max_bins(type),
                                     to_string(type), channel_bins(c)));
  }
  histogram_samples::check_counter_bits(*this);
  if (distribution != kRobustDistribution) enum_text::require_distribution(distribution, histogram_distributions());
}

std::pair<double, double> HistogramRangeProblem::span() const {
  switch (type) {
    case SampleType::u8: return {0.0, 256.0};
    case SampleType::u16: return {0.0, 65536.0};
    case SampleType::i8: return {-128.0, 128.0};
    case SampleType::i16: return {-32768.0, 32768.0};
    case SampleType::i32:
    case SampleType::u32: return {0.0, 16777216.0};
    default: return {0.0, 1.0};
  }
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
