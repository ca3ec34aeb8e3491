// The histogram family's tuner workload (core/workload.hpp): samples generated on the CPU, their exact counts, and
// variants bound to a device copy of them.
#include "kernel_templates/histogram/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "autotune/error.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "kernel_templates/histogram/space.hpp"

namespace autotune {

namespace {

// --- histograms ---------------------------------------------------------------------------------------------------

class HistogramWorkload final : public Workload {
 public:
  HistogramWorkload(const HistogramProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : problem_(problem), device_(device) {
    const std::vector<unsigned char> host = generate_samples(problem, problem.n, seed);  // n pixels
    expected_ = counts_as_written(problem, reference_histogram(problem, host.data(), problem.n));
    if (problem.row_pixels == 0) {
      samples_ = upload(host);
    } else {
      // A 2D region: the pixels' rows `row_stride_bytes` apart; the padding between them holds pixels of the image
      // too (in range), so a variant that reads past a row counts them and fails the check.
      const std::uint64_t rows = problem.n / problem.row_pixels, row_bytes = host.size() / std::max<std::uint64_t>(rows, 1);
      std::vector<unsigned char> padded(rows * problem.row_stride_bytes);
      for (std::uint64_t r = 0; r < rows; ++r) {
        unsigned char* row = padded.data() + r * problem.row_stride_bytes;
        std::memcpy(row, host.data() + r * row_bytes, row_bytes);
        for (std::uint64_t k = row_bytes; k < problem.row_stride_bytes; ++k) row[k] = host[(k - row_bytes) % host.size()];
      }
      samples_ = upload(padded);
    }
    counts_ = cuda::DeviceBuffer(static_cast<std::size_t>(problem.counters()) * (problem.counter_bits / 8));
  }

  std::vector<Config> space() const override {
    const auto configs = histogram_space(problem_);
    return {configs.begin(), configs.end()};
  }
  std::string violation(const Config& c) const override {
    return histogram_constraint_violation(problem_, *c.as<HistogramConfig>(), device_);
  }

  class Variant final : public LoadedVariant {
   public:
    Variant(const HistogramWorkload& w, const HistogramConfig& c, const std::vector<char>& cubin, bool poison)
        // The tuner's cubins (tuning_source) hold the 2D entry only for a problem of rows.
        : w_(w),
          kernel_(w.problem_, c, w.device_, cubin, w.problem_.row_pixels != 0),
          input_(poison ? poison_address() : w.samples_.get()) {}
    void run(cudaStream_t stream) const override {
      const HistogramProblem& p = w_.problem_;
      if (p.row_pixels == 0) kernel_.run(input_, p.n, w_.counts_.get(), stream);
      else kernel_.run(input_, HistogramKernel::Region{p.row_pixels, p.n / p.row_pixels, p.row_stride_bytes},
                       w_.counts_.get(), stream);
    }
    std::string check(cudaStream_t stream) const override {
      return w_.check_call([this](cudaStream_t s) { run(s); }, stream);
    }

   private:
    const HistogramWorkload& w_;
    HistogramKernel kernel_;
    const void* input_;
  };

  std::unique_ptr<LoadedVariant> load(const Config& c, const std::vector<char>& cubin, bool poison) const override {
    return std::make_unique<Variant>(*this, *c.as<HistogramConfig>(), cubin, poison);
  }

  const void* input() const override { return samples_.get(); }
  void* output() const override { return counts_.get(); }
  std::string check_call(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) const override {
    std::vector<unsigned char> got(counts_.bytes());
    AUTOTUNE_CUDA(cudaMemsetAsync(counts_.get(), 0xAB, got.size(), stream));  // every variant must overwrite
    call(stream);
    AUTOTUNE_CUDA(cudaMemcpyAsync(got.data(), counts_.get(), got.size(), cudaMemcpyDeviceToHost, stream));
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    return compare_histograms(expected_, widen_counts(problem_, got.data()));
  }

 private:
  HistogramProblem problem_;
  DeviceInfo device_;
  std::vector<std::uint64_t> expected_;
  cuda::DeviceBuffer samples_, counts_;
};

}  // namespace

std::unique_ptr<Workload> make_histogram_workload(const HistogramProblem& problem, const DeviceInfo& device,
                                                  std::uint64_t seed) {
  return std::make_unique<HistogramWorkload>(problem, device, seed);
}

}  // namespace autotune
