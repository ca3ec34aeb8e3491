// One loaded range-histogram variant and the one way to launch it: shared by the tuner, the runtime API, the
// benchmark and the tests, so that what is measured is what applications run.
//
// Thread-safety: run() may be called from several host threads at once, on any streams (no workspace: a call is a
// memset and a launch, or one launch for the single-block path). Construction and destruction are not concurrent
// with calls on the same object.
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "core/cuda.hpp"

namespace autotune {

class HistogramRangeKernel {
 public:
  /// Loads `cubin` (compiled from kernel_source(problem, config)) on the current device, whose properties are
  /// `device`. Throws CudaError if it does not load, UsageError if the configuration exceeds the device's limits.
  HistogramRangeKernel(const HistogramRangeProblem& problem, const HistogramRangeConfig& config,
                       const DeviceInfo& device, const std::vector<char>& cubin);

  unsigned grid_for(std::uint64_t n) const;
  /// Counts n samples over `levels` (bins + 1 values of the level type, device memory) into `counts`, overwriting
  /// them; asynchronous on `stream`.
  void run(const void* samples, std::uint64_t n, const void* levels, void* counts, cudaStream_t stream) const;

  const HistogramRangeConfig& config() const { return config_; }
  int blocks_per_sm() const { return blocks_per_sm_; }

 private:
  HistogramRangeProblem problem_;
  HistogramRangeConfig config_;
  cuda::Module module_;
  std::size_t shared_bytes_ = 0;
  int blocks_per_sm_ = 0;
  unsigned resident_blocks_ = 0;
};

}  // namespace autotune
