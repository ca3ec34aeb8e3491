// The groups of the search spaces (core/space_decl.hpp), and the rules of their validity functions, that the
// reductions and the arg-reductions share: a
// configuration C with block_reduce, block, vec_bytes, loads, accumulators, finish and grid_blocks, whose defaults
// are warp shuffles, 256 threads, 16-byte loads, 2 loads, one accumulator, the last-block finish and a resident grid.
// The measured leads they follow are the reductions' (KERNELS.md,
// bench/results/2026-12-01b-h200-size-bench-f32-sum.md).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>

#include "autotune/reduce_problem.hpp"
#include "core/launch_limits.hpp"
#include "core/space_decl.hpp"

namespace autotune::reduction_space {

namespace sd = space_decl;

// The single-block path reads everything with one multiprocessor (~100-200 GB/s): past ~1M elements (4 MiB of f32)
// a grid of blocks is faster even with a second launch (KERNELS.md: CUB's 1M sum takes ~10 us, launch bound).
inline constexpr std::uint64_t kSingleBlockMaxN = 1u << 20;

/// Whether the small-n groups (the single-block path, ...) apply to `problem`.
template <class P>
bool small_n(const P& problem) {
  return problem.n <= kSingleBlockMaxN;
}

/// Why the threads, loads and accumulators of `c` do not fit elements of `type`, or empty: the rules both validity
/// functions share.
template <class C>
std::string shape_violation(const C& c, ValueType type) {
  if (c.block < 64 || c.block > 1024 || c.block % 32 != 0)
    return fmt::format("block {} is not a multiple of 32 in 64..1024", c.block);
  if (c.vec_bytes != 0 && c.vec_bytes != 4 && c.vec_bytes != 8 && c.vec_bytes != 16)
    return fmt::format("vector width {} is not 0 (one element), 4, 8 or 16 bytes", c.vec_bytes);
  if (c.vec_bytes != 0 && static_cast<std::size_t>(c.vec_bytes) < size_of(type))
    return fmt::format("{}-byte loads are narrower than {} elements", c.vec_bytes, to_string(type));
  if (c.loads < 1 || c.loads > 16) return fmt::format("loads {} is outside 1..16", c.loads);
  if (c.accumulators != 1 && c.accumulators != 2 && c.accumulators != 4)
    return fmt::format("accumulators {} is not 1, 2 or 4", c.accumulators);
  return {};
}

/// Why `c` cannot run `problem` on `device`, or empty: threads and shared memory per block (its dynamic shared memory
/// and the kernel's `static_shared` bytes), and sm_80 for warp_reduce (__reduce_*_sync): the device rules both
/// validity functions share.
template <class C, class P>
std::string device_violation(const C& c, const P& problem, std::size_t static_shared, const DeviceInfo& device) {
  if (std::string why = launch_limits::block_violation(c.block, c.shared_bytes(problem) + static_shared, device);
      !why.empty())
    return why;
  if (c.block_reduce == BlockReduce::warp_reduce && device.cc_major < 8)
    return fmt::format("warp_reduce (__reduce_*_sync) needs sm_80 or newer; the device is {}", device.arch());
  return {};
}

/// The main family: 16-byte loads, warp shuffles, the last-block finish on a resident grid (one launch; the measured
/// H200 leads: 16-byte loads, enough bytes in flight, one launch).
template <class C>
constexpr auto main_family() {
  return sd::group(sd::values(&C::block, {128, 256, 512, 1024}), sd::values(&C::loads, {1, 2, 4}),
                   sd::values(&C::accumulators, {1, 2}));
}

/// Narrower loads: one element, 4 and 8 bytes (those narrower than the element are invalid and left out).
template <class C>
constexpr auto narrower_loads() {
  return sd::group(sd::values(&C::vec_bytes, {0, 4, 8}), sd::values(&C::block, {256, 512}),
                   sd::values(&C::loads, {2, 4}));
}

/// Four accumulators: longer independent chains for one-element and 16-byte loads.
template <class C>
constexpr auto four_accumulators() {
  return sd::group(sd::values(&C::vec_bytes, {0, 16}), sd::values(&C::block, {256, 512}), sd::values(&C::loads, {2, 4}),
                   sd::fixed(&C::accumulators, 4));
}

/// The finishes `rows` ((finish, grid) pairs) on blocks of 256 and 512 threads with 2 or 4 loads.
template <class C, std::size_t N>
constexpr auto finishes(const std::tuple<Finish, int> (&rows)[N]) {
  return sd::group(sd::values(&C::block, {256, 512}), sd::values(&C::loads, {2, 4}),
                   sd::fields(&C::finish, &C::grid_blocks).rows(rows));
}

/// 64-thread blocks: many small blocks per multiprocessor.
template <class C>
constexpr auto blocks_of_64() {
  return sd::group(sd::fixed(&C::block, 64), sd::values(&C::loads, {2, 4}), sd::values(&C::accumulators, {1, 2}));
}

/// The small-n path (n <= kSingleBlockMaxN): one block, one launch, no ticket; warp shuffles with `loads`, then the
/// shared-memory tree.
template <class P, class C, std::size_t N>
constexpr auto single_block(const int (&loads)[N]) {
  return std::tuple{
      sd::group(sd::values(&C::block, {256, 512, 1024}), sd::values(&C::loads, loads), sd::fixed(&C::grid_blocks, 1))
          .only_if(small_n<P>),
      sd::group(sd::fixed(&C::block_reduce, BlockReduce::shared_tree), sd::values(&C::block, {256, 1024}),
                sd::fixed(&C::grid_blocks, 1))
          .only_if(small_n<P>)};
}

}  // namespace autotune::reduction_space
