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

struct Resolved {
  int ordinal = 0;
  DeviceInfo device;
  Resolution resolution;
  std::vector<char> cubin;
};

/// `device` -1 = the calling thread's current device; `cache_path` empty = Cache::default_path(). A missing or
/// unreadable cache file is a miss (said in the message), not an error. `require` (else $AUTOTUNE_REQUIRE, else
/// any): NotTunedError, naming the `autotune tune` command to run, when the lookup's source does not meet it.
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
