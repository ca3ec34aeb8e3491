// The range-histogram family's vocabulary (CUB's HistogramRange): the problem (what to count, and on which edges the
// tuner measures) and the configuration (one variant of the kernel). The edges themselves are data of each call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotune/histogram_problem.hpp"  // SampleType, Privatization

namespace autotune {

/// How the levels the tuner measures on are laid out over the span of the sample type (HistogramRangeProblem::span):
/// the shape of a problem says which kind of edges its winner was chosen for; a call may pass any levels.
enum class EdgeLayout {
  even,       ///< bins equal-width bins over the whole span (integers: edges rounded down)
  irregular,  ///< bins + 1 distinct edges drawn at random inside the span (some samples fall below or above them)
};
std::string_view to_string(EdgeLayout e);
std::optional<EdgeLayout> parse_edge_layout(std::string_view text);

/// The C++ type of the levels for a sample type, as CUB's LevelT: int for u8, u16, i8, i16 and i32 (so that 256 and
/// 65536 can be an upper edge of 8- and 16-bit samples), unsigned int for u32, float for f32, f16 and bf16 (CUB's
/// HistogramRange with __half or __nv_bfloat16 samples and float levels compares in float), double for f64.
std::size_t level_size(SampleType t);
std::string_view level_type_name(SampleType t);

/// A histogram whose bins are given by `bins + 1` strictly ascending levels, with CUB's HistogramRange semantics:
/// a sample s counts in bin i iff levels[i] <= s < levels[i + 1], the comparison made in the level type (the sample
/// converted to it; f16 and bf16 samples are converted to float exactly). Samples below levels[0], at or above
/// levels[bins], and NaN count nowhere. Counters (32 or 64 bits) are overwritten, not accumulated, by each call.
///
/// Pixels of several channels (CUB's MultiHistogramRange): `channels` interleaved samples per pixel, the first
/// `active` counted, channel c with its own channel_bins(c) bins given by channel_bins(c) + 1 levels. One call takes
/// every active channel's levels in one array, channel after channel (channel c's from level_offset(c): CUB's
/// d_levels[c]), and writes every active channel's counters in one array, channel after channel (channel c's from
/// channel_offset(c): CUB's d_histogram[c]). n then counts pixels.
///
/// The levels are data of each call (device memory, like CUB): a compiled variant works for any levels of the
/// problem's type and bin counts. `edges` only says which levels the tuner generates to measure on
/// (generate_levels in the family's reference.hpp, reproducible from the problem alone).
struct HistogramRangeProblem {
  static constexpr std::string_view kFamily = "histogram_range";

  SampleType type = SampleType::u8;
  int bins = 255;                            ///< levels: bins + 1 (channel 0's, when channels have their own)
  EdgeLayout edges = EdgeLayout::irregular;  ///< the levels the tuner measures on
  std::uint64_t n = 0;                       ///< pixels (samples for one channel): the size tuned; for a handle, a
                                             ///< hint (0 = none)
  std::string distribution = "uniform";      ///< input distribution the tuner measures on (the histogram family's)
  int counter_bits = 32;                     ///< width of the output counters: 32 or 64
  /// Interleaved channels per pixel (CUB's NUM_CHANNELS), 1..4: sample i belongs to channel i % channels. With 2 or
  /// 4 channels the samples must start on a pixel (aligned to channels x the sample size).
  int channels = 1;
  /// Channels counted (CUB's NUM_ACTIVE_CHANNELS), the first `active` of each pixel, 1..channels.
  int active = 1;
  /// Bins of each active channel when they differ (CUB's num_levels[c] - 1): empty, every active channel has
  /// `bins`; else exactly `active` entries, the first equal to `bins`. A problem whose channels are all equal keys
  /// as one without it; others add "/ch1=63/ch2=16" (channels 1..active-1). with_channel_bins() builds either.
  std::vector<int> per_channel_bins{};

  bool operator==(const HistogramRangeProblem&) const = default;

  /// Throws UsageError when the problem is not well formed: bins (of any channel) outside 1..max_bins(type) (u8 and
  /// i8: 256, u16 and i16: 65536, others 1M), counters not 32 or 64, an unknown distribution, channels outside
  /// 1..4, active outside 1..channels, per_channel_bins not one entry per active channel or its first not `bins`.
  void validate() const;
  static int max_bins(SampleType t);

  /// "histogram_range/u8/bins=255/edges=irregular/n=67108864/dist=uniform" ("/counters=64" appended for 64-bit,
  /// then "/channels=4/active=3" for pixels of several channels, then "/ch1=63/ch2=16" when their bins differ).
  std::string key() const;
  std::string shape_key() const;
  /// Input bytes read by one run (n pixels of `channels` samples).
  std::uint64_t bytes() const { return n * static_cast<std::uint64_t>(channels) * size_of(type); }
  /// Samples of `pixels` pixels.
  std::uint64_t samples(std::uint64_t pixels) const { return pixels * static_cast<std::uint64_t>(channels); }
  /// Bins of active channel c: per_channel_bins[c], or bins.
  int channel_bins(int c) const;
  /// Counters before channel c's (channel_offset(active) = counters()).
  int channel_offset(int c) const;
  /// Levels before channel c's (level_offset(active) = levels(): counters() + active).
  int level_offset(int c) const;
  /// Counters one call writes: the bins of every active channel.
  int counters() const { return channel_offset(active); }
  /// Levels one call reads: bins + 1 for every active channel.
  int levels() const { return level_offset(active); }
  /// Every active channel has `bins` bins (per_channel_bins empty or all equal to it).
  bool uniform_channels() const;
  /// The same problem with `channels` interleaved channels whose first bins.size() are counted, channel c with
  /// bins[c] bins (`bins` is bins[0]; per_channel_bins stays empty when every entry is equal).
  HistogramRangeProblem with_channel_bins(int channels, std::vector<int> bins) const;

  /// The value span the tuner's levels and samples lie in, [lower, upper]: [0, 256] for u8, [0, 65536] for u16,
  /// [0, 2^24] for 32-bit integers, [0, 1] for floats.
  std::pair<double, double> span() const;
};

/// Why `count` levels (raw values of the problem's level type, in host memory) cannot be the levels of `problem`,
/// or empty: a count other than problem.levels() (bins + 1 per active channel), a NaN or infinite edge, the edges of
/// a channel that are not strictly ascending. The handle
/// does not read device levels to check them (a call stays one launch, as CUB's): check them here once.
std::string levels_violation(const HistogramRangeProblem& problem, const void* levels, std::size_t count);
/// Throws UsageError with levels_violation's text when it is not empty.
void validate_levels(const HistogramRangeProblem& problem, const void* levels, std::size_t count);

/// How a sample finds its bin.
enum class RangeBinning {
  values,         ///< 8-bit samples: count the 256 sample values of each active channel (the even u8 histogram's
                  ///< fast path); each block maps each channel's value counts through that channel's levels once at
                  ///< the end (CUB's 8-bit method)
  lut,            ///< 8- and 16-bit samples (halves too): a sample bits -> counter table in shared memory (one per
                  ///< active channel), built by each block from the levels
  search,         ///< binary search over the levels copied to shared memory
  search_global,  ///< binary search over the levels in global memory (through L1): any number of bins
  prebin,         ///< one active channel: a uniform pre-bin table in shared memory narrows the search to a few levels
};
std::string_view to_string(RangeBinning b);

struct HistogramRangeConfig {
  static constexpr std::string_view kFamily = "histogram_range";
  static constexpr int kResidentGrid = 0;  ///< grid_blocks: at most the blocks resident at once

  RangeBinning binning = RangeBinning::search;
  Privatization privatization = Privatization::shared;  ///< global (atomics into the output) or shared
  int replicas = 1;  ///< lane-interleaved shared copies of the counters: power of two in 1..32
  int block = 256;   ///< threads per block: a multiple of 32 in 32..1024
  int vec_bytes = 16;  ///< bytes per load: 0 = one sample, else a power of two from the sample size to 16
  int loads = 2;       ///< loads in flight per thread per tile: 1..16
  /// 0: enough blocks to cover n, at most the resident ones (a persistent grid); N > 0: at most N; 1 is the small-n
  /// path: one block stores its counts (no zeroing launch, no atomics outside the block).
  int grid_blocks = kResidentGrid;
  /// How blocks reach the output (the even histogram's enum): atomic, a memset launch then the kernel; self_zero,
  /// one launch (the first block zeroes the output; two control words per stream, zero between launches). Shared
  /// counters only.
  Merge merge = Merge::atomic;
  /// The 16-byte sample loads of a one-row call as ld.global.cs (evict-first: the L2 keeps the counters and the
  /// levels, not samples read once) instead of the read-only path; only with vec_bytes 16. Key ",ld=cs" after
  /// everything else, absent when false (earlier keys name what they did). The lookup chooses it by the input's
  /// size where no measurement did (runtime/streaming.hpp).
  bool load_cs = false;

  bool operator==(const HistogramRangeConfig&) const = default;

  /// "bin=search,priv=shared,R=1,block=256,vec=16,loads=2,grid=0"; ",merge=self_zero" follows for a one-launch
  /// merge (a key without it is merge=atomic, so the keys of earlier caches and policies still name what they did).
  std::string key() const;
  static std::optional<HistogramRangeConfig> parse(std::string_view key);

  int load_bytes(const HistogramRangeProblem& problem) const;
  std::uint64_t tile_samples(const HistogramRangeProblem& problem) const;
  unsigned grid_for(const HistogramRangeProblem& problem, std::uint64_t n, unsigned resident_blocks) const;
  /// Dynamic shared memory: the counters (every active channel's bins, or 256 values per active channel, times
  /// replicas; values: and per-bin totals), then the levels (search, prebin, values), then the table (lut: one per
  /// active channel) or the pre-bin table (prebin).
  std::size_t shared_bytes(const HistogramRangeProblem& problem) const;
  /// Whether a call is one launch (a single block that stores its counts, or self_zero) rather than a memset and a
  /// launch.
  bool one_launch() const { return grid_blocks == 1 || merge == Merge::self_zero; }
  /// Bytes of one stream's workspace: the self_zero control words, else 0.
  std::size_t workspace_bytes() const { return merge == Merge::self_zero ? 2 * sizeof(unsigned) : 0; }
  std::string invalid_reason(const HistogramRangeProblem& problem) const;
  /// Valid for every problem and every GPU of sm_70 or newer (48 KiB of shared memory at most).
  static HistogramRangeConfig fallback(const HistogramRangeProblem& problem);
};

/// Name of the kernel entry point in every range-histogram variant.
inline constexpr const char* kHistogramRangeKernelName = "autotune_histogram_range";
/// Name of the 2D-region entry point (rows of samples a stride apart) in every range-histogram variant.
inline constexpr const char* kHistogramRange2dKernelName = "autotune_histogram_range_2d";

/// Complete CUDA source of one variant: the generated preamble, kernel_templates/common.cuh, and
/// kernel_templates/histogram_range/histogram_range.cu.
std::string kernel_source(const HistogramRangeProblem& problem, const HistogramRangeConfig& config);
/// The same variant without its 2D entry point (kHistogramRange2dKernelName), for 1D calls only: what the tuner
/// compiles and times; the cache stores the full variant.
std::string kernel_source_1d(const HistogramRangeProblem& problem, const HistogramRangeConfig& config);

}  // namespace autotune

template <>
struct std::hash<autotune::HistogramRangeConfig> {
  std::size_t operator()(const autotune::HistogramRangeConfig& c) const noexcept {
    return std::hash<std::string>{}(c.key());
  }
};
