// Test inputs and the CPU reference every variant is checked against.
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/histogram_problem.hpp"

namespace autotune {

/// n samples of problem.type following problem.distribution, reproducible from `seed`, as raw bytes.
///   uniform:  every bin equally likely (values drawn over [lower, upper))
///   constant: every sample equals one value inside the range
///   narrow:   uniform over 16 consecutive bins in the middle of the range (a hot band)
///   runs:     runs of 1000 equal samples, each run's value uniform over the range
///   image:    a smooth grey-scale field (gradients and blobs, 4096 samples per row) with a little noise
std::vector<unsigned char> generate_samples(const HistogramProblem& problem, std::uint64_t n, std::uint64_t seed);

/// The histogram of `n` samples (raw bytes of problem.type), by the semantics documented in problem.hpp.
/// Written independently of the kernel template, as plain sequential C++.
std::vector<std::uint64_t> reference_histogram(const HistogramProblem& problem, const void* samples, std::uint64_t n);

/// Empty when equal, else a one-line description of the first differing bins.
std::string compare_histograms(const std::vector<std::uint64_t>& expected, const std::vector<std::uint64_t>& got);

/// Counters as the GPU wrote them (problem.counter_bits wide), widened to 64 bits; with 32-bit counters the
/// expected counts are reduced modulo 2^32 first by the caller's comparison (see counts_as_written).
std::vector<std::uint64_t> widen_counts(const HistogramProblem& problem, const void* raw);
/// The reference counts as counters of problem.counter_bits would hold them (32-bit counters wrap).
std::vector<std::uint64_t> counts_as_written(const HistogramProblem& problem, std::vector<std::uint64_t> counts);

}  // namespace autotune
