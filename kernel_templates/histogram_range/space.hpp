// The range-histogram search space (declared as data: core/space_decl.hpp) and the family's one validity function.
#pragma once

#include <string>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "core/space_decl.hpp"

namespace autotune {

/// The space for `problem`, in a fixed order, every configuration well formed and within 227 KiB of shared memory:
/// per binning that applies to the sample type (values for 8-bit samples; lut for 8- and 16-bit ones; search and
/// search_global for all; prebin for one active channel), shared counters with 1 to 32 lane-interleaved copies
/// (values for several active channels: 4 to 32) and global atomics, blocks of 256
/// to 1024 threads, 1 to 4 loads of 16 bytes in flight, and, up to 4M samples, the single-block path.
std::vector<HistogramRangeConfig> histogram_range_space(const HistogramRangeProblem& problem);
/// The family's validity function (core/space_decl.hpp): binnings by sample type, copies and merges, then on a
/// device threads and shared memory per block.
space_decl::ViolationFunction<HistogramRangeProblem, HistogramRangeConfig> histogram_range_violation;

}  // namespace autotune
