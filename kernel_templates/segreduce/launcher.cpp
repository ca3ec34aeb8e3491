#include "kernel_templates/segreduce/launcher.hpp"

#include <algorithm>

#include "core/launch_limits.hpp"
#include "kernel_templates/segreduce/space.hpp"
#include "kernel_templates/segreduce/workspace_layout.hpp"

namespace autotune {

unsigned segreduce_short_grid(const SegReduceConfig& config, std::uint64_t segments, unsigned resident_grid) {
  const std::uint64_t per_block = static_cast<std::uint64_t>(config.block / config.group);
  const std::uint64_t cover = (segments + per_block - 1) / per_block;
  if (config.group == config.block) return static_cast<unsigned>(std::min<std::uint64_t>(cover, (1u << 31) - 1));
  return static_cast<unsigned>(std::min<std::uint64_t>(cover, std::max(1u, resident_grid)));
}

SegReduceKernel::SegReduceKernel(const SegReduceProblem& problem, const SegReduceConfig& config,
                                 const DeviceInfo& device, const std::vector<char>& cubin)
    : LoadedEntries(problem, problem, config, device, cubin, {kSegReduceKernelName, kSegReduceLongKernelName},
                    segreduce_violation) {
  short_resident_ = launch_limits::resident_blocks(module_.blocks_per_sm(config.block, 0), config.key(), device);
  long_resident_ = launch_limits::resident_blocks(second_module_.blocks_per_sm(config.block, 0), config.key(), device);
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
    module_.launch(grid, config_.block, args, 0, stream);
  }
  if (config_.one_launch()) return;  // nothing is queued
  void* args[] = {&in, &begin, &end, &out, &workspace};
  second_module_.launch(long_resident_, config_.block, args, 0, stream);
}

}  // namespace autotune
