// The runtime API for histograms: ask for the tuned launcher of a problem on a GPU, then call it.
//
//   autotune::HistogramProblem p{.type = autotune::SampleType::u8, .bins = 256, .n = n};   // range [0, 256)
//   autotune::Histogram histogram(p);                 // looks the winner up in the cache, loads it once
//   histogram(d_samples, n, d_counts, stream);        // const std::uint8_t*, std::uint32_t*: zeroes d_counts, then
//                                                     // one kernel launch
//
// Size-adaptive: a handle is made for the problem's shape (type, bins, range, counters, distribution); problem.n is
// a hint. At construction it loads the winners of every tuned size of the shape on this GPU model (one module per
// distinct configuration) into a sorted size table (Resolution::sizes, include/autotune/resolution.hpp); each call
// runs the configuration of the range that holds its n (a binary search over a few sizes: no lock, no allocation,
// no extra launch). config_for(n) and range_for(n) say what a call of n samples runs, and why.
//
// Thread-safety: handles may be constructed from several threads at once. One handle may be called from several
// host threads at once, on any streams, and calls may be captured into CUDA graphs. A configuration that merges in
// one launch (the last block, or self_zero) needs a workspace that no concurrent launch shares: the handle allocates 8 at construction
// (per configuration of its size table) and each stream claims one on its first call (lock-free) and keeps it, so after resolution a call is one kernel
// launch (for Merge::atomic, a memset and a launch) with no lock and no allocation. Only a stream that finds all
// of them taken allocates another 8 (allocation on a new stream, under a mutex, once). The null stream is the
// legacy default stream (one stream); cudaStreamPerThread is a different stream in each thread. A launch captured
// into a graph uses the workspace of the stream it was captured on: do not let that graph's launches overlap
// calls on that stream or launches of other graphs captured on it (CUDA orders the launches of one executable
// graph). Moving, assigning or destroying a handle must not overlap calls on it. The application's current device
// and context are used, never replaced.
#pragma once

#include <cstdint>
#include <memory>
#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "autotune/histogram_problem.hpp"
#include "autotune/resolution.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // the same declaration as CUDA's driver_types.h
// CUDA's 16-bit floats (cuda_fp16.h, cuda_bf16.h), declared as those headers declare them: a handle takes pointers to
// them without this header including the toolkit's.
struct __half;
struct __nv_bfloat16;

namespace autotune {

/// The C++ types of histogram samples: std::uint8_t, std::uint16_t, std::int32_t, std::uint32_t, float, double,
/// __half, __nv_bfloat16, std::int8_t, std::int16_t.
template <class T>
concept HistogramSample = std::same_as<T, std::uint8_t> || std::same_as<T, std::uint16_t> ||
                          std::same_as<T, std::int32_t> || std::same_as<T, std::uint32_t> || std::same_as<T, float> ||
                          std::same_as<T, double> || std::same_as<T, __half> || std::same_as<T, __nv_bfloat16> ||
                          std::same_as<T, std::int8_t> || std::same_as<T, std::int16_t>;
/// The C++ types of histogram counters: unsigned 32-bit (std::uint32_t) or 64-bit (std::uint64_t, unsigned long
/// long) integers.
template <class T>
concept HistogramCounter = std::same_as<T, unsigned int> || std::same_as<T, unsigned long> ||
                           std::same_as<T, unsigned long long>;

/// The SampleType of a C++ sample type (std::uint8_t -> u8, float -> f32, ...).
template <HistogramSample T>
constexpr SampleType sample_type_of() {
  if constexpr (std::same_as<T, std::uint8_t>) return SampleType::u8;
  else if constexpr (std::same_as<T, std::uint16_t>) return SampleType::u16;
  else if constexpr (std::same_as<T, std::int32_t>) return SampleType::i32;
  else if constexpr (std::same_as<T, std::uint32_t>) return SampleType::u32;
  else if constexpr (std::same_as<T, float>) return SampleType::f32;
  else if constexpr (std::same_as<T, double>) return SampleType::f64;
  else if constexpr (std::same_as<T, __half>) return SampleType::f16;
  else if constexpr (std::same_as<T, __nv_bfloat16>) return SampleType::bf16;
  else if constexpr (std::same_as<T, std::int8_t>) return SampleType::i8;
  else return SampleType::i16;
}

class Histogram {
 public:
  struct Options {
    int device = -1;         ///< CUDA ordinal; -1 = the calling thread's current device
    std::string cache_path;  ///< empty = Cache::default_path()
    /// What the lookup must find (include/autotune/resolution.hpp): unset = $AUTOTUNE_REQUIRE, else any. With
    /// tuned or exact, construction throws NotTunedError (with the `autotune tune` command to run) instead of
    /// running the built-in default.
    std::optional<Requirement> require;
  };

  /// Resolves the configuration and loads the kernel. Throws UsageError for an invalid problem, NoDeviceError
  /// without a GPU, CacheError for an unreadable cache file, Error if NVRTC fails on the fallback.
  explicit Histogram(const HistogramProblem& problem, const Options& options);
  explicit Histogram(const HistogramProblem& problem) : Histogram(problem, Options{}) {}
  ~Histogram();
  Histogram(Histogram&&) noexcept;
  Histogram& operator=(Histogram&&) noexcept;

  /// Counts `n` samples at `d_samples` (device memory, aligned to the sample size) into `d_counts` (problem().bins
  /// counters in device memory), overwriting them. With several channels (problem().channels > 1) `n` counts
  /// pixels of interleaved channels, `d_counts` holds problem().counters() = active x bins counters (channel 0's
  /// bins, then channel 1's, ...), and pixels of 2 or 4 channels must start on a pixel (aligned to channels x the
  /// sample size: any cudaMalloc'd image). Asynchronous on `stream`. Throws UsageError for null pointers,
  /// a sample type other than problem().type (e.g. const float* for a u8 problem) or a counter width other than
  /// problem().counter_bits (std::uint32_t for 32, std::uint64_t for 64).
  template <HistogramSample Sample, HistogramCounter Counter>
  void operator()(const Sample* d_samples, std::uint64_t n, Counter* d_counts, cudaStream_t stream = nullptr) const {
    count(d_samples, sample_type_of<Sample>(), n, d_counts, 8 * sizeof(Counter), std::nullopt, stream);
  }
  /// The same with spans of device memory: n = d_samples.size() samples (d_samples.size() / channels pixels: a
  /// whole number of them); d_counts must hold at least problem().counters() counters (UsageError otherwise).
  template <class Sample, std::size_t SampleExtent, HistogramCounter Counter, std::size_t CountExtent>
    requires HistogramSample<std::remove_const_t<Sample>>
  void operator()(std::span<Sample, SampleExtent> d_samples, std::span<Counter, CountExtent> d_counts,
                  cudaStream_t stream = nullptr) const {
    count(d_samples.data(), sample_type_of<std::remove_const_t<Sample>>(), pixels_of(d_samples.size()),
          d_counts.data(), 8 * sizeof(Counter), d_counts.size(), stream);
  }
  /// A 2D region of interest (CUB's 2D HistogramEven and MultiHistogramEven): `rows` rows of `row_pixels` pixels
  /// (samples, for one channel), each starting `row_stride_bytes` after the one before (at least a row's bytes, a
  /// whole number of samples; for pixels of 2 or 4 channels a whole number of pixels), counted as one call of
  /// rows x row_pixels pixels (the size table's range for that many). One launch, as a 1D call: a padded image or
  /// a crop of a larger one costs about what its pixels cost contiguous.
  template <HistogramSample Sample, HistogramCounter Counter>
  void operator()(const Sample* d_samples, std::uint64_t row_pixels, std::uint64_t rows, std::size_t row_stride_bytes,
                  Counter* d_counts, cudaStream_t stream = nullptr) const {
    count_region(d_samples, sample_type_of<Sample>(), row_pixels, rows, row_stride_bytes, d_counts,
                 8 * sizeof(Counter), stream);
  }
  /// Untyped samples: `d_samples` must hold problem().type values (not checked).
  void operator()(const void* d_samples, std::uint64_t n, unsigned int* d_counts, cudaStream_t stream = nullptr) const;
  void operator()(const void* d_samples, std::uint64_t n, unsigned long long* d_counts,
                  cudaStream_t stream = nullptr) const;
  /// Untyped samples into std::uint64_t counters (unsigned long on Linux).
  template <HistogramCounter Counter>
    requires(!std::same_as<Counter, unsigned int> && !std::same_as<Counter, unsigned long long>)
  void operator()(const void* d_samples, std::uint64_t n, Counter* d_counts, cudaStream_t stream = nullptr) const {
    count(d_samples, std::nullopt, n, d_counts, 8 * sizeof(Counter), std::nullopt, stream);
  }

  const HistogramProblem& problem() const;
  /// How the configuration for problem().n (the size hint) was found; `sizes` holds the whole size table.
  const Resolution& resolution() const;
  /// The configuration a call with n samples runs: the loaded kernel of the size-table range holding n.
  const Config& config_for(std::uint64_t n) const;
  /// The size-table range (resolution().sizes) a call with n samples runs, with where its configuration came from.
  const SizeRange& range_for(std::uint64_t n) const;

 private:
  void count(const void* d_samples, std::optional<SampleType> sample_type, std::uint64_t n, void* d_counts,
             int counter_bits, std::optional<std::uint64_t> counts_size, cudaStream_t stream) const;
  void count_region(const void* d_samples, SampleType sample_type, std::uint64_t row_pixels, std::uint64_t rows,
                    std::size_t row_stride_bytes, void* d_counts, int counter_bits, cudaStream_t stream) const;
  /// Pixels in `samples` samples; UsageError when they are not whole pixels.
  std::uint64_t pixels_of(std::uint64_t samples) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autotune
