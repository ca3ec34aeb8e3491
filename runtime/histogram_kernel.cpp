#include "runtime/histogram_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace autotune {

HistogramKernel::HistogramKernel(const HistogramProblem& problem, const HistogramConfig& config,
                                 const DeviceInfo& device, const std::vector<char>& cubin)
    : problem_(problem), config_(config), shared_bytes_(config.shared_bytes(problem)) {
  if (config.block > device.max_threads_per_block)
    throw UsageError(fmt::format("block of {} threads exceeds the device limit of {}", config.block,
                                 device.max_threads_per_block));
  if (shared_bytes_ > static_cast<std::size_t>(device.shared_per_block_optin))
    throw UsageError(fmt::format("{} bytes of shared memory exceed the device limit of {} per block", shared_bytes_,
                                 device.shared_per_block_optin));
  module_ = cuda::Module(cubin, kHistogramKernelName);
  if (shared_bytes_ > 48 * 1024) module_.set_max_dynamic_shared(shared_bytes_);
  blocks_per_sm_ = module_.blocks_per_sm(config.block, shared_bytes_);
  if (blocks_per_sm_ < 1)
    throw UsageError(fmt::format("configuration {} cannot run on {}: no block fits on a multiprocessor", config.key(),
                                 device.name));
  max_grid_ = static_cast<unsigned>(blocks_per_sm_) * static_cast<unsigned>(device.sm_count);
}

unsigned HistogramKernel::grid_for(std::uint64_t n) const {
  const std::uint64_t per_block = static_cast<std::uint64_t>(config_.block) * config_.items_per_thread;
  const std::uint64_t cover = (n + per_block - 1) / per_block;
  return static_cast<unsigned>(std::min<std::uint64_t>(cover, max_grid_));
}

void HistogramKernel::launch(const void* samples, std::uint64_t n, unsigned* counts, cudaStream_t stream) const {
  if (n == 0) return;
  void* args[] = {&samples, &n, &counts};
  AUTOTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(module_.kernel()), dim3(grid_for(n)),
                                 dim3(config_.block), args, shared_bytes_, stream));
}

void HistogramKernel::run(const void* samples, std::uint64_t n, unsigned* counts, cudaStream_t stream) const {
  AUTOTUNE_CUDA(cudaMemsetAsync(counts, 0, static_cast<std::size_t>(problem_.bins) * sizeof(unsigned), stream));
  launch(samples, n, counts, stream);
}

}  // namespace autotune
