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
#include <memory>
#include <string>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/reduce_problem.hpp"
#include "core/cuda.hpp"
#include "core/workspace.hpp"

namespace autotune {

/// The most blocks grid_blocks = -1 launches: 64K partials (512 KiB of workspace for 8-byte values). Past it the
/// blocks loop over several tiles, as with the resident grid.
inline constexpr unsigned kReduceMaxCoverGrid = 1u << 16;

/// What one call does, decided on the host: a pure function of the configuration, n and the device's resident grid
/// (blocks_per_sm * sm_count), so it is checked without a GPU. ReduceKernel::run executes it.
struct ReduceLaunchPlan {
  /// Blocks of the main launch (0 when nothing is launched: n = 0 after a preset). grid_blocks = 1: one block;
  /// else enough to cover n (one tile of block * loads loads per block), at most resident_grid (grid_blocks = 0) or
  /// kReduceMaxCoverGrid (-1). A function of n and the device only: the order of the operations, and so a float
  /// sum's bits, is fixed for a given n.
  unsigned grid = 1;
  bool preset = false;         ///< `out` is set to the identity first (Finish::atomic, unless one block writes it)
  bool finish_launch = false;  ///< autotune_reduce_finish (one block) combines `grid` partials afterwards
};
ReduceLaunchPlan plan_reduce_launch(const ReduceProblem& problem, const ReduceConfig& config, std::uint64_t n,
                                    unsigned resident_grid);

class ReduceKernel {
 public:
  /// Loads `cubin` (compiled from kernel_source(problem, config)) on the current device, whose properties are
  /// `device`: its autotune_reduce, and autotune_reduce_finish for Finish::two_pass. Throws UsageError when the
  /// configuration is invalid or exceeds the device's limits, CudaError when the cubin does not load.
  ReduceKernel(const ReduceProblem& problem, const ReduceConfig& config, const DeviceInfo& device,
               const std::vector<char>& cubin);

  /// Blocks of the main launch for n elements (ReduceLaunchPlan::grid, at least 1).
  unsigned grid_for(std::uint64_t n) const;

  /// Reduces n elements at `in` (aligned to the element size) into one accumulator-type value at `out` (aligned to
  /// its size), overwriting it; asynchronous on `stream`, no allocation. Operations: Finish::last_block one launch;
  /// Finish::two_pass two launches; Finish::atomic a preset of `out` to the identity then one launch. A grid of one
  /// block is always one launch: the block writes its result itself.
  void run(const void* in, std::uint64_t n, void* out, cudaStream_t stream) const;

  const ReduceConfig& config() const { return config_; }

  static constexpr unsigned kMaxCoverGrid = kReduceMaxCoverGrid;

 private:
  ReduceProblem problem_;
  ReduceConfig config_;
  cuda::Module module_;
  cuda::Module finish_module_;  // Finish::two_pass only: the same cubin, its second entry point
  std::size_t shared_bytes_ = 0;
  std::size_t acc_bytes_ = 0;
  unsigned resident_grid_ = 0;
  // Per stream: ticket (zero between launches), the identity (the atomic finish's preset), partials: the layout of
  // kernel_templates/reduce/workspace_layout.hpp, which reduce.cu reads from its preamble. Sized for the largest grid
  // the plan can choose.
  std::unique_ptr<WorkspacePool> workspaces_;
};

}  // namespace autotune
