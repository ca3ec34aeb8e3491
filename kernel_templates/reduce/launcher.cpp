#include "kernel_templates/reduce/launcher.hpp"

#include <algorithm>
#include <cstring>

#include "kernel_templates/reduction_launch.hpp"
#include "kernel_templates/value_types.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "kernel_templates/reduce/workspace_layout.hpp"

namespace autotune {

namespace {

// The workspace layout, shared with reduce.cu through its preamble.
using Workspace = reduce_detail::ReduceWorkspace;

}  // namespace

ReductionLaunchPlan plan_reduce_launch(const ReduceProblem& problem, const ReduceConfig& config, std::uint64_t n,
                                       unsigned resident_grid) {
  ReductionLaunchPlan plan;
  plan.grid = reduction_launch::cover_grid(problem, config, n, resident_grid, kReduceMaxCoverGrid);
  // One block writes its result itself (kernel_templates/reduce/reduce.cu), unless every thread adds with atomics.
  const bool direct = plan.grid == 1 && config.block_reduce != BlockReduce::atomic;
  if (config.finish == Finish::atomic && !direct) {
    plan.preset = true;
    if (n == 0) plan.grid = 0;  // the identity is the answer
  }
  plan.finish_launch = config.finish == Finish::two_pass && plan.grid > 1;
  return plan;
}

std::vector<unsigned char> reduce_workspace_prefix(const ReduceProblem& problem) {
  const ReduceProblem p = problem.normalized();
  const ValueType acc = p.accumulator_type(), work = reduce_detail::work_type(p);
  const std::size_t acc_bytes = size_of(acc), work_bytes = size_of(work);
  std::vector<unsigned char> prefix(Workspace::kAtomicWordOffset + std::max(acc_bytes, work_bytes), 0);
  // Little-endian: the low bytes of the 64-bit patterns are the narrower ones.
  const std::uint64_t identity = p.identity_bits();
  std::memcpy(prefix.data() + Workspace::kIdentityOffset, &identity, acc_bytes);
  const std::uint64_t work_identity = reduce_detail::widened_bits(acc, identity, work);
  std::memcpy(prefix.data() + Workspace::kAtomicWordOffset, &work_identity, work_bytes);
  return prefix;
}

ReduceKernel::ReduceKernel(const ReduceProblem& problem, const ReduceConfig& config, const DeviceInfo& device,
                           const std::vector<char>& cubin)
    : ReductionKernel(problem, problem.normalized(), config, device, cubin,
                      {kReduceKernelName, kReduceFinishKernelName}, reduce_violation) {
  acc_bytes_ = size_of(problem_.accumulator_type());
  resident_grid_ = resident_grid(device);
  const unsigned max_grid = reduction_launch::max_grid(config.grid_blocks, resident_grid_, kMaxCoverGrid);

  // One workspace per stream (core/workspace.hpp), so that concurrent calls on several streams never share a
  // ticket or partials; each starts as reduce_workspace_prefix() followed by zeros.
  // Partials are work-type values (a float per block for a min of halves).
  const std::size_t partial_bytes = size_of(reduce_detail::work_type(problem_));
  workspaces_ = std::make_unique<WorkspacePool>(Workspace::bytes(max_grid, partial_bytes),
                                                reduce_workspace_prefix(problem_));
}

void ReduceKernel::run(const void* in, std::uint64_t n, void* out, cudaStream_t stream) const {
  const ReductionLaunchPlan plan = plan_for(n);
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
  unsigned partials = plan.grid;
  void* args[] = {&in, &count, &out, &workspace};
  void* finish_args[] = {&out, &workspace, &partials};
  launch(plan.grid, args, plan.finish_launch ? finish_args : nullptr, stream);
}

}  // namespace autotune
