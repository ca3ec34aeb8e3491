// One loaded arg-reduction variant and the one way to launch it, shared by the tuner, the runtime API
// (autotune::ArgReduce), the benchmark and the tests.
//
// Thread-safety: as ReduceKernel (kernel_templates/reduce/launcher.hpp): run() may be called from several host
// threads on several streams at once; each stream's launches use its own workspace (ticket + partials) from a
// WorkspacePool, claimed lock-free on its first call.
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/argreduce_problem.hpp"
#include "autotune/device.hpp"
#include "kernel_templates/reduction_launch.hpp"

namespace autotune {

/// The most blocks grid_blocks = -1 launches (64K partials, 1 MiB of workspace).
inline constexpr unsigned kArgReduceMaxCoverGrid = 1u << 16;
/// The bound on n a call takes: a thread's 32-bit ordinals (argreduce.cu) hold its elements below 2^38 with the
/// smallest block.
inline constexpr std::uint64_t kArgReduceMaxN = 1ull << 37;

/// What one call does (at least one block; at most kArgReduceMaxCoverGrid for grid_blocks = -1; never a preset).
ReductionLaunchPlan plan_argreduce_launch(const ArgReduceProblem& problem, const ArgReduceConfig& config,
                                          std::uint64_t n, unsigned resident_grid);

class ArgReduceKernel : public ReductionKernel<ArgReduceProblem, ArgReduceConfig, plan_argreduce_launch> {
 public:
  /// Loads `cubin` (compiled from kernel_source(problem, config)) on the current device. Throws UsageError when the
  /// configuration is invalid or exceeds the device's limits, CudaError when the cubin does not load.
  ArgReduceKernel(const ArgReduceProblem& problem, const ArgReduceConfig& config, const DeviceInfo& device,
                  const std::vector<char>& cubin);

  /// Finds the extreme of n elements at `in` (aligned to the element size) and writes value (byte 0) and index
  /// (byte 8) at `out` (8-byte aligned); asynchronous on `stream`, no allocation. One launch (two for two_pass on
  /// more than one block). UsageError for n >= kArgReduceMaxN.
  void run(const void* in, std::uint64_t n, void* out, cudaStream_t stream) const;

  static constexpr unsigned kMaxCoverGrid = kArgReduceMaxCoverGrid;
};

}  // namespace autotune
