// The reduction family's tuner workload (core/workload.hpp).
#pragma once

#include <memory>

#include "autotune/reduce_problem.hpp"
#include "core/workload.hpp"

namespace autotune {

/// Generates the values of `problem` with `seed` (reference.hpp), reduces them on the CPU, copies them to the
/// current device.
std::unique_ptr<Workload> make_reduce_workload(const ReduceProblem& problem, const DeviceInfo& device,
                                                  std::uint64_t seed);

}  // namespace autotune
