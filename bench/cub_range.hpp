// CUB's range histogram (cub::DeviceHistogram::HistogramRange), compiled by nvcc (bench/cub_range.cu) and called from
// plain C++. The levels are CUB's LevelT as autotune's range histograms take them: int for u8, u16 and i32 samples,
// unsigned int for u32, float for f32, double for f64.
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
  ~CubHistogramRange();
  CubHistogramRange(const CubHistogramRange&) = delete;
  CubHistogramRange& operator=(const CubHistogramRange&) = delete;
  /// One call: counts n samples (or the region's) over `levels` (bins + 1, device memory) into `counts` (bins unsigned ints).
  void run(const void* samples, const void* levels, unsigned* counts, cudaStream_t stream) const;

 private:
  CubSample type_;
  int bins_;
  std::uint64_t n_;
  std::uint64_t rows_ = 1;         // > 1: a 2D region of rows_ rows of n_ samples
  std::size_t row_stride_bytes_ = 0;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

}  // namespace autotune::bench
