// Generates the preamble of compile-time constants that turns kernel_templates/histogram_range/histogram_range.cu
// into one variant.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "autotune/histogram_range_problem.hpp"
#include "embedded.hpp"
#include "kernel_templates/histogram_range/enums.hpp"
#include "kernel_templates/histogram_samples.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune {

namespace {

// Each channel's bins, first counter and first level: kChBins0, kChOffset0, kChLevelOffset0, ... (histogram_range.cu,
// Ch); then the most levels of a channel.
std::string channel_constants(const HistogramRangeProblem& p) {
  int most_levels = 0;
  const std::string text = histogram_samples::channel_constants(p, [&](int c, int k) {
    most_levels = std::max(most_levels, p.channel_bins(k) + 1);
    return fmt::format("constexpr int kChLevelOffset{} = {};\n", c, p.level_offset(k));
  });
  return text + fmt::format("constexpr int kMostChannelLevels = {};\n", most_levels);
}

// The variant's source, with or without its 2D entry point.
std::string variant_source(const HistogramRangeProblem& problem, const HistogramRangeConfig& config, bool entry_2d) {
  preamble::require_valid(problem, config);
  // The configuration's enums and its fields' constants, by the parts of config.cpp's table (kVecBytes is derived).
  const preamble::ConfigPreamble fields = histogram_range_detail::config_preamble(config);
  std::string pre = fmt::format(
      "{}{}"
      "typedef {} level_t;\n"
      "typedef {} out_t;\n"
      "constexpr int kBins = {};\n"
      "constexpr int kLevels = {};\n"
      "constexpr int kChannels = {};\n"
      "constexpr int kActive = {};\n"
      "{}{}"
      "constexpr int kVecBytes = {};\n"
      "{}{}{}"
      "constexpr int kLutSize = {};\n"
      "constexpr int kPrebins = {};\n"
      "constexpr unsigned kSharedBytes = {};\n"
      "}}  // namespace at\n"
      "#define AT_ENTRY_2D {}\n",
      // Neither n, the edges the tuner measures on nor the distribution enters the code: every size and every
      // levels of one shape share its compiled variants.
      preamble::opening(
          fmt::format("{} samples, {} bins given by {} levels, {}-bit counters{}", to_string(problem.type),
                      problem.bins, level_type_name(problem.type), problem.counter_bits,
                      problem.channels == 1 ? std::string()
                                            : fmt::format(", {} of {} channels of {} bins in all", problem.active,
                                                          problem.channels, problem.counters())),
          config.key(), fields.enums),
      histogram_samples::sample_constants(problem.type), level_type_name(problem.type),
      histogram_samples::counter_type(problem), problem.counters(), problem.levels(), problem.channels, problem.active,
      channel_constants(problem), fields.part(1), config.load_bytes(problem), fields.part(2), fields.part(0),
      fields.part(3),
      histogram_range_detail::lut_size(problem.type), histogram_range_detail::prebins(problem.bins),
      config.shared_bytes(problem), entry_2d ? 1 : 0);
  return preamble::variant_source(std::move(pre), "histogram_range.cu", embedded::histogram_range_template,
                                  {{"region_map.cuh", embedded::histogram_range_region_map_cuh}});
}

}  // namespace

AUTOTUNE_HISTOGRAM_KERNEL_SOURCES(HistogramRangeProblem, HistogramRangeConfig)

}  // namespace autotune
