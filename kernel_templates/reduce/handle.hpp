// The type checks autotune::Reduce makes on typed calls, as a function of the problem alone: tested without a GPU.
#pragma once

#include <optional>

#include "autotune/reduce_problem.hpp"

namespace autotune {

/// Throws UsageError naming both types when `input` (the element type of a typed call; nullopt for an untyped one)
/// is not problem.type, or `output` is not problem.accumulator_type().
void check_reduce_types(const ReduceProblem& problem, std::optional<ValueType> input, std::optional<ValueType> output);

}  // namespace autotune
