// The lookup's grid rule (include/autotune/resolution.hpp): where a handle's size table serves sizes below the ones
// its configuration was measured at, the configuration takes less work per block there, so that a grid covering n
// keeps the blocks it launched where it was measured (KernelFamily::keeping_grid; at most one per SM). A tile sized
// for 1M samples leaves most SMs idle at 250K: measured in kernel_templates/histogram/family.cpp (keeping_grid).
#pragma once

#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// Applies the rule to `sizes`, a handle's size table for `problem` (ranges ascending and contiguous): the part of a
/// range below the smallest size it was measured at (SizeRange::tuned_n, or SizeRange::timed_below: a range between
/// two sizes that timed its configuration keeps it; the built-in default has none) is cut where
/// the family's answer changes, each piece running the answer for its sizes, its `why` saying so. Nothing changes
/// for a family without the rule.
void keep_grid_by_size(std::vector<SizeRange>& sizes, const Problem& problem, const DeviceInfo& device);

}  // namespace autotune
