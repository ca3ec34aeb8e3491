#include "kernel_templates/argreduce/launcher.hpp"

#include <fmt/format.h>

#include "kernel_templates/argreduce/space.hpp"
#include "kernel_templates/argreduce/workspace_layout.hpp"
#include "kernel_templates/reduction_launch.hpp"

namespace autotune {

ReductionLaunchPlan plan_argreduce_launch(const ArgReduceProblem& problem, const ArgReduceConfig& config,
                                          std::uint64_t n, unsigned resident_grid) {
  ReductionLaunchPlan plan;
  plan.grid = is_argreduce_cluster_grid(config.grid_blocks)
                  ? static_cast<unsigned>(config.grid_blocks)  // one cluster, whatever n
                  : reduction_launch::cover_grid(problem, config, n, resident_grid, kArgReduceMaxCoverGrid);
  plan.finish_launch = config.finish == Finish::two_pass && plan.grid > 1;  // one block writes its result itself
  return plan;
}

ArgReduceKernel::ArgReduceKernel(const ArgReduceProblem& problem, const ArgReduceConfig& config,
                                 const DeviceInfo& device, const std::vector<char>& cubin)
    : ReductionKernel(problem, problem, config, device, cubin, {kArgReduceKernelName, kArgReduceFinishKernelName},
                      argreduce_violation) {
  if (config.grid_blocks > 8 && is_argreduce_cluster_grid(config.grid_blocks)) module_.allow_non_portable_clusters();
  resident_grid_ = resident_grid(device);
  const unsigned max_grid = is_argreduce_cluster_grid(config.grid_blocks)
                                ? static_cast<unsigned>(config.grid_blocks)
                                : reduction_launch::max_grid(config.grid_blocks, resident_grid_, kMaxCoverGrid);
  // Per stream: a zero ticket, then the partials (core/workspace.hpp zero-fills past the prefix).
  using Workspace = argreduce_detail::ArgReduceWorkspace;
  workspaces_ = std::make_unique<WorkspacePool>(Workspace::bytes(max_grid),
                                                std::vector<unsigned char>(Workspace::kPartialsOffset, 0));
}

void ArgReduceKernel::run(const void* in, std::uint64_t n, void* out, cudaStream_t stream) const {
  if (n >= kArgReduceMaxN)
    throw UsageError(fmt::format("an arg-reduction of {} elements reaches the supported bound of 2^37", n));
  const ReductionLaunchPlan plan = plan_for(n);
  void* workspace = workspaces_->acquire(stream);  // lock-free once this stream owns one
  unsigned long long count = n;
  void* args[] = {&in, &count, &out, &workspace};
  if (is_argreduce_cluster_grid(config_.grid_blocks)) {  // one cluster of the whole grid
    module_.launch_cluster(plan.grid, config_.block, args, shared_bytes_, stream);
    return;
  }
  unsigned partials = plan.grid;
  void* finish_args[] = {&out, &workspace, &partials, &count};
  launch(plan.grid, args, plan.finish_launch ? finish_args : nullptr, stream);
}

}  // namespace autotune
