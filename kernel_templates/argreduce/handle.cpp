#include <vector>

#include "autotune/argreduce.hpp"
#include "core/cuda.hpp"
#include "kernel_templates/argreduce/launcher.hpp"
#include "runtime/call_checks.hpp"
#include "runtime/loaded_table.hpp"

namespace autotune {

AUTOTUNE_LOADED_HANDLE(ArgReduce, ArgReduceKernel, ArgReduceProblem)

void ArgReduce::check_type(ValueType t) const {
  PointerChecks{"autotune::ArgReduce"}.input_type(t, impl_->problem.type, impl_->problem);
}

void ArgReduce::run(const void* d_in, std::uint64_t n, void* d_out, cudaStream_t stream) const {
  const ArgReduceProblem& p = impl_->problem;
  PointerChecks{"autotune::ArgReduce"}.input_output(d_in, n, size_of(p.type), d_out, 8);
  impl_->kernel_for(n).run(d_in, n, d_out, stream);
}

AUTOTUNE_RESULT_HANDLE_MEMBERS(ArgReduce)

}  // namespace autotune
