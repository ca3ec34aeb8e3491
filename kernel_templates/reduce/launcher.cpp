#include "kernel_templates/reduce/launcher.hpp"

#include <cstring>

#include <fmt/format.h>

#include <algorithm>

#include "core/launch_limits.hpp"
#include "kernel_templates/value_types.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "kernel_templates/reduce/workspace_layout.hpp"

namespace autotune {

namespace {

// The workspace layout, shared with reduce.cu through its preamble.
using Workspace = reduce_detail::ReduceWorkspace;

}  // namespace

ReduceLaunchPlan plan_reduce_launch(const ReduceProblem& problem, const ReduceConfig& config, std::uint64_t n,
                                    unsigned resident_grid) {
  ReduceLaunchPlan plan;
  if (config.grid_blocks == 1) {
    plan.grid = 1;
  } else {
    const std::uint64_t per_block =
        static_cast<std::uint64_t>(config.block) * config.loads * config.elems_per_load(problem);
    const std::uint64_t cover = std::max<std::uint64_t>(1, (n + per_block - 1) / per_block);
    const unsigned cap = config.grid_blocks == 0 ? std::max(1u, resident_grid) : kReduceMaxCoverGrid;
    plan.grid = static_cast<unsigned>(std::min<std::uint64_t>(cover, cap));
  }
  // One block writes its result itself (kernel_templates/reduce/reduce.cu), unless every thread adds with atomics.
  const bool direct = plan.grid == 1 && config.block_reduce != BlockReduce::atomic;
  if (config.finish == Finish::atomic && !direct) {
    plan.preset = true;
    if (n == 0) plan.grid = 0;  // the identity is the answer
  }
  plan.finish_launch = config.finish == Finish::two_pass && plan.grid > 1;
  return plan;
}

ReduceKernel::ReduceKernel(const ReduceProblem& problem, const ReduceConfig& config, const DeviceInfo& device,
                           const std::vector<char>& cubin)
    : problem_(problem.normalized()), config_(config) {
  problem.validate();
  launch_limits::require_runnable(problem, config, device, reduce_violation);
  shared_bytes_ = config.shared_bytes(problem_);
  acc_bytes_ = size_of(problem_.accumulator_type());
  module_ = cuda::Module(cubin, kReduceKernelName);
  if (config.finish == Finish::two_pass) finish_module_ = module_.entry(kReduceFinishKernelName);
  resident_grid_ =
      launch_limits::resident_blocks(module_.blocks_per_sm(config.block, shared_bytes_), config.key(), device);
  const unsigned max_grid = config.grid_blocks == 1 ? 1u : config.grid_blocks == 0 ? resident_grid_ : kMaxCoverGrid;

  // Zero ticket; the identity for the atomic finish's preset (little-endian: the low bytes of the 64-bit pattern
  // are the 32-bit one).
  // One workspace per stream (core/workspace.hpp), so that concurrent calls on several streams never share a
  // ticket or partials; each starts as this prefix followed by zeros.
  std::vector<unsigned char> prefix(Workspace::kIdentityOffset + acc_bytes_, 0);
  const std::uint64_t identity = problem_.identity_bits();
  std::memcpy(prefix.data() + Workspace::kIdentityOffset, &identity, acc_bytes_);
  // Partials are work-type values (a float per block for a min of halves).
  const std::size_t partial_bytes = size_of(reduce_detail::work_type(problem_));
  workspaces_ = std::make_unique<WorkspacePool>(Workspace::bytes(max_grid, partial_bytes), std::move(prefix));
}

unsigned ReduceKernel::grid_for(std::uint64_t n) const {
  return std::max(1u, plan_reduce_launch(problem_, config_, n, resident_grid_).grid);
}

void ReduceKernel::run(const void* in, std::uint64_t n, void* out, cudaStream_t stream) const {
  const ReduceLaunchPlan plan = plan_reduce_launch(problem_, config_, n, resident_grid_);
  void* workspace = workspaces_->acquire(stream);  // lock-free once this stream owns one
  if (plan.preset) {
    if (problem_.identity_bits() == 0) {
      AUTOTUNE_CUDA(cudaMemsetAsync(out, 0, acc_bytes_, stream));
    } else {  // min/max identities are no byte pattern: copy them from the workspace
      AUTOTUNE_CUDA(cudaMemcpyAsync(out, static_cast<unsigned char*>(workspace) + Workspace::kIdentityOffset, acc_bytes_,
                                    cudaMemcpyDeviceToDevice, stream));
    }
  }
  if (plan.grid == 0) return;
  unsigned long long count = n;
  void* args[] = {&in, &count, &out, &workspace};
  module_.launch(plan.grid, config_.block, args, shared_bytes_, stream);
  if (plan.finish_launch) {
    unsigned partials = plan.grid;
    void* finish_args[] = {&out, &workspace, &partials};
    finish_module_.launch(1, config_.block, finish_args, shared_bytes_, stream);
  }
}

}  // namespace autotune
