// Generates the preamble of compile-time constants that turns kernel_templates/reduce/reduce.cu into one variant.
#include <fmt/format.h>

#include <utility>

#include "autotune/reduce_problem.hpp"
#include "embedded.hpp"
#include "kernel_templates/preamble.hpp"
#include "kernel_templates/reduce/enums.hpp"
#include "kernel_templates/user_op.hpp"
#include "kernel_templates/value_types.hpp"
#include "kernel_templates/reduce/workspace_layout.hpp"

namespace autotune {

using reduce_detail::info;
using reduce_detail::nan_bits;
using reduce_detail::storage_name;
using reduce_detail::ValueInfo;

// --- the kernel source -----------------------------------------------------------------------------------------------

std::string kernel_source(const ReduceProblem& problem, const ReduceConfig& config) {
  preamble::require_valid(problem, config);
  const ReduceProblem p = problem.normalized();
  reduce_detail::require_user_source(p);
  const ValueInfo& in = info(p.type);
  const ValueInfo& acc = info(*p.accumulator);
  const ValueInfo& work = info(reduce_detail::work_type(p));
  const bool integer_sum = is_additive(p.op) && !acc.is_float;
  // The comment names the shape, not n: the source (and so the cubin, and the on-disk compile cache entry) is
  // shared by every size of one reduction.
  // The operation and the configuration's enums by name: the template compares kFinish with Finish::last_block,
  // never with 1.
  // The fields' constants by the parts of config.cpp's table; kVecBytes and kSingleBlock are derived.
  using preamble::enum_constant;
  const preamble::ConfigPreamble fields = reduce_detail::config_preamble(config);
  const std::string enums = preamble::enum_definition("ReduceOp", reduce_detail::kReduceOps) + fields.enums +
                            "enum class Storage { plain = 0, f16 = 1, bf16 = 2 };\n";
  std::string pre = fmt::format(
      "{}"
      "typedef {} in_t;\n"
      "typedef {} acc_t;\n"
      "typedef {} work_t;\n"
      "{}"
      "constexpr Storage kStorage = Storage::{};\n"
      "constexpr Storage kOutStorage = Storage::{};\n"
      "constexpr bool kIsFloat = {};\n"
      "constexpr bool kSignedIn = {};\n"
      "constexpr unsigned long long kIdentityBits = 0x{:x}ULL;\n"
      "constexpr unsigned long long kNaNBits = 0x{:x}ULL;\n"
      "constexpr unsigned long long kOutNaNBits = 0x{:x}ULL;\n"
      "constexpr bool kAtomics = {};\n"
      "constexpr bool kWordAtomics = {};\n"
      "{}"
      "constexpr int kVecBytes = {};\n"
      "{}{}"
      "constexpr bool kSingleBlock = {};\n"
      "{}",
      preamble::opening(fmt::format("reduction {}", p.shape_key()), config.key(), enums), in.cuda, acc.cuda,
      integer_sum ? acc.cuda_unsigned : work.cuda,
      enum_constant("ReduceOp", "kOp", p.op), storage_name(in.storage), storage_name(acc.storage), work.is_float,
      in.is_signed && !in.is_float, reduce_detail::widened_bits(acc.value, p.identity_bits(), work.value),
      nan_bits(work.value), nan_bits(acc.value),
      reduce_detail::takes_atomics(p), reduce_detail::takes_word_atomics(p), fields.part(1), config.elems_per_load(p) * static_cast<int>(in.size),
      fields.part(2), fields.part(0), config.grid_blocks == 1,
      reduce_detail::ReduceWorkspace::preamble());
  return reduce_detail::reduction_variant_source(std::move(pre), p.op == ReduceOp::user ? &p.user : nullptr,
                                                 "reduce.cu", embedded::reduce_template);
}

}  // namespace autotune
