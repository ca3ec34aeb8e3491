// The arg-reduction family's tuner workload (core/typed_workload.hpp): values generated on the CPU, the reference
// answer, and variants bound to a device copy of them.
#include "core/typed_workload.hpp"
#include "kernel_templates/argreduce/launcher.hpp"
#include "kernel_templates/argreduce/reference.hpp"

namespace autotune {

namespace {

class ArgReduceWorkload final : public TypedWorkload<ArgReduceProblem, ArgReduceConfig, ArgReduceKernel> {
 public:
  ArgReduceWorkload(const ArgReduceProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : TypedWorkload(problem, device) {
    const std::vector<unsigned char> host = generate_arg_values(problem, problem.n, seed);
    expected_ = reference_argreduce(problem, host.data(), problem.n);
    input_ = upload(host);
    output_ = cuda::DeviceBuffer(16);  // value at 0, index at 8
  }

 private:
  void run(const ArgReduceKernel& kernel, const void* input, cudaStream_t stream) const override {
    kernel.run(input, problem_.n, output_.get(), stream);
  }
  std::string compare(const std::vector<unsigned char>& got, const ArgReduceKernel*) const override {
    return compare_argreduce(problem_, expected_, got.data());
  }

  ArgExpected expected_;
};

}  // namespace

AUTOTUNE_TYPED_WORKLOAD(ArgReduceProblem, ArgReduceWorkload);

}  // namespace autotune
