// Generates the preamble of compile-time constants that turns kernel_templates/histogram/histogram.cu into one variant.
#include <fmt/format.h>

#include <string_view>
#include <utility>

#include "autotune/histogram_problem.hpp"
#include "embedded.hpp"
#include "kernel_templates/histogram/enums.hpp"
#include "kernel_templates/histogram/value_bins.hpp"
#include "kernel_templates/histogram/workspace_layout.hpp"
#include "kernel_templates/histogram_samples.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune {

namespace {

// Hexadecimal float literal: exact, so host and device agree on every bit of the constants.
std::string float_literal(float f) { return fmt::format("{:a}f", f); }
std::string double_literal(double d) { return fmt::format("{:a}", d); }

// CUB's f32 scale: each operation in float (x86-64 and aarch64 evaluate float expressions in float).
float f32_scale(int bins, double lower, double upper) {
  const float lo = static_cast<float>(lower), hi = static_cast<float>(upper);
  const float width = hi - lo;
  return static_cast<float>(bins) / width;
}

// The bounds and scale of a range: the problem's own kLowerI ... kScaleD (prefix and channel empty), or channel c's
// kChLowerI<c> ... kChScaleD<c>, each in the arithmetic of the sample type and 0 in the others'. The scale as CUB
// computes it on the host (ScaleTransform::ComputeScale in cub/device/dispatch/dispatch_histogram.cuh): in the sample
// type, from the bounds rounded to it. f32: float(bins) / (float(upper) - float(lower)), every operation in float,
// which is not float(bins / (upper - lower)) computed in double (it differs by an ulp for some ranges, e.g. 65536
// bins over [0.02, 0.8)). f64 samples are binned in double (kLowerD, kUpperD, kScaleD); f16 and bf16 samples as f32,
// after an exact conversion to float (CUB's HistogramEven with float levels: its common type of the two is float).
// The CPU reference computes the same (reference.cpp).
std::string range_constants(SampleType type, std::string_view prefix, std::string_view channel,
                            const HistogramChannel& ch) {
  const bool fp = is_float(type), f64 = type == SampleType::f64, f32 = fp && !f64;
  return fmt::format(
      "constexpr long long k{0}LowerI{1} = {2}LL;\nconstexpr long long k{0}UpperI{1} = {3}LL;\n"
      "constexpr float k{0}LowerF{1} = {4};\nconstexpr float k{0}UpperF{1} = {5};\n"
      "constexpr float k{0}ScaleF{1} = {6};\nconstexpr double k{0}LowerD{1} = {7};\n"
      "constexpr double k{0}UpperD{1} = {8};\nconstexpr double k{0}ScaleD{1} = {9};\n",
      prefix, channel, fp ? 0LL : static_cast<long long>(ch.lower),
      fp ? 0LL : static_cast<long long>(ch.upper), float_literal(f32 ? static_cast<float>(ch.lower) : 0.0f),
      float_literal(f32 ? static_cast<float>(ch.upper) : 0.0f),
      float_literal(f32 ? f32_scale(ch.bins, ch.lower, ch.upper) : 0.0f), double_literal(f64 ? ch.lower : 0.0),
      double_literal(f64 ? ch.upper : 0.0),
      double_literal(f64 ? static_cast<double>(ch.bins) / (ch.upper - ch.lower) : 0.0));
}

// Each channel's bins, first counter and range: kChBins0, kChOffset0, kChLowerI0, ... (histogram.cu, Levels).
std::string channel_levels(const HistogramProblem& problem) {
  return fmt::format("constexpr bool kUniformChannels = {};\n", problem.uniform_channels()) +
         histogram_samples::channel_constants(problem, [&](int c, int k) {
           return range_constants(problem.type, "Ch", std::to_string(c), problem.channel(k));
         });
}

// The variant's source, with or without its 2D entry point.
std::string variant_source(const HistogramProblem& problem, const HistogramConfig& config, bool entry_2d) {
  preamble::require_valid(problem, config);
  // The configuration's enums by name (the template compares kMerge with Merge::last_block, never with 1) and its
  // fields' constants, by the parts of config.cpp's table; kVecBytes, kCounter16 and the AT_ macros are derived.
  const preamble::ConfigPreamble fields = histogram_detail::config_preamble(config);
  // Value counting maps each byte value to its bin in the kernel, from the same levels (histogram.cu's value_counter).
  const bool values = config.binning == Binning::values;
  const std::string levels = channel_levels(problem);
  std::string pre = fmt::format(
      "{}{}"
      "typedef {} out_t;\n"
      "constexpr int kBins = {};\n"
      "constexpr int kChannelBins = {};\n"
      "constexpr int kChannels = {};\n"
      "constexpr int kActive = {};\n"
      "constexpr bool kIsFloat = {};\n"
      "{}{}{}"
      "constexpr int kVecBytes = {};\n"
      "{}{}"
      "constexpr bool kCounter16 = {};\n"
      "{}{}"
      "}}  // namespace at\n"
      "#define AT_CLUSTER {}\n"
      "#define AT_VALUES {}\n"
      "#define AT_ENTRY_2D {}\n",
      // Neither n nor the input distribution enters the code: every size and distribution of one histogram shares
      // its compiled variants (the on-disk compile cache is keyed by this text).
      preamble::opening(
          fmt::format("{} samples, {} bins over [{}, {}), {}-bit counters, {} of {} channels{}",
                      to_string(problem.type), problem.bins, problem.lower, problem.upper, problem.counter_bits,
                      problem.active, problem.channels,
                      problem.uniform_channels() ? "" : " (bins and ranges per channel)"),
          config.key(), fields.enums),
      histogram_samples::sample_constants(problem.type), histogram_samples::counter_type(problem), problem.counters(),
      problem.bins,
      problem.channels, problem.active, is_float(problem.type),
      range_constants(problem.type, "", "", {problem.bins, problem.lower, problem.upper}), levels, fields.part(1),
      config.load_bytes(problem), fields.part(2), fields.part(3), config.counter_bits == 16, fields.part(0),
      histogram_detail::HistogramWorkspace::preamble(), config.cluster, values ? 1 : 0, entry_2d ? 1 : 0);
  return preamble::variant_source(std::move(pre), "histogram.cu", embedded::histogram_template,
                                  {{"region_map.cuh", embedded::histogram_region_map_cuh}});
}

}  // namespace

AUTOTUNE_HISTOGRAM_KERNEL_SOURCES(HistogramProblem, HistogramConfig)

}  // namespace autotune
