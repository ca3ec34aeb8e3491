#include "autotune/histogram_range.hpp"

#include "kernel_templates/histogram_range/handle.hpp"
#include "kernel_templates/histogram_range/launcher.hpp"
#include "runtime/loaded_table.hpp"

namespace autotune {

AUTOTUNE_LOADED_HANDLE(HistogramRange, HistogramRangeKernel, HistogramRangeProblem)

void check_histogram_range_call(const HistogramRangeProblem& p, const void* samples,
                                std::optional<SampleType> sample_type, std::uint64_t n, const void* levels,
                                const void* counts, int counter_bits) {
  histogram_launch::check_pixel_call("autotune::HistogramRange", p, samples, sample_type, n, counts, counter_bits,
                                     std::nullopt, levels, level_size(p.type));
}

void HistogramRange::count(const void* d_samples, std::optional<SampleType> sample_type, std::uint64_t n,
                           const void* d_levels, void* d_counts, int counter_bits, cudaStream_t stream) const {
  check_histogram_range_call(impl_->problem, d_samples, sample_type, n, d_levels, d_counts, counter_bits);
  impl_->kernel_for(n).run(d_samples, n, d_levels, d_counts, stream);
}

void HistogramRange::count_region(const void* d_samples, SampleType sample_type, std::uint64_t row_samples,
                                  std::uint64_t rows, std::size_t row_stride_bytes, const void* d_levels,
                                  void* d_counts, int counter_bits, cudaStream_t stream) const {
  const std::uint64_t n = row_samples * rows;
  check_histogram_range_call(impl_->problem, d_samples, sample_type, n, d_levels, d_counts, counter_bits);
  // The stride is checked against the row by the kernel's launcher; a region of one row is 1D.
  impl_->kernel_for(n).run(d_samples, HistogramRangeKernel::Region{row_samples, rows, row_stride_bytes}, d_levels,
                           d_counts, stream);
}

void HistogramRange::operator()(const void* d_samples, std::uint64_t n, const void* d_levels, unsigned int* d_counts,
                                cudaStream_t stream) const {
  count(d_samples, std::nullopt, n, d_levels, d_counts, 32, stream);
}

void HistogramRange::operator()(const void* d_samples, std::uint64_t n, const void* d_levels,
                                unsigned long long* d_counts, cudaStream_t stream) const {
  count(d_samples, std::nullopt, n, d_levels, d_counts, 64, stream);
}

const SizeRange& HistogramRange::range_for(std::uint64_t n) const { return impl_->range_for(n); }

}  // namespace autotune
