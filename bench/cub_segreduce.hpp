// The bar for segmented reductions: cub::DeviceSegmentedReduce (Sum, Min, Max, ArgMin, ArgMax) over int or int64
// begin/end offsets (CUB's OffsetT), compiled by nvcc (bench/cub_segreduce.cu) and called from plain C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace autotune::bench {

/// Operations, numbered as autotune::SegReduceOp.
enum class CubSegOp { sum = 0, min = 1, max = 2, argmin = 3, argmax = 4 };

/// One cub::DeviceSegmentedReduce call over f32 values (sum into float; argmin/argmax into KeyValuePair<int,float>),
/// with its temporary storage allocated once, outside any timing.
class CubSegReduce {
 public:
  /// `wide_offsets`: begin/end are std::int64_t, else int.
  CubSegReduce(CubSegOp op, std::uint64_t segments, bool wide_offsets = false);
  ~CubSegReduce();
  CubSegReduce(const CubSegReduce&) = delete;
  CubSegReduce& operator=(const CubSegReduce&) = delete;
  void run(const float* in, const void* begin, const void* end, void* out, cudaStream_t stream) const;

 private:
  CubSegOp op_;
  std::uint64_t segments_;
  bool wide_ = false;
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

}  // namespace autotune::bench
