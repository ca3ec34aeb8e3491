#include <cub/device/device_segmented_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cub_segreduce.hpp"

namespace autotune::bench {

// The layout autotune's argmin/argmax results copy (segmented_reduce_problem.hpp, segreduce.cu's kResultBytes):
// {int key; T value;}, the value at byte 4 and 8 bytes in all for the 1-, 2- and 4-byte types.
template <class T>
using Pair = cub::KeyValuePair<int, T>;
static_assert(sizeof(Pair<__half>) == 8 && offsetof(Pair<__half>, value) == 4, "KeyValuePair<int, __half>");
static_assert(sizeof(Pair<__nv_bfloat16>) == 8 && offsetof(Pair<__nv_bfloat16>, value) == 4,
              "KeyValuePair<int, __nv_bfloat16>");
static_assert(sizeof(Pair<std::int8_t>) == 8 && offsetof(Pair<std::int8_t>, value) == 4, "KeyValuePair<int, int8_t>");
static_assert(sizeof(Pair<std::int16_t>) == 8 && offsetof(Pair<std::int16_t>, value) == 4,
              "KeyValuePair<int, int16_t>");
static_assert(sizeof(Pair<float>) == 8 && offsetof(Pair<float>, value) == 4, "KeyValuePair<int, float>");
static_assert(sizeof(Pair<double>) == 16 && offsetof(Pair<double>, value) == 8, "KeyValuePair<int, double>");

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// A sum of halves in float: each element converted (exactly), added in float.
struct AddFloat {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// T: float, __half or __nv_bfloat16; a sum into float.
template <class T, class Off>
cudaError_t call(CubSegOp op, void* temp, std::size_t& bytes, const void* in, void* out, std::uint64_t segments,
                 const Off* begin, const Off* end, cudaStream_t stream) {
  const auto n = static_cast<::cuda::std::int64_t>(segments);
  const T* d_in = static_cast<const T*>(in);
  switch (op) {
    case CubSegOp::sum:
      if constexpr (std::is_same_v<T, float>)
        return cub::DeviceSegmentedReduce::Sum(temp, bytes, d_in, static_cast<float*>(out), n, begin, end, stream);
      else
        return cub::DeviceSegmentedReduce::Reduce(temp, bytes, d_in, static_cast<float*>(out), n, begin, end,
                                                  AddFloat{}, 0.0f, stream);
    case CubSegOp::min:
      return cub::DeviceSegmentedReduce::Min(temp, bytes, d_in, static_cast<T*>(out), n, begin, end, stream);
    case CubSegOp::max:
      return cub::DeviceSegmentedReduce::Max(temp, bytes, d_in, static_cast<T*>(out), n, begin, end, stream);
    case CubSegOp::argmin:
      return cub::DeviceSegmentedReduce::ArgMin(temp, bytes, d_in, static_cast<Pair<T>*>(out), n, begin, end, stream);
    case CubSegOp::argmax:
      return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, d_in, static_cast<Pair<T>*>(out), n, begin, end, stream);
  }
  return cudaErrorInvalidValue;
}

template <class Off>
cudaError_t dispatch(CubValue type, CubSegOp op, void* temp, std::size_t& bytes, const void* in, void* out,
                     std::uint64_t segments, const Off* begin, const Off* end, cudaStream_t stream) {
  switch (type) {
    case CubValue::f32: return call<float>(op, temp, bytes, in, out, segments, begin, end, stream);
    case CubValue::f16: return call<__half>(op, temp, bytes, in, out, segments, begin, end, stream);
    case CubValue::bf16: return call<__nv_bfloat16>(op, temp, bytes, in, out, segments, begin, end, stream);
    default: break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace

bool cub_segreduce_supports(CubValue type, CubSegOp op) {
  const bool known_op = static_cast<int>(op) >= 0 && static_cast<int>(op) <= 4;
  return known_op && (type == CubValue::f32 || type == CubValue::f16 || type == CubValue::bf16);
}

CubSegReduce::CubSegReduce(CubSegOp op, std::uint64_t segments, bool wide_offsets, CubValue type)
    : op_(op), type_(type), segments_(segments), wide_(wide_offsets) {
  if (!cub_segreduce_supports(type, op))
    throw std::invalid_argument("CubSegReduce: f32, f16 and bf16 values only (sum, min, max, argmin, argmax)");
  check(wide_ ? dispatch<std::int64_t>(type, op, nullptr, temp_bytes_, nullptr, nullptr, segments, nullptr, nullptr,
                                       nullptr)
              : dispatch<int>(type, op, nullptr, temp_bytes_, nullptr, nullptr, segments, nullptr, nullptr, nullptr),
        "cub::DeviceSegmentedReduce (size query)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (CUB temporary storage)");
}

CubSegReduce::~CubSegReduce() { cudaFree(temp_); }

void CubSegReduce::run(const void* in, const void* begin, const void* end, void* out, cudaStream_t stream) const {
  std::size_t bytes = temp_bytes_;
  check(wide_ ? dispatch(type_, op_, temp_, bytes, in, out, segments_, static_cast<const std::int64_t*>(begin),
                         static_cast<const std::int64_t*>(end), stream)
              : dispatch(type_, op_, temp_, bytes, in, out, segments_, static_cast<const int*>(begin),
                         static_cast<const int*>(end), stream),
        "cub::DeviceSegmentedReduce");
}

}  // namespace autotune::bench
