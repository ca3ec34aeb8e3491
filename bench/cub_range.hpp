// CUB's range histogram (cub::DeviceHistogram::HistogramRange, MultiHistogramRange), compiled by nvcc
// (bench/cub_range.cu) and called from plain C++. The levels are CUB's LevelT as autotune's range histograms take
// them: int for u8, u16, i8, i16 and i32 samples, unsigned int for u32, float for f32, f16 and bf16 (CUB compares a
// __half or __nv_bfloat16 sample with float levels in float), double for f64.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "bench/cub_baseline.hpp"  // CubSample

namespace autotune::bench {

class CubHistogramRange {
 public:
  CubHistogramRange(CubSample type, int bins, std::uint64_t n);
  /// A 2D region (CUB's 2D overload): `rows` rows of `row_samples` samples, `row_stride_bytes` apart.
  CubHistogramRange(CubSample type, int bins, std::uint64_t row_samples, std::uint64_t rows,
                    std::size_t row_stride_bytes);
  /// MultiHistogramRange over n pixels of `channels` u8 samples, the first `active` counted, channel c with
  /// channel_bins[c] bins: instantiated for 3 of 4, 4 of 4 and 3 of 3 channels (std::invalid_argument otherwise).
  /// The levels of the active channels follow one another in one array, and so do their counters.
  CubHistogramRange(CubSample type, int channels, int active, const int (&channel_bins)[4], std::uint64_t pixels);
  ~CubHistogramRange();
  CubHistogramRange(const CubHistogramRange&) = delete;
  CubHistogramRange& operator=(const CubHistogramRange&) = delete;
  /// One call: counts the samples (or the region's, or the pixels' channels) over `levels` (device memory, every
  /// active channel's bins + 1 levels) into `counts` (every active channel's bins, unsigned ints).
  void run(const void* samples, const void* levels, unsigned* counts, cudaStream_t stream) const;

  /// Whether MultiHistogramRange is instantiated here for these channels of this type.
  static bool supports(CubSample type, int channels, int active);

 private:
  cudaError_t call(void* temp, std::size_t& bytes, const void* samples, const void* levels, unsigned* counts,
                   cudaStream_t stream) const;
  CubSample type_;
  int bins_[4] = {0, 0, 0, 0};  // per active channel
  int channels_ = 1, active_ = 1;
  std::uint64_t n_;
  std::uint64_t rows_ = 1;         // > 1: a 2D region of rows_ rows of n_ samples
  std::size_t row_stride_bytes_ = 0;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

}  // namespace autotune::bench
