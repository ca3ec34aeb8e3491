// The names of the range histogram's own enums, one table each in declaration order (core/enum_text.hpp), and every
// value from the same table; the even histogram's enums this family takes part of. What to_string() prints, what the
// key parser (config.cpp) accepts and what the preamble (source.cpp) declares to the template. Internal to the
// histogram_range family.
#pragma once

#include "autotune/histogram_range_problem.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune::histogram_range_detail {

inline constexpr enum_text::Name<RangeBinning> kBinningNames[] = {{RangeBinning::values, "values"},
                                                                  {RangeBinning::lut, "lut"},
                                                                  {RangeBinning::search, "search"},
                                                                  {RangeBinning::search_global, "search_global"},
                                                                  {RangeBinning::prebin, "prebin"}};
inline constexpr enum_text::Name<EdgeLayout> kEdgeLayoutNames[] = {{EdgeLayout::even, "even"},
                                                                   {EdgeLayout::irregular, "irregular"}};

inline constexpr auto kBinnings = enum_text::values(kBinningNames);
/// Privatization is the even histogram's enum; this family takes global and shared (no per-warp copies).
inline constexpr Privatization kPrivatizations[] = {Privatization::global, Privatization::shared};
/// Merge is the even histogram's enum; this family takes atomic (memset + launch) and self_zero (one launch).
inline constexpr Merge kMerges[] = {Merge::atomic, Merge::self_zero};

/// The configuration's enums and constants in a variant's preamble, from its field table (config.cpp).
preamble::ConfigPreamble config_preamble(const HistogramRangeConfig& config);

/// Entries of the sample -> counter table (RangeBinning::lut) of one channel: one per bit pattern of an 8- or 16-bit
/// sample (halves too), else 0.
inline int lut_size(SampleType t) {
  const std::size_t bytes = size_of(t);
  return bytes == 1 ? 256 : bytes == 2 ? 65536 : 0;
}
/// Buckets of the pre-bin table (RangeBinning::prebin): the power of two at or above 2 * bins, 64..8192.
inline int prebins(int bins) {
  int g = 64;
  while (g < 2 * bins && g < 8192) g *= 2;
  return g;
}

}  // namespace autotune::histogram_range_detail
