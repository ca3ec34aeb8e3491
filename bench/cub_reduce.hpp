// The bar for reductions: cub::DeviceReduce::Sum / Min / Max, compiled by nvcc (bench/cub_reduce.cu) and called
// from plain C++ so the benchmark driver needs no CUDA compiler of its own.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace autotune::bench {

/// Value types, numbered as autotune::ValueType (this header stays free of C++20 for nvcc's C++17).
enum class CubValue { i32 = 0, u32 = 1, i64 = 2, u64 = 3, f32 = 4, f64 = 5 };
/// Operations, numbered as autotune::ReduceOp.
enum class CubOp { sum = 0, min = 1, max = 2 };

/// One cub::DeviceReduce call for n elements, with its temporary storage allocated once (outside any timing).
/// Every ValueType: sums accumulate as autotune's defaults do (i32 into i64, u32 into u64: CUB accumulates in the
/// output type), min/max in the input type.
class CubReduce {
 public:
  CubReduce(CubValue type, CubOp op, std::uint64_t n);
  ~CubReduce();
  CubReduce(const CubReduce&) = delete;
  CubReduce& operator=(const CubReduce&) = delete;
  /// One call: reduces n elements at `in` into one value at `out` (i64 for an i32 sum, else the input type).
  /// Asynchronous on `stream`.
  void run(const void* in, void* out, cudaStream_t stream) const;

 private:
  CubValue type_;
  CubOp op_;
  std::uint64_t n_;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

}  // namespace autotune::bench
