// The reduction problem: operations, accumulators and validation.
#include "autotune/reduce_problem.hpp"

#include <fmt/format.h>

#include "autotune/error.hpp"
#include "core/enum_text.hpp"
#include "kernel_templates/reduce/enums.hpp"
#include "kernel_templates/user_op.hpp"
#include "kernel_templates/value_types.hpp"

namespace autotune {

using reduce_detail::info;
using reduce_detail::ValueInfo;

namespace {

ValueType unsigned_twin(ValueType t) {
  switch (t) {
    case ValueType::i8:
    case ValueType::i16:
    case ValueType::i32: return ValueType::u32;  // no u8/u16 value types: |-128| and |-32768| fit u32 as well
    case ValueType::i64: return ValueType::u64;
    default: return t;
  }
}

// The default accumulator of an additive reduction (sum, sumsq, sumabs) of `t`: 64-bit integers (a 32-bit integer
// sum overflows after a handful of large elements; CUB does the same when asked for a 64-bit output; our callers
// should not have to know), f32 for halves, else the type itself.
ValueType sum_default(ValueType t) {
  switch (t) {
    case ValueType::i8:
    case ValueType::i16:
    case ValueType::i32: return ValueType::i64;
    case ValueType::u32: return ValueType::u64;
    case ValueType::f16:
    case ValueType::bf16: return ValueType::f32;
    default: return t;
  }
}

}  // namespace

// --- operations ----------------------------------------------------------------------------------------------------

std::string_view to_string(ReduceOp op) { return enum_text::name_of(reduce_detail::kReduceOpNames, op); }

std::optional<ReduceOp> parse_reduce_op(std::string_view text) {
  const auto op = enum_text::parse(reduce_detail::kReduceOpNames, text);
  return op == ReduceOp::user ? std::nullopt : op;  // a key spells it "user:<hash>"
}

bool is_additive(ReduceOp op) {
  return op == ReduceOp::sum || op == ReduceOp::sumsq || op == ReduceOp::sumabs || op == ReduceOp::l2norm;
}

// --- the problem -----------------------------------------------------------------------------------------------------

const std::vector<std::string>& reduce_distributions() {
  // Described in kernel_templates/reduction_reference.hpp (generate_values).
  static const std::vector<std::string> d{"uniform", "constant", "sorted"};
  return d;
}

ValueType ReduceProblem::accumulator_type() const {
  if (accumulator) return *accumulator;
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::sumsq:
    case ReduceOp::sumabs: return sum_default(type);
    case ReduceOp::min:
    case ReduceOp::max: return type;
    case ReduceOp::absmax: return is_float(type) ? type : unsigned_twin(type);
    case ReduceOp::l2norm: return type == ValueType::f32 || type == ValueType::f16 || type == ValueType::bf16
                                      ? ValueType::f32
                                      : ValueType::f64;
    case ReduceOp::user: return info(type).size < 4 ? info(type).compute : type;
  }
  return type;
}

ReduceProblem ReduceProblem::normalized() const {
  ReduceProblem p = *this;
  p.accumulator = accumulator_type();
  // Only a float sum depends on the order of its operations; everything else is exact whatever the kernel does
  // (l2norm never finishes with atomics: its root is taken once, at the end; a user operator neither).
  if (op == ReduceOp::l2norm || op == ReduceOp::user || !is_additive(op) || !is_float(*p.accumulator))
    p.deterministic = true;
  if (op == ReduceOp::user && !user.op.empty()) p.user_hash = user_op_hash(user, type, *p.accumulator);
  return p;
}

namespace {

void validate_accumulator(const ReduceProblem& p) {
  const ValueInfo& in = info(p.type);
  const ValueInfo& acc = info(p.accumulator_type());
  const std::string_view op = to_string(p.op);
  switch (p.op) {
    case ReduceOp::min:
    case ReduceOp::max:
    case ReduceOp::absmax: {
      ReduceProblem plain;
      plain.op = p.op;
      plain.type = p.type;
      if (acc.value != plain.accumulator_type())
        throw UsageError(fmt::format("{} of {} values is computed in {}; an accumulator of {} is not supported", op,
                                     in.name, to_string(plain.accumulator_type()), acc.name));
      return;
    }
    default: break;
  }
  // The result of a sum (or of a user operator) is its accumulator: halves and i8/i16 would overflow or round away.
  if (acc.size < 4)
    throw UsageError(fmt::format("{} of {} values cannot accumulate in {}: accumulators are 32 or 64 bits", op,
                                 in.name, acc.name));
  switch (p.op) {
    case ReduceOp::l2norm:
      if (!acc.is_float)
        throw UsageError(fmt::format("l2norm of {} values needs a float accumulator (f32 or f64), not {}", in.name,
                                     acc.name));
      return;
    case ReduceOp::user: return;  // the operator's own: any 32- or 64-bit type, the transform converts into it
    default: break;
  }
  if (in.is_float != acc.is_float)
    throw UsageError(fmt::format("a {} of {} values cannot accumulate in {} ({} into {})", op, in.name, acc.name,
                                 in.is_float ? "float" : "integer", acc.is_float ? "float" : "integer"));
  if (acc.size < in.size)
    throw UsageError(fmt::format("a {} accumulator is narrower than the {} values it sums", acc.name, in.name));
  if (!in.is_float && in.is_signed != acc.is_signed)
    throw UsageError(fmt::format("a {} of {} values cannot accumulate in {} (signedness differs)", op, in.name,
                                 acc.name));
}

}  // namespace

void ReduceProblem::validate() const {
  validate_accumulator(*this);
  if (op == ReduceOp::user) {
    if (user.op.empty() && user_hash.empty())
      throw UsageError("a user operator needs its source: the operator expression and its identity");
    if (!user.op.empty()) validate_user_op(user);
    if (user.op.empty() && !reduce_detail::is_user_hash(user_hash))
      throw UsageError(fmt::format("'{}' is not a user operator's hash (16 lowercase hex digits)", user_hash));
  } else if (!user.op.empty() || !user.identity.empty() || !user.transform.empty()) {
    throw UsageError(fmt::format("a {} reduction takes no operator source (only op user does)", to_string(op)));
  }
  enum_text::require_distribution(distribution, reduce_distributions());
}

std::uint64_t ReduceProblem::identity_bits() const {
  // The sums and absmax start from zero (|x| >= 0); a user operator's identity is an expression for the device. max
  // starts from the smallest value, min from the largest: a float's infinities.
  if (op != ReduceOp::min && op != ReduceOp::max) return 0;
  return reduce_detail::extreme_bits(accumulator_type(), op == ReduceOp::min, false);
}

// --- internal: the kernel's view ---------------------------------------------------------------------------------

namespace reduce_detail {

ValueType work_type(const ReduceProblem& problem) {
  if (problem.op == ReduceOp::min || problem.op == ReduceOp::max) return info(problem.type).compute;
  // absmax of a half compares in float; of a signed integer in its unsigned result type (|lowest| fits).
  if (problem.op == ReduceOp::absmax && is_float(problem.type)) return info(problem.type).compute;
  return problem.accumulator_type();
}

bool takes_atomics(const ReduceProblem& problem) {
  const ValueType acc = problem.accumulator_type();
  if (problem.op == ReduceOp::user || problem.op == ReduceOp::l2norm) return false;
  return work_type(problem) == acc && is_wide(acc);
}

bool takes_word_atomics(const ReduceProblem& problem) {
  return problem.op != ReduceOp::user && is_wide(work_type(problem));
}

}  // namespace reduce_detail

}  // namespace autotune
