// One loaded reduction variant and the one way to launch it. Shared by the tuner, the runtime API (autotune::Reduce),
// the benchmark and the tests, so that what is measured is exactly what applications run.
//
// Thread-safety: run() may be called from several host threads on several streams at once. The workspace a launch
// uses (ticket + partials, the identity for the atomic finish's preset) is the calling stream's own, from a
// WorkspacePool (core/workspace.hpp): claimed lock-free on the stream's first call, then reused, so a call takes no
// lock and allocates nothing. A launch captured into a CUDA graph keeps the workspace of the stream it was captured
// on, as for HistogramKernel.
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/reduce_problem.hpp"
#include "kernel_templates/reduction_launch.hpp"

namespace autotune {

/// The most blocks grid_blocks = -1 launches: 64K partials (512 KiB of workspace for 8-byte values). Past it the
/// blocks loop over several tiles, as with the resident grid.
inline constexpr unsigned kReduceMaxCoverGrid = 1u << 16;

/// What one call does (ReduceKernel::run executes it), at most kReduceMaxCoverGrid blocks for grid_blocks = -1.
ReductionLaunchPlan plan_reduce_launch(const ReduceProblem& problem, const ReduceConfig& config, std::uint64_t n,
                                       unsigned resident_grid);

/// The first bytes of each stream's workspace (the rest starts zero; reduce/workspace_layout.hpp): the ticket 0, the
/// identity in the accumulator type (the atomic finish's preset of `out` is copied from there), and atomic_last's
/// word holding the identity in the work type (a half's +inf as a float's, an i8's 127 as an int's).
std::vector<unsigned char> reduce_workspace_prefix(const ReduceProblem& problem);

class ReduceKernel : public ReductionKernel<ReduceProblem, ReduceConfig, plan_reduce_launch> {
 public:
  /// Loads `cubin` (compiled from kernel_source(problem, config)) on the current device, whose properties are
  /// `device`: its autotune_reduce, and autotune_reduce_finish for Finish::two_pass. Throws UsageError when the
  /// configuration is invalid or exceeds the device's limits, CudaError when the cubin does not load.
  ReduceKernel(const ReduceProblem& problem, const ReduceConfig& config, const DeviceInfo& device,
               const std::vector<char>& cubin);

  /// Reduces n elements at `in` (aligned to the element size) into one accumulator-type value at `out` (aligned to
  /// its size), overwriting it; asynchronous on `stream`, no allocation. Operations: Finish::last_block one launch;
  /// Finish::two_pass two launches; Finish::atomic a preset of `out` to the identity then one launch. A grid of one
  /// block is always one launch: the block writes its result itself.
  void run(const void* in, std::uint64_t n, void* out, cudaStream_t stream) const;

  static constexpr unsigned kMaxCoverGrid = kReduceMaxCoverGrid;

 private:
  // The workspaces hold the ticket (zero between launches), the identity (the atomic finish's preset) and the
  // partials: the layout of kernel_templates/reduce/workspace_layout.hpp, which reduce.cu reads from its preamble.
  std::size_t acc_bytes_ = 0;
};

}  // namespace autotune
