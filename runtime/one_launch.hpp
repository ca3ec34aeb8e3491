// An experiment of the lookup, off unless the environment sets AUTOTUNE_SELF_ZERO_AS_ATOMIC=1: a histogram range
// served by a one-launch merge (merge=self_zero) runs merge=atomic instead on sm_90 and later, where a merge=atomic
// call zeroes its output with a kernel that the counting launch overlaps (HistogramKernel::zero_with_kernel). The
// policy's and similar problems' self_zero entries were measured against a memset and a launch, not against that;
// `shape_bench --compare-self-zero-as-atomic` times the two in the same rounds. Sizes the problem itself was tuned
// at keep what the tuning measured.
#pragma once

#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// Whether AUTOTUNE_SELF_ZERO_AS_ATOMIC=1 is set. Read at every lookup.
bool self_zero_as_atomic_enabled();

/// Applies the experiment to `sizes`, a handle's size table for `problem`, where it is enabled and `device` is sm_90
/// or later: each range of the histogram family run with merge=self_zero (no cluster) takes merge=atomic where that
/// stays valid, unless the range is one size the problem itself was tuned at.
void self_zero_as_atomic(std::vector<SizeRange>& sizes, const Problem& problem, const DeviceInfo* device);

}  // namespace autotune
