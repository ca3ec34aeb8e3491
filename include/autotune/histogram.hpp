// The runtime API for histograms: ask for the tuned launcher of a problem on a GPU, then call it.
//
//   autotune::HistogramProblem p{.type = autotune::SampleType::u8, .bins = 256, .lower = 0, .upper = 256, .n = n};
//   autotune::Histogram histogram(p);                 // looks the winner up in the cache, loads it once
//   histogram(d_samples, n, d_counts, stream);        // zeroes d_counts, then one kernel launch
//
// Thread-safety: handles may be constructed from several threads at once. One handle may be called from several
// host threads at once, on any streams, and calls may be captured into CUDA graphs. A configuration that merges in
// one launch (the last block, or self_zero) needs a workspace that no concurrent launch shares: the handle allocates 8 at construction and
// each stream claims one on its first call (lock-free) and keeps it, so after resolution a call is one kernel
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
#include <optional>
#include <string>

#include "autotune/histogram_problem.hpp"
#include "autotune/resolution.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // the same declaration as CUDA's driver_types.h

namespace autotune {

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
