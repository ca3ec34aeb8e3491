// The bar: CUB's histogram and a read-only bandwidth roof, compiled by nvcc (bench/cub_baseline.cu) and called from
// plain C++ so the benchmark driver needs no CUDA compiler of its own.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>


namespace autotune::bench {

/// Sample types, numbered as autotune::SampleType (this header stays free of C++20 for nvcc's C++17).
enum class CubSample { u8 = 0, u16 = 1, i32 = 2, u32 = 3, f32 = 4, f64 = 5, f16 = 6, bf16 = 7, i8 = 8, i16 = 9 };

struct CubProblem {
  CubSample type;
  int bins;
  double lower, upper;
  int channels = 1;  ///< interleaved channels per pixel (MultiHistogramEven's NUM_CHANNELS)
  int active = 1;    ///< channels counted (NUM_ACTIVE_CHANNELS), each with `bins` bins over [lower, upper)
  /// Each active channel's own bins and range (MultiHistogramEven's num_levels - 1, lower and upper level per
  /// channel) where channel_bins[c] > 0; counts of channel c follow those of the channels before it.
  int channel_bins[4] = {0, 0, 0, 0};
  double channel_lower[4] = {0, 0, 0, 0};
  double channel_upper[4] = {0, 0, 0, 0};
};

/// A 2D region of interest: rows of `row_pixels` pixels, `row_stride_bytes` apart (CUB's 2D overloads).
struct CubRegion {
  std::uint64_t row_pixels = 0;
  std::uint64_t rows = 1;
  std::size_t row_stride_bytes = 0;
};

/// Whether CUB is instantiated here for the problem's channels: 1 channel of any type; u8 pixels of 3 active of
/// 3 or 4 channels, or 4 of 4 (MultiHistogramEven).
bool cub_supports(const CubProblem& problem);

/// cub::DeviceHistogram::HistogramEven (one channel) or MultiHistogramEven (several) for one problem, 1D or over a
/// 2D region, with its temporary storage allocated once. Output: each active channel's counters, channel after channel.
/// Levels: int for u8, u16, i8 and i16 samples, long long for i32 and u32, float for f32, __half and __nv_bfloat16
/// (CUB bins a 16-bit float sample with float levels in float: the common type of the two), double for f64.
class CubHistogram {
 public:
  /// n pixels (samples, for one channel), 1D. Throws std::invalid_argument when !cub_supports(problem).
  CubHistogram(const CubProblem& problem, std::uint64_t n);
  /// The 2D overloads over `region`.
  CubHistogram(const CubProblem& problem, const CubRegion& region);
  ~CubHistogram();
  CubHistogram(const CubHistogram&) = delete;
  CubHistogram& operator=(const CubHistogram&) = delete;
  /// One call: counts the samples into `counts` (active x bins unsigned ints). Asynchronous on `stream`.
  void run(const void* samples, unsigned* counts, cudaStream_t stream) const;

 private:
  cudaError_t call(void* temp, std::size_t& bytes, const void* samples, unsigned* counts, cudaStream_t stream) const;
  CubProblem problem_;
  CubRegion region_;
  bool two_d_ = false;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

/// Launches the read-only roof kernel once over `bytes` bytes at `data` (16-byte loads, nothing written but one
/// word that the data never selects). What a histogram or reduction must at least do.
void launch_read_roof(const void* data, std::size_t bytes, unsigned* sink, cudaStream_t stream);

/// Launches an empty kernel (one block of 32 threads): the floor under any one-launch call, timed like the rest.
void launch_empty(cudaStream_t stream);

}  // namespace autotune::bench
