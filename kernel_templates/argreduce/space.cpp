#include "kernel_templates/argreduce/space.hpp"

#include "kernel_templates/argreduce/launcher.hpp"

namespace autotune {

namespace {

// As for reductions: one multiprocessor reads past ~1M elements slower than a grid with a finish
// (kernel_templates/reduce/space.cpp).
constexpr std::uint64_t kSmallMaxN = 1u << 20;

struct Builder {
  const ArgReduceProblem& problem;
  std::vector<ArgReduceConfig> out;
  void add(BlockReduce red, int block, int vec, int loads, int acc, Finish finish, int grid, bool pack = false) {
    ArgReduceConfig c;
    c.block_reduce = red, c.block = block, c.vec_bytes = vec, c.loads = loads, c.accumulators = acc;
    c.finish = finish, c.grid_blocks = grid, c.pack = pack;
    if (!c.invalid_reason(problem).empty()) return;  // e.g. 4-byte loads of 8-byte elements
    for (const auto& e : out)
      if (e == c) return;
    out.push_back(c);
  }
};

}  // namespace

std::vector<ArgReduceConfig> argreduce_space(const ArgReduceProblem& problem) {
  Builder b{problem, {}};
  using R = BlockReduce;
  using F = Finish;
  // 0. The built-in default first, so the tuner always measures what an untuned application would run.
  b.out.push_back(ArgReduceConfig::fallback(problem));
  // 1. The seed chapter's shared-memory tree, one element per load, both finishes.
  for (int loads : {1, 4})
    for (F f : {F::last_block, F::two_pass}) b.add(R::shared_tree, 256, 0, loads, 1, f, 0);
  // 2. The main family: 16-byte loads, warp shuffles, the last-block finish on a resident grid.
  for (int block : {128, 256, 512, 1024})
    for (int loads : {1, 2, 4})
      for (int acc : {1, 2}) b.add(R::warp_shuffle, block, 16, loads, acc, F::last_block, 0);
  // 3. Narrower loads.
  for (int vec : {0, 4, 8})
    for (int block : {256, 512})
      for (int loads : {2, 4}) b.add(R::warp_shuffle, block, vec, loads, 1, F::last_block, 0);
  // 4. Four accumulators, and eight 16-byte loads in flight.
  for (int vec : {0, 16})
    for (int block : {256, 512})
      for (int loads : {2, 4}) b.add(R::warp_shuffle, block, vec, loads, 4, F::last_block, 0);
  for (int block : {256, 512})
    for (int acc : {1, 2}) b.add(R::warp_shuffle, block, 16, 8, acc, F::last_block, 0);
  // 5. The finishes: two passes on both grids, the last block on a grid that covers n.
  for (int block : {256, 512})
    for (int loads : {2, 4}) {
      for (int grid : {0, -1}) b.add(R::warp_shuffle, block, 16, loads, 1, F::two_pass, grid);
      b.add(R::warp_shuffle, block, 16, loads, 1, F::last_block, -1);
    }
  // 6. 64-thread blocks: many small blocks per multiprocessor.
  for (int loads : {2, 4})
    for (int acc : {1, 2}) b.add(R::warp_shuffle, 64, 16, loads, acc, F::last_block, 0);
  // 7. Packed 64-bit keys (types of up to 32 bits): the block reduction a u64 max (two __reduce_max_sync per warp, or
  //    shuffles), the grid's finish one atomicMax per block and the ticket, with no partials for the last block to
  //    fold and no second block reduction: the finish chain that a sum pays less for than the pair path
  //    (bench/results/2026-12-01d-h200-argreduce-bench.md against 2026-12-01b-h200-size-bench-f32-sum.md). The
  //    grids of the reduction's small-n winners (kernel_templates/reduce/policy.json): resident grids of 128-1024
  //    threads with 2 or 4 loads in flight, cover-n grids of 128 or 256.
  const bool packable = size_of(problem.type) <= 4;
  if (packable) {
    for (int block : {128, 256, 512, 1024})
      for (int loads : {2, 4}) b.add(R::warp_reduce, block, 16, loads, 1, F::last_block, 0, true);
    for (int block : {256, 1024})
      for (int loads : {2, 4}) b.add(R::warp_shuffle, block, 16, loads, 1, F::last_block, 0, true);
    for (int block : {128, 256})
      for (int loads : {1, 2, 4}) b.add(R::warp_reduce, block, 16, loads, 1, F::last_block, -1, true);
    b.add(R::warp_reduce, 256, 16, 4, 2, F::last_block, 0, true);
    b.add(R::warp_reduce, 256, 0, 4, 1, F::last_block, 0, true);
    b.add(R::warp_reduce, 64, 16, 4, 1, F::last_block, 0, true);
  }
  // 8. Small n (n <= 1M): one block (no ticket, no partials), and cover-n grids of few, deep blocks (one round of loads, few
  //    partials for the last block to fold).
  if (problem.n <= kSmallMaxN) {
    for (int block : {256, 512, 1024})
      for (int loads : {1, 2, 4, 8}) b.add(R::warp_shuffle, block, 16, loads, 1, F::last_block, 1);
    for (int block : {256, 1024}) b.add(R::shared_tree, block, 16, 2, 1, F::last_block, 1);
    for (int block : {128, 256, 512, 1024})
      for (int loads : {1, 8}) b.add(R::warp_shuffle, block, 16, loads, 1, F::last_block, -1);
    // 9. One thread-block cluster (sm_90; the device check prunes it elsewhere): the blocks' winners meet in
    //    distributed shared memory behind two cluster barriers, no global partials, fence or ticket.
    for (int block : {256, 512, 1024})
      for (int loads : {1, 2, 4}) b.add(R::warp_shuffle, block, 16, loads, 1, F::last_block, kArgReduceClusterGrid);
    // 10. A cluster of 16 blocks (non-portable, sm_90): twice the multiprocessors reading, so that 16 x 1024 threads x
    //     4 loads x 16 bytes cover 256K floats in one round of loads; and the packed keys on one block and on both
    //     clusters.
    for (int block : {512, 1024})
      for (int loads : {2, 4}) {
        b.add(R::warp_shuffle, block, 16, loads, 1, F::last_block, kArgReduceLargeClusterGrid);
        if (!packable) continue;
        b.add(R::warp_reduce, block, 16, loads, 1, F::last_block, 1, true);
        b.add(R::warp_reduce, block, 16, loads, 1, F::last_block, kArgReduceClusterGrid, true);
        b.add(R::warp_reduce, block, 16, loads, 1, F::last_block, kArgReduceLargeClusterGrid, true);
      }
  }
  return b.out;
}

std::string argreduce_constraint_violation(const ArgReduceProblem& problem, const ArgReduceConfig& config,
                                           const DeviceInfo& device) {
  if (std::string why = config.invalid_reason(problem); !why.empty()) return why;
  return argreduce_device_violation(problem, config, device);
}

}  // namespace autotune
