// The configuration key fields the reduction and the arg-reduction share (core/config_fields.hpp), declared once for
// a configuration C with block_reduce, block, vec_bytes, loads, accumulators, finish and grid_blocks; each family's
// config.cpp appends its own (reduce's ld, argreduce's pack). Its entries declare preamble constants, so it is part
// of both families' code identity (code_text).
#pragma once

#include <span>
#include <tuple>

#include "autotune/reduce_problem.hpp"
#include "core/config_fields.hpp"

namespace autotune::reduction_fields {

/// "red=R,block=B,vec=V,loads=L,acc=A,finish=F,grid=G", red and finish one of the family's `reduces` and `finishes`,
/// with their constants in the preamble (source.cpp): part 1 kBlock, part 2 kLoads and kAccumulators, the main part
/// kBlockReduce and kFinish (kVecBytes and kSingleBlock are derived).
template <class C>
constexpr auto shared(std::span<const BlockReduce> reduces, std::span<const Finish> finishes) {
  return std::tuple{config_fields::choice("red", &C::block_reduce, reduces).constant("kBlockReduce", "BlockReduce"),
                    config_fields::number("block", &C::block, 1).constant("kBlock").in_part(1),
                    config_fields::number("vec", &C::vec_bytes, 0),
                    config_fields::number("loads", &C::loads, 1).constant("kLoads").in_part(2),
                    config_fields::number("acc", &C::accumulators, 1).constant("kAccumulators").in_part(2),
                    config_fields::choice("finish", &C::finish, finishes).constant("kFinish", "Finish"),
                    config_fields::number("grid", &C::grid_blocks, -1)};
}

}  // namespace autotune::reduction_fields
