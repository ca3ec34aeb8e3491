#include <cub/device/device_segmented_reduce.cuh>

#include <stdexcept>
#include <string>

#include "cub_segreduce.hpp"

namespace autotune::bench {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class Off>
cudaError_t call(CubSegOp op, void* temp, std::size_t& bytes, const float* in, void* out, std::uint64_t segments,
                 const Off* begin, const Off* end, cudaStream_t stream) {
  const auto n = static_cast<::cuda::std::int64_t>(segments);
  using Pair = cub::KeyValuePair<int, float>;
  switch (op) {
    case CubSegOp::sum:
      return cub::DeviceSegmentedReduce::Sum(temp, bytes, in, static_cast<float*>(out), n, begin, end, stream);
    case CubSegOp::min:
      return cub::DeviceSegmentedReduce::Min(temp, bytes, in, static_cast<float*>(out), n, begin, end, stream);
    case CubSegOp::max:
      return cub::DeviceSegmentedReduce::Max(temp, bytes, in, static_cast<float*>(out), n, begin, end, stream);
    case CubSegOp::argmin:
      return cub::DeviceSegmentedReduce::ArgMin(temp, bytes, in, static_cast<Pair*>(out), n, begin, end, stream);
    case CubSegOp::argmax:
      return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, in, static_cast<Pair*>(out), n, begin, end, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

CubSegReduce::CubSegReduce(CubSegOp op, std::uint64_t segments, bool wide_offsets)
    : op_(op), segments_(segments), wide_(wide_offsets) {
  check(wide_ ? call<std::int64_t>(op, nullptr, temp_bytes_, nullptr, nullptr, segments, nullptr, nullptr, nullptr)
              : call<int>(op, nullptr, temp_bytes_, nullptr, nullptr, segments, nullptr, nullptr, nullptr),
        "cub::DeviceSegmentedReduce (size query)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (CUB temporary storage)");
}

CubSegReduce::~CubSegReduce() { cudaFree(temp_); }

void CubSegReduce::run(const float* in, const void* begin, const void* end, void* out, cudaStream_t stream) const {
  std::size_t bytes = temp_bytes_;
  check(wide_ ? call(op_, temp_, bytes, in, out, segments_, static_cast<const std::int64_t*>(begin),
                     static_cast<const std::int64_t*>(end), stream)
              : call(op_, temp_, bytes, in, out, segments_, static_cast<const int*>(begin),
                     static_cast<const int*>(end), stream),
        "cub::DeviceSegmentedReduce");
}

}  // namespace autotune::bench
