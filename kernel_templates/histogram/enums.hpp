// Every value of the histogram configuration's enums, in declaration order: what the key parser (config.cpp)
// accepts and what the preamble (source.cpp) declares to the template. Internal to the histogram family.
#pragma once

#include "autotune/histogram_problem.hpp"

namespace autotune::histogram_detail {

inline constexpr Privatization kPrivatizations[] = {Privatization::global, Privatization::shared, Privatization::warp};
inline constexpr Partitioning kPartitionings[] = {Partitioning::interleaved, Partitioning::contiguous};
inline constexpr Aggregation kAggregations[] = {Aggregation::none, Aggregation::run, Aggregation::warp};
inline constexpr Merge kMerges[] = {Merge::atomic, Merge::last_block, Merge::self_zero};
inline constexpr Binning kBinnings[] = {Binning::direct, Binning::values};

}  // namespace autotune::histogram_detail
