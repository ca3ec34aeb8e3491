// The segmented reduction search space (declared as data: core/space_decl.hpp) and the family's one validity
// function.
#pragma once

#include <string>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "core/space_decl.hpp"

namespace autotune {

/// The space for `problem`, in a fixed order, every configuration well formed, no duplicates, the fallback first: a
/// union of slices (51 variants) rather than a product (README.md, "The variant space").
std::vector<SegReduceConfig> segreduce_space(const SegReduceProblem& problem);

/// The family's validity function (core/space_decl.hpp): lanes, segment limits, loads and chunks, then on a device
/// its threads per block.
space_decl::ViolationFunction<SegReduceProblem, SegReduceConfig> segreduce_violation;

}  // namespace autotune
