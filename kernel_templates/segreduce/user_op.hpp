// An operator of the user's own in a segmented reduction: the reduce family's (kernel_templates/user_op.hpp)
// on the same reduction (SegReduceProblem::as_reduce), with the messages naming the segmented problem. Internal to
// the segmented reduction family.
#pragma once

#include <string>

#include "autotune/segmented_reduce_problem.hpp"

namespace autotune::segreduce_detail {

/// UsageError when `problem` is a user operator whose source it does not hold (read back from a key: the hash alone),
/// naming the problem: it can be looked up and shown, not compiled.
void require_user_source(const SegReduceProblem& problem);

}  // namespace autotune::segreduce_detail

namespace autotune {

/// check_user_op_compiles of the reduce family for a segmented problem: nothing for a built-in operation; a user
/// operator is validated, must hold its source and compile for `arch`, else UsageError (with NVRTC's log). Called where
/// a user operator enters: the SegmentedReduce handle's construction and the CLI's problem (with_checked_user_op).
void check_user_op_compiles(const SegReduceProblem& problem, const std::string& arch);

}  // namespace autotune
