// Test inputs for segmented reductions (segment offsets from a length spec, values) and the CPU reference every
// variant is checked against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/segmented_reduce_problem.hpp"
#include "kernel_templates/reduction_reference.hpp"

namespace autotune {

/// Offsets of segments whose lengths follow `spec` (segmented_reduce_problem.hpp), reproducible from `seed`:
/// offsets[0] = 0, offsets.back() = n, num_segments + 1 entries; the last segment holds what is left of n (it may be
/// shorter than the spec's least length). n = 0 gives no segment. Off: int, or std::int64_t (64-bit offsets; any n);
/// the same offsets either way.
template <class Off = int>
std::vector<Off> generate_offsets(const SegmentSpec& spec, std::uint64_t n, std::uint64_t seed);
/// The offsets the tuner's workload and `autotune bench`'s CUB call measure `problem` on: generate_offsets of its
/// distribution and n with a seed of its own (kOffsetsSeed), as bytes of problem.offset_bytes() each, so a baseline
/// made from the problem alone sees the workload's segments.
inline constexpr std::uint64_t kOffsetsSeed = 42;
std::vector<unsigned char> problem_offsets(const SegReduceProblem& problem);

/// n values of problem.type: the reduce family's "uniform" input for the same operation (argmin as min).
std::vector<unsigned char> generate_segment_values(const SegReduceProblem& problem, std::uint64_t n,
                                                   std::uint64_t seed);

/// What each segment must give.
struct SegReduceExpected {
  std::vector<ReduceExpected> value;  ///< sum/min/max: reduce's reference per segment
  /// argmin/argmax: the key (index in the segment; 1 for an empty one) and the value's bits, zero-extended.
  std::vector<int> key;
  std::vector<std::uint64_t> bits;
  std::vector<std::uint64_t> length;  ///< each segment's length (sums' tolerance)
};

/// The reduction of segment s = [begin[s], end[s]) (empty when end <= begin) for s < segments, by the semantics of
/// segmented_reduce_problem.hpp (halves decoded by half_host.hpp; argmin/argmax compare them as float and give the
/// element's own bits). Plain sequential C++, independent of the kernel template. A user operator has none (its
/// text is CUDA: the tuner compares with the fallback's results): the lengths alone. Off: int or std::int64_t.
template <class Off>
SegReduceExpected reference_segreduce(const SegReduceProblem& problem, const void* values, const Off* begin,
                                      const Off* end, std::uint64_t segments);

/// Empty when every result in `got` (segments * result_bytes() bytes as the kernel wrote them) is correct, else one
/// line: how many segments differ and the first of them. Sums: reduce's per-segment tolerance; the rest: exact.
std::string compare_segreduce(const SegReduceProblem& problem, const SegReduceExpected& expected, const void* got);

/// The longest sequential run of operations `config` makes on a segment of `length` elements beyond the log-depth
/// folds (of the group, the block, the chunks' partials): the elements one lane combines in turn on the path the
/// segment may take (its group, or a block per chunk of a queued long segment plus one lane's share of the chunks'
/// partials; a queued segment without room is reduced by its group), plus a vector's elements at the unaligned
/// head and tail. A bound for the tolerance of an addition-like user operator (reduce_sum_tolerance's `chain`).
std::uint64_t segment_chain(const SegReduceConfig& config, std::uint64_t length);

/// A user operator's check (it has no CPU reference): each segment's result in `got` against the one in
/// `reference`, the result of `reference_config` (the fallback) on the same input, by the reduce family's
/// compare_user_results with the segment's length as n and the two variants' chains (segment_chain; `variant`
/// unknown, e.g. a handle's call: the length itself, a bound of any order). Empty when every segment agrees, else one
/// line as compare_segreduce's.
std::string compare_segreduce_user(const SegReduceProblem& problem, const std::vector<std::uint64_t>& lengths,
                                   const void* reference, const SegReduceConfig& reference_config, const void* got,
                                   const SegReduceConfig* variant);

}  // namespace autotune
