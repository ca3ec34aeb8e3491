#include "kernel_templates/argreduce/launcher.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/launch_limits.hpp"
#include "kernel_templates/argreduce/space.hpp"
#include "kernel_templates/argreduce/workspace_layout.hpp"

namespace autotune {

namespace {

using Workspace = argreduce_detail::ArgReduceWorkspace;

}  // namespace

ArgReduceLaunchPlan plan_argreduce_launch(const ArgReduceProblem& problem, const ArgReduceConfig& config,
                                          std::uint64_t n, unsigned resident_grid) {
  ArgReduceLaunchPlan plan;
  if (is_argreduce_cluster_grid(config.grid_blocks)) {
    plan.grid = static_cast<unsigned>(config.grid_blocks);  // one cluster, whatever n
  } else if (config.grid_blocks != 1) {
    const std::uint64_t per_block =
        static_cast<std::uint64_t>(config.block) * config.loads * config.elems_per_load(problem);
    const std::uint64_t cover = std::max<std::uint64_t>(1, (n + per_block - 1) / per_block);
    const unsigned cap = config.grid_blocks == 0 ? std::max(1u, resident_grid) : kArgReduceMaxCoverGrid;
    plan.grid = static_cast<unsigned>(std::min<std::uint64_t>(cover, cap));
  }
  plan.finish_launch = config.finish == Finish::two_pass && plan.grid > 1;  // one block writes its result itself
  return plan;
}

ArgReduceKernel::ArgReduceKernel(const ArgReduceProblem& problem, const ArgReduceConfig& config,
                                 const DeviceInfo& device, const std::vector<char>& cubin)
    : problem_(problem), config_(config) {
  problem.validate();
  launch_limits::require_runnable(problem, config, device, argreduce_violation);
  shared_bytes_ = config.shared_bytes(problem_);
  module_ = cuda::Module(cubin, kArgReduceKernelName);
  if (config.finish == Finish::two_pass) finish_module_ = module_.entry(kArgReduceFinishKernelName);
  if (config.grid_blocks > 8 && is_argreduce_cluster_grid(config.grid_blocks)) module_.allow_non_portable_clusters();
  resident_grid_ =
      launch_limits::resident_blocks(module_.blocks_per_sm(config.block, shared_bytes_), config.key(), device);
  const unsigned max_grid = config.grid_blocks == 1                       ? 1u
                            : is_argreduce_cluster_grid(config.grid_blocks) ? unsigned(config.grid_blocks)
                            : config.grid_blocks == 0                     ? resident_grid_
                                                                          : kMaxCoverGrid;
  // Per stream: a zero ticket, then the partials (core/workspace.hpp zero-fills past the prefix).
  workspaces_ = std::make_unique<WorkspacePool>(Workspace::bytes(max_grid),
                                                std::vector<unsigned char>(Workspace::kPartialsOffset, 0));
}

unsigned ArgReduceKernel::grid_for(std::uint64_t n) const {
  return plan_argreduce_launch(problem_, config_, n, resident_grid_).grid;
}

void ArgReduceKernel::run(const void* in, std::uint64_t n, void* out, cudaStream_t stream) const {
  if (n >= kArgReduceMaxN)
    throw UsageError(fmt::format("an arg-reduction of {} elements reaches the supported bound of 2^37", n));
  const ArgReduceLaunchPlan plan = plan_argreduce_launch(problem_, config_, n, resident_grid_);
  void* workspace = workspaces_->acquire(stream);  // lock-free once this stream owns one
  unsigned long long count = n;
  void* args[] = {&in, &count, &out, &workspace};
  if (is_argreduce_cluster_grid(config_.grid_blocks)) {  // one cluster of the whole grid
    module_.launch_cluster(plan.grid, config_.block, args, shared_bytes_, stream);
    return;
  }
  module_.launch(plan.grid, config_.block, args, shared_bytes_, stream);
  if (plan.finish_launch) {
    unsigned partials = plan.grid;
    void* finish_args[] = {&out, &workspace, &partials, &count};
    finish_module_.launch(1, config_.block, finish_args, shared_bytes_, stream);
  }
}

}  // namespace autotune
