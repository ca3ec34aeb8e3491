#include "kernel_templates/segreduce/user_op.hpp"

#include <fmt/format.h>

#include "autotune/error.hpp"
#include "kernel_templates/user_op.hpp"

namespace autotune::segreduce_detail {

void require_user_source(const SegReduceProblem& problem) {
  if (problem.op == SegReduceOp::user && problem.user.op.empty())
    throw UsageError(fmt::format("{}: the user operator's source is not known here (a cache key holds only its hash); "
                                 "the application gives it (autotune::UserOp)",
                                 problem.key()));
}

}  // namespace autotune::segreduce_detail

namespace autotune {

void check_user_op_compiles(const SegReduceProblem& problem, const std::string& arch) {
  if (problem.op != SegReduceOp::user) return;
  problem.validate();
  segreduce_detail::require_user_source(problem);
  check_user_op_compiles(problem.as_reduce(), arch);
}

}  // namespace autotune
