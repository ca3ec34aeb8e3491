#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>
#include <string>

#include "cub_argreduce.hpp"

namespace autotune::bench {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// One CUB call; temp == nullptr asks for the temporary storage size. The value goes to byte 0 of `out`, the index
// (int64) to byte 8: the layout of autotune::ArgResult. Halves compare as CUB compares them (__half's and
// __nv_bfloat16's operators: as floats), i8 and i16 as C++ does (as int).
template <class T>
cudaError_t call(bool argmax, void* temp, std::size_t& bytes, const void* in, void* out, std::uint64_t n,
                 cudaStream_t stream) {
  const auto* d_in = static_cast<const T*>(in);
  auto* d_value = static_cast<T*>(out);
  auto* d_index = reinterpret_cast<::cuda::std::int64_t*>(static_cast<char*>(out) + 8);
  const auto items = static_cast<::cuda::std::int64_t>(n);
  return argmax ? cub::DeviceReduce::ArgMax(temp, bytes, d_in, d_value, d_index, items, stream)
                : cub::DeviceReduce::ArgMin(temp, bytes, d_in, d_value, d_index, items, stream);
}

cudaError_t dispatch(CubValue type, bool argmax, void* temp, std::size_t& bytes, const void* in, void* out,
                     std::uint64_t n, cudaStream_t stream) {
  switch (type) {
    case CubValue::i32: return call<int>(argmax, temp, bytes, in, out, n, stream);
    case CubValue::f32: return call<float>(argmax, temp, bytes, in, out, n, stream);
    case CubValue::f64: return call<double>(argmax, temp, bytes, in, out, n, stream);
    case CubValue::f16: return call<__half>(argmax, temp, bytes, in, out, n, stream);
    case CubValue::bf16: return call<__nv_bfloat16>(argmax, temp, bytes, in, out, n, stream);
    case CubValue::i8: return call<signed char>(argmax, temp, bytes, in, out, n, stream);
    case CubValue::i16: return call<short>(argmax, temp, bytes, in, out, n, stream);
    default: throw std::invalid_argument("CubArgReduce: only i32, f32, f64, f16, bf16, i8 and i16 inputs are built");
  }
}

}  // namespace

bool cub_argreduce_supports(CubValue type) {
  return type == CubValue::i32 || type == CubValue::f32 || type == CubValue::f64 || type == CubValue::f16 ||
         type == CubValue::bf16 || type == CubValue::i8 || type == CubValue::i16;
}

CubArgReduce::CubArgReduce(CubValue type, bool argmax, std::uint64_t n) : type_(type), argmax_(argmax), n_(n) {
  check(dispatch(type, argmax, nullptr, temp_bytes_, nullptr, nullptr, n, nullptr),
        "cub::DeviceReduce::ArgMin/ArgMax (size query)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (CUB temporary storage)");
}

CubArgReduce::~CubArgReduce() { cudaFree(temp_); }

void CubArgReduce::run(const void* in, void* out, cudaStream_t stream) const {
  std::size_t bytes = temp_bytes_;
  check(dispatch(type_, argmax_, temp_, bytes, in, out, n_, stream), "cub::DeviceReduce::ArgMin/ArgMax");
}

}  // namespace autotune::bench
