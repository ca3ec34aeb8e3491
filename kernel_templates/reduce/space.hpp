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
/// stays at 60-113 variants, by the problem: 64 above 1M elements of up to 4 bytes, without __reduce_*_sync or
/// atomic finishes; 11 more up to 1M (the single-block path), 4 fewer for 8-byte elements (no 4-byte loads), 20 more
/// where __reduce_*_sync applies, 14 more where atomic finishes do (60: a deterministic f64 sum above 1M elements;
/// 113: min or max of i32 up to 1M):
///   the seed chapter's kernels (one element per load: per-thread atomics, a shared-memory tree, warp shuffles with
///   one atomic per block); warp shuffles with 16-byte loads over block x loads x accumulators (the main family);
///   narrower loads; four accumulators; the finishes (atomic, two passes, last block) on resident and cover-n grids;
///   __reduce_*_sync for 32-bit integer accumulators; 64-thread blocks; and, unless problem.n is above 1M elements,
///   the single-block path. Atomic finishes of float sums appear only in fast mode (invalid_reason refuses them
///   otherwise). ReduceConfig::fallback(problem) is always in it.
std::vector<ReduceConfig> reduce_space(const ReduceProblem& problem);

/// The family's validity function (core/space_decl.hpp): the rules of config.cpp, then on a device its threads and
/// shared memory per block, and sm_80 for warp_reduce.
space_decl::ViolationFunction<ReduceProblem, ReduceConfig> reduce_violation;

}  // namespace autotune
