// The bar for reductions: cub::DeviceReduce::Sum / Min / Max, and TransformReduce with a float accumulator for the
// halves' sum, absmax and sum of squares, compiled by nvcc (bench/cub_reduce.cu) and called from plain C++ so the
// benchmark driver needs no CUDA compiler of its own.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace autotune::bench {

/// Value types, numbered as autotune::ValueType (this header stays free of C++20 for nvcc's C++17).
enum class CubValue { i32 = 0, u32 = 1, i64 = 2, u64 = 3, f32 = 4, f64 = 5, f16 = 6, bf16 = 7, i8 = 8, i16 = 9 };
/// Operations, numbered as autotune::ReduceOp.
enum class CubOp { sum = 0, min = 1, max = 2, absmax = 3, sumsq = 4 };

/// Whether CubReduce has the pair: Sum/Min/Max of the 32- and 64-bit types; sum, absmax and sumsq of f16 and bf16
/// (TransformReduce; absmax of halves writes the half, the sums a float, as autotune's defaults).
bool cub_reduce_supports(CubValue type, CubOp op);

/// One cub::DeviceReduce call for n elements, with its temporary storage allocated once (outside any timing).
/// Sums accumulate as autotune's defaults do (i32 into i64, u32 into u64: CUB accumulates in the output type; halves
/// in float), min/max in the input type. Throws std::invalid_argument for a pair cub_reduce_supports() refuses.
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
