// What every runtime handle does once, at construction: find the device, look the problem up in the cache (the
// shared order of include/autotune/resolution.hpp), and produce the cubin to load (from the cache, or NVRTC).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// One distinct configuration of a handle's size table and the cubin to load for it (identical configurations of
/// several ranges share one).
struct ResolvedKernel {
  Config config;
  std::vector<char> cubin;
  bool compiled = false;  ///< NVRTC produced the cubin (no usable one in the cache)
};

struct Resolved {
  int ordinal = 0;
  DeviceInfo device;
  Resolution resolution;               ///< resolution.sizes: the size table
  std::vector<ResolvedKernel> kernels;  ///< one per distinct configuration of resolution.sizes, in order of first use
  std::vector<std::size_t> range_kernel;  ///< per range of resolution.sizes: its index in kernels
  std::size_t hint_kernel = 0;            ///< the index in kernels of the configuration for problem.n

  const ResolvedKernel& at_hint() const { return kernels.at(hint_kernel); }
};

/// `device` -1 = the calling thread's current device; `cache_path` empty = Cache::default_path(). A missing or
/// unreadable cache file is a miss (said in the message), not an error. `require` (else $AUTOTUNE_REQUIRE, else
/// any): NotTunedError, naming the `autotune tune` command to run, when the size table does not meet it
/// (size_table_violation: with tuned, every range measured; with exact, problem.n tuned exactly, or for n = 0 every
/// range from tuned sizes of the shape on this model). The table is lookup_sizes'; each distinct configuration's
/// cubin comes from a winner of that configuration whose stored cubin is usable, else from NVRTC.
Resolved resolve(const Problem& problem, int device, const std::string& cache_path,
                 std::optional<Requirement> require = std::nullopt);

/// The requirement in force: `given`, else $AUTOTUNE_REQUIRE (UsageError for a value other than any, tuned,
/// exact), else Requirement::any.
Requirement effective_requirement(std::optional<Requirement> given);

/// Runs `load` with `ordinal` as the current device, restoring the caller's current device afterwards.
template <class F>
void with_device(int ordinal, F&& load);

}  // namespace autotune

#include "core/cuda.hpp"

namespace autotune {

template <class F>
void with_device(int ordinal, F&& load) {
  int previous = 0;
  AUTOTUNE_CUDA(cudaGetDevice(&previous));
  if (previous != ordinal) AUTOTUNE_CUDA(cudaSetDevice(ordinal));
  try {
    load();
  } catch (...) {
    if (previous != ordinal) cudaSetDevice(previous);
    throw;
  }
  if (previous != ordinal) AUTOTUNE_CUDA(cudaSetDevice(previous));
}

}  // namespace autotune
