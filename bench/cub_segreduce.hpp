// The bar for segmented reductions: cub::DeviceSegmentedReduce (Sum, Min, Max, ArgMin, ArgMax) over int or int64
// begin/end offsets (CUB's OffsetT), compiled by nvcc (bench/cub_segreduce.cu) and called from plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "bench/cub_reduce.hpp"  // CubValue

namespace autotune::bench {

/// Operations, numbered as autotune::SegReduceOp.
enum class CubSegOp { sum = 0, min = 1, max = 2, argmin = 3, argmax = 4 };

/// Whether CubSegReduce has the pair: every operation of f32, f16 and bf16 values.
bool cub_segreduce_supports(CubValue type, CubSegOp op);

/// One cub::DeviceSegmentedReduce call, with its temporary storage allocated once, outside any timing.
///   f32: Sum into float, Min/Max into float, ArgMin/ArgMax into KeyValuePair<int, float>.
///   f16, bf16 (__half, __nv_bfloat16): Sum into float (Reduce with a float addition and a float 0: what a CUB user
///   writes to sum halves in float, as autotune's default accumulator), Min/Max into the half, ArgMin/ArgMax into
///   KeyValuePair<int, __half> / <int, __nv_bfloat16> ({int key; T value;}: value at byte 4, 8 bytes, as autotune's).
/// CUB's min/max of an empty segment is numeric_limits<T>::max() / lowest(), autotune's the identity (+-inf), and its
/// comparisons order no NaN: compare the two on non-empty segments of finite values.
class CubSegReduce {
 public:
  /// `wide_offsets`: begin/end are std::int64_t, else int. std::invalid_argument for a pair
  /// cub_segreduce_supports() refuses.
  CubSegReduce(CubSegOp op, std::uint64_t segments, bool wide_offsets = false, CubValue type = CubValue::f32);
  ~CubSegReduce();
  CubSegReduce(const CubSegReduce&) = delete;
  CubSegReduce& operator=(const CubSegReduce&) = delete;
  /// `in` holds values of the type; asynchronous on `stream`.
  void run(const void* in, const void* begin, const void* end, void* out, cudaStream_t stream) const;

 private:
  CubSegOp op_;
  CubValue type_;
  std::uint64_t segments_;
  bool wide_ = false;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

}  // namespace autotune::bench
