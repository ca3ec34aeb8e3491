// One loaded histogram variant and the one way to launch it. Shared by the tuner, the runtime API, the benchmark
// and the tests, so that what is measured is exactly what applications run.
//
// Thread-safety: run() may be called from several host threads at once, on any streams. A configuration that merges
// in the last block (Merge::last_block) needs a workspace (ticket + histogram) that is zero when a launch starts and
// that no concurrent launch shares: each stream gets its own from a WorkspacePool (core/workspace.hpp), claimed
// on the stream's first call. After that a call is one kernel launch (Merge::atomic: a zeroing launch, a memset
// before sm_90, and the counting launch) with no lock and no allocation; only a stream that finds the first
// kWorkspaceSlots workspaces taken allocates more.
// A launch captured into a CUDA graph keeps the workspace of the stream it was captured on: launches of that graph
// must not overlap other calls on that stream or other graphs captured on it (CUDA orders the launches of one
// executable graph). Construction and destruction are not concurrent with calls on the same object.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/device.hpp"
#include "core/workspace.hpp"
#include "kernel_templates/histogram_launch.hpp"

namespace autotune {

class HistogramKernel : public histogram_launch::PixelKernel<HistogramProblem, HistogramConfig> {
 public:
  /// Workspaces allocated at construction for a last-block configuration (one per stream; more on demand).
  static constexpr std::size_t kWorkspaceSlots = WorkspacePool::kSlotsPerBlock;

  /// Loads `cubin` (compiled from kernel_source(problem, config); with entry_2d false, from kernel_source_1d, and
  /// then a region of several rows is refused) on the current device, whose properties are `device`. Throws
  /// CudaError if it does not load, UsageError if the configuration exceeds the device's limits.
  HistogramKernel(const HistogramProblem& problem, const HistogramConfig& config, const DeviceInfo& device,
                  const std::vector<char>& cubin, bool entry_2d = true);

  /// Blocks launched for n pixels (samples, for one channel): HistogramConfig::grid_for with this device's resident
  /// blocks.
  unsigned grid_for(std::uint64_t n) const;
  /// Counts n pixels (n * problem.channels samples) into `counts` (problem.counters() counters of
  /// problem.counter_bits), overwriting them; asynchronous on `stream`. Merge::atomic: a zeroing launch + kernel (on
  /// sm_90+ the zeroing kernel autotune_histogram_zero, which the counting kernel overlaps, else cudaMemsetAsync), or
  /// with global copies (priv=global, R > 1) the kernel and the merge kernel; Merge::last_block and self_zero: one
  /// kernel. Throws UsageError when the configuration loads whole pixels per
  /// vector (needs_pixel_alignment) and `samples` is not aligned to a pixel.
  void run(const void* samples, std::uint64_t n, void* counts, cudaStream_t stream) const;
  /// A 2D region of interest (CUB's 2D overloads): `rows` rows of `row_pixels` pixels, each starting
  /// `row_stride_bytes` after the one before (at least a row's bytes, a whole number of samples).
  /// A region whose gaps between rows are short is counted as one span and reads those gaps (span_gap_limit):
  /// bytes between rows of one allocation, as in every pitched or cropped image. `read_gaps = false` never reads
  /// them (rows laid out in memory mapped piecewise, for instance).
  struct Region {
    std::uint64_t row_pixels = 0;
    std::uint64_t rows = 1;
    std::size_t row_stride_bytes = 0;
    bool read_gaps = true;
  };
  /// Counts the pixels of a 2D region, as run() counts n pixels (one launch, or a memset and one; pixel-vector
  /// configurations also need the row stride to be a multiple of the pixel). A region of one row is 1D.
  void run(const void* samples, const Region& region, void* counts, cudaStream_t stream) const;
  /// What the kernel's 2D mapping (histogram.cu: Rows, Divider) takes for a region starting at `samples`, computed
  /// once per call by the host so that no thread does: rows of row_samples samples row_stride apart, head0 samples
  /// before row 0's first vector, vecs_per_row (V) vectors in every row, `leftover` (L) samples per row counted one
  /// at a time, and the magic numbers (shift -1: none) that divide by V and by L. 1D (one row): rows = 1, the rest 0.
  /// `span`: the span entry point counts the region as one run of `samples` samples (row 0's start to the last row's
  /// end) and takes back the L = `leftover` samples of each gap between rows (span_gap_limit says when).
  struct RegionArgs {
    std::uint64_t row_samples = 0, rows = 1, row_stride = 0, head0 = 0, vecs_per_row = 0, leftover = 0;
    unsigned vecs_magic = 0, leftover_magic = 0;
    int vecs_shift = -1, leftover_shift = -1;
    bool span = false;
    std::uint64_t samples = 0;  // what the kernel counts from `samples`: the region's, or the span's (gaps included)
  };
  /// A region is counted as one span when its gaps between rows are at most 1/span_gap_limit of its stride (they
  /// are read, then taken back one sample at a time), its stride is a whole number of pixels, and the configuration
  /// counts in 32-bit counters (a 16-bit shared counter cannot take a count back). Measured: README.md, "Counting a
  /// 2D region as one span".
  static constexpr std::uint64_t span_gap_limit = 256;
  static RegionArgs region_args(const HistogramProblem& problem, const HistogramConfig& config, const void* samples,
                                std::uint64_t n, const Region& region);
  /// Whether a configuration needs the samples aligned to a pixel (channels * sample size bytes): several channels
  /// and vectors of whole pixels. Pixels of 2 or 4 channels with vector loads do; 3 channels never.
  static bool needs_pixel_alignment(const HistogramProblem& problem, const HistogramConfig& config);
  /// Whether merge=atomic zeroes the output with autotune_histogram_zero and overlaps it with the counting launch
  /// (cuda::zero_with_kernel: sm_90 and later, unless the environment sets AUTOTUNE_ZERO_WITH_MEMSET=1).
  static bool zero_with_kernel(const DeviceInfo& device);

 private:
  void launch(const void* samples, std::uint64_t n, void* counts, const Region& region, cudaStream_t stream,
              cuda::Module::Order order = cuda::Module::Order::after_completion) const;
  void run_region(const void* samples, const Region& region, void* counts, cudaStream_t stream) const;

  // The region entry points (regions_): rows > 1, and a region counted as one span (RegionArgs::span).
  static constexpr std::size_t k2dEntry = 0;
  static constexpr std::size_t kSpanEntry = 1;
  std::size_t pixel_alignment_ = 1;  // bytes the samples pointer must be aligned to
  std::optional<cuda::Module> merge_;  // global copies: the kernel that sums them into the output
};

}  // namespace autotune
