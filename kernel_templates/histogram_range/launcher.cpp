#include "kernel_templates/histogram_range/launcher.hpp"

#include <fmt/format.h>

#include "autotune/error.hpp"
#include "kernel_templates/histogram_range/space.hpp"

#include <algorithm>

namespace autotune {

HistogramRangeKernel::HistogramRangeKernel(const HistogramRangeProblem& problem, const HistogramRangeConfig& config,
                                           const DeviceInfo& device, const std::vector<char>& cubin,
                                           bool entry_2d)
    : PixelKernel(problem, config, device, cubin, histogram_range_violation,
                  kHistogramRangeKernelName, {kHistogramRange2dKernelName}, entry_2d, 0) {
  if (!regions_.empty())
    resident_blocks_2d_ = static_cast<unsigned>(std::max(1, regions_[0].blocks_per_sm(config.block, shared_bytes_))) *
                          static_cast<unsigned>(device.sm_count);
  use_workspaces(config.workspace_bytes());
}

void HistogramRangeKernel::run(const void* samples, std::uint64_t n, const void* levels, void* counts,
                               cudaStream_t stream) const {
  run(samples, Region{n, 1, 0}, levels, counts, stream);
}

void HistogramRangeKernel::run(const void* samples, const Region& region, const void* levels, void* counts,
                               cudaStream_t stream) const {
  const std::size_t sample = size_of(problem_.type);
  // Pixels of 2 or 4 channels start on a pixel: the kernel's vectors of whole pixels take each element's channel
  // from its place in the vector. (3 channels never fill a vector with whole pixels: any sample alignment.)
  const std::size_t pixel = static_cast<std::size_t>(problem_.channels) * sample;
  const std::size_t pixel_alignment = problem_.channels == 2 || problem_.channels == 4 ? pixel : 1;
  require_pixel_aligned(samples, pixel_alignment);
  const bool two_d = region.rows > 1;
  const cuda::Module& module = module_for(region.rows, 0);
  if (two_d && (region.row_stride_bytes < region.row_samples * pixel || region.row_stride_bytes % pixel != 0))
    throw UsageError(fmt::format("a row stride of {} bytes does not hold rows of {} pixels of {} bytes in whole "
                                 "pixels", region.row_stride_bytes, region.row_samples, pixel));
  constexpr std::uint64_t kMaxRegion = (1ull << 31) - 1;  // the kernel follows rows and vectors in 32 bits
  if (two_d && (region.rows > kMaxRegion || problem_.samples(region.row_samples) > kMaxRegion))
    throw UsageError(fmt::format("a region of {} rows of {} samples: rows and samples per row are limited to {}",
                                 region.rows, problem_.samples(region.row_samples), kMaxRegion));
  // The kernel counts samples: pixels times channels.
  const std::uint64_t pixels = two_d ? region.row_samples * region.rows : region.rows == 1 ? region.row_samples : 0;
  std::uint64_t n = problem_.samples(pixels);
  std::uint64_t row_samples = two_d ? problem_.samples(region.row_samples) : n;
  std::uint64_t rows = two_d ? region.rows : 1;
  std::uint64_t row_stride = two_d ? region.row_stride_bytes / sample : n;
  const unsigned grid = config_.grid_for(problem_, n, two_d ? resident_blocks_2d_ : resident_blocks_);
  // One block with shared counters stores them, and self_zero zeroes the output itself: no memset. Otherwise blocks
  // add into the output zeroed here.
  const bool stores = (grid == 1 && config_.privatization == Privatization::shared) || workspaces_;
  if (!stores) {
    zero_counts(counts, stream);
    if (n == 0) return;
  }
  void* workspace = this->workspace(stream);
  void* args[] = {&samples, &n, &levels, &counts, &workspace, &row_samples, &rows, &row_stride};
  module.launch(grid, config_.block, args, shared_bytes_, stream);
}

}  // namespace autotune
