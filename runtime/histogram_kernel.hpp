// One loaded histogram variant and the one way to launch it. Shared by the tuner, the runtime API, the benchmark
// and the tests, so that what is measured is exactly what applications run.
//
// Not thread-safe for concurrent run() calls when the configuration merges in the last block: the workspace
// (ticket + partials) belongs to the object, so calls must be ordered (one stream, or one object per stream).
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/config.hpp"
#include "autotune/device.hpp"
#include "runtime/cuda.hpp"

namespace autotune {

class HistogramKernel {
 public:
  /// Loads `cubin` (compiled from kernel_source(problem, config)) on the current device, whose properties are
  /// `device`. Throws CudaError if it does not load, UsageError if the configuration exceeds the device's limits.
  HistogramKernel(const HistogramProblem& problem, const HistogramConfig& config, const DeviceInfo& device,
                  const std::vector<char>& cubin);

  /// Blocks launched for n samples: enough to cover n, at most the blocks that are resident at once, and enough
  /// that no block sees 2^31 samples (its 32-bit shared counters stay exact).
  unsigned grid_for(std::uint64_t n) const;
  /// Counts n samples into `counts` (bins counters of problem.counter_bits), overwriting them; asynchronous on
  /// `stream`. Merge::atomic: cudaMemsetAsync + kernel; Merge::last_block: one kernel.
  void run(const void* samples, std::uint64_t n, void* counts, cudaStream_t stream) const;

  const HistogramConfig& config() const { return config_; }
  int blocks_per_sm() const { return blocks_per_sm_; }

 private:
  void launch(const void* samples, std::uint64_t n, void* counts, cudaStream_t stream) const;

  HistogramProblem problem_;
  HistogramConfig config_;
  cuda::Module module_;
  std::size_t shared_bytes_ = 0;
  int blocks_per_sm_ = 0;
  unsigned max_grid_ = 0;
  cuda::DeviceBuffer workspace_;  // Merge::last_block: ticket word + one histogram, zero between launches
};

}  // namespace autotune
