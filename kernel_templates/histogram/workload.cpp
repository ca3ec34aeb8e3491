// The histogram family's tuner workload (core/typed_workload.hpp): samples generated on the CPU, their exact counts,
// and variants bound to a device copy of them.
#include <algorithm>
#include <cstring>

#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "kernel_templates/histogram_workload.hpp"

namespace autotune {

namespace {

class HistogramWorkload final
    : public histogram_samples::CountsWorkload<HistogramProblem, HistogramConfig, HistogramKernel> {
 public:
  HistogramWorkload(const HistogramProblem& problem, const DeviceInfo& device, std::uint64_t seed)
      : CountsWorkload(problem, device) {
    const std::vector<unsigned char> host = generate_samples(problem, problem.n, seed);  // n pixels
    expect(reference_histogram(problem, host.data(), problem.n));
    if (problem.row_pixels == 0) {
      input_ = upload(host);
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
      input_ = upload(padded);
    }
  }

 private:
  // The tuner's cubins (tuning_source) hold the 2D entry only for a problem of rows.
  HistogramKernel make_kernel(const HistogramConfig& config, const std::vector<char>& cubin) const override {
    return HistogramKernel(problem_, config, device_, cubin, problem_.row_pixels != 0);
  }
  void run(const HistogramKernel& kernel, const void* input, cudaStream_t stream) const override {
    const HistogramProblem& p = problem_;
    if (p.row_pixels == 0) kernel.run(input, p.n, output_.get(), stream);
    else kernel.run(input, HistogramKernel::Region{p.row_pixels, p.n / p.row_pixels, p.row_stride_bytes},
                    output_.get(), stream);
  }
};

}  // namespace

AUTOTUNE_TYPED_WORKLOAD(HistogramProblem, HistogramWorkload);

}  // namespace autotune
