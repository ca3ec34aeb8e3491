// The segmented reduction family's tuner workload (core/typed_workload.hpp): segment offsets and values generated on
// the CPU, the reference results, and variants bound to device copies of them.
#include <algorithm>

#include "core/typed_workload.hpp"
#include "kernel_templates/segreduce/launcher.hpp"
#include "kernel_templates/segreduce/reference.hpp"
#include "kernel_templates/user_op.hpp"

namespace autotune {

namespace {

class SegReduceWorkload final : public TypedWorkload<SegReduceProblem, SegReduceConfig, SegReduceKernel> {
 public:
  SegReduceWorkload(const SegReduceProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : TypedWorkload(problem.normalized(), device) {
    // The offsets depend on the problem alone (bench/baselines.cpp gives CUB the same ones); the values on the seed.
    const std::vector<unsigned char> raw = problem_offsets(problem_);
    segments_ = raw.size() / problem_.offset_bytes() - 1;
    const std::vector<unsigned char> values = generate_segment_values(problem_, problem_.n, seed + 1);
    // A user operator's: the lengths alone, its results come from the fallback (below).
    auto expect = [&](const auto* o) { return reference_segreduce(problem_, values.data(), o, o + 1, segments_); };
    if (problem_.offset_bits == 64) expected_ = expect(reinterpret_cast<const std::int64_t*>(raw.data()));
    else expected_ = expect(reinterpret_cast<const int*>(raw.data()));
    input_ = upload(values);
    offsets_ = upload(raw);
    output_ = cuda::DeviceBuffer(std::max<std::size_t>(16, segments_ * problem_.result_bytes()));
    // A user operator has no CPU reference: the fallback configuration's results are what every variant must agree
    // with, segment by segment (compare_segreduce_user), as the reduce family checks its user operators.
    if (problem_.op == SegReduceOp::user) {
      const auto kernel = user_reference_kernel<SegReduceKernel>(problem_, fallback_, device_, "segreduce.cu");
      user_expected_ = read_output([&](cudaStream_t s) { run(kernel, input_.get(), s); }, nullptr);
    }
  }

 private:

  void run(const SegReduceKernel& kernel, const void* input, cudaStream_t stream) const override {
    const auto* offsets = static_cast<const unsigned char*>(offsets_.get());
    kernel.run(input, segments_, offsets, offsets + problem_.offset_bytes(), output_.get(), stream);
  }
  // A user operator's tolerance depends on the order of the variant that made the call, when known.
  std::string compare(const std::vector<unsigned char>& got, const SegReduceKernel* kernel) const override {
    if (problem_.op == SegReduceOp::user)
      return compare_segreduce_user(problem_, expected_.length, user_expected_.data(), fallback_, got.data(),
                                    kernel ? &kernel->config() : nullptr);
    return compare_segreduce(problem_, expected_, got.data());
  }

  std::uint64_t segments_ = 0;
  SegReduceExpected expected_;  // a user operator's: the lengths alone
  SegReduceConfig fallback_ = SegReduceConfig::fallback(problem_);
  std::vector<unsigned char> user_expected_;  // a user operator's: the fallback's results
  cuda::DeviceBuffer offsets_;
};

}  // namespace

AUTOTUNE_TYPED_WORKLOAD(SegReduceProblem, SegReduceWorkload);

}  // namespace autotune
