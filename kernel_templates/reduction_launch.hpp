// What the reduction and arg-reduction launchers (kernel_templates/reduce/, argreduce/) do alike: the blocks that
// cover n and the largest grid a variant launches (pure functions, checked without a GPU), and ReductionKernel, the
// part of a loaded variant that checks, loads and launches its two entry points; LoadedEntries, its checks and loads,
// serves the segmented reduction's two kernels too (kernel_templates/segreduce/launcher.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/reduce_problem.hpp"
#include "core/cuda.hpp"
#include "core/launch_limits.hpp"
#include "core/space_decl.hpp"
#include "core/workspace.hpp"

namespace autotune {

/// What one call of a reduction or arg-reduction variant does, decided on the host: a pure function of the
/// configuration, n and the device's resident grid (blocks_per_sm * sm_count), checked without a GPU.
struct ReductionLaunchPlan {
  /// Blocks of the main launch: reduction_launch::cover_grid, the blocks of an arg-reduction's one cluster, or 0 when
  /// nothing is launched (a reduction of n = 0 after a preset). A function of n and the device only: the order of the
  /// operations, and so a float sum's bits, is fixed for a given n.
  unsigned grid = 1;
  bool preset = false;         ///< `out` is set to the identity first (a reduction's Finish::atomic on several blocks)
  bool finish_launch = false;  ///< the finish kernel (one block) combines `grid` partials afterwards
};

namespace reduction_launch {

/// Up to this many tiles, one block reads them all and writes the result itself (the kernels' gridDim.x == 1 path)
/// instead of one block per tile handing its partial to a last block or a finish launch: a second tile read by the
/// same block costs one more round trip to memory, the handoff a partial's store, a fence, the ticket and the last
/// block's read of the partials. Without it, a winner of n whose tile is n ran 2n in two blocks 33 % slower than the
/// one-block winner of 2n (i32 max at 8K on an H200: 5.3 against 4.0 us,
/// bench/results/2026-12-04b-h200-untuned-reductions-9056e47.md).
inline constexpr std::uint64_t kOneBlockTiles = 2;

/// Blocks of the main launch for n elements: one for grid_blocks = 1; else enough to cover n with one tile (block x
/// loads x elements per load) per block, at most `resident_grid` (grid_blocks = 0; at least 1) or `max_cover` (-1);
/// but one block for two tiles (kOneBlockTiles).
template <class P, class C>
unsigned cover_grid(const P& problem, const C& config, std::uint64_t n, unsigned resident_grid, unsigned max_cover) {
  if (config.grid_blocks == 1) return 1;
  const std::uint64_t per_block =
      static_cast<std::uint64_t>(config.block) * config.loads * config.elems_per_load(problem);
  const std::uint64_t cover = std::max<std::uint64_t>(1, (n + per_block - 1) / per_block);
  if (cover <= kOneBlockTiles) return 1;
  const unsigned cap = config.grid_blocks == 0 ? std::max(1u, resident_grid) : max_cover;
  return static_cast<unsigned>(std::min<std::uint64_t>(cover, cap));
}

/// The largest n cover_grid runs in one block (KernelFamily::one_block_up_to): every n for grid_blocks = 1, else
/// kOneBlockTiles tiles.
template <class P, class C>
std::uint64_t one_block_up_to(const P& problem, const C& config) {
  if (config.grid_blocks == 1) return std::numeric_limits<std::uint64_t>::max();
  return kOneBlockTiles * static_cast<std::uint64_t>(config.block) * config.loads * config.elems_per_load(problem);
}

/// The most blocks cover_grid gives for any n: one (grid_blocks = 1), the resident grid (0) or `max_cover` (-1).
inline unsigned max_grid(int grid_blocks, unsigned resident_grid, unsigned max_cover) {
  return grid_blocks == 1 ? 1u : grid_blocks == 0 ? resident_grid : max_cover;
}

}  // namespace reduction_launch

/// A loaded variant of a template with a main entry point and, optionally, a second one of the same cubin (P, C: a
/// reduction family's problem and configuration): the problem, the configuration, the kernels and one workspace per
/// stream (core/workspace.hpp), which the family's constructor sizes.
template <class P, class C>
class LoadedEntries {
 public:
  const C& config() const { return config_; }

 protected:
  /// The names of the main and the second entry points (nullptr: no second one).
  struct Entries {
    const char* main;
    const char* second;
  };

  /// Throws UsageError unless `given` is well formed and `config` runs it on `device` (`violation`: the family's
  /// validity function), then loads `cubin`'s entry points; keeps `problem` (`given`, or its normal form).
  LoadedEntries(const P& given, P problem, const C& config, const DeviceInfo& device, const std::vector<char>& cubin,
                Entries entries, space_decl::Violation<P, C> violation)
      : problem_(std::move(problem)), config_(config) {
    given.validate();
    launch_limits::require_runnable(given, config, device, violation);
    module_ = cuda::Module(cubin, entries.main);
    if (entries.second) second_module_ = module_.entry(entries.second);
  }

  P problem_;
  C config_;
  cuda::Module module_;
  cuda::Module second_module_;  // the same cubin's second entry point, when there is one
  std::unique_ptr<WorkspacePool> workspaces_;
};

/// A loaded variant of a reduction template with a main and a finish entry point (P, C: ReduceProblem and
/// ReduceConfig, or ArgReduceProblem and ArgReduceConfig), as ReduceKernel and ArgReduceKernel hold it: LoadedEntries
/// with, for Finish::two_pass, the finish kernel as the second entry point, their dynamic shared memory and the
/// blocks resident on the device. kPlan: what one call does (plan_reduce_launch, plan_argreduce_launch).
template <class P, class C, auto kPlan>
class ReductionKernel : public LoadedEntries<P, C> {
 public:
  /// Blocks of the main launch for n elements (ReductionLaunchPlan::grid, at least 1).
  unsigned grid_for(std::uint64_t n) const { return std::max(1u, plan_for(n).grid); }

 protected:
  using Base = LoadedEntries<P, C>;
  using Base::config_, Base::module_, Base::problem_, Base::second_module_;

  /// LoadedEntries' checks and loads (`entries.second`: the finish, loaded for Finish::two_pass). The family's
  /// constructor then sets resident_grid_ (resident_grid()) and workspaces_.
  ReductionKernel(const P& given, P problem, const C& config, const DeviceInfo& device,
                  const std::vector<char>& cubin, typename Base::Entries entries,
                  space_decl::Violation<P, C> violation)
      : Base(given, std::move(problem), config, device, cubin,
             {entries.main, config.finish == Finish::two_pass ? entries.second : nullptr}, violation),
        shared_bytes_(config.shared_bytes(problem_)) {}

  /// What a call of n elements does on this device.
  ReductionLaunchPlan plan_for(std::uint64_t n) const { return kPlan(problem_, config_, n, resident_grid_); }

  /// The blocks of the main kernel resident on `device` (UsageError when none fits on a multiprocessor).
  unsigned resident_grid(const DeviceInfo& device) const {
    return launch_limits::resident_blocks(module_.blocks_per_sm(config_.block, shared_bytes_), config_.key(), device);
  }

  /// The main launch of `grid` blocks with `args`, then, unless `finish_args` is null, the finish kernel's one block.
  void launch(unsigned grid, void** args, void** finish_args, cudaStream_t stream) const {
    module_.launch(grid, config_.block, args, shared_bytes_, stream);
    if (finish_args) second_module_.launch(1, config_.block, finish_args, shared_bytes_, stream);
  }

  std::size_t shared_bytes_ = 0;
  unsigned resident_grid_ = 0;
};

}  // namespace autotune
