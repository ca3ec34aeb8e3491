// The arg-reduction configuration: keys (parse and print), validity and the fallback.
#include <fmt/format.h>

#include "autotune/argreduce_problem.hpp"
#include "autotune/error.hpp"
#include "core/config_fields.hpp"
#include "kernel_templates/argreduce/enums.hpp"

namespace autotune {

namespace {

// The key's fields in order; pack is printed only when set, so the keys of the pair variants (cached, in policy.json)
// stay as they were.
constexpr auto kArgReduceFields = std::tuple{
    config_fields::choice("red", &ArgReduceConfig::block_reduce, argreduce_detail::kBlockReduces),
    config_fields::number("block", &ArgReduceConfig::block, 1),
    config_fields::number("vec", &ArgReduceConfig::vec_bytes, 0),
    config_fields::number("loads", &ArgReduceConfig::loads, 1),
    config_fields::number("acc", &ArgReduceConfig::accumulators, 1),
    config_fields::choice("finish", &ArgReduceConfig::finish, argreduce_detail::kFinishes),
    config_fields::number("grid", &ArgReduceConfig::grid_blocks, -1),
    config_fields::flag("pack", &ArgReduceConfig::pack, "u64")};

}  // namespace

std::string ArgReduceConfig::key() const { return config_fields::key(*this, kArgReduceFields); }

std::optional<ArgReduceConfig> ArgReduceConfig::parse(std::string_view key) {
  return config_fields::parse(key, kArgReduceFields);
}

int ArgReduceConfig::elems_per_load(const ArgReduceProblem& problem) const {
  return vec_bytes == 0 ? 1 : vec_bytes / static_cast<int>(size_of(problem.type));
}

std::size_t ArgReduceConfig::shared_bytes(const ArgReduceProblem&) const {
  // One 16-byte (value, index) slot per thread for the tree, per warp for the shuffles.
  constexpr std::size_t kPair = 16;
  return (block_reduce == BlockReduce::shared_tree ? static_cast<std::size_t>(block) : block / 32) * kPair;
}

std::string ArgReduceConfig::invalid_reason(const ArgReduceProblem& problem) const {
  if (pack) {
    if (size_of(problem.type) > 4)
      return fmt::format("pack=u64 needs a type of up to 32 bits (value order bits and ~index in 64 bits), not {}",
                         to_string(problem.type));
    if (block_reduce != BlockReduce::warp_shuffle && block_reduce != BlockReduce::warp_reduce)
      return fmt::format("block reduction {} of packed keys is not warp_shuffle or warp_reduce",
                         to_string(block_reduce));
    if (finish != Finish::last_block)
      return fmt::format("pack=u64 finishes with an atomicMax and the last block, spelled finish=last_block");
  } else if (block_reduce != BlockReduce::warp_shuffle && block_reduce != BlockReduce::shared_tree) {
    return fmt::format("block reduction {} is not warp_shuffle or shared_tree ({} needs pack=u64)",
                       to_string(block_reduce), to_string(block_reduce));
  }
  if (finish != Finish::last_block && finish != Finish::two_pass)
    return fmt::format("finish {} is not last_block or two_pass (an arg-reduction has no atomic finish)",
                       to_string(finish));
  if (block < 64 || block > 1024 || block % 32 != 0)
    return fmt::format("block {} is not a multiple of 32 in 64..1024", block);
  if (vec_bytes != 0 && vec_bytes != 4 && vec_bytes != 8 && vec_bytes != 16)
    return fmt::format("vector width {} is not 0 (one element), 4, 8 or 16 bytes", vec_bytes);
  if (vec_bytes != 0 && static_cast<std::size_t>(vec_bytes) < size_of(problem.type))
    return fmt::format("{}-byte loads are narrower than {} elements", vec_bytes, to_string(problem.type));
  if (loads < 1 || loads > 16) return fmt::format("loads {} is outside 1..16", loads);
  if (accumulators != 1 && accumulators != 2 && accumulators != 4)
    return fmt::format("accumulators {} is not 1, 2 or 4", accumulators);
  if (grid_blocks < -1 || (grid_blocks > 1 && !is_argreduce_cluster_grid(grid_blocks)))
    return fmt::format("grid {} is not -1 (cover n), 0 (resident blocks), 1 (one block), {} or {} (one cluster)",
                       grid_blocks, kArgReduceClusterGrid, kArgReduceLargeClusterGrid);
  // One block, or one cluster, writes its result directly, whatever the finish: one spelling keeps one key per kernel.
  if ((grid_blocks == 1 || is_argreduce_cluster_grid(grid_blocks)) && finish != Finish::last_block)
    return fmt::format("the single-block and cluster paths (grid={}) write their result directly and are spelled "
                       "finish=last_block", grid_blocks);
  return {};
}

ArgReduceConfig ArgReduceConfig::fallback(const ArgReduceProblem&) {
  // Warp shuffles and the last-block finish exist for every type on every GPU we ship for and are deterministic;
  // 16-byte loads work for any pointer aligned to its element (the unaligned head is read one element at a time).
  // ArgReduceConfig's defaults (include/autotune/argreduce_problem.hpp): warp_shuffle, 256 threads, 16-byte loads,
  // 2 in flight, 1 accumulator, last_block, the resident grid, no packing.
  return {};
}

}  // namespace autotune
