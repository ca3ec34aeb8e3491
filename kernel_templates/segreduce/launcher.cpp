#include "kernel_templates/segreduce/launcher.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "autotune/error.hpp"
#include "kernel_templates/segreduce/workspace_layout.hpp"

namespace autotune {

std::string segreduce_device_violation(const SegReduceConfig& config, const DeviceInfo& device) {
  if (config.block > device.max_threads_per_block)
    return fmt::format("block of {} threads exceeds the device's {} threads per block", config.block,
                       device.max_threads_per_block);
  return {};
}

unsigned segreduce_short_grid(const SegReduceConfig& config, std::uint64_t segments, unsigned resident_grid) {
  const std::uint64_t per_block = static_cast<std::uint64_t>(config.block / config.group);
  const std::uint64_t cover = (segments + per_block - 1) / per_block;
  if (config.group == config.block) return static_cast<unsigned>(std::min<std::uint64_t>(cover, (1u << 31) - 1));
  return static_cast<unsigned>(std::min<std::uint64_t>(cover, std::max(1u, resident_grid)));
}

SegReduceKernel::SegReduceKernel(const SegReduceProblem& problem, const SegReduceConfig& config,
                                 const DeviceInfo& device, const std::vector<char>& cubin)
    : problem_(problem.normalized()), config_(config) {
  problem.validate();
  if (const std::string why = config.invalid_reason(problem); !why.empty())
    throw UsageError(fmt::format("configuration {} is invalid for {}: {}", config.key(), problem_.key(), why));
  if (const std::string why = segreduce_device_violation(config, device); !why.empty())
    throw UsageError(fmt::format("configuration {} cannot run on {}: {}", config.key(), device.name, why));
  short_ = cuda::Module(cubin, kSegReduceKernelName);
  long_ = cuda::Module(cubin, kSegReduceLongKernelName);
  const int a = short_.blocks_per_sm(config.block, 0), b = long_.blocks_per_sm(config.block, 0);
  if (a < 1 || b < 1)
    throw UsageError(fmt::format("configuration {} cannot run on {}: no block fits on a multiprocessor", config.key(),
                                 device.name));
  short_resident_ = static_cast<unsigned>(a * device.sm_count);
  long_resident_ = static_cast<unsigned>(b * device.sm_count);
  workspaces_ = std::make_unique<WorkspacePool>(segreduce_detail::SegReduceWorkspace::kBytes,
                                                std::vector<unsigned char>{});
}

void SegReduceKernel::run(const void* in, std::uint64_t segments, const void* begin, const void* end, void* out,
                          cudaStream_t stream) const {
  void* workspace = workspaces_->acquire(stream);
  const unsigned grid = segreduce_short_grid(config_, segments, short_resident_);
  if (grid > 0) {
    unsigned long long count = segments;
    void* args[] = {&in, &begin, &end, &count, &out, &workspace};
    AUTOTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(short_.kernel()), dim3(grid), dim3(config_.block),
                                   args, 0, stream));
  }
  if (config_.one_launch()) return;  // nothing is queued
  void* args[] = {&in, &begin, &end, &out, &workspace};
  AUTOTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(long_.kernel()), dim3(long_resident_),
                                 dim3(config_.block), args, 0, stream));
}

}  // namespace autotune
