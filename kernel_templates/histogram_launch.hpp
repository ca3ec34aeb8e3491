// What the launchers and handles of both histogram families (kernel_templates/histogram/launcher.cpp, handle.cpp,
// kernel_templates/histogram_range/launcher.cpp, handle.cpp) do alike: PixelKernel, the part of a loaded variant that
// checks its configuration, loads its 1D entry point and its region entry points, opts them in to their dynamic shared
// memory, counts the blocks resident on the device and holds the per-stream workspaces; the checks and the zeroing of
// the counts that come before a launch (a zeroing kernel the counting launch overlaps on sm_90+, where a family loads
// one, else a memset); and check_pixel_call, the checks a handle makes of every call.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "core/cuda.hpp"
#include "core/launch_limits.hpp"
#include "core/space_decl.hpp"
#include "core/workspace.hpp"
#include "kernel_templates/histogram_samples.hpp"
#include "runtime/call_checks.hpp"

namespace autotune::histogram_launch {

/// The largest n (pixels) that histogram_samples::grid_for runs as one block, or one cluster of `cluster` blocks:
/// that grid stores its sums into the output itself (no atomics, no workspace, no zeroing launch;
/// kernel_templates/histogram/histogram.cu, histogram_range/histogram_range.cu), a code path of its own
/// (KernelFamily::one_block_up_to). k tiles of samples cover n, or a cap of at most k blocks holds every n below the
/// 2^31 samples per block that split it. (A device that holds fewer than two clusters at once runs one at any n; the
/// lookup prices without a device, so that is left out.)
template <class C, class P>
std::uint64_t one_unit_up_to(const C& c, const P& p, int cluster = 1) {
  const auto k = static_cast<std::uint64_t>(std::max(1, cluster));
  const auto channels = std::max<std::uint64_t>(1, p.samples(1));
  if (c.grid_blocks > 0 && static_cast<std::uint64_t>(c.grid_blocks) <= k) return ((k << 31) - 1) / channels;
  return k * c.tile_samples(p) / channels;
}

/// A loaded variant of a histogram template (P, C: HistogramProblem and HistogramConfig, or HistogramRangeProblem
/// and HistogramRangeConfig): the problem, the configuration, the kernels of one cubin, their dynamic shared memory,
/// the blocks of the 1D kernel resident on the device, and the workspaces (one per stream, core/workspace.hpp) that
/// the family's constructor sizes.
template <class P, class C>
class PixelKernel {
 public:
  const C& config() const { return config_; }

 protected:
  /// Throws UsageError unless `config` runs `problem` on `device` (`violation`: the family's validity function),
  /// then loads `cubin`'s 1D entry point `entry` and, with `entry_2d`, its region entry points `region_entries`
  /// (regions_, in this order; without: the cubin of kernel_source_1d). Past 48 KiB a block needs the opt-in
  /// attribute: every entry point is opted in to the configuration's shared memory when it and the kernel's
  /// `static_shared` bytes exceed that. Then the resident blocks of the 1D kernel (UsageError when none fits on a
  /// multiprocessor).
  PixelKernel(const P& problem, const C& config, const DeviceInfo& device, const std::vector<char>& cubin,
              space_decl::Violation<P, C> violation, const char* entry,
              std::initializer_list<const char*> region_entries, bool entry_2d, std::size_t static_shared)
      : problem_(problem), config_(config), shared_bytes_(config.shared_bytes(problem)) {
    launch_limits::require_runnable(problem, config, device, violation);
    module_ = cuda::Module(cubin, entry);
    if (entry_2d)
      for (const char* name : region_entries) regions_.push_back(module_.entry(name));
    if (shared_bytes_ + static_shared > 48 * 1024) {
      module_.set_max_dynamic_shared(shared_bytes_);
      for (const cuda::Module& m : regions_) m.set_max_dynamic_shared(shared_bytes_);
    }
    resident_blocks_ =
        launch_limits::resident_blocks(module_.blocks_per_sm(config.block, shared_bytes_), config.key(), device);
  }

  /// Per-stream workspaces of `bytes` each, zero between launches; none for 0.
  void use_workspaces(std::size_t bytes) {
    if (bytes != 0) workspaces_ = std::make_unique<WorkspacePool>(bytes);
  }
  /// This stream's workspace, or nullptr where the configuration takes none.
  void* workspace(cudaStream_t stream) const { return workspaces_ ? workspaces_->acquire(stream) : nullptr; }

  /// The kernel that counts `rows` rows: the 1D one for one row (or none), else region entry point `region`;
  /// UsageError where the variant was loaded without its region entry points.
  const cuda::Module& module_for(std::uint64_t rows, std::size_t region) const {
    if (rows <= 1) return module_;
    if (region >= regions_.size())
      throw UsageError(fmt::format("configuration {} was loaded without its 2D entry point (kernel_source_1d): it "
                                   "counts one row, not a region of {} rows",
                                   config_.key(), rows));
    return regions_[region];
  }

  /// UsageError unless `samples` is aligned to `alignment` bytes (a pixel; 1: any sample alignment).
  void require_pixel_aligned(const void* samples, std::size_t alignment) const {
    if (reinterpret_cast<std::uintptr_t>(samples) % alignment != 0)
      throw UsageError(fmt::format("the samples of {} must be aligned to a pixel ({} bytes)", problem_.key(),
                                   alignment));
  }

  /// Lets zero_counts zero with the cubin's kernel `name` (`enabled`: the configuration adds into a zeroed output, on a
  /// device where cuda::zero_with_kernel holds). That kernel takes the output alone, runs blocks of 256 threads over
  /// the counters, and first lets the counting kernel launched after it start (common.cuh's allow_dependents); the
  /// counting kernel waits for it (wait_for_prerequisite) before it first adds into the output. A cubin compiled
  /// before the family had one has none: its calls keep the memset.
  void use_zeroing_kernel(const char* name, bool enabled) {
    if (!enabled) return;
    if (cuda::Module zero = module_.find_entry(name)) {
      zero_.emplace(std::move(zero));
      constexpr std::uint64_t kZeroBlock = 256, kMaxZeroBlocks = 1024;  // the kernel's __launch_bounds__; a cap
      zero_blocks_ = static_cast<unsigned>(std::min<std::uint64_t>(
          (static_cast<std::uint64_t>(problem_.counters()) + kZeroBlock - 1) / kZeroBlock, kMaxZeroBlocks));
    }
  }

  /// Zeroes every counter of `counts` on `stream`, the output that blocks then add into: with the zeroing kernel
  /// (use_zeroing_kernel), which the counting launch may overlap, else with a memset it must wait for. Returns how the
  /// counting launch follows.
  cuda::Module::Order zero_counts(void* counts, cudaStream_t stream) const {
    if (zero_) {
      void* args[] = {&counts};
      zero_->launch(zero_blocks_, 256, args, 0, stream);
      return cuda::Module::Order::after_trigger;
    }
    AUTOTUNE_CUDA(cudaMemsetAsync(counts, 0, histogram_samples::counts_bytes(problem_), stream));
    return cuda::Module::Order::after_completion;
  }

  P problem_;
  C config_;
  cuda::Module module_;                ///< the 1D entry point
  std::vector<cuda::Module> regions_;  ///< the region entry points (each with its own registers), where loaded
  std::size_t shared_bytes_ = 0;
  unsigned resident_blocks_ = 0;  ///< of the 1D kernel
  // Behind a pointer: the pool is not movable, the kernel is; acquire() is thread-safe, hence usable from run().
  std::unique_ptr<WorkspacePool> workspaces_;
  std::optional<cuda::Module> zero_;  ///< the zeroing kernel, where use_zeroing_kernel loaded one
  unsigned zero_blocks_ = 0;
};

/// Throws UsageError, beginning with `handle` ("autotune::Histogram"), naming what is wrong with a call of a handle of
/// `p`: samples of `sample_type` (nullopt for an untyped call) other than p.type, counters of another width than
/// p.counter_bits, a span of fewer than p.counters() counters (`counts_size`, nullopt for a pointer), null pointers,
/// samples not aligned to their type; and, for a family with levels (`level_alignment` > 0: the range histogram's),
/// null levels or levels not aligned to their type.
template <class P>
void check_pixel_call(std::string_view handle, const P& p, const void* samples, std::optional<SampleType> sample_type,
                      std::uint64_t n, const void* counts, int counter_bits, std::optional<std::uint64_t> counts_size,
                      const void* levels = nullptr, std::size_t level_alignment = 0) {
  histogram_samples::check_call_types(handle, p, sample_type, counter_bits);
  if (counts_size && *counts_size < static_cast<std::uint64_t>(p.counters()))
    throw UsageError(fmt::format("{}: a span of {} counters passed to a problem of {} bins", handle, *counts_size,
                                 p.counters()));
  const PointerChecks check{handle};
  check.not_null("counts", counts);
  if (level_alignment > 0) check.not_null("levels", levels);
  check.not_null("samples", samples, n > 0);
  check.aligned("samples", samples, size_of(p.type));
  if (level_alignment > 0) check.aligned("levels", levels, level_alignment);
}

}  // namespace autotune::histogram_launch
