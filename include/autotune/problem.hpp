// Problems: what a user wants computed, independent of how. A problem plus a device selects a winner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autotune {

/// Element type of histogram samples.
enum class SampleType { u8, u16, i32, u32, f32, f64 };

std::string_view to_string(SampleType t);
std::optional<SampleType> parse_sample_type(std::string_view text);
std::size_t size_of(SampleType t);
bool is_float(SampleType t);
/// All sample types, in a fixed order (for help texts and tests).
const std::vector<SampleType>& all_sample_types();

/// An even-binned histogram with CUB's HistogramEven semantics:
/// a sample s counts only if lower <= s < upper (NaN never counts); its bin is
///   integers: (s - lower) * bins / (upper - lower), computed exactly in 64-bit integers;
///   floats:   (int)((s - lower) * (bins / (upper - lower))) in float for f32 (in double for f64), clamped to
///             bins - 1.
/// Counters (counter_bits = 32 or 64) are overwritten, not accumulated, by each call. 32-bit counters wrap past
/// 2^32 - 1 samples in one bin: use 64-bit counters for inputs that large.
struct HistogramProblem {
  SampleType type = SampleType::u8;
  int bins = 256;
  double lower = 0.0;
  double upper = 256.0;
  std::uint64_t n = 0;                  ///< number of samples the problem is tuned for
  std::string distribution = "uniform"; ///< input distribution the tuner measures on
  int counter_bits = 32;                ///< width of the output counters: 32 or 64

  bool operator==(const HistogramProblem&) const = default;

  /// Throws UsageError when the problem is not well formed (bins < 1, lower >= upper, a range not representable
  /// in the sample type, non-integral bounds for integer types, unknown distribution).
  void validate() const;

  /// Canonical text, stable across versions, used as a key in the cache and in messages:
  /// "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform" ("/counters=64" is appended for 64-bit counters).
  std::string key() const;
  /// The same without n: every size of one histogram shares this (used for "nearest tuned size" lookups).
  std::string shape_key() const;

  /// Input bytes read by one run.
  std::uint64_t bytes() const { return n * size_of(type); }
};

/// Input distributions the tuner can generate.
const std::vector<std::string>& histogram_distributions();

/// The distribution name under which `autotune tune --dists D1,D2,...` records the robust winner of a histogram:
/// the configuration with the least worst-case slowdown across those distributions (tuner/robust.hpp). A valid
/// problem key and lookup hint, but not an input: it cannot be generated or tuned directly.
inline constexpr const char* kRobustDistribution = "robust";

/// Parses sizes such as "64M", "1G", "4096", "1.5K" (K = 1024). Throws UsageError on anything else.
std::uint64_t parse_size(std::string_view text);

}  // namespace autotune
