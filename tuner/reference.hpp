// Test inputs and the CPU reference every variant is checked against.
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/problem.hpp"

namespace autotune {

/// n samples of problem.type following problem.distribution, reproducible from `seed`, as raw bytes.
///   uniform:  every bin equally likely (values drawn over [lower, upper))
///   constant: every sample equals one value inside the range
///   runs:     runs of 1000 equal samples, each run's value uniform over the range
std::vector<unsigned char> generate_samples(const HistogramProblem& problem, std::uint64_t n, std::uint64_t seed);

/// The histogram of `n` samples (raw bytes of problem.type), by the semantics documented in problem.hpp.
/// Written independently of the kernel template, as plain sequential C++.
std::vector<std::uint32_t> reference_histogram(const HistogramProblem& problem, const void* samples, std::uint64_t n);

/// Empty when equal, else a one-line description of the first differing bins.
std::string compare_histograms(const std::vector<std::uint32_t>& expected, const std::vector<std::uint32_t>& got);

}  // namespace autotune
