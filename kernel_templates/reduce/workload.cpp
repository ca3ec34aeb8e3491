// The reduction family's tuner workload (core/typed_workload.hpp): values generated on the CPU, the reference result,
// and variants bound to a device copy of them.
#include "core/typed_workload.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "kernel_templates/user_op.hpp"

namespace autotune {

namespace {

class ReduceWorkload final : public TypedWorkload<ReduceProblem, ReduceConfig, ReduceKernel> {
 public:
  ReduceWorkload(const ReduceProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : TypedWorkload(problem, device) {
    const std::vector<unsigned char> host = generate_values(problem, problem.n, seed);
    input_ = upload(host);
    output_ = cuda::DeviceBuffer(16);
    if (problem.op == ReduceOp::user) user_reference();
    else expected_ = reference_reduce(problem, host.data(), problem.n);
  }

 private:
  // A user operator has no CPU reference: the fallback configuration's result (one-launch, fixed-order) is what every
  // variant must agree with (compare_user_results).
  void user_reference() {
    const ReduceConfig fallback = ReduceConfig::fallback(problem_);
    const auto kernel = user_reference_kernel<ReduceKernel>(problem_, fallback, device_, "reduce.cu");
    kernel.run(input_.get(), problem_.n, output_.get(), nullptr);
    user_chain_ = addition_chain(fallback, problem_.n, kernel.grid_for(problem_.n));
    AUTOTUNE_CUDA(cudaMemcpy(user_expected_, output_.get(), sizeof user_expected_, cudaMemcpyDeviceToHost));
  }

  void run(const ReduceKernel& kernel, const void* input, cudaStream_t stream) const override {
    kernel.run(input, problem_.n, output_.get(), stream);
  }
  std::string compare(const std::vector<unsigned char>& got, const ReduceKernel* kernel) const override {
    // Atomic finishes add in an order of their own: the tolerance grows with the longest unordered chain.
    const std::uint64_t chain =
        kernel ? addition_chain(kernel->config(), problem_.n, kernel->grid_for(problem_.n)) : 0;
    // Two results of an addition-like user operator may differ by both variants' rounding: the sum of their chains.
    if (problem_.op == ReduceOp::user)
      return compare_user_results(problem_, user_expected_, got.data(), problem_.n, chain + user_chain_);
    return compare_reduce(problem_, expected_, got.data(), problem_.n, chain);
  }

  ReduceExpected expected_;
  unsigned char user_expected_[16] = {};
  std::uint64_t user_chain_ = 0;  // the fallback's addition_chain
};

}  // namespace

AUTOTUNE_TYPED_WORKLOAD(ReduceProblem, ReduceWorkload);

}  // namespace autotune
