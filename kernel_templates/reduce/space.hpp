// The reduction search space (every configuration the tuner considers for a problem, declared as data:
// core/space_decl.hpp) and the family's one validity function.
#pragma once

#include <string>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/reduce_problem.hpp"
#include "core/space_decl.hpp"

namespace autotune {

/// The space for `problem`, in a fixed order, every configuration well formed (invalid_reason() empty), no
/// duplicates. A union of families rather than one Cartesian product (which would be 1600+ variants), so that it
/// stays at 74-137 variants, by the problem (`bench/variant_code --count`; the family's README has a table): fewest
/// for a deterministic float sum (no atomic finish), most for min or max of i32 at n = 0 (every group), each with
/// the single-block path up to 1M elements, __reduce_*_sync where it applies, the atomic finishes (8 of them
/// atomic_last) where atomics do, evict-first loads from 8 MiB:
///   the seed chapter's kernels (one element per load: per-thread atomics, a shared-memory tree, warp shuffles with
///   one atomic per block); warp shuffles with 16-byte loads over block x loads x accumulators (the main family);
///   narrower loads; four accumulators; the finishes (atomic, two passes, last block, atomic_last) on resident and
///   cover-n grids;
///   __reduce_*_sync for 32-bit integer accumulators; 64-thread blocks; and, unless problem.n is above 1M elements,
///   the single-block path. Atomic finishes of float sums appear only in fast mode (invalid_reason refuses them
///   otherwise). ReduceConfig::fallback(problem) is always in it.
std::vector<ReduceConfig> reduce_space(const ReduceProblem& problem);

/// The family's validity function (core/space_decl.hpp): the rules of config.cpp, then on a device its threads and
/// shared memory per block, and sm_80 for warp_reduce.
space_decl::ViolationFunction<ReduceProblem, ReduceConfig> reduce_violation;

}  // namespace autotune
