// The arg-reduction search space (every configuration the tuner considers for a problem, declared as data:
// core/space_decl.hpp) and the family's one validity function.
#pragma once

#include <string>
#include <vector>

#include "autotune/argreduce_problem.hpp"
#include "autotune/device.hpp"
#include "core/space_decl.hpp"

namespace autotune {

/// The space for `problem`, in a fixed order, every configuration well formed, no duplicates; the fallback first.
/// The reduction space's families (kernel_templates/reduce/space.hpp) with deterministic finishes: the seed's
/// shared-memory tree; warp shuffles with 16-byte loads over block x loads x accumulators; narrower loads; four
/// accumulators; two passes and the last block on resident and cover-n grids; 64-thread blocks; deeper loads; packed
/// 64-bit keys for types of up to 32 bits; and, unless problem.n is above 1M elements, the single-block path, small
/// cover-n grids and one thread-block cluster of 8 or 16 blocks (the small-n cases, where a launch and the finish are
/// the whole cost); for the 8-byte types, pairs folded by __reduce_*_sync, finished from partials or with 128-bit
/// wide keys (finish=atomic, sm_90). 136 variants up to 1M elements and 89 above for types of up to 32 bits, 143 and
/// 100 for the 8-byte types (no packed keys, no 4-byte loads).
std::vector<ArgReduceConfig> argreduce_space(const ArgReduceProblem& problem);

/// The family's validity function (core/space_decl.hpp): packed keys, finishes, loads and grids, then on a device
/// threads and shared memory per block, sm_90 for clusters and wide keys, sm_80 for warp_reduce.
space_decl::ViolationFunction<ArgReduceProblem, ArgReduceConfig> argreduce_violation;

}  // namespace autotune
