// A family's tuner workload (core/workload.hpp) in the family's own types. TypedWorkload holds what every family's
// workload does alike: the problem and the device, the search space and the device's checks from the family's typed
// functions, the input and output buffers, the variants that bind a loaded kernel to them (reading from an invalid
// address on request), and the check of one call: poison the output, make the call, read it back, compare. A family
// derives from it, fills the buffers in its constructor (with its CPU reference) and says how a kernel runs and how
// an output compares.
//
// Thread-safety: as Workload; a loaded variant refers to its workload, which must outlive it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "core/workload.hpp"

namespace autotune {

/// P: the family's problem type; C: its configuration type; Kernel: one loaded variant, made (by default) as
/// Kernel(problem, config, device, cubin).
template <class P, class C, class Kernel>
class TypedWorkload : public Workload {
 public:
  // The family's declared space and its one validity function (core/typed_family.hpp), with this device's limits.
  std::vector<Config> space() const override {
    const Problem p(problem_);
    return p.family().space(p);
  }
  std::string violation(const Config& config) const override {
    const Problem p(problem_);
    return p.family().violation(p, config, &device_);
  }
  std::unique_ptr<LoadedVariant> load(const Config& config, const std::vector<char>& cubin,
                                      bool poison_input) const override {
    return std::make_unique<Variant>(*this, *config.as<C>(), cubin, poison_input ? poison_address() : input_.get());
  }

  const void* input() const override { return input_.get(); }
  void* output() const override { return output_.get(); }
  std::string check_call(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) const override {
    return compare(read_output(call, stream), nullptr);
  }

 protected:
  TypedWorkload(const P& problem, const DeviceInfo& device) : problem_(problem), device_(device) {}

  /// The kernel of a variant, loaded from `cubin` on the current device.
  virtual Kernel make_kernel(const C& config, const std::vector<char>& cubin) const {
    return Kernel(problem_, config, device_, cubin);
  }
  /// One call of `kernel` reading `input` (input_, or an invalid address) and writing output_.
  virtual void run(const Kernel& kernel, const void* input, cudaStream_t stream) const = 0;
  /// The output's bytes after a call compared with the CPU reference: empty when they agree, else one line.
  /// `kernel`: the variant that made the call, or nullptr for a call of another implementation (check_call).
  virtual std::string compare(const std::vector<unsigned char>& got, const Kernel* kernel) const = 0;

  /// Poisons the output (every call must overwrite what it writes), makes `call`, and reads the output back.
  /// Synchronizes `stream`.
  std::vector<unsigned char> read_output(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) const {
    std::vector<unsigned char> got(output_.bytes());
    AUTOTUNE_CUDA(cudaMemsetAsync(output_.get(), 0xAB, got.size(), stream));
    call(stream);
    AUTOTUNE_CUDA(cudaMemcpyAsync(got.data(), output_.get(), got.size(), cudaMemcpyDeviceToHost, stream));
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    return got;
  }

  P problem_;
  DeviceInfo device_;
  cuda::DeviceBuffer input_;   ///< what every variant reads (filled by the family's constructor)
  cuda::DeviceBuffer output_;  ///< what every variant writes, all of it compared

 private:
  class Variant final : public LoadedVariant {
   public:
    Variant(const TypedWorkload& workload, const C& config, const std::vector<char>& cubin, const void* input)
        : workload_(workload), kernel_(workload.make_kernel(config, cubin)), input_(input) {}
    void run(cudaStream_t stream) const override { workload_.run(kernel_, input_, stream); }
    std::string check(cudaStream_t stream) const override {
      return workload_.compare(workload_.read_output([this](cudaStream_t s) { run(s); }, stream), &kernel_);
    }

   private:
    const TypedWorkload& workload_;
    Kernel kernel_;
    const void* input_;
  };
};

/// The workload class of the family whose problem is P, made as W(problem, device, seed): named by the family's
/// workload.cpp with AUTOTUNE_TYPED_WORKLOAD.
template <class P>
struct WorkloadOf;

template <class P>
std::unique_ptr<Workload> make_typed_workload(const P& problem, const DeviceInfo& device, std::uint64_t seed) {
  return std::make_unique<typename WorkloadOf<P>::type>(problem, device, seed);
}

}  // namespace autotune

/// In a family's workload.cpp, inside namespace autotune: W is the tuner workload of problems of type P, and
/// make_typed_workload<P> (what TypedFamily::make_workload calls) is instantiated here, where W is known.
#define AUTOTUNE_TYPED_WORKLOAD(P, W)                                                                              \
  template <>                                                                                                      \
  struct WorkloadOf<P> {                                                                                           \
    using type = W;                                                                                                \
  };                                                                                                               \
  template std::unique_ptr<Workload> make_typed_workload<P>(const P&, const DeviceInfo&, std::uint64_t)
