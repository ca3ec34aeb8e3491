// The arg-reduction family's tuner workload (core/workload.hpp).
#pragma once

#include <memory>

#include "autotune/argreduce_problem.hpp"
#include "core/workload.hpp"

namespace autotune {

/// Generates the values of `problem` with `seed` (reference.hpp), finds the answer on the CPU, copies them to the
/// current device.
std::unique_ptr<Workload> make_argreduce_workload(const ArgReduceProblem& problem, const DeviceInfo& device,
                                                  std::uint64_t seed);

}  // namespace autotune
