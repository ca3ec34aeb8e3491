#include "kernel_templates/segreduce/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "autotune/error.hpp"
#include "core/jit.hpp"
#include "kernel_templates/segreduce/launcher.hpp"
#include "kernel_templates/segreduce/reference.hpp"
#include "kernel_templates/segreduce/space.hpp"

namespace autotune {

namespace {

class SegReduceWorkload final : public Workload {
 public:
  SegReduceWorkload(const SegReduceProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : problem_(problem.normalized()), device_(device) {
    // The offsets depend on the problem alone (bench/baselines.cpp gives CUB the same ones); the values on the seed.
    const std::vector<unsigned char> raw = problem_offsets(problem_);
    const std::size_t width = problem_.offset_bytes();
    segments_ = raw.size() / width - 1;
    const std::vector<unsigned char> values = generate_segment_values(problem_, problem_.n, seed + 1);
    const bool user = problem_.op == SegReduceOp::user;
    auto expect = [&](const auto* o) {
      if (!user) return reference_segreduce(problem_, values.data(), o, o + 1, segments_);
      SegReduceExpected lengths_only;  // a user operator's results come from the fallback (user_reference)
      for (std::uint64_t s = 0; s < segments_; ++s)
        lengths_only.length.push_back(static_cast<std::uint64_t>(o[s + 1] - o[s]));
      return lengths_only;
    };
    if (problem_.offset_bits == 64) expected_ = expect(reinterpret_cast<const std::int64_t*>(raw.data()));
    else expected_ = expect(reinterpret_cast<const int*>(raw.data()));
    values_ = upload(values);
    offsets_ = upload(raw);
    offset_width_ = width;
    out_bytes_ = std::max<std::size_t>(16, segments_ * problem_.result_bytes());
    out_ = cuda::DeviceBuffer(out_bytes_);
    if (user) user_reference();
  }

  // A user operator has no CPU reference: the fallback configuration's results are what every variant must agree
  // with, segment by segment (compare_segreduce_user), as the reduce family checks its user operators.
  void user_reference() {
    const jit::CompileResult c = jit::compile(kernel_source(problem_, fallback_), "segreduce.cu", device_.arch());
    if (!c.ok) throw UsageError(fmt::format("the user operator of {} does not compile:\n{}", problem_.key(), c.log));
    const SegReduceKernel kernel(problem_, fallback_, device_, c.cubin);
    const auto* offsets = static_cast<const unsigned char*>(offsets_.get());
    kernel.run(values_.get(), segments_, offsets, offsets + offset_width_, out_.get(), nullptr);
    user_expected_.resize(out_bytes_);
    AUTOTUNE_CUDA(cudaMemcpy(user_expected_.data(), out_.get(), out_bytes_, cudaMemcpyDeviceToHost));
  }

  std::vector<Config> space() const override {
    const auto configs = segreduce_space(problem_);
    return {configs.begin(), configs.end()};
  }
  std::string violation(const Config& c) const override {
    return segreduce_constraint_violation(problem_, *c.as<SegReduceConfig>(), device_);
  }

  class Variant final : public LoadedVariant {
   public:
    Variant(const SegReduceWorkload& w, const SegReduceConfig& c, const std::vector<char>& cubin, bool poison)
        : w_(w), kernel_(w.problem_, c, w.device_, cubin), input_(poison ? poison_address() : w.values_.get()) {}
    void run(cudaStream_t stream) const override {
      const auto* offsets = static_cast<const unsigned char*>(w_.offsets_.get());
      kernel_.run(input_, w_.segments_, offsets, offsets + w_.offset_width_, w_.out_.get(), stream);
    }
    std::string check(cudaStream_t stream) const override {
      return w_.check_result([this](cudaStream_t s) { run(s); }, stream, &kernel_.config());
    }

   private:
    const SegReduceWorkload& w_;
    SegReduceKernel kernel_;
    const void* input_;
  };

  std::unique_ptr<LoadedVariant> load(const Config& c, const std::vector<char>& cubin, bool poison) const override {
    return std::make_unique<Variant>(*this, *c.as<SegReduceConfig>(), cubin, poison);
  }

  const void* input() const override { return values_.get(); }
  void* output() const override { return out_.get(); }
  std::string check_call(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) const override {
    return check_result(call, stream, nullptr);
  }

  // `variant`: the configuration of the call, when known (a user operator's tolerance depends on its order).
  std::string check_result(const std::function<void(cudaStream_t)>& call, cudaStream_t stream,
                           const SegReduceConfig* variant) const {
    std::vector<unsigned char> got(out_bytes_);
    AUTOTUNE_CUDA(cudaMemsetAsync(out_.get(), 0xAB, out_bytes_, stream));
    call(stream);
    AUTOTUNE_CUDA(cudaMemcpyAsync(got.data(), out_.get(), out_bytes_, cudaMemcpyDeviceToHost, stream));
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    if (problem_.op == SegReduceOp::user)
      return compare_segreduce_user(problem_, expected_.length, user_expected_.data(), fallback_, got.data(), variant);
    return compare_segreduce(problem_, expected_, got.data());
  }

 private:
  SegReduceProblem problem_;
  DeviceInfo device_;
  std::uint64_t segments_ = 0;
  SegReduceExpected expected_;  // a user operator's: the lengths alone
  SegReduceConfig fallback_ = SegReduceConfig::fallback(problem_);
  std::vector<unsigned char> user_expected_;  // a user operator's: the fallback's results
  cuda::DeviceBuffer values_, offsets_, out_;
  std::size_t out_bytes_ = 0, offset_width_ = 4;
};

}  // namespace

std::unique_ptr<Workload> make_segreduce_workload(const SegReduceProblem& problem, const DeviceInfo& device,
                                                  std::uint64_t seed) {
  return std::make_unique<SegReduceWorkload>(problem, device, seed);
}

}  // namespace autotune
