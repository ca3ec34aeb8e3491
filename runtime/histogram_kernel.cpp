#include "runtime/histogram_kernel.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace autotune {

HistogramKernel::HistogramKernel(const HistogramProblem& problem, const HistogramConfig& config,
                                 const DeviceInfo& device, const std::vector<char>& cubin)
    : problem_(problem), config_(config), shared_bytes_(config.shared_bytes(problem)) {
  if (const std::string why = config.invalid_reason(problem); !why.empty()) throw UsageError(why);
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
  if (config.merge == Merge::last_block) {
    // 256 bytes for the ticket, then the histogram; the last block of every launch leaves both zero.
    workspace_ = cuda::DeviceBuffer(256 + static_cast<std::size_t>(problem.bins) * (problem.counter_bits / 8));
    AUTOTUNE_CUDA(cudaMemset(workspace_.get(), 0, workspace_.bytes()));
  }
}

unsigned HistogramKernel::grid_for(std::uint64_t n) const {
  const std::uint64_t per_block =
      static_cast<std::uint64_t>(config_.block) * config_.loads * config_.load_bytes(problem_) / size_of(problem_.type);
  std::uint64_t grid = std::max<std::uint64_t>(1, (n + per_block - 1) / per_block);  // cover n
  if (config_.grid_blocks > 0) grid = std::min<std::uint64_t>(grid, config_.grid_blocks);
  grid = std::max<std::uint64_t>(grid, (n >> 31) + 1);  // no block may see 2^31 samples: counters stay exact
  return static_cast<unsigned>(std::min<std::uint64_t>(grid, max_grid_));
}

void HistogramKernel::launch(const void* samples, std::uint64_t n, void* counts, cudaStream_t stream) const {
  void* workspace = workspace_.get();
  void* args[] = {&samples, &n, &counts, &workspace};
  AUTOTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(module_.kernel()), dim3(grid_for(n)),
                                 dim3(config_.block), args, shared_bytes_, stream));
}

void HistogramKernel::run(const void* samples, std::uint64_t n, void* counts, cudaStream_t stream) const {
  if (config_.merge == Merge::last_block) {
    launch(samples, n, counts, stream);  // a single block with n = 0 writes the zeros
    return;
  }
  const std::size_t bytes = static_cast<std::size_t>(problem_.bins) * (problem_.counter_bits / 8);
  AUTOTUNE_CUDA(cudaMemsetAsync(counts, 0, bytes, stream));
  if (n > 0) launch(samples, n, counts, stream);
}

}  // namespace autotune
