// The CPU reference every variant is checked against (its inputs and the comparison of counts, shared with the
// range family: kernel_templates/histogram_samples.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "kernel_templates/histogram_samples.hpp"

namespace autotune {

/// The histogram of `n` pixels (raw bytes of problem.type; one sample per pixel for one channel): problem.counters()
/// counts, channel after channel, by the semantics documented in histogram_problem.hpp.
/// Written independently of the kernel template, as plain sequential C++.
std::vector<std::uint64_t> reference_histogram(const HistogramProblem& problem, const void* samples, std::uint64_t n);

/// The bin of each of `n` samples (within its channel's bins; channels are not applied), or -1 for a sample that is
/// not counted: the per-sample rule of
/// reference_histogram, which is CUB's (tests/cub/ checks it against CUB's own ScaleTransform).
std::vector<int> reference_bins(const HistogramProblem& problem, const void* samples, std::uint64_t n);

/// widen_counts(problem, raw): counters as the GPU wrote them (problem.counter_bits wide), widened to 64 bits; with
/// 32-bit counters the expected counts are reduced modulo 2^32 first by the caller's comparison (counts_as_written:
/// the reference counts as counters of problem.counter_bits would hold them). Shared with histogram_range.
using histogram_samples::counts_as_written;
using histogram_samples::widen_counts;

}  // namespace autotune
