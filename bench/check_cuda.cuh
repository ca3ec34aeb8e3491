// CHECK_CUDA for the standalone CUDA benchmarks (fence_bench.cu, load_bench.cu), which link only the CUDA runtime:
// a failed runtime call prints the program's name (kBenchName, which the file defines before including this), the
// call and CUDA's message, and exits 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                                  \
  do {                                                                                    \
    const cudaError_t e = (call);                                                         \
    if (e != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s: %s: %s\n", kBenchName, #call, cudaGetErrorString(e));    \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)
