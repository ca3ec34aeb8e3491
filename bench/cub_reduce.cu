#include <cub/device/device_reduce.cuh>

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
  }
  return cudaErrorInvalidValue;
}

cudaError_t dispatch(CubValue type, CubOp op, void* temp, std::size_t& bytes, const void* in, void* out,
                     std::uint64_t n, cudaStream_t stream) {
  switch (type) {
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
