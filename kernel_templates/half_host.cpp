#include "kernel_templates/half_host.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>

#include "autotune/error.hpp"

namespace autotune::reduce_detail {

float half_to_float(ValueType type, std::uint16_t bits) {
  if (type == ValueType::f16) {
    __half_raw raw;
    raw.x = bits;
    return __half2float(__half(raw));
  }
  if (type == ValueType::bf16) {
    __nv_bfloat16_raw raw;
    raw.x = bits;
    return __bfloat162float(__nv_bfloat16(raw));
  }
  throw UsageError("half_to_float: not a half type");
}

std::uint16_t float_to_half(ValueType type, float v) {
  std::uint16_t bits = 0;
  if (type == ValueType::f16) {
    const __half h = __float2half_rn(v);
    std::memcpy(&bits, &h, sizeof bits);
    return bits;
  }
  if (type == ValueType::bf16) {
    const __nv_bfloat16 h = __float2bfloat16_rn(v);
    std::memcpy(&bits, &h, sizeof bits);
    return bits;
  }
  throw UsageError("float_to_half: not a half type");
}

}  // namespace autotune::reduce_detail
