#include "kernel_templates/histogram/value_bins.hpp"

#include <cstdint>

namespace autotune::histogram_detail {

bool values_are_bins(const HistogramProblem& problem) {
  // Not i8 (value_bins.hpp; measured: README.md, "Where the bins are the values").
  if (problem.type != SampleType::u8) return false;
  const HistogramChannel whole{256, 0.0, 256.0};
  for (int c = 0; c < problem.active; ++c)
    if (!(problem.channel(c) == whole)) return false;
  return true;
}

bool direct_bin_divides(const HistogramProblem& problem) {
  auto pow2 = [](std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
  for (int c = 0; c < problem.active; ++c) {
    const HistogramChannel ch = problem.channel(c);
    const auto width = static_cast<std::uint64_t>(ch.upper - ch.lower), bins = static_cast<std::uint64_t>(ch.bins);
    const bool shift = (width % bins == 0 && pow2(width / bins)) || (bins % width == 0 && pow2(bins / width));
    if (!shift) return true;
  }
  return false;
}

bool covers_all_values(const HistogramProblem& problem) {
  const double low = problem.type == SampleType::i8 ? -128.0 : 0.0;
  for (int c = 0; c < problem.active; ++c) {
    const HistogramChannel ch = problem.channel(c);
    if (ch.lower > low || ch.upper < low + 256.0) return false;
  }
  return true;
}

}  // namespace autotune::histogram_detail
