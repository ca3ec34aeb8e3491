// The histogram family's tuner workload (core/workload.hpp).
#pragma once

#include <memory>

#include "autotune/histogram_problem.hpp"
#include "core/workload.hpp"

namespace autotune {

/// Generates the samples of `problem` with `seed` (reference.hpp), counts them on the CPU, copies them to the
/// current device.
std::unique_ptr<Workload> make_histogram_workload(const HistogramProblem& problem, const DeviceInfo& device,
                                                  std::uint64_t seed);

}  // namespace autotune
