// Test inputs for arg-reductions and the CPU reference every variant is checked against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/argreduce_problem.hpp"
#include "kernel_templates/reduction_reference.hpp"  // ArgExpected

namespace autotune {

/// n values of problem.type following problem.distribution, reproducible from `seed`, as raw bytes:
///   uniform:  integers over the type's whole range (extremes included); floats in [-1, 1), so at large n the
///             extreme value occurs more than once and the first index matters (halves: those floats rounded to the
///             nearest half, every distribution; many ties);
///   constant: one value drawn as above, repeated (every element ties: the answer is index 0);
///   sorted:   the uniform values in ascending order (arg-max at the end, arg-min at the start);
///   skewed:   a random walk with an upward drift from the middle of the type's range (integers: steps in [-3, 4],
///             an i8's or i16's wrapping around; floats: steps in [-0.45, 0.55), halves' scaled by 2^-8), as a time
///             series: the running maximum moves often.
/// Throws UsageError for an unknown distribution.
std::vector<unsigned char> generate_arg_values(const ArgReduceProblem& problem, std::uint64_t n, std::uint64_t seed);

/// The arg-reduction of `n` values of problem.type at `data`: reference_arg_extreme (reduction_reference.hpp).
ArgExpected reference_argreduce(const ArgReduceProblem& problem, const void* data, std::uint64_t n);

/// Empty when `got` (the 16 bytes a kernel wrote: value at 0, index at 8) is exactly `expected` (value bits and
/// index), else one line saying what was expected and what came back.
std::string compare_argreduce(const ArgReduceProblem& problem, const ArgExpected& expected, const void* got);

}  // namespace autotune
