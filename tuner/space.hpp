// The histogram search space: every configuration the tuner considers for a problem, and the device limits that
// prune it before anything is compiled.
#pragma once

#include <string>
#include <vector>

#include "autotune/config.hpp"
#include "autotune/device.hpp"

namespace autotune {

/// The space for `problem`, in a fixed order, every configuration well formed (invalid_reason() empty). It is a
/// union of families rather than one Cartesian product, so that it stays a few hundred variants:
///   the seed chapter's kernels (one-sample loads: global atomics and one shared histogram, coarsened, with and
///   without run aggregation, interleaved and contiguous); vectorized global atomics; shared histograms with
///   R lane-interleaved copies; per-warp copies; 16-bit shared counters for bins that do not fit otherwise; and,
///   unless problem.n is above 4M samples, a single-block path for small inputs.
/// Configurations whose shared memory cannot fit any current GPU (227 KiB) are left out.
std::vector<HistogramConfig> histogram_space(const HistogramProblem& problem);

/// Why `config` cannot run for `problem` on `device`, or an empty string when it can.
std::string histogram_constraint_violation(const HistogramProblem& problem, const HistogramConfig& config,
                                           const DeviceInfo& device);

}  // namespace autotune
