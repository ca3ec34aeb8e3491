// Every value of the family's operation enum, in declaration order: what the preamble (source.cpp) declares to the
// template. Internal to the segmented reduction family.
#pragma once

#include "autotune/segmented_reduce_problem.hpp"

namespace autotune::segreduce_detail {

inline constexpr SegReduceOp kSegReduceOps[] = {SegReduceOp::sum,    SegReduceOp::min,    SegReduceOp::max,
                                                SegReduceOp::argmin, SegReduceOp::argmax, SegReduceOp::user};

}  // namespace autotune::segreduce_detail
