// One loaded range-histogram variant and the one way to launch it: shared by the tuner, the runtime API, the
// benchmark and the tests, so that what is measured is what applications run.
//
// Thread-safety: run() may be called from several host threads at once, on any streams. Merge::atomic needs no
// workspace (a call is a memset and a launch, or one launch for the single-block path); Merge::self_zero is one
// launch whose two control words must be zero when it starts and shared by no concurrent launch: each stream gets
// its own from a WorkspacePool (core/workspace.hpp), claimed on the stream's first call, as the even histogram's
// launcher does (a launch captured into a CUDA graph keeps its stream's workspace: launches of that graph must not
// overlap other calls on that stream). Construction and destruction are not concurrent with calls on the same
// object.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "kernel_templates/histogram_launch.hpp"

namespace autotune {

class HistogramRangeKernel : public histogram_launch::PixelKernel<HistogramRangeProblem, HistogramRangeConfig> {
 public:
  /// Loads `cubin` (compiled from kernel_source(problem, config); with entry_2d false, from kernel_source_1d, and
  /// then a region of several rows is refused) on the current device, whose properties are `device`. Throws
  /// CudaError if it does not load, UsageError if the configuration exceeds the device's limits.
  HistogramRangeKernel(const HistogramRangeProblem& problem, const HistogramRangeConfig& config,
                       const DeviceInfo& device, const std::vector<char>& cubin, bool entry_2d = true);

  /// Counts n pixels (samples, for one channel) over `levels` (problem.levels() values of the level type, device
  /// memory, channel after channel) into `counts` (problem.counters(), channel after channel), overwriting them;
  /// asynchronous on `stream`. Pixels of 2 or 4 channels must be aligned to a pixel (UsageError).
  void run(const void* samples, std::uint64_t n, const void* levels, void* counts, cudaStream_t stream) const;
  /// A 2D region of interest (CUB's 2D overloads): `rows` rows of `row_samples` pixels, each starting
  /// `row_stride_bytes` after the one before (at least a row's bytes, a whole number of pixels; any alignment of
  /// the samples' type for one or three channels). One launch (or a memset and one) whatever the rows; a region of
  /// one row is 1D.
  struct Region {
    std::uint64_t row_samples = 0;  ///< pixels per row
    std::uint64_t rows = 1;
    std::size_t row_stride_bytes = 0;
  };
  void run(const void* samples, const Region& region, const void* levels, void* counts, cudaStream_t stream) const;

 private:
  unsigned resident_blocks_2d_ = 0;  // of the region entry point (regions_[0])
};

}  // namespace autotune
