// The arg-reduction problem: operations, keys and validation.
#include "autotune/argreduce_problem.hpp"

#include "core/enum_text.hpp"
#include "kernel_templates/argreduce/enums.hpp"

namespace autotune {

std::string_view to_string(ArgOp op) { return enum_text::name_of(argreduce_detail::kArgOpNames, op); }

std::optional<ArgOp> parse_arg_op(std::string_view text) {
  return enum_text::parse(argreduce_detail::kArgOpNames, text);
}

const std::vector<std::string>& argreduce_distributions() {
  // Described in kernel_templates/argreduce/reference.hpp (generate_arg_values).
  static const std::vector<std::string> d{"uniform", "constant", "sorted", "skewed"};
  return d;
}

void ArgReduceProblem::validate() const {
  // Every ValueType: the 32- and 64-bit types, and f16, bf16, i8 and i16 (compared as float and int: order.cuh).
  enum_text::require_distribution(distribution, argreduce_distributions());
}

}  // namespace autotune
