// The arg-reduction configuration: keys (parse and print), validity and the fallback.
#include <fmt/format.h>

#include "autotune/argreduce_problem.hpp"
#include "core/config_fields.hpp"
#include "kernel_templates/argreduce/space.hpp"
#include "kernel_templates/preamble.hpp"
#include "kernel_templates/reduction_fields.hpp"
#include "kernel_templates/reduction_space.hpp"
#include "kernel_templates/argreduce/enums.hpp"

namespace autotune {

namespace {

// The key's fields in order: the reductions' shared ones (kernel_templates/reduction_fields.hpp), then pack, printed
// only when set, so the keys of the pair variants (cached, in policy.json) stay as they were. Their constants in the
// preamble (source.cpp): part 1 kBlock, then kVecBytes, part 2 kLoads and kAccumulators, the main part kBlockReduce
// and kFinish, then kSingleBlock and kCluster, part 3 kPack.
constexpr auto kArgReduceFields = std::tuple_cat(
    reduction_fields::shared<ArgReduceConfig>(argreduce_detail::kBlockReduces, argreduce_detail::kFinishes),
    std::tuple{config_fields::flag("pack", &ArgReduceConfig::pack, "u64").constant("kPack").in_part(3)});

}  // namespace

AUTOTUNE_CONFIG_FROM_TABLE(ArgReduceConfig, argreduce_detail, kArgReduceFields)

int ArgReduceConfig::elems_per_load(const ArgReduceProblem& problem) const {
  return vec_bytes == 0 ? 1 : vec_bytes / static_cast<int>(size_of(problem.type));
}

std::size_t ArgReduceConfig::shared_bytes(const ArgReduceProblem&) const {
  // One 16-byte (value, index) slot per thread for the tree, per warp for the shuffles.
  constexpr std::size_t kPair = 16;
  return (block_reduce == BlockReduce::shared_tree ? static_cast<std::size_t>(block) : block / 32) * kPair;
}

std::string argreduce_violation(const ArgReduceProblem& problem, const ArgReduceConfig& c, const DeviceInfo* device) {
  if (c.pack) {
    if (size_of(problem.type) > 4)
      return fmt::format("pack=u64 needs a type of up to 32 bits (value order bits and ~index in 64 bits), not {}",
                         to_string(problem.type));
    if (c.block_reduce != BlockReduce::warp_shuffle && c.block_reduce != BlockReduce::warp_reduce)
      return fmt::format("block reduction {} of packed keys is not warp_shuffle or warp_reduce",
                         to_string(c.block_reduce));
    if (c.finish != Finish::last_block)
      return fmt::format("pack=u64 finishes with an atomicMax and the last block, spelled finish=last_block");
  } else if (c.block_reduce == BlockReduce::atomic) {
    return "block reduction atomic is not shared_tree, warp_shuffle or warp_reduce (an arg-reduction folds pairs)";
  }
  if (std::string why = reduction_space::shape_violation(c, problem.type); !why.empty()) return why;
  if (c.grid_blocks < -1 || (c.grid_blocks > 1 && !is_argreduce_cluster_grid(c.grid_blocks)))
    return fmt::format("grid {} is not -1 (cover n), 0 (resident blocks), 1 (one block), {} or {} (one cluster)",
                       c.grid_blocks, kArgReduceClusterGrid, kArgReduceLargeClusterGrid);
  // One block, or one cluster, writes its result directly, whatever the finish: one spelling keeps one key per kernel.
  if ((c.grid_blocks == 1 || is_argreduce_cluster_grid(c.grid_blocks)) && c.finish != Finish::last_block)
    return fmt::format("the single-block and cluster paths (grid={}) write their result directly and are spelled "
                       "finish=last_block", c.grid_blocks);
  if (!device) return {};
  // The device: clusters from sm_90; threads and shared memory per block, with the kernel's static shared memory (the
  // last-block flag of common.cuh and the cluster paths' winners, a pair and a packed key, aligned: 64 bytes);
  // __reduce_{max,min}_sync from sm_80.
  if (is_argreduce_cluster_grid(c.grid_blocks) && device->cc_major < 9)
    return fmt::format("thread-block clusters (grid={}) need sm_90 or newer; the device is {}", c.grid_blocks,
                       device->arch());
  if (c.finish == Finish::atomic && device->cc_major < 9)
    return fmt::format("finish=atomic (a 128-bit compare-and-swap) needs sm_90 or newer; the device is {}",
                       device->arch());
  return reduction_space::device_violation(c, problem, 64, *device);
}

AUTOTUNE_INVALID_REASON(ArgReduceConfig, ArgReduceProblem, argreduce_violation)

ArgReduceConfig ArgReduceConfig::fallback(const ArgReduceProblem&) {
  // Warp shuffles and the last-block finish exist for every type on every GPU we ship for and are deterministic;
  // 16-byte loads work for any pointer aligned to its element (the unaligned head is read one element at a time).
  // ArgReduceConfig's defaults (include/autotune/argreduce_problem.hpp): warp_shuffle, 256 threads, 16-byte loads,
  // 2 in flight, 1 accumulator, last_block, the resident grid, no packing.
  return {};
}

}  // namespace autotune
