// The size table of a size-adaptive handle (include/autotune/resolution.hpp, SizeRange) as a pure function of what
// the lookup read: tested without a GPU or a cache file (tests/cpu/test_size_table.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// One tuned size of a problem's shape on the target GPU model: the input of build_size_table.
struct TunedSize {
  std::uint64_t n = 0;
  Config config;
  std::string model_key;  ///< the model it was measured on
  /// What else separates it from the problem, beyond its size: "measured on dist=uniform, not runs", or "".
  std::string note;
};

/// The first n served by tuned size b rather than a (a < b): the smallest m with (m+1)^2 >= (a+1)(b+1), the
/// geometric mean in the measure of the nearest-size lookup (Cache::find_nearest_winner: |log((n+1)/(t+1))|, a tie
/// to the larger size). Always a < m <= b. Exact integer arithmetic.
std::uint64_t size_switch_point(std::uint64_t a, std::uint64_t b);

/// The size table (SizeRange, sorted, covering 0..max without gaps). From `tuned` (the tuned sizes of one shape on
/// one model, any order; a size given twice keeps its first entry): each size serves the n nearest to it, the
/// switch between neighbours at size_switch_point, ranges of equal configurations merged. When `tuned` is empty:
/// one range 0..max from `untuned` (the lookup's answer for the hint: similar problem, similar GPU or fallback).
std::vector<SizeRange> build_size_table(std::vector<TunedSize> tuned, const Lookup& untuned);

/// The end of the lookup order for `problem` (nothing in a cache applies): the measured default policy
/// (runtime/policy.hpp), else the family's built-in default.
Lookup untuned_lookup(const LookupTarget& target, const Problem& problem);

/// The lookup's distribution order for `problem`: its own distribution, then the robust one (families that record
/// one), then the default one (include/autotune/resolution.hpp). Shared by lookup_config and lookup_sizes.
std::vector<Problem> distribution_candidates(const Problem& problem);
/// "" when `used` has the problem's distribution, else "measured on dist=USED, not PROBLEM'S".
std::string distribution_note(const Problem& problem, const Problem& used);

/// Why a winner imported from another machine (Winner::trusted false) is served as similar_device, not as exact or
/// a nearest size: said in Lookup::distance and SizeRange::why.
inline constexpr std::string_view kImportedNote = "imported from another machine, not measured here";

/// The index of the range holding n, given the ranges' first sizes `starts` (ascending, starts[0] == 0): a binary
/// search with no allocation, for a handle's call.
inline std::size_t size_range_index(const std::uint64_t* starts, std::size_t count, std::uint64_t n) {
  return static_cast<std::size_t>(std::upper_bound(starts, starts + count, n) - starts) - 1;
}

}  // namespace autotune
