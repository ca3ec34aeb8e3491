// Generates the preamble of compile-time constants that turns kernel_templates/segreduce/segreduce.cu into one variant.
#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <limits>
#include <utility>

#include "autotune/error.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "embedded.hpp"
#include "kernel_templates/half_host.hpp"
#include "kernel_templates/preamble.hpp"
#include "kernel_templates/user_op.hpp"
#include "kernel_templates/value_types.hpp"
#include "kernel_templates/segreduce/enums.hpp"
#include "kernel_templates/segreduce/workspace_layout.hpp"

namespace autotune {

namespace {

using reduce_detail::info;
using reduce_detail::nan_bits;
using reduce_detail::storage_name;

// The bits of numeric_limits<T>::max() (argmin) or lowest() (argmax) of the input type: CUB's value for an empty
// segment (device_segmented_reduce.cuh). The halves' are cuda::std::numeric_limits<__half> / <__nv_bfloat16>'s
// (cccl/cuda/std/__limits/numeric_limits_ext.h): the largest finite value, not infinity.
std::uint64_t arg_empty_bits(ValueType t, bool max) {
  auto bits = [](auto v) {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
  };
  switch (t) {
    case ValueType::i32: return bits(max ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::lowest());
    case ValueType::u32: return bits(max ? std::numeric_limits<std::uint32_t>::max() : 0u);
    case ValueType::i64: return bits(max ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::lowest());
    case ValueType::u64: return bits(max ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t{0});
    case ValueType::f32: return bits(max ? std::numeric_limits<float>::max() : std::numeric_limits<float>::lowest());
    case ValueType::f64: return bits(max ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest());
    case ValueType::f16: return max ? 0x7BFFu : 0xFBFFu;
    case ValueType::bf16: return max ? 0x7F7Fu : 0xFF7Fu;
    case ValueType::i8: return bits(max ? std::numeric_limits<std::int8_t>::max() : std::numeric_limits<std::int8_t>::lowest());
    case ValueType::i16: return bits(max ? std::numeric_limits<std::int16_t>::max() : std::numeric_limits<std::int16_t>::lowest());
  }
  return 0;
}

// `bits` of type `from` (the identity of the result type) as the same value of the work type `work`: itself, a
// half widened to float (exactly), an i8/i16 sign-extended to int.
std::uint64_t in_work_type(ValueType from, std::uint64_t bits, ValueType work) {
  if (from == work) return bits;
  if (from == ValueType::f16 || from == ValueType::bf16)
    return std::bit_cast<std::uint32_t>(reduce_detail::half_to_float(from, static_cast<std::uint16_t>(bits)));
  const int width = 8 * static_cast<int>(size_of(from));
  const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(bits << (32 - width))) >> (32 - width);
  return static_cast<std::uint32_t>(v);
}

}  // namespace

std::string kernel_source(const SegReduceProblem& problem, const SegReduceConfig& config) {
  preamble::require_valid(problem, config);
  const SegReduceProblem p = problem.normalized();
  reduce_detail::require_user_source(p);
  const ReduceProblem r = p.as_reduce();
  const ValueType acc = *p.accumulator;
  // The reduce family's view of the types: halves travel as their bits and compute in float, i8/i16 min/max in int
  // (kernel_templates/value_types.hpp); integer sums add in the unsigned twin of the accumulator.
  const ValueType work = reduce_detail::work_type(r);
  const bool integer_sum = p.op == SegReduceOp::sum && !is_float(acc);
  std::string pre = fmt::format(
      "{}"
      "enum class Storage {{ plain = 0, f16 = 1, bf16 = 2 }};\n"
      "typedef {} in_t;\n"
      "typedef {} acc_t;\n"
      "typedef {} work_t;\n"
      "typedef {} off_t_;\n"
      "typedef {} len_t;\n"
      "{}"
      "constexpr Storage kStorage = Storage::{};\n"
      "constexpr bool kIsFloat = {};\n"
      "constexpr unsigned long long kIdentityBits = 0x{:x}ULL;\n"
      "constexpr unsigned long long kNaNBits = 0x{:x}ULL;\n"
      "constexpr unsigned long long kArgEmptyBits = 0x{:x}ULL;\n"
      "constexpr int kResultBytes = {};\n"
      "{}{}",
      preamble::opening(fmt::format("segmented reduction {}", p.shape_key()), config.key(),
                        preamble::enum_definition("SegOp", segreduce_detail::kSegReduceOps)),
      info(p.type).cuda,
      info(acc).cuda, integer_sum ? info(acc).cuda_unsigned : info(work).cuda,
      p.offset_bits == 64 ? "long long" : "int", p.offset_bits == 64 ? "unsigned long long" : "unsigned",
      preamble::enum_constant("SegOp", "kOp", p.op), storage_name(info(p.type).storage), is_float(work),
      in_work_type(acc, r.identity_bits(), work),
      is_float(acc) && p.op != SegReduceOp::sum && p.op != SegReduceOp::user ? nan_bits(acc) : 0ull,
      is_arg(p.op) ? arg_empty_bits(p.type, p.op == SegReduceOp::argmin) : 0ull, p.result_bytes(),
      segreduce_detail::config_preamble(config).part(0), segreduce_detail::SegReduceWorkspace::preamble());
  return reduce_detail::reduction_variant_source(std::move(pre), p.op == SegReduceOp::user ? &p.user : nullptr,
                                                 "segreduce.cu", embedded::segreduce_template);
}

}  // namespace autotune
