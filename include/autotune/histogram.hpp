// The runtime API for histograms: ask for the tuned launcher of a problem on a GPU, then call it.
//
//   autotune::HistogramProblem p{.type = autotune::SampleType::u8, .bins = 256, .lower = 0, .upper = 256, .n = n};
//   autotune::Histogram histogram(p);                 // looks the winner up in the cache, loads it once
//   histogram(d_samples, n, d_counts, stream);        // zeroes d_counts, then one kernel launch
//
// Thread-safety: construction is independent per object. Calls on one handle must be ordered (one stream, or
// synchronized streams): a configuration that merges in the last block owns one workspace per handle. Use one
// handle per stream for concurrent calls. The application's current device and context are used, never replaced.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "autotune/config.hpp"
#include "autotune/problem.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // the same declaration as CUDA's driver_types.h

namespace autotune {

/// Where a handle's configuration came from, best first.
enum class ConfigSource {
  exact,         ///< tuned for exactly this problem on this GPU model
  nearest_size,  ///< tuned for the same histogram at another n on this GPU model
  fallback,      ///< nothing tuned applies: the built-in safe default
};
std::string_view to_string(ConfigSource s);

struct Resolution {
  ConfigSource source = ConfigSource::fallback;
  HistogramConfig config;
  std::string model_key;      ///< the GPU model the lookup used
  std::string cache_path;     ///< the cache file consulted (may not exist)
  std::uint64_t tuned_n = 0;  ///< n of the measured problem the configuration comes from (0 for fallback)
  bool compiled = false;      ///< true when NVRTC ran because the cache had no cubin for this GPU
  std::string message;        ///< one line saying all of the above, for logs
};

class Histogram {
 public:
  struct Options {
    int device = -1;         ///< CUDA ordinal; -1 = the calling thread's current device
    std::string cache_path;  ///< empty = Cache::default_path()
  };

  /// Resolves the configuration and loads the kernel. Throws UsageError for an invalid problem, NoDeviceError
  /// without a GPU, CacheError for an unreadable cache file, Error if NVRTC fails on the fallback.
  explicit Histogram(const HistogramProblem& problem, const Options& options);
  explicit Histogram(const HistogramProblem& problem) : Histogram(problem, Options{}) {}
  ~Histogram();
  Histogram(Histogram&&) noexcept;
  Histogram& operator=(Histogram&&) noexcept;

  /// Counts `n` samples at `d_samples` (device memory of problem().type, aligned to the sample size) into
  /// `d_counts` (problem().bins counters in device memory), overwriting them. Asynchronous on `stream`.
  /// Throws UsageError for null pointers or a counter width that disagrees with problem().counter_bits.
  void operator()(const void* d_samples, std::uint64_t n, unsigned int* d_counts, cudaStream_t stream = nullptr) const;
  void operator()(const void* d_samples, std::uint64_t n, unsigned long long* d_counts,
                  cudaStream_t stream = nullptr) const;

  const HistogramProblem& problem() const;
  const Resolution& resolution() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autotune
