// The lookup's rule for one-launch histogram merges on sm_90 and later (include/autotune/resolution.hpp): a range of
// a handle's size table that runs merge=self_zero runs merge=atomic instead where the output is large, unless the
// problem's own tuning measured it.
//
// Why: on sm_90+ a merge=atomic call zeroes its output with a kernel that the counting launch overlaps (programmatic
// dependent launch; HistogramKernel::zero_with_kernel), which made those calls 5.8 % faster than with a memset on the
// held-out grid of seed 20261205 (30 rows, same rounds; bench/results/2026-12-06c-summary.md). The policy's entries
// were all measured before that, against a memset, and self_zero zeroes the output with one warp of the block that
// starts first while every other block waits for it at its end: the larger the output, the longer. Served as
// merge=atomic instead (AUTOTUNE_SELF_ZERO_AS_ATOMIC=1 of commit 0c37aec, the same rounds; the held-out grid of seed
// 20261206 on an H100, rows 0-46, 11 rows that ran self_zero): the 7 rows from 3594 bins on (14 KiB of 32-bit
// counters) 1.058x faster (0.1 to 13.5 %, none slower), 818 and 2599 bins (286K and 1M samples) 6.6 and 3.2 %
// slower, 413 and 1524 bins within 1 %. Hence the threshold below, between 10 and 14 KiB, fitted on those rows; out
// of sample (rows 47-80) the 3 rows it changed ran 1.047x faster, none slower.
//
// A range whose evidence is the problem's own tuning (exact, nearest_size) runs what was measured: the tuner times
// merge=atomic with the zeroing kernel. AUTOTUNE_SELF_ZERO_AS_MEASURED=1 turns the rule off (an A/B:
// `shape_bench --compare-self-zero-as-measured`).
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// Output bytes from which a one-launch merge is served as merge=atomic (12 KiB: 3072 32-bit counters).
inline constexpr std::uint64_t kOneLaunchAsAtomicFromBytes = 12 * 1024;

/// Whether the rule applies: unless the environment sets AUTOTUNE_SELF_ZERO_AS_MEASURED=1. Read at every lookup.
bool self_zero_rule_enabled();

/// Applies the rule to `sizes`, a handle's size table for `problem`, when `device` is sm_90 or later and the
/// problem's output is at least kOneLaunchAsAtomicFromBytes: each range of the histogram family that runs
/// merge=self_zero without clusters, served from evidence other than the problem's own tuning, takes merge=atomic
/// where that stays valid, its `why` saying so.
void self_zero_as_atomic(std::vector<SizeRange>& sizes, const Problem& problem, const DeviceInfo* device);

}  // namespace autotune
