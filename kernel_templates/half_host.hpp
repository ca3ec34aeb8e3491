// f16 and bf16 on the host: exact conversion to float and round-to-nearest-even from float, by the host code of
// CUDA's own cuda_fp16.h / cuda_bf16.h (inline functions; nothing is linked). Used by the value families' references
// (reduction_reference.cpp); the CPU tests check it against known bit patterns.
#pragma once

#include <cstdint>

#include "autotune/reduce_problem.hpp"

namespace autotune::reduce_detail {

/// The value of the f16 or bf16 `bits` (type f16 or bf16), exactly.
float half_to_float(ValueType type, std::uint16_t bits);
/// `v` rounded to the nearest f16 or bf16 (ties to even; NaN stays NaN, overflow gives infinity).
std::uint16_t float_to_half(ValueType type, float v);

}  // namespace autotune::reduce_detail
