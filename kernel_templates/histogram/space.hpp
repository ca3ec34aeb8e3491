// The histogram search space (every configuration the tuner considers for a problem, declared as data:
// core/space_decl.hpp) and the family's one validity function.
#pragma once

#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/device.hpp"
#include "core/space_decl.hpp"

namespace autotune {

/// The space for `problem`, in a fixed order, every configuration well formed (invalid_reason() empty): a union of
/// numbered groups rather than one Cartesian product, a few hundred variants (its groups and sizes: README.md of this
/// folder, "The variant space"). Configurations whose shared memory cannot fit any current GPU (227 KiB) are left out.
std::vector<HistogramConfig> histogram_space(const HistogramProblem& problem);

/// The family's validity function (core/space_decl.hpp): copies, counters, merges, clusters and value counting,
/// then on a device threads per block, clusters (sm_90) and shared memory with the kernel's static 16 bytes.
space_decl::ViolationFunction<HistogramProblem, HistogramConfig> histogram_violation;

}  // namespace autotune
