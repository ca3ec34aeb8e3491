#include "autotune/histogram_problem.hpp"
#include "autotune/problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "autotune/error.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/histogram_samples.hpp"
#include "kernel_templates/sample_types.hpp"

namespace autotune {

using histogram_samples::info;

namespace {

// One channel's bins over [lower, upper) for samples of `type` (HistogramProblem::validate).
void validate_range(SampleType type, int bins, double lower, double upper) {
  if (bins < 1) throw UsageError(fmt::format("bins must be at least 1 (got {})", bins));
  if (bins > (1 << 24)) throw UsageError(fmt::format("bins must be at most 16777216 (got {})", bins));
  if (!std::isfinite(lower) || !std::isfinite(upper))
    throw UsageError("the histogram range [lower, upper) must be finite");
  if (!(lower < upper))
    throw UsageError(fmt::format("lower ({}) must be less than upper ({})", lower, upper));
  const auto& ti = info(type);
  if (!is_float(type)) {
    if (lower != std::floor(lower) || upper != std::floor(upper))
      throw UsageError(fmt::format("the range of {} samples must have integer bounds (got [{}, {}))", ti.name, lower, upper));
    // upper is exclusive, so it may be one past the largest value (u8: [0, 256)).
    if (lower < ti.min || upper > ti.max + 1.0)
      throw UsageError(fmt::format("range [{}, {}) does not fit {} samples", lower, upper, ti.name));
    return;
  }
  // Binning computes (s - lower) * (bins / (upper - lower)) in the sample type, every operation in it, from the
  // bounds rounded to it, as CUB does (kernel_templates/histogram/source.cpp, reference.cpp): each of these must be
  // finite and the range must stay non-empty after rounding, or every sample would land in no bin, or in an
  // undefined one.
  const double width = upper - lower, scale = bins / width;
  if (!std::isfinite(width))
    throw UsageError(fmt::format("the range [{}, {}) is too wide: upper - lower overflows", lower, upper));
  if (!std::isfinite(scale) || !(scale > 0))
    throw UsageError(fmt::format("the range [{}, {}) is too narrow for {} bins: bins / (upper - lower) is not a "
                                 "finite number", lower, upper, bins));
  if (type == SampleType::f64) return;
  // f32, and the halves: binned in float
  const float lo = static_cast<float>(lower), hi = static_cast<float>(upper);
  if (!std::isfinite(lo) || !std::isfinite(hi))
    throw UsageError(fmt::format("the range [{}, {}) does not fit {} samples' float binning (|bounds| <= {})",
                                 lower, upper, ti.name, std::numeric_limits<float>::max()));
  if (!(lo < hi))
    throw UsageError(fmt::format("the range [{}, {}) is empty in f32: both bounds round to {}", lower, upper, lo));
  const float width_f = hi - lo;
  const float scale_f = static_cast<float>(bins) / width_f;
  if (!std::isfinite(width_f) || !std::isfinite(scale_f) || !(scale_f > 0))
    throw UsageError(fmt::format("the range [{}, {}) with {} bins cannot be binned in f32 arithmetic (upper - "
                                 "lower or bins / (upper - lower) is not a finite float)", lower, upper, bins));
}

// The channels, their own levels and their counters in all (HistogramProblem::validate).
void validate_channels(const HistogramProblem& p) {
  histogram_samples::check_channels(
      p, p.per_channel, "per_channel", HistogramChannel{p.bins, p.lower, p.upper}, "bins, lower and upper",
      [](const HistogramChannel& ch) { return fmt::format("{} bins over [{}, {})", ch.bins, ch.lower, ch.upper); },
      [&](const HistogramChannel& ch) { validate_range(p.type, ch.bins, ch.lower, ch.upper); });
  long long total = 0;
  for (int c = 0; c < p.active; ++c) total += p.channel(c).bins;
  if (total > (1 << 24))
    throw UsageError(fmt::format("{} active channels of {} bins in all are more than 16777216 counters", p.active,
                                 total));
}

// A 2D problem's rows (HistogramProblem::validate).
void validate_rows(const HistogramProblem& p) {
  if (p.row_pixels == 0 && p.row_stride_bytes != 0)
    throw UsageError(fmt::format("a row stride ({} bytes) needs a row length in pixels", p.row_stride_bytes));
  if (p.row_pixels == 0) return;
  const std::uint64_t pixel = static_cast<std::uint64_t>(p.channels) * size_of(p.type);
  if (p.n % p.row_pixels != 0)
    throw UsageError(fmt::format("{} pixels are not whole rows of {} pixels", p.n, p.row_pixels));
  if (p.row_stride_bytes < p.row_pixels * pixel || p.row_stride_bytes % pixel != 0)
    throw UsageError(fmt::format("a row stride of {} bytes does not hold rows of {} pixels of {} bytes in whole "
                                 "pixels", p.row_stride_bytes, p.row_pixels, pixel));
}

}  // namespace

void HistogramProblem::validate() const {
  validate_range(type, bins, lower, upper);
  histogram_samples::check_counter_bits(*this);
  validate_channels(*this);
  validate_rows(*this);
  if (distribution != kRobustDistribution) enum_text::require_distribution(distribution, histogram_distributions());
}

HistogramChannel HistogramProblem::channel(int c) const {
  return histogram_samples::channel_entry(per_channel, c, HistogramChannel{bins, lower, upper});
}

int HistogramProblem::channel_offset(int c) const {
  return histogram_samples::channel_offset(*this, per_channel, c, [&](int k) { return channel(k).bins; });
}

bool HistogramProblem::uniform_channels() const {
  return histogram_samples::all_first(per_channel, HistogramChannel{bins, lower, upper});
}

HistogramProblem HistogramProblem::multi_channel(SampleType type, int channels, std::vector<HistogramChannel> levels) {
  if (levels.empty()) throw UsageError("multi_channel: at least one active channel's levels");
  const HistogramProblem p{.type = type, .bins = levels[0].bins, .lower = levels[0].lower, .upper = levels[0].upper};
  return histogram_samples::with_channel_list(p, channels, &HistogramProblem::per_channel, std::move(levels));
}

double default_upper(SampleType type, int bins, double lower) {
  if (is_float(type)) return 1.0;
  if (type == SampleType::u8) return 256.0;  // the whole type: bins split it evenly
  if (type == SampleType::u16) return 65536.0;
  if (type == SampleType::i8) return 128.0;  // [lower, the type's top]
  if (type == SampleType::i16) return 32768.0;
  return lower + bins;  // 32-bit types: one value per bin
}

HistogramProblem HistogramProblem::with_defaults(SampleType type, int bins, double lower) {
  return HistogramProblem{.type = type, .bins = bins, .lower = lower};  // upper: default_upper()
}

}  // namespace autotune
