// The arg-reduction family's tuner workload: values generated on the CPU, the reference answer, and variants bound
// to a device copy of them.
#include "kernel_templates/argreduce/workload.hpp"

#include "kernel_templates/argreduce/launcher.hpp"
#include "kernel_templates/argreduce/reference.hpp"
#include "kernel_templates/argreduce/space.hpp"

namespace autotune {

namespace {

class ArgReduceWorkload final : public Workload {
 public:
  ArgReduceWorkload(const ArgReduceProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : problem_(problem), device_(device) {
    const std::vector<unsigned char> host = generate_arg_values(problem, problem.n, seed);
    expected_ = reference_argreduce(problem, host.data(), problem.n);
    values_ = upload(host);
    out_ = cuda::DeviceBuffer(16);
  }

  std::vector<Config> space() const override {
    const auto configs = argreduce_space(problem_);
    return {configs.begin(), configs.end()};
  }
  std::string violation(const Config& c) const override {
    return argreduce_constraint_violation(problem_, *c.as<ArgReduceConfig>(), device_);
  }

  class Variant final : public LoadedVariant {
   public:
    Variant(const ArgReduceWorkload& w, const ArgReduceConfig& c, const std::vector<char>& cubin, bool poison)
        : w_(w), kernel_(w.problem_, c, w.device_, cubin), input_(poison ? poison_address() : w.values_.get()) {}
    void run(cudaStream_t stream) const override { kernel_.run(input_, w_.problem_.n, w_.out_.get(), stream); }
    std::string check(cudaStream_t stream) const override {
      return w_.check_call([this](cudaStream_t s) { run(s); }, stream);
    }

   private:
    const ArgReduceWorkload& w_;
    ArgReduceKernel kernel_;
    const void* input_;
  };

  std::unique_ptr<LoadedVariant> load(const Config& c, const std::vector<char>& cubin, bool poison) const override {
    return std::make_unique<Variant>(*this, *c.as<ArgReduceConfig>(), cubin, poison);
  }

  const void* input() const override { return values_.get(); }
  void* output() const override { return out_.get(); }
  std::string check_call(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) const override {
    unsigned char got[16];
    AUTOTUNE_CUDA(cudaMemsetAsync(out_.get(), 0xAB, sizeof got, stream));
    call(stream);
    AUTOTUNE_CUDA(cudaMemcpyAsync(got, out_.get(), sizeof got, cudaMemcpyDeviceToHost, stream));
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    return compare_argreduce(problem_, expected_, got);
  }

 private:
  ArgReduceProblem problem_;
  DeviceInfo device_;
  ArgExpected expected_;
  cuda::DeviceBuffer values_, out_;
};

}  // namespace

std::unique_ptr<Workload> make_argreduce_workload(const ArgReduceProblem& problem, const DeviceInfo& device,
                                                  std::uint64_t seed) {
  return std::make_unique<ArgReduceWorkload>(problem, device, seed);
}

}  // namespace autotune
