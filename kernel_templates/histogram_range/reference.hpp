// The levels and samples the tuner measures on, and the CPU reference every variant is checked against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/histogram_range_problem.hpp"
#include "kernel_templates/histogram_samples.hpp"  // widen_counts, counts_as_written: the counters as written

namespace autotune {

/// The sample type whose values the levels of samples of `t` are (level_type_name): u32 and f64 their own, f32 for
/// f32 and the halves, i32 for the other integers.
SampleType level_type(SampleType t);
/// Calls f with a value of the level type of samples of `t`: unsigned, float, double or int.
template <class F>
decltype(auto) with_level_type(SampleType t, F&& f) {
  switch (level_type(t)) {
    case SampleType::u32: return f(unsigned{});
    case SampleType::f32: return f(float{});
    case SampleType::f64: return f(double{});
    default: return f(int{});
  }
}

/// The bins + 1 levels of `problem` (raw values of its level type, level_size(type) bytes each), reproducible from
/// the problem alone (type, bins, edges), so that a baseline (CUB in bench/) and the tuner measure on the same ones:
///   even:      levels[i] = lower + i * (upper - lower) / bins over the span (integers rounded down);
///   irregular: bins + 1 distinct values drawn at random in the span, sorted (for u8 with 255 bins, 256 of the 257
///              values 0..256; for floats, gaps of random widths).
std::vector<unsigned char> generate_levels(const HistogramRangeProblem& problem);

/// n samples of problem.type following problem.distribution over the span (the even histogram family's generator,
/// kernel_templates/histogram/reference.hpp, with the range [span.first, span.second)), reproducible from `seed`.
std::vector<unsigned char> generate_range_samples(const HistogramRangeProblem& problem, std::uint64_t n,
                                                  std::uint64_t seed);

/// The histogram of `n` samples over `levels` (raw values of the level type), by the semantics of
/// histogram_range_problem.hpp: std::upper_bound over the levels, plain sequential C++.
std::vector<std::uint64_t> reference_range_histogram(const HistogramRangeProblem& problem, const void* samples,
                                                     std::uint64_t n, const void* levels);

/// The histogram of a 2D region: `rows` rows of `row_samples` samples, each `row_stride_bytes` after the one before
/// (the rows' histograms summed).
std::vector<std::uint64_t> reference_range_histogram_region(const HistogramRangeProblem& problem, const void* samples,
                                                            std::uint64_t row_samples, std::uint64_t rows,
                                                            std::size_t row_stride_bytes, const void* levels);

}  // namespace autotune
