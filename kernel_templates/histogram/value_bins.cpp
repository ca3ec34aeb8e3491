#include "kernel_templates/histogram/value_bins.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "autotune/error.hpp"

namespace autotune::histogram_detail {

std::vector<int> value_counters(const HistogramProblem& problem) {
  if (problem.type != SampleType::u8 && problem.type != SampleType::i8)
    throw UsageError(fmt::format("value counting takes u8 or i8 samples, not {} ({})", to_string(problem.type),
                                 problem.key()));
  // Entry v is the byte v: the sample v for u8, the two's-complement sample (v < 128 ? v : v - 256) for i8.
  const bool is_signed = problem.type == SampleType::i8;
  std::vector<int> map;
  map.reserve(static_cast<std::size_t>(problem.active) * 256);
  for (int c = 0; c < problem.active; ++c) {
    const HistogramChannel ch = problem.channel(c);
    const auto lower = static_cast<std::int64_t>(ch.lower), upper = static_cast<std::int64_t>(ch.upper);
    const auto width = static_cast<std::uint64_t>(upper - lower);
    for (std::int64_t byte = 0; byte < 256; ++byte) {
      const std::int64_t v = is_signed && byte >= 128 ? byte - 256 : byte;
      if (v < lower || v >= upper) {
        map.push_back(-1);
        continue;
      }
      // (v - lower) < 256 and bins <= 2^24: the product fits 64 bits exactly.
      const std::uint64_t bin = static_cast<std::uint64_t>(v - lower) * static_cast<std::uint64_t>(ch.bins) / width;
      map.push_back(problem.channel_offset(c) + static_cast<int>(bin));
    }
  }
  return map;
}

std::string value_counters_preamble(const HistogramProblem& problem) {
  const std::vector<int> map = value_counters(problem);
  return fmt::format("__device__ int kValueCounter[{}] = {{{}}};\n", map.size(), fmt::join(map, ","));
}

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
