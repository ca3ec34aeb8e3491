// Generates the preamble of compile-time constants that turns kernel_templates/segreduce/segreduce.cu into one variant.
#include <fmt/format.h>

#include <utility>

#include "autotune/segmented_reduce_problem.hpp"
#include "embedded.hpp"
#include "kernel_templates/preamble.hpp"
#include "kernel_templates/user_op.hpp"
#include "kernel_templates/value_types.hpp"
#include "kernel_templates/segreduce/enums.hpp"
#include "kernel_templates/segreduce/workspace_layout.hpp"

namespace autotune {

std::string kernel_source(const SegReduceProblem& problem, const SegReduceConfig& config) {
  using namespace reduce_detail;  // the value types (value_types.hpp) and the reduce family's view of a problem
  preamble::require_valid(problem, config);
  const SegReduceProblem p = problem.normalized();
  require_user_source(p);
  const ReduceProblem r = p.as_reduce();
  const ValueType acc = *p.accumulator;
  // The reduce family's view of the types: halves travel as their bits and compute in float, i8/i16 min/max in int
  // (kernel_templates/value_types.hpp); integer sums add in the unsigned twin of the accumulator.
  const ValueType work = work_type(r);
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
      info(p.type).cuda, info(acc).cuda, integer_sum ? info(acc).cuda_unsigned : info(work).cuda,
      p.offset_bits == 64 ? "long long" : "int", p.offset_bits == 64 ? "unsigned long long" : "unsigned",
      preamble::enum_constant("SegOp", "kOp", p.op), storage_name(info(p.type).storage), is_float(work),
      widened_bits(acc, r.identity_bits(), work),
      is_float(acc) && p.op != SegReduceOp::sum && p.op != SegReduceOp::user ? nan_bits(acc) : 0ull,
      is_arg(p.op) ? extreme_bits(p.type, p.op == SegReduceOp::argmin, true) : 0ull, p.result_bytes(),
      segreduce_detail::config_preamble(config).part(0), segreduce_detail::SegReduceWorkspace::preamble());
  return reduction_variant_source(std::move(pre), p.op == SegReduceOp::user ? &p.user : nullptr, "segreduce.cu",
                                  embedded::segreduce_template);
}

}  // namespace autotune
