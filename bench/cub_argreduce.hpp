// The bar for arg-reductions: cub::DeviceReduce::ArgMin / ArgMax (CUDA 13's interface with separate value and index
// outputs), compiled by nvcc (bench/cub_argreduce.cu) and called from plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "bench/cub_reduce.hpp"  // CubValue

namespace autotune::bench {

/// Whether CubArgReduce is built for `type`: i32, f32 and f64 (as CubReduce), and f16, bf16, i8 and i16.
bool cub_argreduce_supports(CubValue type);

/// One cub::DeviceReduce::ArgMin/ArgMax call for n elements, with its temporary storage allocated once (outside any
/// timing). Types cub_argreduce_supports() refuses throw std::invalid_argument. It writes where autotune's
/// arg-reductions do: the value at byte 0 of `out` (1, 2, 4 or 8 bytes), the index (CUB's int64) at byte 8.
class CubArgReduce {
 public:
  CubArgReduce(CubValue type, bool argmax, std::uint64_t n);
  ~CubArgReduce();
  CubArgReduce(const CubArgReduce&) = delete;
  CubArgReduce& operator=(const CubArgReduce&) = delete;
  /// One call, asynchronous on `stream`.
  void run(const void* in, void* out, cudaStream_t stream) const;

 private:
  CubValue type_;
  bool argmax_;
  std::uint64_t n_;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

}  // namespace autotune::bench
