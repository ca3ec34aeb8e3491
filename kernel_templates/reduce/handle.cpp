#include "autotune/reduce.hpp"

#include <optional>
#include <vector>

#include "core/cuda.hpp"
#include "kernel_templates/reduce/handle.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/user_op.hpp"
#include "runtime/call_checks.hpp"
#include "runtime/loaded_table.hpp"

namespace autotune {

// The operator's own compile errors, with NVRTC's log, before any variant is compiled (kernel_templates/user_op.hpp).
AUTOTUNE_LOADED_HANDLE(Reduce, ReduceKernel, ReduceProblem, with_checked_user_op<ReduceProblem>)

namespace {

ReduceProblem user_problem(ValueType type, const UserOp& op, std::uint64_t n) {
  ReduceProblem p;
  p.op = ReduceOp::user;
  p.type = type;
  p.user = op;
  p.n = n;
  return p;
}

}  // namespace

Reduce::Reduce(ValueType type, const UserOp& op, std::uint64_t n, const Options& options)
    : Reduce(user_problem(type, op, n), options) {}

void check_reduce_types(const ReduceProblem& p, std::optional<ValueType> input, std::optional<ValueType> output) {
  const PointerChecks check{"autotune::Reduce"};
  if (input) check.input_type(*input, p.type, p);
  if (output) check.output_type(*output, p.accumulator_type(), p);
}

void Reduce::check_input(ValueType t) const { check_reduce_types(impl_->problem, t, std::nullopt); }
void Reduce::check_output(ValueType t) const { check_reduce_types(impl_->problem, std::nullopt, t); }

void Reduce::run(const void* d_in, std::uint64_t n, void* d_out, cudaStream_t stream) const {
  const ReduceProblem& p = impl_->problem;
  PointerChecks{"autotune::Reduce"}.input_output(d_in, n, size_of(p.type), d_out, size_of(p.accumulator_type()));
  impl_->kernel_for(n).run(d_in, n, d_out, stream);
}

AUTOTUNE_RESULT_HANDLE_MEMBERS(Reduce)

}  // namespace autotune
