// The checks autotune::Histogram makes on every call, as a function of the problem alone: tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>

#include "autotune/histogram_problem.hpp"

namespace autotune {

/// Throws UsageError naming what is wrong with a call of a handle of `problem`: samples of `sample_type` (nullopt
/// for an untyped call) other than problem.type, counters of another width than problem.counter_bits, a span of
/// fewer than problem.bins counters (`counts_size`, nullopt for a pointer), null pointers, unaligned samples.
void check_histogram_call(const HistogramProblem& problem, const void* samples, std::optional<SampleType> sample_type,
                          std::uint64_t n, const void* counts, int counter_bits,
                          std::optional<std::uint64_t> counts_size);

}  // namespace autotune
