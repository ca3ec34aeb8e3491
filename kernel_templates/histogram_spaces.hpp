// What the search spaces (core/space_decl.hpp) and the validity functions of the two histogram families share: the
// size up to which their single-block paths are measured, and the rules of a block's threads, loads and copies.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "autotune/histogram_problem.hpp"

namespace autotune::histogram_spaces {

/// Up to this many samples the single-block path is worth measuring; above it, grids that cover n with one tile per
/// block differ from a resident grid (below it, one wave of resident blocks already holds every tile on a big GPU,
/// so a cover-n variant would only measure a resident-grid variant twice).
inline constexpr std::uint64_t kSmallN = 4u << 20;

template <class P>
bool small_n(const P& problem) {
  return problem.n <= kSmallN;
}
template <class P>
bool large_n(const P& problem) {
  return problem.n > kSmallN;
}
/// Inputs of 8 MiB and more (of one-channel samples): where evict-first sample loads (ld=cs) can pay, so where the
/// spaces try them (measured: bench/results/2026-12-05-streaming-evidence.md).
inline constexpr std::uint64_t kStreamingMinBytes = 8ull << 20;
template <class P>
bool streams(const P& problem) {
  return problem.n >= kStreamingMinBytes / size_of(problem.type);
}

/// Why the threads, loads or lane-interleaved copies of `c` cannot count `problem`'s samples, or empty: the rules
/// both validity functions share.
template <class P, class C>
std::string shape_violation(const P& problem, const C& c) {
  auto pow2 = [](int v) { return v > 0 && (v & (v - 1)) == 0; };
  if (c.block < 32 || c.block > 1024 || c.block % 32 != 0)
    return fmt::format("block {} is not a multiple of 32 in 32..1024", c.block);
  if (c.loads < 1 || c.loads > 16) return fmt::format("loads {} is outside 1..16", c.loads);
  const int lb = c.load_bytes(problem);
  if (!pow2(lb) || lb > 16 || lb < static_cast<int>(size_of(problem.type)))
    return fmt::format("{}-byte loads do not fit {} samples", lb, to_string(problem.type));
  if (!pow2(c.replicas) || c.replicas > 32)
    return fmt::format("replicas {} is not a power of two in 1..32", c.replicas);
  return {};
}

}  // namespace autotune::histogram_spaces
