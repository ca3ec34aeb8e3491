// Histogram kernel template, compiled with NVRTC once per variant.
//
// Between the preamble and this text comes the device code the templates share (kernel_templates/common.cuh: u64,
// Raw, split_unaligned, tile_index, last_block_to_finish); region_map.cuh is put in place of its #include below.
//
// Every tuning parameter arrives as a compile-time constant in namespace `at`, from the preamble that
// autotune::kernel_source() generates from a HistogramProblem and a HistogramConfig (the one source of truth):
//   sample_t, out_t       sample type (f16 and bf16: their bits, unsigned short); output counter type (unsigned int
//                         or unsigned long long)
//   kHalfKind             0, or 1 for f16 and 2 for bf16 samples: converted to float exactly, then binned as f32
//   kBins                 counters: the bins of every active channel (the output, channel after channel)
//   kChannelBins          bins of one channel (of channel 0 when kUniformChannels is false)
//   kUniformChannels      every active channel has kChannelBins bins over the same range; otherwise channel c has
//                         kChBins<c> bins from counter kChOffset<c> over its own range (kChLowerI<c>, kChLowerF<c>,
//                         kChScaleF<c>, ...: CUB's MultiHistogramEven with levels per channel)
//   kChannels, kActive    interleaved channels per pixel (1..4; sample i is channel i % kChannels) and how many
//                         are counted (the first kActive). n counts samples. When a vector holds whole pixels
//                         (kElemsPerVec % kChannels == 0) the channel of each element is a constant: the host
//                         passes pointers aligned to the pixel (HistogramKernel::run), so the unaligned head is
//                         whole pixels too, and the inactive channels' elements cost nothing
//   kIsFloat              f32, f16 and bf16 use kLowerF / kUpperF / kScaleF (CUB's float scale), f64 kLowerD /
//                         kUpperD / kScaleD, integers kLowerI / kUpperI
//   kBlock                threads per block (the host launches exactly this many)
//   kVecBytes             bytes per load: a power of two in sizeof(sample_t) .. 16 (4 or 8 load 4 or 8 u8 samples);
//                         the pointer's unaligned head is done one sample at a time
//   kLoads                vector loads in flight per thread per tile (all issued before the first count)
//   kPriv                 Privatization::global: atomics straight into `out`, or with kReplicas > 1 into
//                         kReplicas copies of the histogram in the workspace (warp w of the grid adds into copy
//                         w % kReplicas: a hot bin's atomics spread over kReplicas addresses), which a second kernel
//                         (autotune_histogram_merge) sums into `out` and leaves zero; kStriped lays each copy out
//                         in kStripes stripes (bin b at counter (b % kStripes) * kStripe + b / kStripes: the bins of
//                         a hot band on as many cache lines, so on more L2 slices); shared: a shared histogram,
//                         kReplicas lane-interleaved copies (bin b of copy r at word b * kReplicas + r,
//                         copy = lane % kReplicas: with 32 copies every lane of a warp owns its bank, whatever the
//                         data); warp: one shared copy per warp
//   kCounter16            shared counters are 16-bit, two per word; a wrap is carried exactly into `out`
//   kAggregation          Aggregation::none; run: a run of equal bins in a register, one atomic per run;
//                         warp: lanes of a warp with equal bins are merged (__match_any_sync), one atomic per group
//   kPartitioning         Partitioning::interleaved: vector k of thread t in a tile is base + k * threads + t;
//                         contiguous: base + t * kLoads + k
//   kMerge                Merge::atomic: blocks add into `out`, which the host zeroed beforehand.
//                         last_block: blocks add into a histogram in the workspace (kept zero between launches);
//                         the last block to finish moves it into `out` and zeroes it (atomicExch): one launch.
//                         self_zero: the first block to start (a wrapping ticket) zeroes `out` with its first
//                         warp while every other warp counts; blocks add into `out` once a flag says it is zero,
//                         and the flag counts itself back to zero: one launch, nothing serial at the end.
//   kCluster              blocks per thread-block cluster (1: none; also the macro AT_CLUSTER). The blocks of a
//                         cluster write their per-bin totals to shared memory, then block r sums slice r of the
//                         bins over all of them through distributed shared memory: one addition per bin and cluster.
//   kStriped              global copies (kGlobalCopies) in kStripes stripes (from the workspace layout): bin b of a
//                         copy at counter copy_slot(b), the merge kernel reading them in their order
//   kChunk                global copies interleaved in chunks of kChunk counters (0: one copy after the other):
//                         chunk k of copy c at counter (k * kReplicas + c) * kChunk, so a hot band's copies lie
//                         kChunk counters apart rather than a copy apart
//   kBinning              Binning::direct: a sample's bin is computed and counted. values (u8 samples; also the macro
//                         AT_VALUES): the shared counters count the 256 byte values of each active channel, and at
//                         its end each block adds every value's count to the bin of that value (value_counter, from
//                         the channel levels; no table): per sample this is the work of
//                         256 bins over [0, 256), whatever the bins and range (CUB's 8-bit path, and the range
//                         family's bin=values)
//
// When the grid is a single block or a single cluster, its sums are the answer: they are stored into `out`, with no
// atomics and no workspace (the small-n path), whatever kMerge says.
//
// Semantics (CUB's HistogramEven, bit for bit: ScaleTransform in cub/device/dispatch/dispatch_histogram.cuh): a
// sample s counts iff lower <= s < upper (NaN never counts) and its bin is below bins;
//   integer bin = (s - lower) * bins / (upper - lower), exact in 64-bit (constants fold: u8/256 bins is bin = s)
//   float bin   = (int)((s - lower) * scale) in float, scale = float(bins) / (float(upper) - float(lower)) computed
//                 in float by the host; f64 the same in double. A rounding can make the bin of a sample just below
//                 upper equal bins: CUB's shared-memory path (<= 256 bins) counts it nowhere (its private histogram
//                 has a spare slot that is never copied out; agent/agent_histogram.cuh), and so does this kernel.
//
// Any grid is correct: the host sizes it (HistogramConfig::grid_for: a persistent grid of at most the resident
// blocks, each looping over tiles; one tile per block to cover n; or a single block) and guarantees that a block
// sees fewer than 2^31 samples, so per-block 32-bit counters never overflow. A tile is kBlock * kLoads vectors per
// block. The sample pointer must be aligned to sizeof(sample_t).

static_assert(at::kBlock >= 32 && at::kBlock <= 1024 && at::kBlock % 32 == 0, "block must be a multiple of 32 up to 1024");
static_assert(at::kLoads >= 1 && at::kLoads <= 16, "loads in flight must be in 1..16");
static_assert(at::kVecBytes >= sizeof(at::sample_t) && at::kVecBytes <= 16 && (at::kVecBytes & (at::kVecBytes - 1)) == 0,
              "vector width must be a power of two from the sample size to 16 bytes");
static_assert(at::kBins >= 1, "at least one bin");
static_assert(at::kChannels >= 1 && at::kChannels <= 4 && at::kActive >= 1 && at::kActive <= at::kChannels &&
                  (at::kUniformChannels ? at::kBins == at::kActive * at::kChannelBins
                                        : at::kBins == at::kChOffset0 + at::kChBins0 +
                                                           (at::kActive > 1 ? at::kChBins1 : 0) +
                                                           (at::kActive > 2 ? at::kChBins2 : 0) +
                                                           (at::kActive > 3 ? at::kChBins3 : 0)),
              "1..4 channels, 1..channels of them active, each with its own bins");
static_assert(at::kPriv == at::Privatization::global || at::kPriv == at::Privatization::shared ||
                  at::kPriv == at::Privatization::warp,
              "privatization is global, shared or warp");
static_assert(at::kReplicas >= 1 && at::kReplicas <= 32 && (at::kReplicas & (at::kReplicas - 1)) == 0,
              "replicas must be a power of two in 1..32");
static_assert(at::kAggregation == at::Aggregation::none || at::kAggregation == at::Aggregation::run ||
                  at::kAggregation == at::Aggregation::warp,
              "aggregation is none, run or warp");
static_assert(at::kPartitioning == at::Partitioning::interleaved || at::kPartitioning == at::Partitioning::contiguous,
              "partitioning is interleaved or contiguous");
static_assert(!(at::kCounter16 && at::kPriv == at::Privatization::global),
              "16-bit counters exist only in shared memory");
static_assert(at::kPriv != at::Privatization::global || at::kReplicas == 1 || at::kMerge == at::Merge::atomic,
              "copies of a global histogram are merged by their own kernel (merge=atomic)");
static_assert(!at::kStriped || (at::kPriv == at::Privatization::global && at::kReplicas > 1),
              "striped copies are copies of a global histogram");
static_assert(at::kMerge == at::Merge::atomic || at::kMerge == at::Merge::last_block ||
                  at::kMerge == at::Merge::self_zero,
              "merge is atomic, last_block or self_zero");
static_assert(at::kMerge != at::Merge::self_zero || (at::kPriv != at::Privatization::global && !at::kCounter16),
              "self_zero needs 32-bit shared counters");
static_assert(at::kCluster == 1 || ((at::kCluster & (at::kCluster - 1)) == 0 && at::kCluster <= 16 &&
                                    at::kPriv != at::Privatization::global &&
                                    !at::kCounter16),
              "clusters of 2..16 blocks sum 32-bit shared counters");
static_assert(at::kBinning == at::Binning::direct ||
                  (at::kBinning == at::Binning::values && sizeof(at::sample_t) == 1 && !at::kIsFloat &&
                   at::kPriv != at::Privatization::global && !at::kCounter16),
              "value counting counts u8 samples in 32-bit shared counters");
static_assert(AT_VALUES == (at::kBinning == at::Binning::values), "the preamble's value macro and constant agree");

namespace at {

constexpr int kElemsPerVec = kVecBytes / static_cast<int>(sizeof(sample_t));
constexpr int kWarps = kBlock / 32;
constexpr int kCopies = kPriv == Privatization::shared ? kReplicas : (kPriv == Privatization::warp ? kWarps : 1);
constexpr int kPerWord = kCounter16 ? 2 : 1;
constexpr bool kValues = kBinning == Binning::values;
constexpr int kCounted = kValues ? 256 * kActive : kBins;  // counters of one copy: the bins, or the byte values
constexpr int kSlots = (kCounted + kPerWord - 1) / kPerWord;  // words per copy
// The copies; with clusters or value counting, the block's kBins per-bin totals follow them.
constexpr int kSharedWords = kPriv == Privatization::global ? 0 : kSlots * kCopies;
constexpr bool kLastBlock = kMerge == Merge::last_block;
constexpr bool kGlobalCopies = kPriv == Privatization::global && kReplicas > 1;
// Counters of one global copy: the bins, kStripes stripes of kStripe (kStriped: bin b at copy_slot(b)), or the bins
// padded to whole chunks (kChunk).
constexpr u64 kStripe = (static_cast<u64>(kBins) + kStripes - 1) / kStripes;
constexpr u64 kCopyCounters = kStriped ? kStripes * kStripe
                              : kChunk > 0 ? (static_cast<u64>(kBins) + kChunk - 1) / kChunk * kChunk
                                           : static_cast<u64>(kBins);
static_assert(kChunk == 0 || (kGlobalCopies && !kStriped), "chunks interleave copies of a global histogram");
// Counter w of copy c in the workspace's copies: copy c's counters one after the other, or interleaved in chunks.
__host__ __device__ constexpr u64 copy_counter(u64 c, u64 w) {
  return kChunk > 0 ? (w / kChunk * kReplicas + c) * kChunk + w % kChunk : c * kCopyCounters + w;
}
constexpr bool kSelfZero = kMerge == Merge::self_zero;
// merge=atomic without global copies: the host zeroes `out` with autotune_histogram_zero and launches this kernel to
// start before that one ends (programmatic dependent launch, sm_90+): the wait comes before the first addition into
// `out`, at the start where counting itself adds into it (global atomics, the spills of 16-bit counters), else after
// the block has counted.
constexpr bool kZeroedBefore = kMerge == Merge::atomic && !kGlobalCopies;
constexpr bool kOutWhileCounting = kPriv == Privatization::global || kCounter16;
constexpr bool kInterleaved = kPartitioning == Partitioning::interleaved;

typedef typename Raw<kVecBytes>::type raw_t;  // Raw: common.cuh
union Vec {
  raw_t raw;
  sample_t s[kElemsPerVec];
};

// Channel C's levels (C = 0..3; a channel past the active ones repeats channel 0's).
template <int C>
struct Levels {
  static constexpr int bins = C == 0 ? kChBins0 : C == 1 ? kChBins1 : C == 2 ? kChBins2 : kChBins3;
  static constexpr int offset = C == 0 ? kChOffset0 : C == 1 ? kChOffset1 : C == 2 ? kChOffset2 : kChOffset3;
  static constexpr long long lower_i = C == 0 ? kChLowerI0 : C == 1 ? kChLowerI1 : C == 2 ? kChLowerI2 : kChLowerI3;
  static constexpr long long upper_i = C == 0 ? kChUpperI0 : C == 1 ? kChUpperI1 : C == 2 ? kChUpperI2 : kChUpperI3;
  static constexpr float lower_f = C == 0 ? kChLowerF0 : C == 1 ? kChLowerF1 : C == 2 ? kChLowerF2 : kChLowerF3;
  static constexpr float upper_f = C == 0 ? kChUpperF0 : C == 1 ? kChUpperF1 : C == 2 ? kChUpperF2 : kChUpperF3;
  static constexpr float scale_f = C == 0 ? kChScaleF0 : C == 1 ? kChScaleF1 : C == 2 ? kChScaleF2 : kChScaleF3;
  static constexpr double lower_d = C == 0 ? kChLowerD0 : C == 1 ? kChLowerD1 : C == 2 ? kChLowerD2 : kChLowerD3;
  static constexpr double upper_d = C == 0 ? kChUpperD0 : C == 1 ? kChUpperD1 : C == 2 ? kChUpperD2 : kChUpperD3;
  static constexpr double scale_d = C == 0 ? kChScaleD0 : C == 1 ? kChScaleD1 : C == 2 ? kChScaleD2 : kChScaleD3;
};
static_assert(Levels<0>::bins == kChannelBins && Levels<0>::offset == 0, "channel 0 is the problem's bins");

// Signed 8- and 16-bit samples binned directly are counted as keys: their bits with the sign bit flipped, key =
// v - min, in [0, 2^bits), with the range shifted alike. A vector's samples become keys with one XOR per 32-bit word
// (to_keys), so that i8 costs per sample what u8 costs: sign-extending each byte of a 16-byte vector cost i8 at
// 512 MiB 11 % of u8's speed on an H200 (bench/results/2026-12-02d-h200-histogram_bench-quick-final.md), and
// flipping each byte on its own after the extraction was slower still (bench/results/2026-12-02e-*).
typedef typename Raw<sizeof(sample_t) <= 2 ? sizeof(sample_t) : 1>::type bits_t;  // used for 8- and 16-bit samples
constexpr bool kSignedKeys = !kIsFloat && sizeof(sample_t) <= 2 && static_cast<sample_t>(-1) < 0 && !kValues;
constexpr long long kKeyMin = kSignedKeys ? -(1ll << (8 * (sizeof(sample_t) <= 2 ? sizeof(sample_t) : 1) - 1)) : 0;
constexpr unsigned kSignBits = sizeof(sample_t) == 1 ? 0x80808080u : 0x80008000u;  // of every sample in a word

// A sample as the kernel counts it (a key, for kSignedKeys).
__device__ __forceinline__ sample_t to_key(sample_t s) {
  if constexpr (kSignedKeys) return static_cast<sample_t>(static_cast<bits_t>(s) ^ static_cast<bits_t>(-kKeyMin));
  else return s;
}
// Every sample of a loaded vector as a key.
__device__ __forceinline__ void to_keys(Vec& v) {
  if constexpr (kSignedKeys && kVecBytes >= 4) {
    unsigned* words = reinterpret_cast<unsigned*>(&v.raw);
#pragma unroll
    for (int w = 0; w < kVecBytes / 4; ++w) words[w] ^= kSignBits;
  } else if constexpr (kSignedKeys) {
#pragma unroll
    for (int e = 0; e < kElemsPerVec; ++e) v.s[e] = to_key(v.s[e]);
  }
}

// Bin of one key (to_key: a sample, or signed 8- and 16-bit samples' flipped bits) of channel C, or -1 when it is out
// of range (or NaN).
template <int C>
__device__ __forceinline__ int bin_of(sample_t s) {
  using L = Levels<C>;
  if constexpr (kIsFloat && sizeof(sample_t) == 8) {  // f64: binned in double
    const double d = static_cast<double>(s);
    if (!(d >= L::lower_d && d < L::upper_d)) return -1;  // written so that NaN fails the test
    const int b = static_cast<int>((d - L::lower_d) * L::scale_d);
    return b < L::bins ? b : -1;  // rounded up to bins: counted nowhere, as CUB
  } else if constexpr (kIsFloat) {  // f32, and the halves converted to float (exact)
    float f;
    if constexpr (kHalfKind != 0) f = half_bits_to_float<kHalfKind>(static_cast<unsigned short>(s));
    else f = static_cast<float>(s);
    if (!(f >= L::lower_f && f < L::upper_f)) return -1;  // written so that NaN fails the test
    const int b = static_cast<int>((f - L::lower_f) * L::scale_f);
    return b < L::bins ? b : -1;  // rounded up to bins: counted nowhere, as CUB
  } else if constexpr (sizeof(sample_t) <= 2 &&
                       static_cast<u64>(L::upper_i - L::lower_i) * static_cast<u64>(L::bins) <= 0xFFFFFFFFull) {
    // 8- and 16-bit samples whose (s - lower) * bins fits 32 bits: the same exact quotient in 32-bit arithmetic (a
    // multiply and, for a width that is not a power of two, a multiply-high by the constant's reciprocal), written
    // out rather than left to the compiler's narrowing of the 64-bit formula below. Keys and range less kKeyMin.
    constexpr long long kLo = L::lower_i - kKeyMin, kHi = L::upper_i - kKeyMin;
    const int key = kSignedKeys ? static_cast<int>(static_cast<bits_t>(s)) : static_cast<int>(s);
    if (key < kLo || key >= kHi) return -1;
    return static_cast<int>(static_cast<unsigned>(key - kLo) * static_cast<unsigned>(L::bins) /
                            static_cast<unsigned>(L::upper_i - L::lower_i));
  } else {
    const long long v = kSignedKeys ? static_cast<long long>(static_cast<bits_t>(s)) + kKeyMin : static_cast<long long>(s);
    if (v < L::lower_i || v >= L::upper_i) return -1;
    return static_cast<int>(static_cast<u64>(v - L::lower_i) * static_cast<u64>(L::bins) /
                            static_cast<u64>(L::upper_i - L::lower_i));
  }
}

// Counter of one sample of channel `channel` binned directly (kBins counters: channel after channel), or -1.
__device__ __forceinline__ int bin_counter(sample_t s, int channel) {
  if (kChannels == 1) return bin_of<0>(s);
  if (channel >= kActive) return -1;
  if constexpr (kUniformChannels) {
    const int b = bin_of<0>(s);
    return b < 0 ? -1 : channel * kChannelBins + b;
  } else {
    // Every active channel's counter, then a select: where the channel is known at compile time (pixel vectors,
    // unrolled) the others fold away; where lanes hold different channels (RGB, scalar heads) no lane diverges.
    const int c0 = bin_of<0>(s);
    const int c1 = kActive > 1 ? bin_of<1>(s) : -1;
    const int c2 = kActive > 2 ? bin_of<2>(s) : -1;
    const int c3 = kActive > 3 ? bin_of<3>(s) : -1;
    const int b = channel == 0 ? c0 : channel == 1 ? c1 : channel == 2 ? c2 : c3;
    const int offset = channel == 0 ? 0 : channel == 1 ? Levels<1>::offset : channel == 2 ? Levels<2>::offset
                                                                                          : Levels<3>::offset;
    return b < 0 ? -1 : offset + b;
  }
}

// Counter of one sample of channel `channel` (bin_counter; with value counting the sample's value among its
// channel's 256), or -1.
__device__ __forceinline__ int counter_of(sample_t s, int channel) {
  if constexpr (kValues) {
    if (kChannels > 1 && channel >= kActive) return -1;
    return channel * 256 + static_cast<int>(static_cast<unsigned char>(s));  // i8: its bits; channel 0 for one
  }
  return bin_counter(s, channel);
}
// Channel of the sample at index i (from the start of the samples).
__device__ __forceinline__ int channel_at(u64 i) { return kChannels == 1 ? 0 : static_cast<int>(i % kChannels); }
// Vectors hold whole pixels and start on a pixel: element e is channel e % kChannels.
constexpr bool kPixelVectors = kElemsPerVec % kChannels == 0;

__device__ __forceinline__ void global_add(out_t* out, int b, out_t count) { atomicAdd(out + b, count); }
// Where a global copy keeps bin b, from the copy's first counter: b itself, with kStriped its stripe's counter,
// with kChunk its chunk's place among the interleaved copies.
__device__ __forceinline__ int copy_slot(int b) {
  const auto u = static_cast<unsigned>(b);
  if constexpr (kStriped) return static_cast<int>((u % kStripes) * kStripe + u / kStripes);
  else if constexpr (kChunk > 0) return static_cast<int>(copy_counter(0, u));
  else return b;
}

// Adds `count` (< 65536) to 16-bit counter `b` packed in `word`. A wrap of the low half moves 65536 counts to out[b]
// and takes back the carry it pushed into the high half; carries out of (and borrows into) bit 31 are exactly the
// wraps of the high half, so each is moved to out[b + 1]. The arithmetic is modular, so the order in which threads
// interleave does not matter: every wrap is seen by exactly one thread.
__device__ __forceinline__ void add16(unsigned* word, int b, unsigned count, out_t* out) {
  const bool high = (b & 1) != 0;
  const unsigned delta = high ? count << 16 : count;
  const unsigned old = atomicAdd(word, delta);
  int high_wraps = old > 0xFFFFFFFFu - delta ? 1 : 0;
  if (!high && (old & 0xFFFFu) + count > 0xFFFFu) {
    global_add(out, b, static_cast<out_t>(65536u));
    const unsigned old2 = atomicAdd(word, 0xFFFF0000u);  // subtract the carry into the high half
    high_wraps -= old2 < 0x10000u ? 1 : 0;                // it borrowed across bit 31
  }
  if (high_wraps != 0) global_add(out, b | 1, static_cast<out_t>(static_cast<long long>(high_wraps) * 65536));
}

// Value counting in lane-interleaved copies: log2(kReplicas), and the bits of a value counter's index (channel * 256
// + value).
constexpr bool kValueCopies = kValues && kPriv == Privatization::shared && !kCounter16;
constexpr int kReplicaShift = kReplicas >= 32 ? 5 : kReplicas >= 16 ? 4 : kReplicas >= 8 ? 3 : kReplicas >= 4 ? 2
                              : kReplicas >= 2 ? 1 : 0;
constexpr int kValueIndexBits = kChannels == 1 ? 8 : kChannels == 2 ? 9 : 10;

// A window of shared counters beside a global histogram (kWindow > 0, priv=global): bins [window_base, window_base +
// kWindow) are counted in shared memory, the others by global atomics.
static_assert(kWindow == 0 || (kPriv == Privatization::global && (kWindow & (kWindow - 1)) == 0),
              "a window is a power of two of shared counters beside a global histogram");

struct Counter {
  unsigned* smem;      // this thread's view: base of its copy
  unsigned* counters;  // kValueCopies: copy 0
  unsigned copy;       // kValueCopies: this lane's copy
  out_t* out;
  unsigned* window;    // kWindow: the block's window counters, of bins window_base, window_base + 1, ...
  int window_base;
  int run_bin = -1;
  unsigned run_len = 0;

  // Word of bin b (or of its pair, for 16-bit counters) in this thread's copy.
  __device__ __forceinline__ unsigned* word(int b) const {
    if constexpr (kValueCopies) {
      // (b << log2 R) | copy as one bit-field insert, the expression the byte-valued u8/256 bins compile to. Left to
      // the compiler, b * R + copy of a value index became two LOP3s per sample on the integer pipe (mask, then OR
      // the copy) instead of an IMAD.SHL and one LOP3 select (bench/results/2026-12-03-h200-u8-range-sass.md, where
      // the range family's value counting, the same code, ran 4-7 % behind u8/256 at 512 MiB).
      unsigned w;
      asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(w) : "r"(b), "r"(copy), "n"(kReplicaShift), "n"(kValueIndexBits));
      return counters + w;
    } else if constexpr (kPriv == Privatization::shared) {
      return smem + (b / kPerWord) * kReplicas;
    } else {
      return smem + b / kPerWord;
    }
  }
  __device__ __forceinline__ void add_n(int b, unsigned n) {
    if constexpr (kPriv == Privatization::global && kWindow > 0) {
      const unsigned w = static_cast<unsigned>(b - window_base);  // bins below the window wrap past it
      if (w < static_cast<unsigned>(kWindow)) atomicAdd(window + w, n);
      else global_add(out, copy_slot(b), static_cast<out_t>(n));
    } else if constexpr (kPriv == Privatization::global) global_add(out, copy_slot(b), static_cast<out_t>(n));
    else if constexpr (kCounter16) add16(word(b), b, n, out);
    else atomicAdd(word(b), n);
  }
  // One sample's bin (or -1) outside warp-converged code: run aggregation still applies, warp aggregation not.
  __device__ __forceinline__ void add(int b) {
    if (b < 0) return;
    if constexpr (kAggregation == Aggregation::run) {
      if (b == run_bin && run_len < 0xFFFFu) {
        ++run_len;
        return;
      }
      flush();
      run_bin = b;
      run_len = 1;
    } else {
      add_n(b, 1u);
    }
  }
  // The same for code that every lane of the warp executes together (full tiles).
  __device__ __forceinline__ void add_converged(int b) {
    if constexpr (kAggregation == Aggregation::warp) {
      if constexpr (kWindow > 0) {
        // A warp whose samples all fall in the window counts them there without aggregation: a hot band's shared
        // atomics cost less than the match (H100, f32 with 1032012 bins on narrow samples at 227M: 308 us without
        // aggregation, 848 with it), and only a warp whose samples leave the window meets global atomics, where
        // aggregation pays (runs: 1045263 bins at 255M, 3767 us without it, 444 with it; 2026-12-06g-summary.md).
        const unsigned w = static_cast<unsigned>(b - window_base);
        if (__all_sync(0xFFFFFFFFu, w < static_cast<unsigned>(kWindow))) {
          atomicAdd(window + w, 1u);
          return;
        }
      }
      const unsigned peers = __match_any_sync(0xFFFFFFFFu, b);
      if (b >= 0 && (threadIdx.x & 31) == __ffs(peers) - 1) add_n(b, __popc(peers));
    } else {
      add(b);
    }
  }
  __device__ __forceinline__ void flush() {
    if (kAggregation == Aggregation::run && run_len != 0) add_n(run_bin, run_len);
    run_len = 0;
  }
  // Takes one count back from counter b (or nothing for -1), outside any run: counters are added modulo 2^32 (32-bit
  // shared ones; the host never takes back with 16-bit counters) or modulo out_t's width (global), so a copy may
  // hold a "negative" count until the block's totals are signed (block_count).
  __device__ __forceinline__ void take_back(int b) {
    if (b < 0) return;
    if constexpr (kPriv == Privatization::global) global_add(out, copy_slot(b), static_cast<out_t>(-1ll));
    else if constexpr (!kCounter16) atomicAdd(word(b), 0xFFFFFFFFu);
  }
};

// A block's 32-bit total of one bin as out_t. A block counts fewer than 2^31 samples, so its true total is in
// (-2^31, 2^31) even where it took back counts that other blocks added (the 2D gaps), and the total read as a signed
// 32-bit number is exact for 64-bit counters too.
__device__ __forceinline__ out_t block_count(unsigned c) {
  return static_cast<out_t>(static_cast<long long>(static_cast<int>(c)));
}

// Where vector j of the counted ones lies, and the index of its first sample (whose channel is that index modulo
// kChannels): 1D, vectors one after the other from the first aligned sample.
struct Flat {
  const raw_t* vin;
  u64 head;
  __device__ __forceinline__ raw_t load(u64 j) const { return load_input<kLoadCs>(vin + j); }
  __device__ __forceinline__ u64 first_sample(u64 j) const { return head + j * kElemsPerVec; }
};

// The 2D mapping (Divider, Rows): a fragment of its own, which tests/cpu/test_config.cpp compiles for the host.
#include "region_map.cuh"

// Counts vectors [0, nvec) of `map` over the grid in tiles of threads * kLoads vectors; kBatchedTail: the last,
// partial tile's loads issued together (below).
template <bool kBatchedTail, class Map>
__device__ __forceinline__ void count_vectors(const Map& map, u64 nvec, u64 threads, u64 tid, Counter& counter) {
  const u64 tile = threads * kLoads;
  u64 base = 0;
  // Full tiles: every thread of the grid runs the same iterations, so warps stay converged and no bounds checks.
  for (; base + tile <= nvec; base += tile) {
    Vec v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      v[k].raw = map.load(tile_index<kInterleaved, kLoads>(base, k, threads, tid));
      to_keys(v[k]);
    }
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      // With pixel vectors the channel is known here and inactive elements vanish (the same for every lane);
      // otherwise each lane computes it from the vector's first sample.
      const int c0 =
          kPixelVectors ? 0 : channel_at(map.first_sample(tile_index<kInterleaved, kLoads>(base, k, threads, tid)));
#pragma unroll
      for (int e = 0; e < kElemsPerVec; ++e) {
        if (kPixelVectors && e % kChannels >= kActive) continue;
        counter.add_converged(counter_of(v[k].s[e], kPixelVectors ? e % kChannels : (c0 + e) % kChannels));
      }
    }
  }
  if (base >= nvec) return;
  if constexpr (kBatchedTail) {
    // The last, partial tile with every load issued before any is counted, as in a full tile (the 1D entry point).
    // Loaded and counted one vector at a time, its kLoads loads ran one after another; with a grid that covers n, an
    // n that is not a whole number of tiles runs its only tile here (u16 at n=242000, `block=256,loads=4`: 7.4 us
    // where 262144, a whole tile, ran 5.95; bench/results/2026-12-07-summary.md). A lane past the end loads the last
    // vector again (a load that cannot fault, so that it is issued with the others) and counts nothing. Written so,
    // the 1D entry point keeps the old code's registers (bench/results/2026-12-07b-data/partial-tile-registers.txt);
    // the span and 2D entry points took more with it (the u8 winner R=32 512 x 4: span 32 -> 39), so they keep the
    // loop below.
    const u64 last = nvec - 1;
    Vec v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const u64 i = tile_index<kInterleaved, kLoads>(base, k, threads, tid);
      v[k].raw = map.load(i < last ? i : last);
    }
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const u64 i = tile_index<kInterleaved, kLoads>(base, k, threads, tid);
      if (i <= last) {
        to_keys(v[k]);
        const int c0 = kPixelVectors ? 0 : channel_at(map.first_sample(i));
#pragma unroll
        for (int e = 0; e < kElemsPerVec; ++e)
          counter.add(counter_of(v[k].s[e], kPixelVectors ? e % kChannels : (c0 + e) % kChannels));
      }
    }
  } else {
    // The last, partial tile, one vector at a time.
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const u64 i = tile_index<kInterleaved, kLoads>(base, k, threads, tid);
      if (i < nvec) {
        Vec v;
        v.raw = map.load(i);
        to_keys(v);
        const int c0 = kPixelVectors ? 0 : channel_at(map.first_sample(i));
#pragma unroll
        for (int e = 0; e < kElemsPerVec; ++e)
          counter.add(counter_of(v.s[e], kPixelVectors ? e % kChannels : (c0 + e) % kChannels));
      }
    }
  }
}

// Count of bin b summed over the block's shared copies. With lane-interleaved copies the k-th read of thread b goes
// to copy (k + b) mod R, so the threads of a warp read different banks.
__device__ __forceinline__ unsigned block_total(const unsigned* smem, int b) {
  unsigned total = 0;
#pragma unroll 4
  for (int k = 0; k < kCopies; ++k) {
    const unsigned w = kPriv == Privatization::shared
                           ? smem[(b / kPerWord) * kReplicas + ((k + b / kPerWord) & (kReplicas - 1))]
                           : smem[k * kSlots + b / kPerWord];
    total += kCounter16 ? ((b & 1) ? w >> 16 : w & 0xFFFFu) : w;
  }
  return total;
}

// Value counting: the counter of slot k (channel k / 256, byte k % 256), or -1: the byte's sample (i8: its two's
// complement value) binned as the direct kernel bins it, from the preamble's constant levels (a multiply-high at
// most). Not a table: a table in global memory was a cold load at the end of every block, after its count, and
// value counting ran about 1 us behind direct binning at small n (u8 with 14 bins at 23K: 6.34 against 5.30 us on an
// H100; bench/results/2026-12-06f-summary.md).
__device__ __forceinline__ int value_counter(int k) {
  return bin_counter(static_cast<sample_t>(static_cast<unsigned char>(k & 255)), k >> 8);
}

// Value counting, once per block after its last count: each value's count over the copies is added to its bin's
// total (kBins words after the copies, zero until now).
__device__ __forceinline__ void map_values_to_bins(unsigned* smem) {
  for (int k = threadIdx.x; k < kCounted; k += kBlock) {
    const int b = value_counter(k);
    const unsigned t = block_total(smem, k);
    if (t != 0 && b >= 0) atomicAdd(smem + kSharedWords + b, t);
  }
}

// The block's count of bin b: summed over its copies, or the total value counting gave it.
__device__ __forceinline__ unsigned bin_total(const unsigned* smem, int b) {
  return kValues ? smem[kSharedWords + b] : block_total(smem, b);
}

}  // namespace at

// Cluster code only where there are clusters: the intrinsics do not exist before sm_90.
#if AT_CLUSTER > 1
#define AT_CLUSTER_DIMS __cluster_dims__(AT_CLUSTER, 1, 1)
namespace at {
// Every block of the cluster has arrived (release) and sees the others' shared memory writes (acquire).
__device__ __forceinline__ void cluster_sync() {
  __cluster_barrier_arrive();
  __cluster_barrier_wait();
}
__device__ __forceinline__ int cluster_rank() { return static_cast<int>(__clusterRelativeBlockRank()); }
__device__ __forceinline__ const unsigned* peer_shared(unsigned* local, int rank) {
  return static_cast<const unsigned*>(__cluster_map_shared_rank(static_cast<void*>(local), rank));
}
}  // namespace at
#else
#define AT_CLUSTER_DIMS
namespace at {
__device__ __forceinline__ void cluster_sync() {}
__device__ __forceinline__ int cluster_rank() { return 0; }
__device__ __forceinline__ const unsigned* peer_shared(unsigned* local, int) { return local; }
}  // namespace at
#endif
static_assert(AT_CLUSTER == at::kCluster, "the preamble's cluster macro and constant agree");
static_assert(at::kTicketWord < at::kHistogramWord && at::kStartTicketWord < at::kHistogramWord &&
                  at::kZeroFlagWord < at::kHistogramWord &&
                  at::kHistogramWord * sizeof(unsigned) % sizeof(at::out_t) == 0,
              "the workspace's control words precede its histogram, which is aligned to its counters");

namespace at {

// The kernel, as one body for its three entry points below: kEntry selects at compile time what it counts (1D, a
// span with gaps, 2D rows), so the 1D entry point carries none of the others' code and keeps its own (lower) register
// count: 32 for the u8 winners of 512-thread blocks, 2048 threads per SM (tests/cpu/test_registers.cpp).
enum Entry { kFlat, kSpan, kRows };
template <Entry kEntry>
__device__ __forceinline__ void histogram(const sample_t* __restrict__ in, unsigned long long n,
                                          out_t* __restrict__ out, unsigned* __restrict__ workspace,
                                          unsigned long long row_samples, unsigned long long rows,
                                          unsigned long long row_stride, unsigned long long head0,
                                          unsigned long long vecs_per_row, unsigned vecs_magic, int vecs_shift,
                                          unsigned long long leftover, unsigned leftover_magic, int leftover_shift) {
  extern __shared__ unsigned smem[];  // kSharedWords words: the host passes HistogramConfig::shared_bytes()
  const int lane = threadIdx.x & 31;

  // Workspace (the preamble's layout, from kernel_templates/histogram/workspace_layout.hpp): the last-block ticket,
  // the self-zero start ticket and its "out is zero" flag, the last-block histogram. All zero between launches.
  unsigned* ticket = workspace + kTicketWord;
  out_t* acc = kLastBlock ? reinterpret_cast<out_t*>(workspace + kHistogramWord) : out;  // where every count goes
  if constexpr (kGlobalCopies) {  // this warp's copy in the workspace
    const unsigned copy = (blockIdx.x * static_cast<unsigned>(kWarps) + (threadIdx.x >> 5)) & (kReplicas - 1);
    acc = reinterpret_cast<out_t*>(workspace + kHistogramWord) + copy_counter(copy, 0);
  }
  // The whole grid is one block or one cluster: it stores its sums into `out` (no atomics, no workspace).
  const bool one_unit = gridDim.x == static_cast<unsigned>(kCluster);
  Counter counter;
  counter.out = acc;
  if constexpr (kPriv != Privatization::global) {
    for (int i = threadIdx.x; i < kSharedWords + (kValues ? kBins : 0); i += kBlock) smem[i] = 0;
    __syncthreads();
    counter.smem = kPriv == Privatization::shared ? smem + (lane & (kReplicas - 1)) : smem + (threadIdx.x >> 5) * kSlots;
    counter.counters = smem;
    counter.copy = lane & (kReplicas - 1);
  }
  if constexpr (kWindow > 0) {
    // The window: zero, and placed around the bin of one sample read here (the sample at the block's share of n;
    // a 2D region's first), clamped to the bins; a sample out of range places it at bin 0.
    __shared__ int window_base;
    for (int i = threadIdx.x; i < kWindow; i += kBlock) smem[i] = 0;
    if (threadIdx.x == 0) {
      int b = -1;
      if (n > 0) {
        const u64 i = kEntry == kRows ? 0 : n / gridDim.x * blockIdx.x;
        b = counter_of(to_key(in[i]), channel_at(i));
      }
      const int last_start = kBins > kWindow ? kBins - kWindow : 0;
      window_base = b < kWindow / 2 ? 0 : (b - kWindow / 2 < last_start ? b - kWindow / 2 : last_start);
    }
    __syncthreads();
    counter.window = smem;
    counter.window_base = window_base;
  }
  bool zeroed_out = false;  // self_zero: this block zeroed `out` (known to warp 0 only; common.cuh)
  if constexpr (kSelfZero) {
    if (!one_unit && threadIdx.x < 32)
      zeroed_out = self_zero_start(workspace + kStartTicketWord, workspace + kZeroFlagWord, out, kBins);
  }

  if constexpr (kZeroedBefore && kOutWhileCounting) wait_for_prerequisite();

  const u64 threads = static_cast<u64>(gridDim.x) * kBlock;
  const u64 tid = static_cast<u64>(blockIdx.x) * kBlock + threadIdx.x;

  if constexpr (kEntry != kRows) {
    // kSpan: a 2D region whose gaps between rows are short (the host's choice, HistogramKernel::region_args),
    // counted below as the n samples from row 0's start to the last row's end, gaps included. Each of the rows - 1
    // gaps (`leftover` samples after a row's `row_samples`) is taken back first, one sample at a time. The stride is
    // a whole number of pixels, so a sample's channel is its index from `in` modulo kChannels in both. An entry point
    // of its own: in the 1D one this loop, never run, raised the R=32 RGBA winner of 512-thread blocks from 32
    // registers to 38 (three resident blocks per SM instead of four); in the 2D one, the RGBA winner of 1024-thread
    // blocks from 32 to 40.
    if constexpr (kEntry == kSpan) {
      const Divider per_gap{leftover, leftover_magic, leftover_shift};
      for (u64 q = tid; q < (rows - 1) * leftover; q += threads) {
        const u64 x = gap_sample(q, per_gap, leftover, row_samples, row_stride);
        counter.take_back(counter_of(to_key(in[x]), channel_at(x)));
      }
    }
    // A scalar head up to the first kVecBytes-aligned sample, whole vectors, and a scalar tail (common.cuh).
    const Split split = split_unaligned<kVecBytes>(in, n);
    if (tid < split.head) counter.add(counter_of(to_key(in[tid]), channel_at(tid)));
    if (tid < n - split.tail_begin)
      counter.add(counter_of(to_key(in[split.tail_begin + tid]), channel_at(split.tail_begin + tid)));
    count_vectors<kEntry == kFlat>(Flat{reinterpret_cast<const raw_t*>(in + split.head), split.head}, split.nvec,
                                   threads, tid, counter);
  } else {
    // A 2D region: `rows` rows of `row_samples` samples, `row_stride` samples apart. The vectors of every row are
    // numbered one after the other (the same count V in each row), so tiles and the grid are balanced over the
    // whole region as in 1D; each row's own unaligned head and its tail (the same number L of samples in every
    // row) are counted one sample at a time. A thread's first such sample is loaded before its vectors and counted
    // after them, so that its latency hides behind the vector loop instead of delaying it.
    const Rows map = Rows::make(in, row_stride, head0, Divider{vecs_per_row, vecs_magic, vecs_shift});
    const Divider per_row{leftover, leftover_magic, leftover_shift};
    const u64 nleft = rows * leftover, row_vec_samples = vecs_per_row * kElemsPerVec;
    auto leftover_at = [&](u64 q, int& channel) {
      u64 r;
      const u64 x = map.leftover_at(q, per_row, leftover, row_vec_samples, r);
      channel = channel_at(x);
      return in[r * row_stride + x];
    };
    int first_channel = -1;
    sample_t first{};
    if (tid < nleft) first = leftover_at(tid, first_channel);
    count_vectors<false>(map, rows * vecs_per_row, threads, tid, counter);
    if (first_channel >= 0) counter.add(counter_of(to_key(first), first_channel));
    for (u64 q = tid + threads; q < nleft; q += threads) {
      int channel;
      const sample_t s = leftover_at(q, channel);
      counter.add(counter_of(to_key(s), channel));
    }
  }
  counter.flush();

  if constexpr (kWindow > 0) {  // the window's counts join the global histogram (this warp's copy)
    __syncthreads();
    for (int i = threadIdx.x; i < kWindow; i += kBlock) {
      const unsigned c = smem[i];
      if (c != 0) global_add(counter.out, copy_slot(counter.window_base + i), block_count(c));
    }
  }

  if constexpr (kPriv != Privatization::global) {
    __syncthreads();
    if constexpr (kValues) {
      map_values_to_bins(smem);
      __syncthreads();
    }
    if constexpr (kZeroedBefore && !kOutWhileCounting) wait_for_prerequisite();
    if (kCluster == 1 && one_unit) {  // the small-n path: the only block's histogram is the answer
      for (int b = threadIdx.x; b < kBins; b += kBlock) {
        // 16-bit counters may have spilled into `acc` (the workspace, or `out` when the host zeroed it): take
        // those counts too, and leave zeros.
        const out_t spilled = kCounter16 ? atomicExch(acc + b, static_cast<out_t>(0)) : static_cast<out_t>(0);
        out[b] = spilled + block_count(bin_total(smem, b));
      }
      return;
    }
    if constexpr (kSelfZero) {
      // `out` may be added into once the first block has zeroed it; that happened long ago unless n is tiny. The
      // first block itself must not wait: the others may already have taken back every count it lent. Its own
      // warp 0 zeroed `out` before this __syncthreads, which orders that before its other warps' additions.
      if (threadIdx.x == 0 && !one_unit && !zeroed_out) self_zero_wait(workspace + kZeroFlagWord);
      __syncthreads();
    }
    if constexpr (kCluster > 1) {
      // This block's totals, for its peers; then block r of the cluster sums slice r of the bins over all of them.
      unsigned* totals = smem + kSharedWords;
      if constexpr (!kValues)  // value counting left them there
        for (int b = threadIdx.x; b < kBins; b += kBlock) totals[b] = block_total(smem, b);
      cluster_sync();
      constexpr int kSlice = (kBins + kCluster - 1) / kCluster;
      const int lo = cluster_rank() * kSlice;
      const int hi = lo + kSlice < kBins ? lo + kSlice : kBins;
      for (int b = lo + static_cast<int>(threadIdx.x); b < hi; b += kBlock) {
        out_t c = 0;
#pragma unroll
        for (int r = 0; r < kCluster; ++r) c += block_count(peer_shared(totals, r)[b]);
        if (one_unit) out[b] = c;
        else if (c != 0) global_add(acc, b, c);
      }
      cluster_sync();  // every block keeps its shared memory until its peers have read it
      if (one_unit) return;
    } else {
      for (int b = threadIdx.x; b < kBins; b += kBlock) {
        const unsigned c = bin_total(smem, b);
        if (c != 0) global_add(acc, b, block_count(c));
      }
    }
    if constexpr (kSelfZero) {
      // Every block but the first gives back the count it was lent; the last one leaves the flag zero. No return
      // value is awaited (a reduction, not a ticket).
      if (threadIdx.x == 0 && !zeroed_out) self_zero_release(workspace + kZeroFlagWord);
    }
  }
  if constexpr (kLastBlock) {
    __threadfence();  // this block's additions are visible device-wide before its ticket
    __syncthreads();
    if (!last_block_to_finish(ticket)) return;
    // Move the finished histogram out and leave zeros for the next launch, in one atomic per bin.
    for (int b = threadIdx.x; b < kBins; b += kBlock) out[b] = atomicExch(acc + b, static_cast<out_t>(0));
    if (threadIdx.x == 0) *ticket = 0;
  }
}

}  // namespace at

// The three entry points, one body each: 1D, n samples (pixels of kChannels samples) from `in`, the region arguments
// unused (the host passes rows = 1); a span, the same n samples less the gaps between `rows` rows; and 2D, `rows`
// (> 1) rows of `row_samples` samples, `row_stride` samples apart, with the host's mapping
// (HistogramKernel::region_args). The same parameters: the launcher passes one argument list.
#define AT_HISTOGRAM_ENTRY(name, region)                                                                              \
  extern "C" __global__ void __launch_bounds__(at::kBlock) AT_CLUSTER_DIMS name(                                     \
      const at::sample_t* __restrict__ in, unsigned long long n, at::out_t* __restrict__ out,                        \
      unsigned* __restrict__ workspace, unsigned long long row_samples, unsigned long long rows,                     \
      unsigned long long row_stride, unsigned long long head0, unsigned long long vecs_per_row, unsigned vecs_magic, \
      int vecs_shift, unsigned long long leftover, unsigned leftover_magic, int leftover_shift) {                    \
    at::histogram<region>(in, n, out, workspace, row_samples, rows, row_stride, head0, vecs_per_row, vecs_magic,     \
                          vecs_shift, leftover, leftover_magic, leftover_shift);                                     \
  }
AT_HISTOGRAM_ENTRY(autotune_histogram, at::kFlat)
// The region entries are left out of what the tuner measures 1D calls with (AT_ENTRY_2D 0: kernel_source_1d): they
// are most of a variant's compile time, and a 1D call never runs them.
#if AT_ENTRY_2D
AT_HISTOGRAM_ENTRY(autotune_histogram_span, at::kSpan)
AT_HISTOGRAM_ENTRY(autotune_histogram_2d, at::kRows)
#endif
#undef AT_HISTOGRAM_ENTRY

// The zeroing launch of merge=atomic without global copies (HistogramKernel::run_region): `out`'s kBins counters set
// to zero, after letting the counting kernel, launched next with the programmatic attribute, start at once
// (allow_dependents); that kernel waits for this one only where it first adds into `out` (kZeroedBefore). It takes
// the place of a memset, whose launch the counting kernel could not overlap. Compiled into every variant.
extern "C" __global__ void __launch_bounds__(256) autotune_histogram_zero(at::out_t* __restrict__ out) {
  at::zero_for_dependents(out, static_cast<at::u64>(at::kBins));
}

// Global copies (kGlobalCopies): after the counting launch, bin b of `out` is the sum of the kReplicas copies' bin b,
// each left zero for the next launch; any grid (the host covers the copies' counters). Compiled into every variant (a
// few instructions), launched only for those with copies. Striped copies are read in their own order (coalesced) and
// written to their bins.
extern "C" __global__ void __launch_bounds__(256) autotune_histogram_merge(at::out_t* __restrict__ out,
                                                                          unsigned* __restrict__ workspace) {
  using at::u64;
  at::out_t* copies = reinterpret_cast<at::out_t*>(workspace + at::kHistogramWord);
  for (u64 w = static_cast<u64>(blockIdx.x) * 256 + threadIdx.x; w < at::kCopyCounters;
       w += static_cast<u64>(gridDim.x) * 256) {
    at::out_t sum = 0;
#pragma unroll
    for (int c = 0; c < at::kReplicas; ++c) {
      sum += copies[at::copy_counter(c, w)];
      copies[at::copy_counter(c, w)] = 0;
    }
    // Counter w's bin: w itself, or for stripes the inverse of copy_slot (the padding after the last bin, of stripes or
    // chunks, is skipped).
    const u64 b = at::kStriped ? (w % at::kStripe) * at::kStripes + w / at::kStripe : w;
    if ((!at::kStriped && at::kChunk == 0) || b < static_cast<u64>(at::kBins)) out[b] = sum;
  }
}
