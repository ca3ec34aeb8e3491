// How a histogram sample type crosses into a kernel template, for both histogram families' preamble generators
// (kernel_templates/histogram/source.cpp, kernel_templates/histogram_range/source.cpp): the C++ type the kernel
// loads, and for 16-bit floats which kind they are. NVRTC compiles the templates without the toolkit's headers, so
// f16 and bf16 samples are loaded as their bits (unsigned short) and converted to float by
// kernel_templates/common.cuh's half_bits_to_float<kHalfKind>.
#pragma once

#include <string_view>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"

namespace autotune::histogram_samples {

/// The C++ type of one sample in a kernel.
inline std::string_view cuda_type(SampleType t) {
  switch (t) {
    case SampleType::u8: return "unsigned char";
    case SampleType::u16: return "unsigned short";
    case SampleType::i32: return "int";
    case SampleType::u32: return "unsigned int";
    case SampleType::f32: return "float";
    case SampleType::f64: return "double";
    case SampleType::f16: return "unsigned short";  // the bits of a __half
    case SampleType::bf16: return "unsigned short";  // the bits of a __nv_bfloat16
    case SampleType::i8: return "signed char";
    case SampleType::i16: return "short";
  }
  throw UsageError("unknown sample type");
}

/// kHalfKind of the preamble: 0 for every type but the halves, 1 for f16, 2 for bf16 (common.cuh's numbering).
inline int half_kind(SampleType t) { return t == SampleType::f16 ? 1 : t == SampleType::bf16 ? 2 : 0; }

}  // namespace autotune::histogram_samples
