// What every runtime handle does once, at construction: find the device, look the problem up in the cache (the
// shared order of include/autotune/resolution.hpp), and produce the cubin to load (from the cache, or NVRTC).
#pragma once

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

/// `device` -1 = the calling thread's current device; `cache_path` empty = Cache::default_path(). A missing cache
/// file is a miss, not an error; an unreadable one is a CacheError.
Resolved resolve(const Problem& problem, int device, const std::string& cache_path);

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
