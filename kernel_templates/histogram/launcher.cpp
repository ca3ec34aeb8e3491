#include "kernel_templates/histogram/launcher.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/histogram/workspace_layout.hpp"

namespace autotune {

bool HistogramKernel::zero_with_kernel(const DeviceInfo& device) { return cuda::zero_with_kernel(device.cc_major); }

HistogramKernel::HistogramKernel(const HistogramProblem& problem, const HistogramConfig& config,
                                 const DeviceInfo& device, const std::vector<char>& cubin, bool entry_2d)
    // The kernel's own static shared memory (the last-block flag) counts too, so opt in from just below 48 KiB: 16
    // warps' copies of 3 x 256 bins are exactly 48 KiB.
    : PixelKernel(problem, config, device, cubin, histogram_violation,
                  kHistogramKernelName, {kHistogram2dKernelName, kHistogramSpanKernelName}, entry_2d, 1024) {
  if (config.cluster > 1) {
    if (config.cluster > 8) {
      module_.allow_non_portable_clusters();
      for (const cuda::Module& m : regions_) m.allow_non_portable_clusters();
    }
    const int clusters = module_.active_clusters(config.cluster, config.block, shared_bytes_);
    if (clusters < 1)
      throw UsageError(fmt::format("configuration {} cannot run on {}: no cluster of {} blocks fits", config.key(),
                                   device.name, config.cluster));
    resident_blocks_ = static_cast<unsigned>(clusters) * static_cast<unsigned>(config.cluster);
  }
  // Control words (last-block ticket; self-zero ticket and flag), then, for last_block, the histogram: the layout
  // of workspace_layout.hpp, which the kernel reads from its preamble. Every launch leaves all of it zero.
  use_workspaces(histogram_detail::HistogramWorkspace::bytes(problem, config));
  if (histogram_detail::HistogramWorkspace::global_copies(config)) merge_ = module_.entry(kHistogramMergeKernelName);
  use_zeroing_kernel(kHistogramZeroKernelName,
                     config.merge == Merge::atomic && !merge_ && config.cluster == 1 && zero_with_kernel(device));
  if (needs_pixel_alignment(problem, config))
    pixel_alignment_ = static_cast<std::size_t>(problem.channels) * size_of(problem.type);
}

unsigned HistogramKernel::grid_for(std::uint64_t n) const {
  return config_.grid_for(problem_, problem_.samples(n), resident_blocks_);
}

namespace {

// The kernel's Divider (histogram.cu) for divisions by d of numerators below `limit`: the magic number and shift of
// an unsigned 32-bit division by multiply-high where they apply (d > 1, numerators of 32 bits), else shift -1.
struct DividerArgs {
  unsigned magic = 0;
  int shift = -1;
};
DividerArgs divider_for(std::uint64_t d, std::uint64_t limit) {
  if (d <= 1 || limit > (std::uint64_t{1} << 32)) return {};
  int l = 0;
  while ((std::uint64_t{1} << l) < d) ++l;  // ceil(log2 d) >= 1
  const auto magic = static_cast<unsigned>(((std::uint64_t{1} << 32) * ((std::uint64_t{1} << l) - d)) / d + 1);
  return {magic, l - 1};
}

}  // namespace

HistogramKernel::RegionArgs HistogramKernel::region_args(const HistogramProblem& problem, const HistogramConfig& config,
                                                         const void* samples, std::uint64_t n, const Region& region) {
  RegionArgs a;
  const std::uint64_t size = size_of(problem.type);
  // 1D: one row of every sample.
  a.row_samples = region.rows > 1 ? problem.samples(region.row_pixels) : problem.samples(n);
  a.rows = region.rows > 1 ? region.rows : 1;
  a.row_stride = region.rows > 1 ? region.row_stride_bytes / size : a.row_samples;
  a.samples = a.row_samples * a.rows;
  if (a.rows <= 1) return a;
  const std::uint64_t gap = a.row_stride - a.row_samples;
  if (region.read_gaps && gap * span_gap_limit <= a.row_stride &&
      a.row_stride % static_cast<std::uint64_t>(problem.channels) == 0 && config.counter_bits != 16) {
    a.span = true;
    a.samples = (a.rows - 1) * a.row_stride + a.row_samples;
    a.leftover = gap;
    const DividerArgs by_gap = divider_for(gap, (a.rows - 1) * gap);
    a.leftover_magic = by_gap.magic, a.leftover_shift = by_gap.shift;
    return a;
  }
  const auto vec = static_cast<std::uint64_t>(config.load_bytes(problem));
  const std::uint64_t elems = vec / size;
  const std::uint64_t misalign = reinterpret_cast<std::uintptr_t>(samples) % vec;
  a.head0 = std::min(misalign ? (vec - misalign) / size : 0, a.row_samples);
  // Rows whose starts share their alignment (a stride that is a whole number of vectors) hold V vectors after the
  // common head; otherwise V is what a row holds whatever its alignment.
  const bool same = (a.row_stride * size) % vec == 0;
  a.vecs_per_row = same ? (a.row_samples - a.head0) / elems
                        : (a.row_samples >= elems - 1 ? (a.row_samples - (elems - 1)) / elems : 0);
  a.leftover = a.row_samples - a.vecs_per_row * elems;
  const DividerArgs by_vecs = divider_for(a.vecs_per_row, a.rows * a.vecs_per_row);
  const DividerArgs by_leftover = divider_for(a.leftover, a.rows * a.leftover);
  a.vecs_magic = by_vecs.magic, a.vecs_shift = by_vecs.shift;
  a.leftover_magic = by_leftover.magic, a.leftover_shift = by_leftover.shift;
  return a;
}

void HistogramKernel::launch(const void* samples, std::uint64_t n, void* counts, const Region& region,
                             cudaStream_t stream, cuda::Module::Order order) const {
  void* workspace = this->workspace(stream);
  RegionArgs a = region_args(problem_, config_, samples, n, region);  // a.samples: what the kernel counts
  void* args[] = {&samples,      &a.samples,    &counts,  &workspace,       &a.row_samples,    &a.rows,
                  &a.row_stride, &a.head0,      &a.vecs_per_row, &a.vecs_magic, &a.vecs_shift, &a.leftover,
                  &a.leftover_magic, &a.leftover_shift};
  // A region of several rows runs the 2D entry point, or the span entry point. Its grid is the 1D one (the same
  // tiles over the region's vectors); with more registers it may have fewer resident blocks, which costs a tail,
  // never correctness: no block waits for one that has not started (self_zero: the first block to start zeroes
  // `out`).
  const cuda::Module& module = module_for(region.rows, a.span ? kSpanEntry : k2dEntry);
  // A span is sized as the pixels it reads (the stride is a whole number of pixels).
  const std::uint64_t grid_pixels = a.span ? a.samples / static_cast<std::uint64_t>(problem_.channels) : n;
  module.launch(grid_for(grid_pixels), config_.block, args, shared_bytes_, stream, order);
}

bool HistogramKernel::needs_pixel_alignment(const HistogramProblem& problem, const HistogramConfig& config) {
  // The template's kPixelVectors: vectors of whole pixels, whose channel pattern assumes an aligned start.
  const int per_vec = config.load_bytes(problem) / static_cast<int>(size_of(problem.type));
  return problem.channels > 1 && per_vec % problem.channels == 0;
}

void HistogramKernel::run(const void* samples, std::uint64_t n, void* counts, cudaStream_t stream) const {
  run_region(samples, Region{n, 1, 0}, counts, stream);
}

void HistogramKernel::run(const void* samples, const Region& region, void* counts, cudaStream_t stream) const {
  const std::size_t pixel = static_cast<std::size_t>(problem_.channels) * size_of(problem_.type);
  if (region.rows > 1 && (region.row_stride_bytes < region.row_pixels * pixel || region.row_stride_bytes % size_of(problem_.type) != 0))
    throw UsageError(fmt::format("a row stride of {} bytes does not hold rows of {} pixels of {} bytes in whole samples",
                                 region.row_stride_bytes, region.row_pixels, pixel));
  if (region.rows > 1 && pixel_alignment_ > 1 && region.row_stride_bytes % pixel_alignment_ != 0)
    throw UsageError(fmt::format("the rows of {} must start on a pixel: a row stride of {} bytes is not a multiple of "
                                 "{}", problem_.key(), region.row_stride_bytes, pixel_alignment_));
  run_region(samples, region, counts, stream);
}

void HistogramKernel::run_region(const void* samples, const Region& region, void* counts, cudaStream_t stream) const {
  require_pixel_aligned(samples, pixel_alignment_);
  const std::uint64_t n = region.rows > 1 ? region.row_pixels * region.rows : region.row_pixels;  // pixels
  if (merge_) {  // global copies: counted into the workspace, then summed into `counts` (which n = 0 zeroes)
    if (n > 0) launch(samples, n, counts, region, stream);
    void* workspace = this->workspace(stream);
    void* args[] = {&counts, &workspace};
    constexpr int kMergeBlock = 256;  // the merge kernel's __launch_bounds__
    const std::uint64_t counters = histogram_detail::HistogramWorkspace::copy_counters(problem_, config_);
    const auto grid = static_cast<unsigned>(std::min<std::uint64_t>((counters + kMergeBlock - 1) / kMergeBlock,
                                                                    4ull * resident_blocks_));
    merge_->launch(grid, kMergeBlock, args, 0, stream);
    return;
  }
  if (config_.merge != Merge::atomic) {
    launch(samples, n, counts, region, stream);  // with n = 0 a single block (or cluster) writes the zeros
    return;
  }
  // With the zeroing kernel the counting kernel starts while it zeroes, and waits for it before adding into `counts`.
  const cuda::Module::Order order = zero_counts(counts, stream);
  if (n > 0) launch(samples, n, counts, region, stream, order);
}

}  // namespace autotune
