// The histogram family's vocabulary: the problem (what to count) and the configuration (one variant of the kernel).
// A problem plus a device selects a winner.
#pragma once

#include <cstddef>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autotune {

/// Element type of histogram samples. f16 is IEEE binary16 (CUDA's __half), bf16 bfloat16 (__nv_bfloat16): both are
/// binned in float, as CUB bins them with float levels (histogram_problem.hpp's HistogramProblem says how). New types
/// are appended: the numbering of the first six is what the CUB baselines and stored seeds use.
enum class SampleType { u8, u16, i32, u32, f32, f64, f16, bf16, i8, i16 };

std::string_view to_string(SampleType t);
std::optional<SampleType> parse_sample_type(std::string_view text);
std::size_t size_of(SampleType t);
/// f32, f64, f16 and bf16.
bool is_float(SampleType t);
/// f16 and bf16: 16-bit floats, binned in float.
bool is_half(SampleType t);
/// The names every parser of a sample type accepts, "u8, u16, i32, u32, f32, f64, f16, bf16, i8, i16".
std::string sample_type_names();
/// All sample types, in a fixed order (for help texts and tests).
const std::vector<SampleType>& all_sample_types();

/// The upper bound of the range a histogram gets when it names none, the same for the CLI and the API: the whole
/// type for u8 and u16 (256, 65536), the type's top for i8 and i16 (128, 32768: [lower, 128)), 1 for floats
/// ([lower, 1)), and one value per bin for 32-bit integers (lower + bins).
double default_upper(SampleType type, int bins, double lower);

/// One active channel's bins and range (CUB's MultiHistogramEven: num_levels[c] = bins + 1 levels over
/// [lower_level[c], upper_level[c])), with the semantics of HistogramProblem's bins, lower and upper.
struct HistogramChannel {
  int bins = 256;
  double lower = 0.0;
  double upper = 256.0;
  bool operator==(const HistogramChannel&) const = default;
};

/// An even-binned histogram with CUB's HistogramEven semantics, bit for bit (CUB's ScaleTransform, with levels of
/// type int for u8/u16/i8/i16, long long for i32/u32, float for f32, f16 and bf16, double for f64):
/// a sample s counts only if lower <= s < upper (NaN never counts); its bin is
///   integers: (s - lower) * bins / (upper - lower), computed exactly in 64-bit integers;
///   floats:   (int)((s - lo) * scale) with lo = T(lower), scale = T(bins) / (T(upper) - lo), every operation in
///             T: double for f64, float for f32, f16 and bf16 (a 16-bit sample is converted to float exactly
///             first: CUB's HistogramEven with float levels computes the same, its common type of the sample and the
///             level being float). When rounding makes that bin equal to bins (a sample just below upper), the
///             sample is not counted, as in CUB's shared-memory path.
/// Counters (counter_bits = 32 or 64) are overwritten, not accumulated, by each call. 32-bit counters wrap past
/// 2^32 - 1 samples in one bin: use 64-bit counters for inputs that large.
///
/// The range defaults by sample type, as `autotune tune` defaults it: `upper` is initialized from the members
/// before it (default_upper(type, bins, lower)), so `HistogramProblem{.type = SampleType::f32, .bins = 1000,
/// .n = n}` is the problem `autotune tune --type f32 --bins 1000 --n N` tunes, [0, 1). The default is taken when
/// the object is made: a problem whose type or bins are assigned afterwards keeps the upper bound it was made
/// with (256), so assign `upper` too, or make it with a designated initializer or with_defaults().
struct HistogramProblem {
  static constexpr std::string_view kFamily = "histogram";

  SampleType type = SampleType::u8;
  int bins = 256;
  double lower = 0.0;
  double upper = default_upper(type, bins, lower);  ///< must follow type, bins and lower: it is computed from them
  std::uint64_t n = 0;                  ///< samples: the size tuned; for a handle, a hint (0 = none)
  std::string distribution = "uniform"; ///< input distribution the tuner measures on
  int counter_bits = 32;                ///< width of the output counters: 32 or 64
  /// Interleaved channels per pixel (CUB's NUM_CHANNELS), 1..4: sample i belongs to channel i % channels, and n
  /// counts pixels (n * channels samples). 4 with 3 active is an RGBA image whose alpha is not counted.
  int channels = 1;
  /// Channels counted (CUB's NUM_ACTIVE_CHANNELS), the first `active` of each pixel, 1..channels. Each has its own
  /// counters, channel after channel: `bins` over [lower, upper) each, unless per_channel says otherwise.
  int active = 1;
  /// Bins and range of each active channel when they differ (CUB's MultiHistogramEven with a num_levels, lower and
  /// upper level per channel): empty, every active channel has `bins` over [lower, upper); else exactly `active`
  /// entries, the first equal to bins, lower and upper (those stay channel 0's: the cache's columns and the key's
  /// bins and range). Channel c's counters start at channel_offset(c). A problem whose channels are all equal keys
  /// as one without per_channel; others add "/ch1=64:[0,256)/ch2=17:[10,200)" (channels 1..active-1).
  /// multi_channel() builds one from the levels alone.
  std::vector<HistogramChannel> per_channel{};
  /// The layout the tuner measures on, like the distribution a property of the input it generates: 0, n pixels one
  /// after the other; else a 2D region (CUB's 2D overloads) of n / row_pixels rows of `row_pixels` pixels, each
  /// `row_stride_bytes` after the one before (at least a row, a whole number of pixels). A handle still takes the
  /// region with each call (Histogram's 2D operator()). Keys add "/row=7680/stride=32768".
  std::uint64_t row_pixels = 0;
  std::uint64_t row_stride_bytes = 0;

  bool operator==(const HistogramProblem&) const = default;

  /// The problem with the range every caller gets when it names none (the CLI and the API alike): the whole type
  /// for u8 and u16, [lower, 1) for floats, and one value per bin, [lower, lower + bins), for 32-bit
  /// integers. n stays 0.
  static HistogramProblem with_defaults(SampleType type, int bins, double lower = 0.0);

  /// Throws UsageError when the problem is not well formed (bins < 1, lower >= upper, a range not representable
  /// in the sample type, non-integral bounds for integer types, unknown distribution, channels outside 1..4,
  /// active outside 1..channels, per_channel not one entry per active channel or its first entry not bins, lower
  /// and upper, a channel's range invalid as above, more than 2^24 counters in all, a region whose rows do not
  /// divide n or whose stride is shorter than a row or not a whole number of pixels).
  void validate() const;

  /// Canonical text, stable across versions, used as a key in the cache and in messages:
  /// "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform" ("/counters=64" is appended for 64-bit counters,
  /// then "/channels=4/active=3" for pixels of several channels, then "/ch1=64:[0,256)/..." when their bins or
  /// ranges differ, then "/row=W/stride=B" for a 2D region).
  std::string key() const;
  /// The same without n: every size of one histogram shares this (used for "nearest tuned size" lookups).
  std::string shape_key() const;

  /// Input bytes read by one run (n pixels of `channels` samples).
  std::uint64_t bytes() const { return n * static_cast<std::uint64_t>(channels) * size_of(type); }
  /// Counters one call writes: the bins of every active channel.
  int counters() const { return channel_offset(active); }
  /// Channel c's bins and range (c < active): per_channel[c], or bins over [lower, upper).
  HistogramChannel channel(int c) const;
  /// Counters before channel c's (channel_offset(active) = counters()).
  int channel_offset(int c) const;
  /// Every active channel has `bins` over [lower, upper) (per_channel empty or all equal to them).
  bool uniform_channels() const;
  /// Pixels of `channels` interleaved channels whose first levels.size() are counted, channel c with levels[c]
  /// (bins, lower and upper are levels[0]; per_channel stays empty when every entry is equal). n stays 0.
  static HistogramProblem multi_channel(SampleType type, int channels, std::vector<HistogramChannel> levels);
  /// Samples of n pixels.
  std::uint64_t samples(std::uint64_t pixels) const { return pixels * static_cast<std::uint64_t>(channels); }
};

/// Input distributions the tuner can generate.
const std::vector<std::string>& histogram_distributions();


/// Where a block accumulates its counts.
enum class Privatization {
  global,  ///< atomicAdd straight into the output histogram (the seed's first kernel; any number of bins)
  shared,  ///< a shared-memory histogram per block, `replicas` lane-interleaved copies, merged at the end
  warp,    ///< one shared-memory copy per warp
};

/// How a thread's loads are laid out inside a tile of grid * block * loads vectors.
enum class Partitioning {
  interleaved,  ///< load k of thread t is tile_base + k * threads + t: coalesced across the warp
  contiguous,   ///< thread t owns loads [t * loads, (t + 1) * loads) of the tile: runs stay in one thread
};

/// How equal bins are merged before they reach a counter.
enum class Aggregation {
  none,
  run,   ///< a run of equal bins seen by one thread is counted in a register, one atomic per run
  warp,  ///< lanes of a warp with equal bins are merged with __match_any_sync, one atomic per group
};

/// How the per-block histograms reach the output.
enum class Merge {
  atomic,      ///< the output is zeroed (cudaMemsetAsync) and every block adds into it with atomics: two operations
  last_block,  ///< blocks add into a workspace histogram (one per stream, zero between calls); the last block to
               ///< finish moves it into the output and zeroes it: one launch, no zeroing launch
  self_zero,   ///< one launch, no zeroing launch, no end-of-kernel ticket: the first block to start zeroes the
               ///< output while the others count; every block waits for that before it adds its totals (a flag
               ///< in a per-stream workspace that the launch leaves zero). Shared or per-warp copies only.
};

/// How a sample reaches its counter.
enum class Binning {
  direct,  ///< each sample's bin is computed (the even-bins formula) and counted
  values,  ///< u8 or i8 samples: the 256 byte values of each active channel are counted (an i8 sample as its
           ///< two's-complement byte), and the block maps the value counts to bins once at its end (CUB's 8-bit
           ///< path): any bins and range cost what 256 bins cost
};

std::string_view to_string(Privatization p);
std::string_view to_string(Partitioning p);
std::string_view to_string(Binning b);
std::string_view to_string(Aggregation a);
std::string_view to_string(Merge m);

struct HistogramConfig {
  static constexpr std::string_view kFamily = "histogram";

  /// grid_blocks values with a meaning of their own (a positive value is a cap on the number of blocks).
  static constexpr int kResidentGrid = 0;  ///< cover n with at most the blocks resident at once (one wave)
  static constexpr int kCoverGrid = -1;    ///< cover n: one tile per block, as many waves as that takes

  Privatization privatization = Privatization::shared;
  int replicas = 1;       ///< lane-interleaved shared copies (shared only): power of two in 1..32
  int counter_bits = 32;  ///< shared counter width: 32, or 16 (two per word, wraps carried exactly into the output)
  int block = 256;        ///< threads per block: a multiple of 32 in 32..1024 (the space uses 64..1024)
  /// Bytes per load: 0 = one sample per load, else a power of two from the sample size up to 16 (4 and 8 load
  /// 4 or 8 u8 samples at a time; a width equal to the sample size compiles to the same kernel as 0).
  int vec_bytes = 16;
  int loads = 2;          ///< loads in flight per thread per tile (the coarsening factor): 1..16
  Aggregation aggregation = Aggregation::none;
  Partitioning partitioning = Partitioning::interleaved;
  Merge merge = Merge::atomic;
  /// Grid size, written "grid=N" in the key:
  ///    0 (kResidentGrid): enough blocks to cover n, at most the blocks that are resident at once; each block
  ///      then loops over tiles (a persistent grid: the block's shared setup and merge are paid once per wave);
  ///   -1 (kCoverGrid): enough blocks to cover n with one tile each (block * loads * load_bytes bytes), beyond the
  ///      resident blocks if n needs it, capped only at the largest grid CUDA launches (2^31 - 1 blocks);
  ///   N > 0: like 0 but at most N blocks; 1 is the small-n single-block path (no atomics outside the block).
  /// Whatever the value, the host never lets a block see 2^31 samples, so per-block 32-bit counters stay exact.
  int grid_blocks = kResidentGrid;
  /// Blocks per thread-block cluster (sm_90+): 1 = no cluster; 2, 4, 8 or 16 (16 is a non-portable size). The blocks
  /// of a cluster sum their shared histograms through distributed shared memory, each block one slice of the bins,
  /// so one cluster adds each bin once. The grid is a whole number of clusters; when it is exactly one cluster (or
  /// one block), the cluster's sums are stored straight into the output: no atomics, no zeroing, no workspace.
  /// Written "cluster=N" in the key only when N > 1 (keys written before clusters existed stay canonical).
  int cluster = 1;
  /// What the shared counters count: bins (direct), or byte values mapped to bins at the end of each block
  /// (u8 or i8 samples, 32-bit shared or per-warp counters). Written ",bin=values" in the key only for values (keys
  /// written before it existed stay canonical).
  Binning binning = Binning::direct;
  /// The 16-byte sample loads of 1D inputs (and of 2D regions read as one span) as ld.global.cs (evict-first: the
  /// L2 keeps its other lines); else ld.global.nc. Written ",ld=cs" in the key only when set.
  bool load_cs = false;
  /// Copies of a global histogram (privatization global, replicas > 1) laid out in 32 stripes: bin b of a copy at
  /// counter (b % 32) * ceil(bins / 32) + b / 32, so that neighbouring bins (a hot band of skewed samples) fall on
  /// different cache lines, and so on more L2 slices, instead of sharing one line per copy. Written ",lay=striped" in
  /// the key only when set.
  bool striped = false;
  /// Copies of a global histogram (privatization global, replicas > 1) interleaved in chunks of `chunk` counters (a
  /// power of two, 32 to 65536): chunk k of copy c at counter (k * replicas + c) * chunk, bin b in chunk b / chunk.
  /// The copies of a hot band of neighbouring bins are then `chunk` counters apart, within a few pages, instead of a
  /// whole copy apart (one page each). 0: each copy's bins one after the other. Written ",chunk=N" in the key only
  /// when N > 0.
  int chunk = 0;
  /// A window of the bins counted in shared memory next to a global histogram (privatization global): `window`
  /// 32-bit counters (a power of two, 1024 to 32768) for the bins [w, w + window) around the bin of one sample that
  /// each block reads before counting (w clamped to the bins), the other bins by global atomics as without it; the
  /// block adds its window's nonzero counts at its end. Skewed samples whose hot bins fall in the window (a hot band
  /// of a few bins among 1M) then cost shared atomics instead of global atomics piled on a few addresses. 0: no
  /// window. Written ",win=N" in the key only when N > 0.
  int window = 0;

  bool operator==(const HistogramConfig&) const = default;

  /// Canonical text, e.g.
  /// "priv=shared,R=32,cbits=32,block=512,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0"
  /// (then ",cluster=N" for clusters and ",bin=values" for value counting).
  /// Stable: it is stored in the cache (every key ever written parses back to the same configuration).
  std::string key() const;
  /// Inverse of key(). Also reads the first schema's keys ("priv=shared,block=256,ipt=4,agg=0,part=interleaved":
  /// one sample per load, ipt loads). nullopt for anything else.
  static std::optional<HistogramConfig> parse(std::string_view key);

  /// Bytes per load for `problem`'s sample type (vec_bytes, or the sample size when vec_bytes is 0).
  int load_bytes(const HistogramProblem& problem) const;
  /// Samples one block counts per tile: block * loads * samples per load.
  std::uint64_t tile_samples(const HistogramProblem& problem) const;
  /// Blocks to launch for n samples when `resident_blocks` blocks fit on the device at once (grid_blocks above).
  /// The host's launch dimension, computed here so that the tuner, the runtime and the tests agree.
  unsigned grid_for(const HistogramProblem& problem, std::uint64_t n, unsigned resident_blocks) const;
  /// Dynamic shared memory the kernel needs for this problem, in bytes (with clusters or value counting: one more
  /// row of bins, the block's per-bin totals).
  std::size_t shared_bytes(const HistogramProblem& problem) const;
  /// Why this configuration is not well formed for `problem` (independent of any device), or empty.
  std::string invalid_reason(const HistogramProblem& problem) const;

  /// The safe configuration used when nothing was tuned: valid for every problem and every GPU of sm_70 or newer.
  static HistogramConfig fallback(const HistogramProblem& problem);
};

/// Names of the kernel entry points in every histogram variant: 1D (n samples), and 2D regions of more than one row,
/// by rows or, where the gaps between rows are short, as one span with the gaps taken back (the same parameters;
/// each its own register allocation, so the 1D loop does not pay for the region's).
inline constexpr const char* kHistogramKernelName = "autotune_histogram";
inline constexpr const char* kHistogram2dKernelName = "autotune_histogram_2d";
inline constexpr const char* kHistogramSpanKernelName = "autotune_histogram_span";
/// The kernel that sums a global histogram's copies (privatization global with replicas > 1) into the output.
inline constexpr const char* kHistogramMergeKernelName = "autotune_histogram_merge";
/// The kernel that zeroes the output before a merge=atomic launch (without global copies) that may overlap it.
inline constexpr const char* kHistogramZeroKernelName = "autotune_histogram_zero";

/// Complete CUDA source of one variant: a generated preamble of compile-time constants followed by the
/// embedded template kernel_templates/histogram/histogram.cu. The preamble is the only place parameters enter the kernel.
std::string kernel_source(const HistogramProblem& problem, const HistogramConfig& config);
/// The same variant without its 2D entry points (kHistogram2dKernelName, kHistogramSpanKernelName), for 1D calls only: what the tuner compiles
/// and times for a problem of one row. The 2D entry is most of a variant's compile time (on 2 cores, 0.56 s of 0.58 s
/// with it against 0.17 s without, u8/256 with 32 copies); the cache stores the full variant.
std::string kernel_source_1d(const HistogramProblem& problem, const HistogramConfig& config);

}  // namespace autotune

template <>
struct std::hash<autotune::HistogramConfig> {
  std::size_t operator()(const autotune::HistogramConfig& c) const noexcept {
    return std::hash<std::string>{}(c.key());
  }
};
