// Test inputs and the CPU reference every variant is checked against.
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/histogram_problem.hpp"

namespace autotune {

/// n pixels (n * problem.channels samples) of problem.type following problem.distribution, reproducible from `seed`,
/// as raw bytes. The interleaved samples of several channels are one stream of the distribution, except `image`,
/// which is a colour photograph (each channel its own tint, a mostly opaque alpha as the fourth).
///   uniform:  every bin equally likely (values drawn over [lower, upper))
///   constant: every sample equals one value inside the range
///   narrow:   uniform over 16 consecutive bins in the middle of the range (a hot band)
///   runs:     runs of 1000 equal samples, each run's value uniform over the range
///   image:    a smooth grey-scale field (gradients and blobs, 4096 samples per row) with a little noise
std::vector<unsigned char> generate_samples(const HistogramProblem& problem, std::uint64_t n, std::uint64_t seed);

/// The histogram of `n` pixels (raw bytes of problem.type; one sample per pixel for one channel): problem.counters()
/// counts, channel after channel, by the semantics documented in histogram_problem.hpp.
/// Written independently of the kernel template, as plain sequential C++.
std::vector<std::uint64_t> reference_histogram(const HistogramProblem& problem, const void* samples, std::uint64_t n);

/// The bin of each of `n` samples (within its channel's bins; channels are not applied), or -1 for a sample that is
/// not counted: the per-sample rule of
/// reference_histogram, which is CUB's (tests/cub/ checks it against CUB's own ScaleTransform).
std::vector<int> reference_bins(const HistogramProblem& problem, const void* samples, std::uint64_t n);

/// Empty when equal, else a one-line description of the first differing bins.
std::string compare_histograms(const std::vector<std::uint64_t>& expected, const std::vector<std::uint64_t>& got);

/// Counters as the GPU wrote them (problem.counter_bits wide), widened to 64 bits; with 32-bit counters the
/// expected counts are reduced modulo 2^32 first by the caller's comparison (see counts_as_written).
std::vector<std::uint64_t> widen_counts(const HistogramProblem& problem, const void* raw);
/// The reference counts as counters of problem.counter_bits would hold them (32-bit counters wrap).
std::vector<std::uint64_t> counts_as_written(const HistogramProblem& problem, std::vector<std::uint64_t> counts);

}  // namespace autotune
