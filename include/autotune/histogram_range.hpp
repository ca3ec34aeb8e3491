// The runtime API for range histograms (CUB's HistogramRange): ask for the tuned launcher of a problem on a GPU,
// then call it with the samples, the levels and the counters, all in device memory.
//
//   autotune::HistogramRangeProblem p{.type = autotune::SampleType::f32, .bins = 999, .n = n};
//   autotune::HistogramRange histogram(p);                     // looks the winner up in the cache, loads it once
//   histogram(d_samples, n, d_levels, d_counts, stream);       // const float*, const float* (1000 levels),
//                                                              // std::uint32_t*: one memset and one launch
//
// The levels are data of each call: bins + 1 strictly ascending values of the level type (level_size,
// level_type_name: int for u8, u16, i8, i16 and i32 samples; unsigned for u32; float for f32, __half and
// __nv_bfloat16; double). The handle does not read them to check them (a call is what CUB's is: no copy, no
// synchronization); validate_levels checks them on the host.
//
// Pixels of several channels (CUB's MultiHistogramRange): a problem with channels = 4, active = 3 and, say,
// per_channel_bins = {255, 63, 16} counts the first three samples of every 4-sample pixel, each channel over its own
// levels. One call takes n pixels, every active channel's levels in one array (255 + 1, then 63 + 1, then 16 + 1:
// channel c's from problem.level_offset(c)) and writes every active channel's counters in one array (channel c's
// from problem.channel_offset(c)): what CUB's d_levels[c] and d_histogram[c] point to.
//
// Size-adaptive: a handle is made for the problem's shape (type, bins, edges, counters, distribution); problem.n is a
// hint. At construction it loads the winners of every tuned size of the shape on this GPU model into a size table
// (Resolution::sizes); each call runs the configuration of the range that holds its n. config_for(n) and
// range_for(n) say what a call of n samples runs, and why.
//
// Thread-safety: handles may be constructed from several threads at once; one handle may be called from several
// host threads at once, on any streams (one-launch configurations keep a workspace per stream), and calls may be captured into CUDA graphs. Moving,
// assigning or destroying a handle must not overlap calls on it. The application's current device is used.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "autotune/histogram.hpp"  // HistogramSample, HistogramCounter, sample_type_of
#include "autotune/histogram_range_problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// The level type of samples of type T: int for std::uint8_t, std::uint16_t, std::int8_t, std::int16_t and
/// std::int32_t; unsigned int for std::uint32_t; float for float, __half and __nv_bfloat16; double.
template <HistogramSample T>
using range_level_t = std::conditional_t<
    std::same_as<T, float> || std::same_as<T, __half> || std::same_as<T, __nv_bfloat16>, float,
    std::conditional_t<std::same_as<T, double>, double,
                       std::conditional_t<std::same_as<T, std::uint32_t>, unsigned int, int>>>;

class HistogramRange {
 public:
  struct Options {
    int device = -1;         ///< CUDA ordinal; -1 = the calling thread's current device
    std::string cache_path;  ///< empty = Cache::default_path()
    std::optional<Requirement> require;  ///< unset = $AUTOTUNE_REQUIRE, else any (include/autotune/resolution.hpp)
  };

  /// Resolves the configuration and loads the kernel. Throws UsageError for an invalid problem, NoDeviceError
  /// without a GPU, CacheError for an unreadable cache file, NotTunedError when `require` is not met.
  explicit HistogramRange(const HistogramRangeProblem& problem, const Options& options);
  explicit HistogramRange(const HistogramRangeProblem& problem) : HistogramRange(problem, Options{}) {}
  ~HistogramRange();
  HistogramRange(HistogramRange&&) noexcept;
  HistogramRange& operator=(HistogramRange&&) noexcept;

  /// Counts `n` pixels (samples, for one channel) at `d_samples` over `d_levels` (problem().levels() levels) into
  /// `d_counts` (problem().counters() counters), overwriting them. Device memory, asynchronous on `stream`. Throws
  /// UsageError for null pointers, a sample type other than problem().type, a counter width other than
  /// problem().counter_bits, or pixels of 2 or 4 channels that do not start on a pixel.
  template <HistogramSample Sample, HistogramCounter Counter>
  void operator()(const Sample* d_samples, std::uint64_t n, const range_level_t<Sample>* d_levels, Counter* d_counts,
                  cudaStream_t stream = nullptr) const {
    count(d_samples, sample_type_of<Sample>(), n, d_levels, d_counts, 8 * sizeof(Counter), stream);
  }
  /// A 2D region of interest (CUB's 2D HistogramRange): `rows` rows of `row_samples` pixels, each starting
  /// `row_stride_bytes` after the one before (at least a row's bytes, a whole number of pixels, any alignment the
  /// sample type allows for one or 3 channels; rows and a row's samples below 2^31), counted as one call of rows x
  /// row_samples pixels (the size table's range for that many). One launch (or a memset and one), whatever the rows.
  template <HistogramSample Sample, HistogramCounter Counter>
  void operator()(const Sample* d_samples, std::uint64_t row_samples, std::uint64_t rows,
                  std::size_t row_stride_bytes, const range_level_t<Sample>* d_levels, Counter* d_counts,
                  cudaStream_t stream = nullptr) const {
    count_region(d_samples, sample_type_of<Sample>(), row_samples, rows, row_stride_bytes, d_levels, d_counts,
                 8 * sizeof(Counter), stream);
  }
  /// Untyped samples and levels: they must be of problem().type and its level type (not checked).
  void operator()(const void* d_samples, std::uint64_t n, const void* d_levels, unsigned int* d_counts,
                  cudaStream_t stream = nullptr) const;
  void operator()(const void* d_samples, std::uint64_t n, const void* d_levels, unsigned long long* d_counts,
                  cudaStream_t stream = nullptr) const;

  const HistogramRangeProblem& problem() const;
  const Resolution& resolution() const;
  const Config& config_for(std::uint64_t n) const;
  const SizeRange& range_for(std::uint64_t n) const;

 private:
  void count(const void* d_samples, std::optional<SampleType> sample_type, std::uint64_t n, const void* d_levels,
             void* d_counts, int counter_bits, cudaStream_t stream) const;
  void count_region(const void* d_samples, SampleType sample_type, std::uint64_t row_samples, std::uint64_t rows,
                    std::size_t row_stride_bytes, const void* d_levels, void* d_counts, int counter_bits,
                    cudaStream_t stream) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autotune
