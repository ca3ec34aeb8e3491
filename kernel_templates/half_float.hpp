// 16-bit floats on the host: IEEE binary16 (CUDA's __half) and bfloat16 (__nv_bfloat16) as their bits, converted
// to and from float without the CUDA headers (the CPU references and generators of the histogram families use them;
// the kernel templates convert with kernel_templates/common.cuh's half_bits_to_float). Every half value is a float,
// so to_float is exact; from_float rounds to nearest, ties to even, as __float2half_rn and __float2bfloat16_rn do.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace autotune {

struct F16 {
  std::uint16_t bits = 0;
};
struct BF16 {
  std::uint16_t bits = 0;
};
static_assert(sizeof(F16) == 2 && sizeof(BF16) == 2, "halves are their 16 bits");

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, F16> || std::is_same_v<T, BF16>;

inline float to_float(BF16 h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h.bits) << 16); }

inline float to_float(F16 h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
  const std::uint32_t exp = (h.bits >> 10) & 0x1Fu, man = h.bits & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (man << 13));  // infinity, NaN (payload kept)
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
  // Zero or subnormal: man * 2^-24, exact in float.
  const float magnitude = static_cast<float>(man) * 0x1p-24f;
  return sign ? -magnitude : magnitude;
}

inline BF16 bf16_from_float(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return BF16{static_cast<std::uint16_t>((u >> 16) | 0x40u)};  // quiet NaN
  const std::uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
  return BF16{static_cast<std::uint16_t>(rounded >> 16)};
}

inline F16 f16_from_float(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return F16{static_cast<std::uint16_t>(sign | 0x7E00u)};  // NaN
  if (a >= 0x477FF000u) return F16{static_cast<std::uint16_t>(sign | 0x7C00u)};  // rounds to infinity (>= 65520)
  if (a < 0x38800000u) {
    // Below the smallest normal half (2^-14): a multiple of 2^-24, rounded to nearest even by the float arithmetic
    // (the product is exact in float, the conversion rounds ties to even).
    const float scaled = std::bit_cast<float>(a) * 0x1p24f;
    const float whole = static_cast<float>(static_cast<std::uint32_t>(scaled));
    const float frac = scaled - whole;
    std::uint32_t m = static_cast<std::uint32_t>(whole);
    if (frac > 0.5f || (frac == 0.5f && (m & 1u))) ++m;
    return F16{static_cast<std::uint16_t>(sign | m)};  // m = 1024 is the smallest normal: the bits agree
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even (a carry moves the exponent).
  const std::uint32_t rebiased = a - (112u << 23);
  const std::uint32_t rounded = rebiased + 0xFFFu + ((rebiased >> 13) & 1u);
  return F16{static_cast<std::uint16_t>(sign | (rounded >> 13))};
}

}  // namespace autotune
