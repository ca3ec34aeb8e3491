// The range-histogram tuner workload: levels and samples generated on the CPU, their exact counts, and variants
// bound to device copies of them. Workload::input() is the samples; the levels are the workload's own (a baseline
// regenerates the same ones with generate_levels).
#include "kernel_templates/histogram_range/workload.hpp"

#include "kernel_templates/histogram_samples.hpp"  // compare_histograms
#include "kernel_templates/histogram_range/launcher.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/histogram_range/space.hpp"

namespace autotune {

namespace {

class HistogramRangeWorkload final : public Workload {
 public:
  HistogramRangeWorkload(const HistogramRangeProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : problem_(problem), device_(device) {
    const std::vector<unsigned char> levels = generate_levels(problem);
    const std::vector<unsigned char> host = generate_range_samples(problem, problem.n, seed);
    expected_ = range_counts_as_written(problem, reference_range_histogram(problem, host.data(), problem.n,
                                                                           levels.data()));
    samples_ = upload(host);
    levels_ = upload(levels);
    counts_ = cuda::DeviceBuffer(static_cast<std::size_t>(problem.counters()) * (problem.counter_bits / 8));
  }

  std::vector<Config> space() const override {
    const auto configs = histogram_range_space(problem_);
    return {configs.begin(), configs.end()};
  }
  std::string violation(const Config& c) const override {
    return histogram_range_constraint_violation(problem_, *c.as<HistogramRangeConfig>(), device_);
  }

  class Variant final : public LoadedVariant {
   public:
    Variant(const HistogramRangeWorkload& w, const HistogramRangeConfig& c, const std::vector<char>& cubin,
            bool poison)
        // The tuner's cubins (tuning_source) hold the 1D entry alone.
        : w_(w), kernel_(w.problem_, c, w.device_, cubin, false), input_(poison ? poison_address() : w.samples_.get()) {}
    void run(cudaStream_t stream) const override {
      kernel_.run(input_, w_.problem_.n, w_.levels_.get(), w_.counts_.get(), stream);
    }
    std::string check(cudaStream_t stream) const override {
      return w_.check_call([this](cudaStream_t s) { run(s); }, stream);
    }

   private:
    const HistogramRangeWorkload& w_;
    HistogramRangeKernel kernel_;
    const void* input_;
  };

  std::unique_ptr<LoadedVariant> load(const Config& c, const std::vector<char>& cubin, bool poison) const override {
    return std::make_unique<Variant>(*this, *c.as<HistogramRangeConfig>(), cubin, poison);
  }

  const void* input() const override { return samples_.get(); }
  void* output() const override { return counts_.get(); }
  std::string check_call(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) const override {
    std::vector<unsigned char> got(counts_.bytes());
    AUTOTUNE_CUDA(cudaMemsetAsync(counts_.get(), 0xAB, got.size(), stream));  // every variant must overwrite
    call(stream);
    AUTOTUNE_CUDA(cudaMemcpyAsync(got.data(), counts_.get(), got.size(), cudaMemcpyDeviceToHost, stream));
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    return compare_histograms(expected_, widen_range_counts(problem_, got.data()));
  }

 private:
  HistogramRangeProblem problem_;
  DeviceInfo device_;
  std::vector<std::uint64_t> expected_;
  cuda::DeviceBuffer samples_, levels_, counts_;
};

}  // namespace

std::unique_ptr<Workload> make_histogram_range_workload(const HistogramRangeProblem& problem,
                                                        const DeviceInfo& device, std::uint64_t seed) {
  return std::make_unique<HistogramRangeWorkload>(problem, device, seed);
}

}  // namespace autotune
