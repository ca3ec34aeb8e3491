// The names of the reduction's enums, one table each in declaration order (core/enum_text.hpp), and every value from
// the same table: what to_string() prints, what the key parser (config.cpp) accepts and what the preamble
// (source.cpp) declares to the template. Internal to the reduction family.
#pragma once

#include "autotune/reduce_problem.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune::reduce_detail {

/// "user" prints as itself; a key spells it "user:<hash>" and parse_reduce_op() does not take it.
inline constexpr enum_text::Name<ReduceOp> kReduceOpNames[] = {
    {ReduceOp::sum, "sum"},       {ReduceOp::min, "min"},       {ReduceOp::max, "max"},
    {ReduceOp::absmax, "absmax"}, {ReduceOp::sumsq, "sumsq"},   {ReduceOp::sumabs, "sumabs"},
    {ReduceOp::l2norm, "l2norm"}, {ReduceOp::user, "user"}};
inline constexpr enum_text::Name<BlockReduce> kBlockReduceNames[] = {{BlockReduce::atomic, "atomic"},
                                                                     {BlockReduce::shared_tree, "shared_tree"},
                                                                     {BlockReduce::warp_shuffle, "warp_shuffle"},
                                                                     {BlockReduce::warp_reduce, "warp_reduce"}};
inline constexpr enum_text::Name<Finish> kFinishNames[] = {
    {Finish::atomic, "atomic"}, {Finish::last_block, "last_block"}, {Finish::two_pass, "two_pass"},
    {Finish::atomic_last, "atomic_last"}};

inline constexpr auto kReduceOps = enum_text::values(kReduceOpNames);
inline constexpr auto kBlockReduces = enum_text::values(kBlockReduceNames);
inline constexpr auto kFinishes = enum_text::values(kFinishNames);

/// The configuration's enums and constants in a variant's preamble, from its field table (config.cpp).
preamble::ConfigPreamble config_preamble(const ReduceConfig& config);

}  // namespace autotune::reduce_detail
