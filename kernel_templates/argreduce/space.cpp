#include "kernel_templates/argreduce/space.hpp"

#include "kernel_templates/reduction_space.hpp"

namespace autotune {

namespace {

using namespace space_decl;
using namespace reduction_space;
using C = ArgReduceConfig;
constexpr auto kSmallN = small_n<ArgReduceProblem>;

// Packed 64-bit keys (pack=u64, for types of up to 32 bits: the validity function drops the rest): the block
// reduction a u64 max (two __reduce_max_sync per warp, or shuffles), the grid's finish one atomicMax per block and
// the ticket, with no partials for the last block to fold and no second block reduction: the finish chain that a sum
// pays less for than the pair path (bench/results/2026-12-01d-h200-argreduce-bench.md against
// 2026-12-01b-h200-size-bench-f32-sum.md). The grids of the reduction's small-n winners
// (kernel_templates/reduce/policy.json): resident grids of 128-1024 threads with 2 or 4 loads in flight, cover-n
// grids of 128 or 256.
constexpr auto kPacked =
    std::tuple{group(fixed(&C::pack, true), fixed(&C::block_reduce, BlockReduce::warp_reduce),
                     values(&C::block, {128, 256, 512, 1024}), values(&C::loads, {2, 4})),
               group(fixed(&C::pack, true), values(&C::block, {256, 1024}), values(&C::loads, {2, 4})),
               group(fixed(&C::pack, true), fixed(&C::block_reduce, BlockReduce::warp_reduce),
                     values(&C::block, {128, 256}), values(&C::loads, {1, 2, 4}), fixed(&C::grid_blocks, -1)),
               group(fixed(&C::pack, true), fixed(&C::block_reduce, BlockReduce::warp_reduce),
                     fields(&C::block, &C::vec_bytes, &C::loads, &C::accumulators)
                         .rows({{256, 16, 4, 2}, {256, 0, 4, 1}, {64, 16, 4, 1}}))};

// (value, index) pairs of 8-byte types (f64, i64, u64: no packed 64-bit key holds their value and index) folded in
// each warp by __reduce_{max,min}_sync on the values' order keys (block_reduce=warp_reduce: argreduce.cu's
// warp_fold_redux): the pair path's two block reductions cheaper. The grids of the pair path's winners at 64K-1M
// (bench/results/2026-12-03f-h200-argreduce_bench-quick-8e8da69.md: f64 at 1M, 256 threads, 8 loads, cover n; at
// 64K, 512 threads, 4 loads, a cluster of 16): resident and cover-n grids of 256-1024 threads, 2-8 loads.
bool eight_byte(const ArgReduceProblem& p) { return size_of(p.type) == 8; }
constexpr auto kPairsByRedux =
    group(fixed(&C::block_reduce, BlockReduce::warp_reduce), values(&C::block, {256, 512, 1024}),
          values(&C::loads, {2, 4, 8}), values(&C::grid_blocks, {0, -1}))
        .only_if(eight_byte);
constexpr auto kPairsByReduxSmallN =
    group(fixed(&C::block_reduce, BlockReduce::warp_reduce), values(&C::block, {512, 1024}), values(&C::loads, {2, 4}),
          values(&C::grid_blocks, {1, kArgReduceLargeClusterGrid}))
        .only_if([](const ArgReduceProblem& p) { return eight_byte(p) && kSmallN(p); });

// The same grids finishing with wide keys (finish=atomic, sm_90: the device check prunes it elsewhere): each block's
// winner kept by a 128-bit compare-and-swap maximum, no partials for the last block to fold. The f64 pair winner at
// 1M spent 9.6 us where the f32 packed one spent 7.4 and the f32 pair one 9.1
// (bench/results/2026-12-05b-data/gpu-check-argreduce_bench-11b4216.md): the finish that packed keys spare types of up
// to 32 bits.
constexpr auto kPairsWide =
    group(fixed(&C::block_reduce, BlockReduce::warp_reduce), fixed(&C::finish, Finish::atomic),
          values(&C::block, {256, 512, 1024}), values(&C::loads, {2, 4, 8}), values(&C::grid_blocks, {0, -1}))
        .only_if(eight_byte);

// Small n (n <= 1M) past the single-block path: cover-n grids of few, deep blocks (one round of loads, few partials
// for the last block to fold); one thread-block cluster (sm_90; the device check prunes it elsewhere): the blocks'
// winners meet in distributed shared memory behind two cluster barriers, no global partials, fence or ticket; a
// cluster of 16 blocks (non-portable, sm_90): twice the multiprocessors reading, so that 16 x 1024 threads x 4 loads
// x 16 bytes cover 256K floats in one round of loads; and the packed keys on one block and on both clusters.
constexpr auto kSmallNGrids =
    std::tuple{group(values(&C::block, {128, 256, 512, 1024}), values(&C::loads, {1, 8}), fixed(&C::grid_blocks, -1))
                   .only_if(kSmallN),
               group(values(&C::block, {256, 512, 1024}), values(&C::loads, {1, 2, 4}),
                     fixed(&C::grid_blocks, kArgReduceClusterGrid))
                   .only_if(kSmallN),
               group(values(&C::block, {512, 1024}), values(&C::loads, {2, 4}),
                     fields(&C::block_reduce, &C::grid_blocks, &C::pack)
                         .rows({{BlockReduce::warp_shuffle, kArgReduceLargeClusterGrid, false},
                                {BlockReduce::warp_reduce, 1, true},
                                {BlockReduce::warp_reduce, kArgReduceClusterGrid, true},
                                {BlockReduce::warp_reduce, kArgReduceLargeClusterGrid, true}}))
                   .only_if(kSmallN)};

// Fields a group leaves out keep ArgReduceConfig's defaults: warp shuffles, 256 threads, 16-byte loads, 2 loads, one
// accumulator, the last-block finish, a resident grid, (value, index) pairs.
constexpr auto kSpace =
    space(argreduce_violation,
          // 1. The seed chapter's shared-memory tree, one element per load, both finishes.
          group(fixed(&C::block_reduce, BlockReduce::shared_tree), fixed(&C::vec_bytes, 0), values(&C::loads, {1, 4}),
                values(&C::finish, {Finish::last_block, Finish::two_pass})),
          // 2-4. The main family, narrower loads, four accumulators, and eight 16-byte loads in flight.
          main_family<C>(), narrower_loads<C>(), four_accumulators<C>(),
          group(values(&C::block, {256, 512}), fixed(&C::loads, 8), values(&C::accumulators, {1, 2})),
          // 5. The finishes: two passes on both grids, the last block on a grid that covers n.
          finishes<C>({{Finish::two_pass, 0}, {Finish::two_pass, -1}, {Finish::last_block, -1}}),
          // 6. 64-thread blocks; 7. packed keys; 8. small n: one block (no ticket, no partials), then the grids above.
          blocks_of_64<C>(), kPacked, single_block<ArgReduceProblem, C>({1, 2, 4, 8}), kSmallNGrids,
          // 9. 8-byte pairs folded by __reduce_*_sync, and finished with wide keys.
          kPairsByRedux, kPairsByReduxSmallN, kPairsWide)
        // 0. The built-in default first, so the tuner always measures what an untuned application would run.
        .starting_with(ArgReduceConfig::fallback);

}  // namespace

std::vector<ArgReduceConfig> argreduce_space(const ArgReduceProblem& problem) {
  return space_decl::expand(kSpace, problem);
}

}  // namespace autotune
