// The third part of the lookup (include/autotune/resolution.hpp): a size-adaptive handle's table (SizeRange), built
// from the ranking (runtime/rank.hpp) of the gathered candidates (runtime/candidates.hpp) at every n, and the
// answer for the hint n read from it, so that the two agree by construction. Pure functions of what was gathered
// and the cost table: tested without a GPU or a cache file (tests/cpu/test_size_table.cpp, test_rank.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"
#include "runtime/candidates.hpp"
#include "runtime/rank.hpp"

namespace autotune {

/// The table and the hint's answer for `problem` from `gathered`, ranked with `costs`. `required` narrows the
/// candidates first, so that what an application demands is what the ranking chooses from: tuned drops the policy
/// and the built-in default when anything measured remains; exact keeps only the problem's own shape on this model
/// when it holds problem.n (or, with no hint, n = 0, when it holds any size). When nothing meets it, every candidate
/// is ranked and size_table_violation says what the cache gives instead.
SizeLookup rank_sizes(Gathered gathered, const TransferCosts& costs, const Problem& problem,
                      Requirement required = Requirement::any);

/// One tuned size of a problem's shape on the target GPU model: the input of build_size_table.
struct TunedSize {
  std::uint64_t n = 0;
  Config config;
  std::string model_key;  ///< the model it was measured on
  /// What else separates it from the problem, beyond its size: "measured on dist=uniform, not runs", or "".
  std::string note;
};

/// The size table of one shape's tuned sizes on one model (any order; a size given twice keeps its first entry),
/// ranked with `costs` (each n served by the size predicted to run it best; ranges of one configuration merged).
/// When `tuned` is empty: one range 0..max from `untuned` (the answer of the rest of the lookup). For the size
/// benchmark's leave-one-out (bench/size_bench.cpp).
std::vector<SizeRange> build_size_table(std::vector<TunedSize> tuned, const Lookup& untuned,
                                        const TransferCosts& costs = shipped_transfer_costs());

/// The answer without a cache (the shipped policy, else the built-in default) for problem.n: untuned_sizes' at_hint.
Lookup untuned_lookup(const LookupTarget& target, const Problem& problem);

/// The index of the range holding n, given the ranges' first sizes `starts` (ascending, starts[0] == 0): a binary
/// search with no allocation, for a handle's call.
inline std::size_t size_range_index(const std::uint64_t* starts, std::size_t count, std::uint64_t n) {
  return static_cast<std::size_t>(std::upper_bound(starts, starts + count, n) - starts) - 1;
}

}  // namespace autotune
