#include "kernel_templates/reduce/space.hpp"

#include "kernel_templates/reduce/launcher.hpp"

namespace autotune {

namespace {

// The single-block path reads everything with one multiprocessor (~100-200 GB/s): past ~1M elements (4 MiB of f32)
// a grid of blocks is faster even with a second launch (KERNELS.md: CUB's 1M sum takes ~10 us, launch bound).
constexpr std::uint64_t kSingleBlockMaxN = 1u << 20;

struct Builder {
  const ReduceProblem& problem;
  std::vector<ReduceConfig> out;
  void add(BlockReduce red, int block, int vec, int loads, int acc, Finish finish, int grid) {
    ReduceConfig c;
    c.block_reduce = red, c.block = block, c.vec_bytes = vec, c.loads = loads, c.accumulators = acc;
    c.finish = finish, c.grid_blocks = grid;
    if (!c.invalid_reason(problem).empty()) return;  // e.g. 4-byte loads of f64, atomics of a deterministic float sum
    for (const auto& e : out)
      if (e == c) return;
    out.push_back(c);
  }
};

}  // namespace

std::vector<ReduceConfig> reduce_space(const ReduceProblem& problem) {
  Builder b{problem, {}};
  using R = BlockReduce;
  using F = Finish;
  // 0. The built-in default first, so the tuner always measures what an untuned application would run.
  b.out.push_back(ReduceConfig::fallback(problem));
  // 1. The seed chapter's kernels, one element per load: per-thread atomics into the output; a shared-memory tree;
  //    warp shuffles, then one atomic per block (its three-level reduction).
  for (int grid : {-1, 0}) b.add(R::atomic, 256, 0, 1, 1, F::atomic, grid);
  for (int loads : {1, 4})
    for (F f : {F::atomic, F::two_pass, F::last_block}) b.add(R::shared_tree, 256, 0, loads, 1, f, 0);
  for (int loads : {1, 4}) b.add(R::warp_shuffle, 256, 0, loads, 1, F::atomic, 0);
  // 2. The main family: 16-byte loads, warp shuffles, the last-block finish on a resident grid (one launch; the
  //    measured H200 leads in KERNELS.md: 16-byte loads, enough bytes in flight, one launch).
  for (int block : {128, 256, 512, 1024})
    for (int loads : {1, 2, 4})
      for (int acc : {1, 2}) b.add(R::warp_shuffle, block, 16, loads, acc, F::last_block, 0);
  // 3. Narrower loads (one element, 4 and 8 bytes; those narrower than the element are refused by the builder).
  for (int vec : {0, 4, 8})
    for (int block : {256, 512})
      for (int loads : {2, 4}) b.add(R::warp_shuffle, block, vec, loads, 1, F::last_block, 0);
  // 4. Four accumulators: longer independent chains for one-element and 16-byte loads.
  for (int vec : {0, 16})
    for (int block : {256, 512})
      for (int loads : {2, 4}) b.add(R::warp_shuffle, block, vec, loads, 4, F::last_block, 0);
  // 5. The finishes: atomics and two passes on both grids, the last block on a grid that covers n.
  for (int block : {256, 512})
    for (int loads : {2, 4}) {
      for (F f : {F::atomic, F::two_pass})
        for (int grid : {0, -1}) b.add(R::warp_shuffle, block, 16, loads, 1, f, grid);
      b.add(R::warp_shuffle, block, 16, loads, 1, F::last_block, -1);
    }
  // 6. __reduce_*_sync (32-bit integer accumulators; the builder drops the rest): the main family's middle and the
  //    finishes.
  for (int block : {256, 512})
    for (int loads : {1, 2, 4})
      for (int acc : {1, 2}) b.add(R::warp_reduce, block, 16, loads, acc, F::last_block, 0);
  for (int block : {256, 512})
    for (int loads : {2, 4}) {
      b.add(R::warp_reduce, block, 16, loads, 1, F::atomic, 0);
      b.add(R::warp_reduce, block, 16, loads, 1, F::two_pass, 0);
      b.add(R::warp_reduce, block, 16, loads, 1, F::last_block, -1);
    }
  // 7. 64-thread blocks: many small blocks per multiprocessor.
  for (int loads : {2, 4})
    for (int acc : {1, 2}) b.add(R::warp_shuffle, 64, 16, loads, acc, F::last_block, 0);
  // 8. The small-n path: one block, one launch, no ticket.
  if (problem.n <= kSingleBlockMaxN) {
    for (int block : {256, 512, 1024})
      for (int loads : {1, 2, 4}) b.add(R::warp_shuffle, block, 16, loads, 1, F::last_block, 1);
    for (int block : {256, 1024}) b.add(R::shared_tree, block, 16, 2, 1, F::last_block, 1);
  }
  return b.out;
}

std::string reduce_constraint_violation(const ReduceProblem& problem, const ReduceConfig& config,
                                        const DeviceInfo& device) {
  if (std::string why = config.invalid_reason(problem); !why.empty()) return why;
  return reduce_device_violation(problem, config, device);
}

}  // namespace autotune
