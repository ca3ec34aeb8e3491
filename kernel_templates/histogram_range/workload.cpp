// The range-histogram tuner workload (core/typed_workload.hpp): levels and samples generated on the CPU, their exact
// counts, and variants bound to device copies of them. Workload::input() is the samples; the levels are the
// workload's own (a baseline regenerates the same ones with generate_levels).
#include "kernel_templates/histogram_range/launcher.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/histogram_workload.hpp"

namespace autotune {

namespace {

class HistogramRangeWorkload final
    : public histogram_samples::CountsWorkload<HistogramRangeProblem, HistogramRangeConfig, HistogramRangeKernel> {
 public:
  HistogramRangeWorkload(const HistogramRangeProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : CountsWorkload(problem, device) {
    const std::vector<unsigned char> levels = generate_levels(problem);
    const std::vector<unsigned char> host = generate_range_samples(problem, problem.n, seed);
    expect(reference_range_histogram(problem, host.data(), problem.n, levels.data()));
    input_ = upload(host);
    levels_ = upload(levels);
  }

 private:
  // The tuner's cubins (tuning_source) hold the 1D entry alone.
  HistogramRangeKernel make_kernel(const HistogramRangeConfig& config, const std::vector<char>& cubin) const override {
    return HistogramRangeKernel(problem_, config, device_, cubin, false);
  }
  void run(const HistogramRangeKernel& kernel, const void* input, cudaStream_t stream) const override {
    kernel.run(input, problem_.n, levels_.get(), output_.get(), stream);
  }

  cuda::DeviceBuffer levels_;
};

}  // namespace

AUTOTUNE_TYPED_WORKLOAD(HistogramRangeProblem, HistogramRangeWorkload);

}  // namespace autotune
