// The sample types of the histogram families, each with its name and properties: the one table that
// to_string(SampleType), parse_sample_type() and the command line's --type read. Internal to the library.
#pragma once

#include <cstddef>
#include <limits>
#include <string_view>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"

namespace autotune::histogram_samples {

// A sample type's properties; `value` and `name` make kSampleTypes the type's name table (core/enum_text.hpp).
struct SampleTypeInfo {
  SampleType value;
  std::string_view name;
  std::size_t size;
  double min, max;  // representable range (for integer types)
};

inline constexpr SampleTypeInfo kSampleTypes[] = {
    {SampleType::u8, "u8", 1, 0.0, 255.0},
    {SampleType::u16, "u16", 2, 0.0, 65535.0},
    {SampleType::i32, "i32", 4, -2147483648.0, 2147483647.0},
    {SampleType::u32, "u32", 4, 0.0, 4294967295.0},
    {SampleType::f32, "f32", 4, -std::numeric_limits<float>::max(), std::numeric_limits<float>::max()},
    {SampleType::f64, "f64", 8, -std::numeric_limits<double>::max(), std::numeric_limits<double>::max()},
    {SampleType::f16, "f16", 2, -65504.0, 65504.0},
    {SampleType::bf16, "bf16", 2, -3.3895313892515355e38, 3.3895313892515355e38},
    {SampleType::i8, "i8", 1, -128.0, 127.0},
    {SampleType::i16, "i16", 2, -32768.0, 32767.0},
};

/// The properties of sample type `t`.
inline const SampleTypeInfo& info(SampleType t) {
  for (const auto& i : kSampleTypes)
    if (i.value == t) return i;
  throw UsageError("unknown sample type");
}

}  // namespace autotune::histogram_samples
