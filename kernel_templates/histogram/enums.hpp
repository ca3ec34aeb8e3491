// The names of the histogram configuration's enums, one table each in declaration order (core/enum_text.hpp), and
// every value from the same table: what to_string() prints, what the key parser (config.cpp) accepts and what the
// preamble (source.cpp) declares to the template. Internal to the histogram family.
#pragma once

#include "autotune/histogram_problem.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune::histogram_detail {

inline constexpr enum_text::Name<Privatization> kPrivatizationNames[] = {
    {Privatization::global, "global"}, {Privatization::shared, "shared"}, {Privatization::warp, "warp"}};
inline constexpr enum_text::Name<Partitioning> kPartitioningNames[] = {{Partitioning::interleaved, "interleaved"},
                                                                       {Partitioning::contiguous, "contiguous"}};
inline constexpr enum_text::Name<Aggregation> kAggregationNames[] = {
    {Aggregation::none, "none"}, {Aggregation::run, "run"}, {Aggregation::warp, "warp"}};
inline constexpr enum_text::Name<Merge> kMergeNames[] = {
    {Merge::atomic, "atomic"}, {Merge::last_block, "last_block"}, {Merge::self_zero, "self_zero"}};
inline constexpr enum_text::Name<Binning> kBinningNames[] = {{Binning::direct, "direct"}, {Binning::values, "values"}};

inline constexpr auto kPrivatizations = enum_text::values(kPrivatizationNames);
inline constexpr auto kPartitionings = enum_text::values(kPartitioningNames);
inline constexpr auto kAggregations = enum_text::values(kAggregationNames);
inline constexpr auto kMerges = enum_text::values(kMergeNames);
inline constexpr auto kBinnings = enum_text::values(kBinningNames);

/// The configuration's enums and constants in a variant's preamble, from its field table (config.cpp).
preamble::ConfigPreamble config_preamble(const HistogramConfig& config);

}  // namespace autotune::histogram_detail
