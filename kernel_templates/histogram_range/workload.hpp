// The range-histogram family's tuner workload (core/workload.hpp).
#pragma once

#include <memory>

#include "autotune/histogram_range_problem.hpp"
#include "core/workload.hpp"

namespace autotune {

/// Generates the levels of `problem` (from the problem alone) and its samples (with `seed`), counts them on the
/// CPU, copies both to the current device.
std::unique_ptr<Workload> make_histogram_range_workload(const HistogramRangeProblem& problem,
                                                        const DeviceInfo& device, std::uint64_t seed);

}  // namespace autotune
