// The names of the family's operations in declaration order (core/enum_text.hpp), and every value from the same
// table: what to_string() prints, what parse_segreduce_op() accepts and what the preamble (source.cpp) declares to
// the template. Internal to the segmented reduction family.
#pragma once

#include "autotune/segmented_reduce_problem.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune::segreduce_detail {

/// "user" prints as itself; a key spells it "user:<hash>" and parse_segreduce_op() does not take it.
inline constexpr enum_text::Name<SegReduceOp> kSegReduceOpNames[] = {
    {SegReduceOp::sum, "sum"},       {SegReduceOp::min, "min"},       {SegReduceOp::max, "max"},
    {SegReduceOp::argmin, "argmin"}, {SegReduceOp::argmax, "argmax"}, {SegReduceOp::user, "user"}};
inline constexpr auto kSegReduceOps = enum_text::values(kSegReduceOpNames);

/// The configuration's enums and constants in a variant's preamble, from its field table (config.cpp).
preamble::ConfigPreamble config_preamble(const SegReduceConfig& config);

}  // namespace autotune::segreduce_detail
