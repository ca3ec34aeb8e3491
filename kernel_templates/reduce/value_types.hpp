// The value types of reductions, as the problem, the configuration and the generated source all need them.
// Internal to the reduction family.
#pragma once

#include <cstddef>
#include <string_view>

#include "autotune/error.hpp"
#include "autotune/reduce_problem.hpp"

namespace autotune::reduce_detail {

struct ValueInfo {
  ValueType type;
  std::string_view name;
  std::size_t size;
  bool is_float;
  bool is_signed;
  std::string_view cuda;           // the type in the kernel
  std::string_view cuda_unsigned;  // its unsigned twin: integer sums add in it, so wrapping is defined
};

inline constexpr ValueInfo kValues[] = {
    {ValueType::i32, "i32", 4, false, true, "int", "unsigned int"},
    {ValueType::u32, "u32", 4, false, false, "unsigned int", "unsigned int"},
    {ValueType::i64, "i64", 8, false, true, "long long", "unsigned long long"},
    {ValueType::u64, "u64", 8, false, false, "unsigned long long", "unsigned long long"},
    {ValueType::f32, "f32", 4, true, true, "float", "float"},
    {ValueType::f64, "f64", 8, true, true, "double", "double"},
};

inline const ValueInfo& info(ValueType t) {
  for (const auto& i : kValues)
    if (i.type == t) return i;
  throw UsageError("unknown value type");
}

}  // namespace autotune::reduce_detail
