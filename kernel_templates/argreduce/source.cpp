// Generates the preamble of compile-time constants that turns kernel_templates/argreduce/argreduce.cu into one
// variant.
#include <fmt/format.h>

#include <utility>

#include "autotune/argreduce_problem.hpp"
#include "embedded.hpp"
#include "kernel_templates/argreduce/enums.hpp"
#include "kernel_templates/argreduce/workspace_layout.hpp"
#include "kernel_templates/preamble.hpp"
#include "kernel_templates/value_types.hpp"

namespace autotune {

std::string kernel_source(const ArgReduceProblem& problem, const ArgReduceConfig& config) {
  preamble::require_valid(problem, config);
  // The element in the kernel (a half's 16 bits), what its values compare in (order.cuh's cmp_t: float for halves,
  // int for i8 and i16), and which half it is (common.cuh's half_bits_to_float: 1 f16, 2 bf16, else 0).
  const reduce_detail::ValueInfo& in = reduce_detail::info(problem.type);
  const std::string_view compare = reduce_detail::info(in.compute).cuda;
  const int half = static_cast<int>(in.storage);
  // What no element is beaten by (a float's infinity), and CUB's value for an empty input (numeric_limits' lowest()
  // for arg-max, max() for arg-min; the largest finite float).
  const bool argmax = problem.op == ArgOp::argmax;
  const std::uint64_t identity = reduce_detail::extreme_bits(problem.type, !argmax, false);
  const std::uint64_t empty = reduce_detail::extreme_bits(problem.type, !argmax, true);
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
      preamble::opening(fmt::format("arg-reduction {}", problem.shape_key()), config.key(), enums), in.cuda, compare,
      half, preamble::enum_constant("ArgOp", "kOp", problem.op), argmax, is_float(problem.type), identity, empty,
      fields.part(1), config.elems_per_load(problem) * static_cast<int>(size_of(problem.type)), fields.part(2),
      fields.part(0), config.grid_blocks == 1, is_argreduce_cluster_grid(config.grid_blocks) ? config.grid_blocks : 0,
      fields.part(3),
      argreduce_detail::ArgReduceWorkspace::preamble());
  return preamble::variant_source(std::move(pre), "argreduce.cu", embedded::argreduce_template,
                                  {{"reduction_common.cuh", embedded::reduction_common_cuh},
                                   {"order.cuh", embedded::argreduce_order_cuh}});
}

}  // namespace autotune
