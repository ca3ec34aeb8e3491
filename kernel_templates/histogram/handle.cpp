#include "autotune/histogram.hpp"

#include <fmt/format.h>

#include <optional>

#include "autotune/error.hpp"
#include "kernel_templates/histogram/handle.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "runtime/loaded_table.hpp"

namespace autotune {

AUTOTUNE_LOADED_HANDLE(Histogram, HistogramKernel, HistogramProblem)

void check_histogram_call(const HistogramProblem& p, const void* samples, std::optional<SampleType> sample_type,
                          std::uint64_t n, const void* counts, int counter_bits,
                          std::optional<std::uint64_t> counts_size) {
  histogram_launch::check_pixel_call("autotune::Histogram", p, samples, sample_type, n, counts, counter_bits,
                                     counts_size);
}

void Histogram::count(const void* d_samples, std::optional<SampleType> sample_type, std::uint64_t n, void* d_counts,
                      int counter_bits, std::optional<std::uint64_t> counts_size, cudaStream_t stream) const {
  check_histogram_call(impl_->problem, d_samples, sample_type, n, d_counts, counter_bits, counts_size);
  impl_->kernel_for(n).run(d_samples, n, d_counts, stream);
}

void Histogram::operator()(const void* d_samples, std::uint64_t n, unsigned int* d_counts, cudaStream_t stream) const {
  count(d_samples, std::nullopt, n, d_counts, 32, std::nullopt, stream);
}

void Histogram::operator()(const void* d_samples, std::uint64_t n, unsigned long long* d_counts,
                           cudaStream_t stream) const {
  count(d_samples, std::nullopt, n, d_counts, 64, std::nullopt, stream);
}

void Histogram::count_region(const void* d_samples, SampleType sample_type, std::uint64_t row_pixels,
                             std::uint64_t rows, std::size_t row_stride_bytes, void* d_counts, int counter_bits,
                             cudaStream_t stream) const {
  const std::uint64_t n = row_pixels * rows;
  check_histogram_call(impl_->problem, d_samples, sample_type, n, d_counts, counter_bits, std::nullopt);
  // The stride is checked against the row by the kernel (HistogramKernel::run); a region of one row is 1D.
  impl_->kernel_for(n).run(d_samples, HistogramKernel::Region{row_pixels, rows, row_stride_bytes}, d_counts, stream);
}

std::uint64_t Histogram::pixels_of(std::uint64_t samples) const {
  const auto channels = static_cast<std::uint64_t>(impl_->problem.channels);
  if (samples % channels != 0)
    throw UsageError(fmt::format("autotune::Histogram: a span of {} samples is not a whole number of {}-channel pixels",
                                 samples, channels));
  return samples / channels;
}

const SizeRange& Histogram::range_for(std::uint64_t n) const { return impl_->range_for(n); }

}  // namespace autotune
