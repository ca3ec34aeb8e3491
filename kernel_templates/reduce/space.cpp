#include "kernel_templates/reduce/space.hpp"

#include "kernel_templates/reduction_space.hpp"

namespace autotune {

namespace {

using namespace space_decl;
using namespace reduction_space;
using C = ReduceConfig;

// Inputs of 8 MiB and more, or any size (n = 0): where evict-first loads can pay. On an H200 after the harness's L2
// flush (bench/load_bench.cu, bench/results/2026-12-04a-h200-load-bench.md) ld.global.cs read 16 MiB 4 % faster than
// ld.global.nc, 64 MiB 12 %, 160 MiB 8 %, 256 MiB 2 %, 1 GiB 4.5 % slower; 4 MiB and less the same.
constexpr std::uint64_t kStreamingMinBytes = 8ull << 20;
bool streams(const ReduceProblem& p) { return p.n == 0 || p.n >= kStreamingMinBytes / size_of(p.type); }

// Fields a group leaves out keep ReduceConfig's defaults: warp shuffles, 256 threads, 16-byte loads, 2 loads, one
// accumulator, the last-block finish, a resident grid.
constexpr auto kSpace =
    space(reduce_violation,
          // 1. The seed chapter's kernels, one element per load: per-thread atomics into the output; a
          //    shared-memory tree; warp shuffles, then one atomic per block (its three-level reduction).
          group(fixed(&C::block_reduce, BlockReduce::atomic), fixed(&C::vec_bytes, 0), fixed(&C::loads, 1),
                fixed(&C::finish, Finish::atomic), values(&C::grid_blocks, {-1, 0})),
          group(fixed(&C::block_reduce, BlockReduce::shared_tree), fixed(&C::vec_bytes, 0), values(&C::loads, {1, 4}),
                values(&C::finish, {Finish::atomic, Finish::two_pass, Finish::last_block})),
          group(fixed(&C::vec_bytes, 0), values(&C::loads, {1, 4}), fixed(&C::finish, Finish::atomic)),
          // 2-4. The main family, narrower loads, four accumulators.
          main_family<C>(), narrower_loads<C>(), four_accumulators<C>(),
          // 5. The finishes: atomics and two passes on both grids, the last block on a grid that covers n.
          finishes<C>({{Finish::atomic, 0},
                       {Finish::atomic, -1},
                       {Finish::two_pass, 0},
                       {Finish::two_pass, -1},
                       {Finish::last_block, -1}}),
          // 6. __reduce_*_sync (32-bit integer accumulators; the validity function drops the rest): the main family's
          //    middle and the finishes.
          group(fixed(&C::block_reduce, BlockReduce::warp_reduce), values(&C::block, {256, 512}),
                values(&C::loads, {1, 2, 4}), values(&C::accumulators, {1, 2})),
          group(fixed(&C::block_reduce, BlockReduce::warp_reduce), values(&C::block, {256, 512}),
                values(&C::loads, {2, 4}),
                fields(&C::finish, &C::grid_blocks)
                    .rows({{Finish::atomic, 0}, {Finish::two_pass, 0}, {Finish::last_block, -1}})),
          // 6b. One atomic per block into the workspace's word, written out by the last block (atomic_last): the
          //    atomic finish without its preset (a second operation) and the last block without partials to fold.
          //    Where a packed atomicMax finish replaced the folded partials, the f32 argmax at 1M took 7.4 us against
          //    the f32 sum's 7.7 (bench/results/2026-12-05b-data/gpu-check-argreduce_bench-11b4216.md). The main
          //    family's four most frequent winners at 64K-1M (policy.json: the atomic finish's among them) on
          //    resident and cover-n grids (eight: the standard preset tunes some 50 problems that take them); the
          //    validity function drops what takes no atomics.
          group(fixed(&C::finish, Finish::atomic_last), values(&C::grid_blocks, {0, -1}),
                fields(&C::block, &C::loads, &C::accumulators).rows({{256, 2, 1}, {256, 2, 2}, {128, 2, 2}, {256, 4, 1}})),
          // 7. 64-thread blocks; 8. the small-n path.
          blocks_of_64<C>(), single_block<ReduceProblem, C>({1, 2, 4}),
          // 9. Evict-first input loads (ld=cs) for large inputs: the main family's wider half, and the cover-n
          //    finishes.
          group(fixed(&C::load_cs, true), values(&C::block, {256, 512, 1024}), values(&C::loads, {2, 4}),
                values(&C::accumulators, {1, 2}))
              .only_if(streams),
          group(fixed(&C::load_cs, true), values(&C::block, {256, 512}), fixed(&C::loads, 4),
                fields(&C::finish, &C::grid_blocks).rows({{Finish::atomic, -1}, {Finish::last_block, -1}}))
              .only_if(streams))
        // 0. The built-in default first, so the tuner always measures what an untuned application would run.
        .starting_with(ReduceConfig::fallback);

}  // namespace

std::vector<ReduceConfig> reduce_space(const ReduceProblem& problem) { return space_decl::expand(kSpace, problem); }

}  // namespace autotune
