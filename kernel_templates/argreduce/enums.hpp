// The names of the arg-reduction's operations (core/enum_text.hpp) and every value of its enums, in declaration
// order: what to_string() prints, what the key parser (config.cpp) accepts and what the preamble (source.cpp)
// declares to the template. The block reductions and finishes are the reduction family's enums (reduce_problem.hpp),
// of which arg-reductions take every finish (each deterministic here: atomic is the wide keys' maximum). Internal to
// the family.
#pragma once

#include "autotune/argreduce_problem.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune::argreduce_detail {

inline constexpr enum_text::Name<ArgOp> kArgOpNames[] = {{ArgOp::argmin, "argmin"}, {ArgOp::argmax, "argmax"}};
inline constexpr auto kArgOps = enum_text::values(kArgOpNames);
inline constexpr BlockReduce kBlockReduces[] = {BlockReduce::shared_tree, BlockReduce::warp_shuffle,
                                                BlockReduce::warp_reduce};  // warp_reduce: packed keys only
/// atomic: the wide keys' 128-bit compare-and-swap finish (sm_90), not the reduction's atomic combine into `out`.
inline constexpr Finish kFinishes[] = {Finish::last_block, Finish::two_pass, Finish::atomic};

/// The configuration's enums and constants in a variant's preamble, from its field table (config.cpp).
preamble::ConfigPreamble config_preamble(const ArgReduceConfig& config);

}  // namespace autotune::argreduce_detail
