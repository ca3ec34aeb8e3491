#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <stdexcept>
#include <string>

#include "cub_reduce.hpp"

namespace autotune::bench {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// One CUB call; temp == nullptr asks for the temporary storage size. Out is the accumulator: CUB's Sum accumulates
// in the output type (dispatch: InitT = OutputT), so an i32 sum into a long long output adds in 64 bits.
template <class In, class Out>
cudaError_t call(CubOp op, void* temp, std::size_t& bytes, const void* in, void* out, std::uint64_t n,
                 cudaStream_t stream) {
  const auto* d_in = static_cast<const In*>(in);
  auto* d_out = static_cast<Out*>(out);
  const auto items = static_cast<std::int64_t>(n);
  switch (op) {
    case CubOp::sum: return cub::DeviceReduce::Sum(temp, bytes, d_in, d_out, items, stream);
    case CubOp::min: return cub::DeviceReduce::Min(temp, bytes, d_in, d_out, items, stream);
    case CubOp::max: return cub::DeviceReduce::Max(temp, bytes, d_in, d_out, items, stream);
    default: break;
  }
  return cudaErrorInvalidValue;
}

// Halves through TransformReduce with a float accumulator (what a user of CUB writes for a bf16 norm): the element
// converted and transformed to float, reduced in float; absmax stored back as the half (exact), the sums as float.
template <class H>
struct ToFloat {
  __device__ float operator()(H x) const { return static_cast<float>(x); }
};
template <class H>
struct AbsFloat {
  __device__ float operator()(H x) const { return fabsf(static_cast<float>(x)); }
};
template <class H>
struct SquareFloat {
  __device__ float operator()(H x) const {
    const float f = static_cast<float>(x);
    return f * f;
  }
};
struct MaxFloat {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct AddFloat {
  __device__ float operator()(float a, float b) const { return a + b; }
};

template <class H>
cudaError_t call_half(CubOp op, void* temp, std::size_t& bytes, const void* in, void* out, std::uint64_t n,
                      cudaStream_t stream) {
  const auto* d_in = static_cast<const H*>(in);
  const auto items = static_cast<std::int64_t>(n);
  switch (op) {
    case CubOp::sum:
      return cub::DeviceReduce::TransformReduce(temp, bytes, d_in, static_cast<float*>(out), items, AddFloat{},
                                                ToFloat<H>{}, 0.0f, stream);
    case CubOp::sumsq:
      return cub::DeviceReduce::TransformReduce(temp, bytes, d_in, static_cast<float*>(out), items, AddFloat{},
                                                SquareFloat<H>{}, 0.0f, stream);
    case CubOp::absmax:
      return cub::DeviceReduce::TransformReduce(temp, bytes, d_in, static_cast<H*>(out), items, MaxFloat{},
                                                AbsFloat<H>{}, 0.0f, stream);
    default: break;
  }
  return cudaErrorInvalidValue;
}

cudaError_t dispatch(CubValue type, CubOp op, void* temp, std::size_t& bytes, const void* in, void* out,
                     std::uint64_t n, cudaStream_t stream) {
  if (!cub_reduce_supports(type, op)) throw std::invalid_argument("CubReduce: no CUB call for this type and op");
  switch (type) {
    case CubValue::f16: return call_half<__half>(op, temp, bytes, in, out, n, stream);
    case CubValue::bf16: return call_half<__nv_bfloat16>(op, temp, bytes, in, out, n, stream);
    case CubValue::i32:
      return op == CubOp::sum ? call<int, long long>(op, temp, bytes, in, out, n, stream)
                              : call<int, int>(op, temp, bytes, in, out, n, stream);
    case CubValue::u32:
      return op == CubOp::sum ? call<unsigned, unsigned long long>(op, temp, bytes, in, out, n, stream)
                              : call<unsigned, unsigned>(op, temp, bytes, in, out, n, stream);
    case CubValue::i64: return call<long long, long long>(op, temp, bytes, in, out, n, stream);
    case CubValue::u64: return call<unsigned long long, unsigned long long>(op, temp, bytes, in, out, n, stream);
    case CubValue::f32: return call<float, float>(op, temp, bytes, in, out, n, stream);
    case CubValue::f64: return call<double, double>(op, temp, bytes, in, out, n, stream);
  }
  throw std::invalid_argument("CubReduce: unknown value type");
}

}  // namespace

bool cub_reduce_supports(CubValue type, CubOp op) {
  if (type == CubValue::i8 || type == CubValue::i16) return false;  // not instantiated
  if (type == CubValue::f16 || type == CubValue::bf16)
    return op == CubOp::sum || op == CubOp::absmax || op == CubOp::sumsq;
  return op == CubOp::sum || op == CubOp::min || op == CubOp::max;
}

CubReduce::CubReduce(CubValue type, CubOp op, std::uint64_t n) : type_(type), op_(op), n_(n) {
  check(dispatch(type, op, nullptr, temp_bytes_, nullptr, nullptr, n, nullptr), "cub::DeviceReduce (size query)");
  check(cudaMalloc(&temp_, temp_bytes_ ? temp_bytes_ : 1), "cudaMalloc (CUB temporary storage)");
}

CubReduce::~CubReduce() { cudaFree(temp_); }

void CubReduce::run(const void* in, void* out, cudaStream_t stream) const {
  std::size_t bytes = temp_bytes_;
  check(dispatch(type_, op_, temp_, bytes, in, out, n_, stream), "cub::DeviceReduce");
}

}  // namespace autotune::bench
