// The checks autotune::HistogramRange makes on every call, as a function of the problem alone: tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>

#include "autotune/histogram_range_problem.hpp"

namespace autotune {

/// Throws UsageError naming what is wrong with a call of a handle of `problem`: samples of another type, counters
/// of another width, null pointers, samples or levels not aligned to their type.
void check_histogram_range_call(const HistogramRangeProblem& problem, const void* samples,
                                std::optional<SampleType> sample_type, std::uint64_t n, const void* levels,
                                const void* counts, int counter_bits);

}  // namespace autotune
