#include "kernel_templates/histogram_range/launcher.hpp"

#include <fmt/format.h>

#include "autotune/error.hpp"

namespace autotune {

HistogramRangeKernel::HistogramRangeKernel(const HistogramRangeProblem& problem, const HistogramRangeConfig& config,
                                           const DeviceInfo& device, const std::vector<char>& cubin)
    : problem_(problem), config_(config), shared_bytes_(config.shared_bytes(problem)) {
  if (const std::string why = config.invalid_reason(problem); !why.empty()) throw UsageError(why);
  if (config.block > device.max_threads_per_block)
    throw UsageError(fmt::format("block of {} threads exceeds the device limit of {}", config.block,
                                 device.max_threads_per_block));
  if (shared_bytes_ > static_cast<std::size_t>(device.shared_per_block_optin))
    throw UsageError(fmt::format("{} bytes of shared memory exceed the device limit of {} per block", shared_bytes_,
                                 device.shared_per_block_optin));
  module_ = cuda::Module(cubin, kHistogramRangeKernelName);
  if (shared_bytes_ > 48 * 1024) module_.set_max_dynamic_shared(shared_bytes_);
  blocks_per_sm_ = module_.blocks_per_sm(config.block, shared_bytes_);
  if (blocks_per_sm_ < 1)
    throw UsageError(fmt::format("configuration {} cannot run on {}: no block fits on a multiprocessor", config.key(),
                                 device.name));
  resident_blocks_ = static_cast<unsigned>(blocks_per_sm_) * static_cast<unsigned>(device.sm_count);
}

unsigned HistogramRangeKernel::grid_for(std::uint64_t n) const {
  return config_.grid_for(problem_, n, resident_blocks_);
}

void HistogramRangeKernel::run(const void* samples, std::uint64_t n, const void* levels, void* counts,
                               cudaStream_t stream) const {
  const unsigned grid = grid_for(n);
  // One block with shared counters stores them: no zeroing. Otherwise blocks add into the zeroed output.
  const bool stores = grid == 1 && config_.privatization == Privatization::shared;
  if (!stores) {
    const std::size_t bytes = static_cast<std::size_t>(problem_.bins) * (problem_.counter_bits / 8);
    AUTOTUNE_CUDA(cudaMemsetAsync(counts, 0, bytes, stream));
    if (n == 0) return;
  }
  void* args[] = {&samples, &n, &levels, &counts};
  AUTOTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(module_.kernel()), dim3(grid), dim3(config_.block),
                                 args, shared_bytes_, stream));
}

}  // namespace autotune
