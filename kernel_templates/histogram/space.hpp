// The histogram search space (every configuration the tuner considers for a problem, declared as data:
// core/space_decl.hpp) and the family's one validity function.
#pragma once

#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/device.hpp"
#include "core/space_decl.hpp"

namespace autotune {

/// The space for `problem`, in a fixed order, every configuration well formed (invalid_reason() empty). It is a
/// union of families rather than one Cartesian product, so that it stays a few hundred variants (the count depends
/// on the sample size, the bins, value counting and n: for u8 with 256 bins 489 up to 4M samples and 484 at 64M, for
/// f32 with 1024 bins 469 at 1M and 464 at 64M; README.md of this folder):
///   the seed chapter's kernels (one-sample loads: global atomics and one shared histogram, coarsened, with and
///   without run aggregation, interleaved and contiguous); vectorized global atomics; shared histograms with
///   R lane-interleaved copies; per-warp copies; 16-bit shared counters for bins that do not fit otherwise;
///   4- and 8-byte loads; blocks of 64 and 128 threads (with self_zero only up to 4M samples); for u8 and i8
///   samples whose bins are not the byte values, value counting (bin=values: the 256 values counted, mapped to bins
///   once per block); and, by problem.n, either grids that cover n with one tile per block (above 4M samples) or the
///   single-block and cluster paths for small inputs (up to 4M).
/// Configurations whose shared memory cannot fit any current GPU (227 KiB) are left out.
std::vector<HistogramConfig> histogram_space(const HistogramProblem& problem);

/// The family's validity function (core/space_decl.hpp): copies, counters, merges, clusters and value counting,
/// then on a device threads per block, clusters (sm_90) and shared memory with the kernel's static 16 bytes.
space_decl::ViolationFunction<HistogramProblem, HistogramConfig> histogram_violation;

}  // namespace autotune
