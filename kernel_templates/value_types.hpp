// The value types of reductions, as the problem, the configuration and the generated source all need them.
// Shared by the reduction families (reduce, argreduce, segreduce: kernel_templates/ holds what several families use).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "autotune/error.hpp"
#include "autotune/reduce_problem.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/half_host.hpp"

namespace autotune::reduce_detail {

/// How a kernel reads an element: as itself, or as the 16 bits of a half that it converts to float first.
enum class Storage { plain, f16, bf16 };

/// A value type's properties; `value` and `name` make kValues the type's name table (core/enum_text.hpp).
struct ValueInfo {
  ValueType value;
  std::string_view name;
  std::size_t size;
  bool is_float;
  bool is_signed;
  std::string_view cuda;           // the type in the kernel (halves: their bits, converted by the template)
  std::string_view cuda_unsigned;  // its unsigned twin: integer sums add in it, so wrapping is defined
  Storage storage;
  /// The type min and max compute in: the value itself for the 32- and 64-bit types, float for halves (exact), int
  /// for i8 and i16 (what C++ promotes them to, and what __reduce_{min,max}_sync take).
  ValueType compute;
};

// The 32- and 64-bit types first, in their order of before the narrow ones came: enum values never move.
inline constexpr ValueInfo kValues[] = {
    {ValueType::i32, "i32", 4, false, true, "int", "unsigned int", Storage::plain, ValueType::i32},
    {ValueType::u32, "u32", 4, false, false, "unsigned int", "unsigned int", Storage::plain, ValueType::u32},
    {ValueType::i64, "i64", 8, false, true, "long long", "unsigned long long", Storage::plain, ValueType::i64},
    {ValueType::u64, "u64", 8, false, false, "unsigned long long", "unsigned long long", Storage::plain,
     ValueType::u64},
    {ValueType::f32, "f32", 4, true, true, "float", "float", Storage::plain, ValueType::f32},
    {ValueType::f64, "f64", 8, true, true, "double", "double", Storage::plain, ValueType::f64},
    {ValueType::f16, "f16", 2, true, true, "unsigned short", "unsigned short", Storage::f16, ValueType::f32},
    {ValueType::bf16, "bf16", 2, true, true, "unsigned short", "unsigned short", Storage::bf16, ValueType::f32},
    {ValueType::i8, "i8", 1, false, true, "signed char", "unsigned char", Storage::plain, ValueType::i32},
    {ValueType::i16, "i16", 2, false, true, "short", "unsigned short", Storage::plain, ValueType::i32},
};

inline const ValueInfo& info(ValueType t) {
  for (const auto& i : kValues)
    if (i.value == t) return i;
  throw UsageError("unknown value type");
}

/// "i32, u32, ...": every type's name, as messages list what parse_value_type() takes.
inline std::string value_type_names() { return enum_text::names(kValues); }

/// The 32- and 64-bit types: what accumulators, atomics and the template's Bits<> handle.
inline bool is_wide(ValueType t) { return info(t).size >= 4; }

inline constexpr enum_text::Name<Storage> kStorageNames[] = {
    {Storage::plain, "plain"}, {Storage::f16, "f16"}, {Storage::bf16, "bf16"}};

/// The enumerator of a Storage in the templates' `enum class Storage { plain, f16, bf16 }` (the preambles).
inline std::string_view storage_name(Storage s) { return enum_text::name_of(kStorageNames, s); }

/// +infinity of a float type (the exponent's bits all set, the mantissa's clear); 0 for integers.
inline std::uint64_t infinity_bits(ValueType t) {
  switch (t) {
    case ValueType::f16: return 0x7C00u;
    case ValueType::bf16: return 0x7F80u;
    case ValueType::f32: return 0x7F800000u;
    case ValueType::f64: return 0x7FF0000000000000ull;
    default: return 0;
  }
}

/// The canonical quiet NaN of a float type (reduce_problem.hpp: positive, the top mantissa bit only); 0 for integers.
inline std::uint64_t nan_bits(ValueType t) {
  const std::uint64_t inf = infinity_bits(t);
  return inf | ((inf & (~inf + 1)) >> 1);  // the mantissa's top bit: the bit below the exponent's lowest
}

/// The bits, zero-extended, of the largest value of `t` (`highest`) or its smallest. `finite`: numeric_limits' max()
/// and lowest(), CUB's values for an empty arg-reduction (a half's those of cuda::std::numeric_limits<__half> and
/// <__nv_bfloat16>, cccl's numeric_limits_ext.h: the largest finite value); else a float's are its infinities, what
/// a min or a max starts from (reduce's identity_bits, the arg-reductions' identities).
inline std::uint64_t extreme_bits(ValueType t, bool highest, bool finite) {
  const ValueInfo& i = info(t);
  const std::uint64_t sign = std::uint64_t{1} << (8 * i.size - 1);
  if (!i.is_signed) return highest ? sign | (sign - 1) : 0;
  // The largest is the float's infinity (or the finite value just below it), a signed integer's the bits below the
  // sign; the smallest is its negation: the sign bit set (two's complement's lowest for integers).
  const std::uint64_t top = i.is_float ? infinity_bits(t) - (finite ? 1 : 0) : sign - 1;
  return highest ? top : i.is_float ? top | sign : sign;
}

/// `bits` of a value of type `from` as the same value of type `to`, the type a kernel computes it in (work_type):
/// the bits themselves, a half widened to float (exactly), an i8 or i16 sign-extended to int.
inline std::uint64_t widened_bits(ValueType from, std::uint64_t bits, ValueType to) {
  if (from == to) return bits;
  if (from == ValueType::f16 || from == ValueType::bf16)
    return std::bit_cast<std::uint32_t>(half_to_float(from, static_cast<std::uint16_t>(bits)));
  const int width = 8 * static_cast<int>(info(from).size);
  const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits << (32 - width))) >> (32 - width);
  return static_cast<std::uint32_t>(v);
}

}  // namespace autotune::reduce_detail

namespace autotune::reduce_detail {

/// The type the kernel's arithmetic is done in (work_t, before integer sums take its unsigned twin): the accumulator,
/// except for min and max of the narrow types, which compute in float (halves) or int (i8, i16) and convert the
/// result back (exactly: it is one of the elements). Its size is that of the partials in shared memory and the
/// workspace.
ValueType work_type(const ReduceProblem& problem);

/// Whether blocks (or threads) may combine their values into the output with atomics: only when the work type is the
/// result type (no conversion at the end), the result is no root (l2norm) and the operator is a built-in one.
bool takes_atomics(const ReduceProblem& problem);

/// Whether blocks may combine their values with atomics into a word of the work type in the workspace, which the last
/// block converts and writes (Finish::atomic_last): a built-in operator whose work type is 4 or 8 bytes wide (a half's
/// or a narrow integer's result is converted once, by the last block). Float sums also need fast mode (reduce_violation).
bool takes_word_atomics(const ReduceProblem& problem);

}  // namespace autotune::reduce_detail
