// The reduction problem: value types, operations, keys and validation.
#include "autotune/reduce_problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "autotune/error.hpp"
#include "core/key_text.hpp"
#include "kernel_templates/reduce/value_types.hpp"

namespace autotune {

using reduce_detail::info;
using reduce_detail::ValueInfo;
using reduce_detail::kValues;

namespace {

constexpr std::string_view kOpNames[] = {"sum", "min", "max"};

}  // namespace

// --- value types and operations --------------------------------------------------------------------------------------

std::string_view to_string(ValueType t) { return info(t).name; }
std::size_t size_of(ValueType t) { return info(t).size; }
bool is_float(ValueType t) { return info(t).is_float; }

std::optional<ValueType> parse_value_type(std::string_view text) {
  for (const auto& i : kValues)
    if (i.name == text) return i.type;
  return std::nullopt;
}

const std::vector<ValueType>& all_value_types() {
  static const std::vector<ValueType> all = [] {
    std::vector<ValueType> v;
    for (const auto& i : kValues) v.push_back(i.type);
    return v;
  }();
  return all;
}

std::string_view to_string(ReduceOp op) { return kOpNames[static_cast<int>(op)]; }

std::optional<ReduceOp> parse_reduce_op(std::string_view text) {
  for (int i = 0; i < 3; ++i)
    if (kOpNames[i] == text) return static_cast<ReduceOp>(i);
  return std::nullopt;
}

// --- the problem -----------------------------------------------------------------------------------------------------

const std::vector<std::string>& reduce_distributions() {
  // Described in kernel_templates/reduce/reference.hpp (generate_values).
  static const std::vector<std::string> d{"uniform", "constant", "sorted"};
  return d;
}

ValueType ReduceProblem::accumulator_type() const {
  if (accumulator) return *accumulator;
  if (op != ReduceOp::sum) return type;
  // A 32-bit integer sum overflows after a handful of large elements: widen by default (CUB does the same when
  // asked for a 64-bit output; our callers should not have to know).
  if (type == ValueType::i32) return ValueType::i64;
  if (type == ValueType::u32) return ValueType::u64;
  return type;
}

ReduceProblem ReduceProblem::normalized() const {
  ReduceProblem p = *this;
  p.accumulator = accumulator_type();
  // Only a float sum depends on the order of its operations; everything else is exact whatever the kernel does.
  if (op != ReduceOp::sum || !is_float(*p.accumulator)) p.deterministic = true;
  return p;
}

void ReduceProblem::validate() const {
  const ValueInfo& in = info(type);
  const ValueInfo& acc = info(accumulator_type());
  if (op != ReduceOp::sum && acc.type != in.type)
    throw UsageError(fmt::format("{} of {} values is computed in {}; an accumulator of {} is not supported",
                                 to_string(op), in.name, in.name, acc.name));
  if (op == ReduceOp::sum) {
    if (in.is_float != acc.is_float)
      throw UsageError(fmt::format("a sum of {} values cannot accumulate in {} ({} into {})", in.name, acc.name,
                                   in.is_float ? "float" : "integer", acc.is_float ? "float" : "integer"));
    if (acc.size < in.size)
      throw UsageError(fmt::format("a {} accumulator is narrower than the {} values it sums", acc.name, in.name));
    if (!in.is_float && in.is_signed != acc.is_signed)
      throw UsageError(fmt::format("a sum of {} values cannot accumulate in {} (signedness differs)", in.name,
                                   acc.name));
  }
  if (std::find(reduce_distributions().begin(), reduce_distributions().end(), distribution) ==
      reduce_distributions().end())
    throw UsageError(fmt::format("unknown distribution '{}' (known: {})", distribution,
                                 fmt::join(reduce_distributions(), ", ")));
}

std::string ReduceProblem::shape_key() const {
  const ReduceProblem p = normalized();
  return fmt::format("reduce/{}/{}/acc={}/dist={}{}", to_string(p.op), to_string(p.type),
                     to_string(*p.accumulator), p.distribution, p.deterministic ? "" : "/mode=fast");
}

std::string ReduceProblem::key() const {
  const ReduceProblem p = normalized();
  return fmt::format("reduce/{}/{}/acc={}/n={}/dist={}{}", to_string(p.op), to_string(p.type),
                     to_string(*p.accumulator), p.n, p.distribution, p.deterministic ? "" : "/mode=fast");
}

std::uint64_t ReduceProblem::identity_bits() const {
  const ValueType acc = accumulator_type();
  if (op == ReduceOp::sum) return 0;  // 0 and +0.0 alike
  const bool lowest = op == ReduceOp::max;  // max starts from the smallest value, min from the largest
  switch (acc) {
    case ValueType::i32: return lowest ? 0x80000000u : 0x7FFFFFFFu;
    case ValueType::u32: return lowest ? 0u : 0xFFFFFFFFu;
    case ValueType::i64: return lowest ? 0x8000000000000000ull : 0x7FFFFFFFFFFFFFFFull;
    case ValueType::u64: return lowest ? 0ull : ~0ull;
    case ValueType::f32: return lowest ? 0xFF800000u : 0x7F800000u;                        // -inf, +inf
    case ValueType::f64: return lowest ? 0xFFF0000000000000ull : 0x7FF0000000000000ull;  // -inf, +inf
  }
  throw UsageError("unknown value type");
}

}  // namespace autotune
