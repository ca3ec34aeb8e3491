// The segmented reduction search space (declared as data: core/space_decl.hpp) and the family's one validity
// function.
#pragma once

#include <string>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "core/space_decl.hpp"

namespace autotune {

/// The space for `problem`, in a fixed order, every configuration well formed, no duplicates, the fallback first.
/// A union of slices (51 variants) rather than a product: lanes per short segment with the threshold that suits
/// them (a thread for <= 32-64 elements, a group of 2-16 lanes up to 64-512, a warp up to 1K-4K), then around the
/// middle: loads in flight, block size, one-element loads, the long path's chunk (4K..256K elements) and loads (4-8),
/// and a block per segment: alone in one launch (CUB's algorithm), or queueing the segments past 64K.
std::vector<SegReduceConfig> segreduce_space(const SegReduceProblem& problem);

/// The family's validity function (core/space_decl.hpp): lanes, segment limits, loads and chunks, then on a device
/// its threads per block.
space_decl::ViolationFunction<SegReduceProblem, SegReduceConfig> segreduce_violation;

}  // namespace autotune
