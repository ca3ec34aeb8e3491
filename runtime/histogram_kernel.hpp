// One loaded histogram variant and the one way to launch it. Shared by the tuner, the runtime API and the tests,
// so that what is measured is exactly what applications run.
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

  /// Blocks launched for n samples: enough to cover n, at most the blocks that are resident at once.
  unsigned grid_for(std::uint64_t n) const;
  /// Zeroes `counts` and launches the kernel on `stream` (asynchronous). n == 0 only zeroes.
  void run(const void* samples, std::uint64_t n, unsigned* counts, cudaStream_t stream) const;
  /// The kernel launch alone (counts must already be zero): what the tuner times.
  void launch(const void* samples, std::uint64_t n, unsigned* counts, cudaStream_t stream) const;

  const HistogramConfig& config() const { return config_; }
  int blocks_per_sm() const { return blocks_per_sm_; }

 private:
  HistogramProblem problem_;
  HistogramConfig config_;
  cuda::Module module_;
  std::size_t shared_bytes_ = 0;
  int blocks_per_sm_ = 0;
  unsigned max_grid_ = 0;
};

}  // namespace autotune
