// Generates the preamble of compile-time constants that turns kernel_templates/argreduce/argreduce.cu into one
// variant.
#include <fmt/format.h>

#include <utility>

#include "autotune/argreduce_problem.hpp"
#include "autotune/error.hpp"
#include "embedded.hpp"
#include "kernel_templates/argreduce/enums.hpp"
#include "kernel_templates/argreduce/workspace_layout.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune {

namespace {

struct TypeBits {
  std::string_view cuda;                            // the element in the kernel: a half's 16 bits
  std::string_view compare;                         // what its values compare in (order.cuh's cmp_t)
  int half;                                         // 1: f16, 2: bf16 (common.cuh's half_bits_to_float), else 0
  std::uint64_t lowest_identity, highest_identity;  // what no element is beaten by, for arg-max and arg-min
  std::uint64_t lowest, highest;                    // numeric_limits lowest() and max(): CUB's empty-input values
};

TypeBits type_bits(ValueType t) {
  switch (t) {
    case ValueType::i32: return {"int", "int", 0, 0x80000000u, 0x7FFFFFFFu, 0x80000000u, 0x7FFFFFFFu};
    case ValueType::u32: return {"unsigned int", "unsigned int", 0, 0u, 0xFFFFFFFFu, 0u, 0xFFFFFFFFu};
    case ValueType::i64:
      return {"long long", "long long", 0, 0x8000000000000000ull, 0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull,
              0x7FFFFFFFFFFFFFFFull};
    case ValueType::u64: return {"unsigned long long", "unsigned long long", 0, 0ull, ~0ull, 0ull, ~0ull};
    // Floats: -inf / +inf beat no element; CUB's empty values are -FLT_MAX / FLT_MAX (lowest() / max()).
    case ValueType::f32: return {"float", "float", 0, 0xFF800000u, 0x7F800000u, 0xFF7FFFFFu, 0x7F7FFFFFu};
    case ValueType::f64:
      return {"double", "double", 0, 0xFFF0000000000000ull, 0x7FF0000000000000ull, 0xFFEFFFFFFFFFFFFFull,
              0x7FEFFFFFFFFFFFFFull};
    // Halves: their infinities, and CUB's lowest() / max() (cuda::std::numeric_limits<__half> and <__nv_bfloat16>,
    // cccl's numeric_limits_ext.h): -65504 / 65504 and -(2 - 2^-7) * 2^127 / (2 - 2^-7) * 2^127.
    case ValueType::f16: return {"unsigned short", "float", 1, 0xFC00u, 0x7C00u, 0xFBFFu, 0x7BFFu};
    case ValueType::bf16: return {"unsigned short", "float", 2, 0xFF80u, 0x7F80u, 0xFF7Fu, 0x7F7Fu};
    // i8 and i16: their own extremes, compared as int.
    case ValueType::i8: return {"signed char", "int", 0, 0x80u, 0x7Fu, 0x80u, 0x7Fu};
    case ValueType::i16: return {"short", "int", 0, 0x8000u, 0x7FFFu, 0x8000u, 0x7FFFu};
  }
  throw UsageError("unknown value type");
}

}  // namespace

std::string kernel_source(const ArgReduceProblem& problem, const ArgReduceConfig& config) {
  preamble::require_valid(problem, config);
  const TypeBits tb = type_bits(problem.type);
  const bool argmax = problem.op == ArgOp::argmax;
  // The configuration's enums and its fields' constants by the parts of config.cpp's table; kVecBytes, kSingleBlock
  // and kCluster are derived.
  const preamble::ConfigPreamble fields = argreduce_detail::config_preamble(config);
  const std::string enums = preamble::enum_definition("ArgOp", argreduce_detail::kArgOps) + fields.enums;
  // The comment names the shape, not n: every size of one arg-reduction shares the source and its cubin.
  std::string pre = fmt::format(
      "{}"
      "typedef {} in_t;\n"
      "typedef {} cmp_t;\n"
      "constexpr int kHalf = {};\n"
      "{}"
      "constexpr bool kArgMax = {};\n"
      "constexpr bool kIsFloat = {};\n"
      "constexpr unsigned long long kIdentityBits = 0x{:x}ULL;\n"
      "constexpr unsigned long long kEmptyBits = 0x{:x}ULL;\n"
      "{}"
      "constexpr int kVecBytes = {};\n"
      "{}{}"
      "constexpr bool kSingleBlock = {};\n"
      "constexpr int kCluster = {};\n"
      "{}{}"
      "}}  // namespace at\n",
      preamble::opening(fmt::format("arg-reduction {}", problem.shape_key()), config.key(), enums), tb.cuda,
      tb.compare, tb.half, preamble::enum_constant("ArgOp", "kOp", problem.op), argmax,
      is_float(problem.type), argmax ? tb.lowest_identity : tb.highest_identity, argmax ? tb.lowest : tb.highest,
      fields.part(1), config.elems_per_load(problem) * static_cast<int>(size_of(problem.type)), fields.part(2),
      fields.part(0), config.grid_blocks == 1, is_argreduce_cluster_grid(config.grid_blocks) ? config.grid_blocks : 0,
      fields.part(3),
      argreduce_detail::ArgReduceWorkspace::preamble());
  return preamble::variant_source(std::move(pre), "argreduce.cu", embedded::argreduce_template,
                                  {{"reduction_common.cuh", embedded::reduction_common_cuh},
                                   {"order.cuh", embedded::argreduce_order_cuh}});
}

}  // namespace autotune
