// Every value of the reduction's enums, in declaration order: what the key parser (config.cpp) accepts and what the
// preamble (source.cpp) declares to the template. Internal to the reduction family.
#pragma once

#include "autotune/reduce_problem.hpp"

namespace autotune::reduce_detail {

inline constexpr ReduceOp kReduceOps[] = {ReduceOp::sum,    ReduceOp::min,    ReduceOp::max,    ReduceOp::absmax,
                                          ReduceOp::sumsq,  ReduceOp::sumabs, ReduceOp::l2norm, ReduceOp::user};
inline constexpr BlockReduce kBlockReduces[] = {BlockReduce::atomic, BlockReduce::shared_tree,
                                                BlockReduce::warp_shuffle, BlockReduce::warp_reduce};
inline constexpr Finish kFinishes[] = {Finish::atomic, Finish::last_block, Finish::two_pass};

}  // namespace autotune::reduce_detail
