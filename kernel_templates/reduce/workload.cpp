// The reduction family's tuner workload (core/workload.hpp): values generated on the CPU, the reference result,
// and variants bound to a device copy of them.
#include "kernel_templates/reduce/workload.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "autotune/error.hpp"
#include "core/jit.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "kernel_templates/reduce/space.hpp"

namespace autotune {

namespace {

// --- reductions ---------------------------------------------------------------------------------------------------

class ReduceWorkload final : public Workload {
 public:
  ReduceWorkload(const ReduceProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : problem_(problem), device_(device) {
    const std::vector<unsigned char> host = generate_values(problem, problem.n, seed);
    values_ = upload(host);
    out_ = cuda::DeviceBuffer(16);
    if (problem.op == ReduceOp::user) user_reference();
    else expected_ = reference_reduce(problem, host.data(), problem.n);
  }

  // A user operator has no CPU reference: the fallback configuration's result (one-launch, fixed-order) is what every
  // variant must agree with (compare_user_results).
  void user_reference() {
    const ReduceConfig fallback = ReduceConfig::fallback(problem_);
    const jit::CompileResult c = jit::compile(kernel_source(problem_, fallback), "reduce.cu", device_.arch());
    if (!c.ok) throw UsageError(fmt::format("the user operator of {} does not compile:\n{}", problem_.key(), c.log));
    const ReduceKernel kernel(problem_, fallback, device_, c.cubin);
    kernel.run(values_.get(), problem_.n, out_.get(), nullptr);
    user_chain_ = addition_chain(fallback, problem_.n, kernel.grid_for(problem_.n));
    AUTOTUNE_CUDA(cudaMemcpy(user_expected_, out_.get(), sizeof user_expected_, cudaMemcpyDeviceToHost));
  }

  std::vector<Config> space() const override {
    const auto configs = reduce_space(problem_);
    return {configs.begin(), configs.end()};
  }
  std::string violation(const Config& c) const override {
    return reduce_constraint_violation(problem_, *c.as<ReduceConfig>(), device_);
  }

  class Variant final : public LoadedVariant {
   public:
    Variant(const ReduceWorkload& w, const ReduceConfig& c, const std::vector<char>& cubin, bool poison)
        : w_(w), kernel_(w.problem_, c, w.device_, cubin), input_(poison ? poison_address() : w.values_.get()) {}
    void run(cudaStream_t stream) const override { kernel_.run(input_, w_.problem_.n, w_.out_.get(), stream); }
    std::string check(cudaStream_t stream) const override {
      // Atomic finishes add in an order of their own: the tolerance grows with the longest unordered chain.
      return w_.check_result([this](cudaStream_t s) { run(s); }, stream,
                             addition_chain(kernel_.config(), w_.problem_.n, kernel_.grid_for(w_.problem_.n)));
    }

   private:
    const ReduceWorkload& w_;
    ReduceKernel kernel_;
    const void* input_;
  };

  std::unique_ptr<LoadedVariant> load(const Config& c, const std::vector<char>& cubin, bool poison) const override {
    return std::make_unique<Variant>(*this, *c.as<ReduceConfig>(), cubin, poison);
  }

  const void* input() const override { return values_.get(); }
  void* output() const override { return out_.get(); }
  std::string check_call(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) const override {
    return check_result(call, stream, 0);
  }

  std::string check_result(const std::function<void(cudaStream_t)>& call, cudaStream_t stream,
                           std::uint64_t chain) const {
    unsigned char got[16];
    AUTOTUNE_CUDA(cudaMemsetAsync(out_.get(), 0xAB, sizeof got, stream));
    call(stream);
    AUTOTUNE_CUDA(cudaMemcpyAsync(got, out_.get(), sizeof got, cudaMemcpyDeviceToHost, stream));
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    // Two results of an addition-like user operator may differ by both variants' rounding: the sum of their chains.
    if (problem_.op == ReduceOp::user)
      return compare_user_results(problem_, user_expected_, got, problem_.n, chain + user_chain_);
    return compare_reduce(problem_, expected_, got, problem_.n, chain);
  }

 private:
  ReduceProblem problem_;
  DeviceInfo device_;
  ReduceExpected expected_;
  unsigned char user_expected_[16] = {};
  std::uint64_t user_chain_ = 0;  // the fallback's addition_chain
  cuda::DeviceBuffer values_, out_;
};

}  // namespace

std::unique_ptr<Workload> make_reduce_workload(const ReduceProblem& problem, const DeviceInfo& device,
                                               std::uint64_t seed) {
  return std::make_unique<ReduceWorkload>(problem, device, seed);
}

}  // namespace autotune
