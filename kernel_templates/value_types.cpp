// The value types' names and sizes (include/autotune/reduce_problem.hpp) from their table (value_types.hpp): the
// vocabulary of every reduction family (reduce, argreduce, segreduce). Not part of any family's code identity: what a
// variant compiles to reads the table itself.
#include "kernel_templates/value_types.hpp"

#include <vector>

namespace autotune {

using reduce_detail::info;
using reduce_detail::kValues;

namespace {

// The types of kValues that are `wide` (32 and 64 bits) or not (8 and 16), in the table's order.
std::vector<ValueType> value_types_where(bool wide) {
  std::vector<ValueType> v;
  for (const auto& i : kValues)
    if ((i.size >= 4) == wide) v.push_back(i.value);
  return v;
}

}  // namespace

std::string_view to_string(ValueType t) { return info(t).name; }
std::size_t size_of(ValueType t) { return info(t).size; }
bool is_float(ValueType t) { return info(t).is_float; }

std::optional<ValueType> parse_value_type(std::string_view text) { return enum_text::parse(kValues, text); }

const std::vector<ValueType>& all_value_types() {
  static const std::vector<ValueType> all = value_types_where(true);
  return all;
}

const std::vector<ValueType>& narrow_value_types() {
  static const std::vector<ValueType> narrow = value_types_where(false);
  return narrow;
}

}  // namespace autotune
