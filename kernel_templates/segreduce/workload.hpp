// The segmented reduction family's tuner workload (core/workload.hpp).
#pragma once

#include <memory>

#include "autotune/segmented_reduce_problem.hpp"
#include "core/workload.hpp"

namespace autotune {

/// Segment offsets from problem.distribution and values (reference.hpp) from `seed`, the CPU reference, device
/// copies; variants run on the single-offsets form (begin = offsets, end = offsets + 1).
std::unique_ptr<Workload> make_segreduce_workload(const SegReduceProblem& problem, const DeviceInfo& device,
                                                  std::uint64_t seed);

}  // namespace autotune
