// Range-histogram kernel template (CUB's HistogramRange semantics), compiled with NVRTC once per variant.
//
// Between the preamble and this text comes kernel_templates/common.cuh (u64, Raw, split_unaligned, tile_index);
// region_map.cuh is put in place of its #include below.
// Every parameter arrives as a compile-time constant in namespace `at`, from the preamble that
// autotune::kernel_source() writes from a HistogramRangeProblem and a HistogramRangeConfig:
//   sample_t, level_t, out_t   sample type (f16/bf16: their bits, unsigned short); level type (int for 8/16-bit
//                              integers and i32, unsigned int for u32, float for f32 and the halves, double for f64);
//                              counter type
//   kHalfKind                  0, or 1 for f16 and 2 for bf16 samples: level_of converts the bits to float exactly
//   kBins, kLevels             counters (every active channel's bins, channel after channel) and levels (bins + 1
//                              per active channel, channel after channel); the levels are an argument of every call
//   kChannels, kActive         interleaved channels per pixel (sample i is channel i % kChannels) and the first
//                              kActive of them counted, channel c with kChBins<c> bins from counter kChOffset<c>,
//                              its levels from kChLevelOffset<c> (CUB's MultiHistogramRange). n counts samples. When a
//                              vector holds whole pixels (kElemsPerVec % kChannels == 0) the channel of each element
//                              is a constant: the host passes pointers aligned to the pixel, so the unaligned head is
//                              whole pixels too, and the inactive channels' elements cost nothing
//   kBlock, kVecBytes, kLoads  threads per block; bytes per load; loads in flight per thread per tile
//   kBinning                   how a sample finds its bin:
//                                values: 8-bit samples: the 256 sample values of each active channel are counted
//                                  (the even u8 fast path); at the end each block maps each channel's value counts
//                                  through that channel's levels (a contiguous range of values per bin);
//                                lut: a sample bits -> counter table per active channel (16-bit entries, 0xFFFF = no
//                                  bin) in shared memory, built by each block from the levels in a merge-like pass;
//                                search: binary search over the levels copied to shared memory;
//                                search_global: the same over the levels in global memory (read through L1);
//                                prebin (one active channel): kPrebins equal-width buckets over
//                                  [levels[0], levels[kBins]) give the count
//                                  of levels at or below the bucket's start, and a short walk over the levels in
//                                  shared memory makes it exact (exact for any levels; fast when they spread out)
//   kPriv, kReplicas           Privatization::global: atomics straight into `out`; shared: kReplicas
//                              lane-interleaved copies of the counters (bin b of copy r at word b * kReplicas + r)
//   kLutSize, kPrebins         table sizes; kSharedBytes: the dynamic shared memory the host passes (checked below)
//   kMerge                     Merge::atomic: blocks add into `out`, which the host zeroed (cudaMemsetAsync) before the
//                              launch. self_zero: one launch: the first block to start (a wrapping ticket in the
//                              workspace) zeroes `out` with its first warp while the others count, then raises a
//                              flag; every other block waits for the flag before it adds its totals and gives its
//                              share of the flag back, so the launch leaves the workspace zero.
//   kLoadCs                    the vectors of a one-row call loaded evict-first (ld.global.cs; 16-byte loads), else
//                              through the read-only path (ld.global.nc)
//
// Semantics: a sample s of channel c counts in its bin i iff levels_c[i] <= (level_t)s < levels_c[i + 1]; below
// levels_c[0], at or above its last level, and NaN, it counts nowhere. Each channel's levels must be strictly
// ascending (the host checks what it generates; validate_levels checks an application's).
//
// The output is zeroed by the host before the launch (cudaMemsetAsync) or by the kernel (self_zero), except when the
// grid is one block: then the block stores its counts (the small-n path, one launch). The host keeps every block
// under 2^31 samples, so per-block 32-bit shared counters are exact.
//
// 2D regions (rows > 1): `rows` rows of `row_samples` samples (whole pixels), the first samples of two rows
// `row_stride` samples apart (whole pixels: every row starts on channel 0). Each row holds V whole vectors (the same V in every row) and L = row_samples - V * kElemsPerVec samples
// around them (its unaligned head and its tail), counted one by one. The rows' vectors are numbered in one sequence,
// row after row, and dealt to the grid in tiles as in 1D; each thread follows its vectors' (row, column) by adding
// its constant step (threads = q * V + r vectors) instead of dividing.

static_assert(at::kBlock >= 32 && at::kBlock <= 1024 && at::kBlock % 32 == 0, "block must be a multiple of 32 up to 1024");
static_assert(at::kLoads >= 1 && at::kLoads <= 16, "loads in flight must be in 1..16");
static_assert(at::kVecBytes >= sizeof(at::sample_t) && at::kVecBytes <= 16 && (at::kVecBytes & (at::kVecBytes - 1)) == 0,
              "vector width must be a power of two from the sample size to 16 bytes");
static_assert(at::kChannels >= 1 && at::kChannels <= 4 && at::kActive >= 1 && at::kActive <= at::kChannels,
              "1..4 channels, 1..channels of them active");
static_assert(at::kBins >= 1 && at::kLevels == at::kBins + at::kActive, "levels are bins + 1 per active channel");
static_assert(at::kHalfKind == 0 || (at::kHalfKind <= 2 && sizeof(at::sample_t) == 2), "halves travel as 16 bits");
static_assert(at::kReplicas >= 1 && at::kReplicas <= 32 && (at::kReplicas & (at::kReplicas - 1)) == 0,
              "replicas must be a power of two in 1..32");
static_assert(at::kPriv == at::Privatization::global || at::kPriv == at::Privatization::shared,
              "privatization is global or shared");
static_assert(at::kBinning != at::Binning::values || (sizeof(at::sample_t) == 1 && at::kPriv == at::Privatization::shared),
              "value counting is for 8-bit samples, in shared memory");
static_assert(at::kBinning != at::Binning::lut || (at::kLutSize > 0 && at::kBins < 0xFFFF),
              "a lookup table takes 8- or 16-bit samples and fewer than 65535 counters");
static_assert(at::kBinning != at::Binning::prebin || at::kActive == 1, "the pre-bin table serves one channel");
static_assert(at::kMerge == at::Merge::atomic ||
                  (at::kMerge == at::Merge::self_zero && at::kPriv == at::Privatization::shared),
              "merge is atomic, or self_zero with shared counters");

namespace at {

constexpr int kElemsPerVec = kVecBytes / static_cast<int>(sizeof(sample_t));
constexpr bool kValues = kBinning == Binning::values;
constexpr bool kShared = kPriv == Privatization::shared;
constexpr bool kSelfZero = kMerge == Merge::self_zero;
// The workspace of self_zero: two words, zero between launches.
constexpr int kStartTicketWord = 0;  // blocks that have started (atomicInc wraps it back to 0)
constexpr int kZeroFlagWord = 1;     // raised by gridDim.x - 1 once `out` is zero; each other block takes one back
// values: the levels too, for the mapping of value counts to bins at the end (a search in shared memory, not a chain
// of dependent global loads while every block of the grid waits at its end). Copied after the counting loop: the
// first loads of the samples do not wait for them.
constexpr bool kSharedLevels = kBinning == Binning::search || kBinning == Binning::prebin || kValues;
constexpr bool kLevelsFirst = kBinning == Binning::search || kBinning == Binning::prebin;
constexpr int kSlots = kValues ? 256 * kActive : kBins;  // counters per copy
constexpr int kCounterWords = kShared ? kSlots * kReplicas : 0;
constexpr int kBinTotalWords = kValues ? kBins : 0;      // values: the block's per-bin totals at the end
constexpr int kLutEntries = kBinning == Binning::lut ? kLutSize * kActive : 0;  // one table per active channel
__host__ __device__ constexpr unsigned align8(unsigned v) { return (v + 7u) & ~7u; }
constexpr unsigned kLevelsOffset = align8((kCounterWords + kBinTotalWords) * 4u);
constexpr unsigned kTableOffset = align8(kLevelsOffset + (kSharedLevels ? kLevels * sizeof(level_t) : 0u));
constexpr unsigned kTableBytes = kBinning == Binning::lut ? kLutEntries * 2u : (kBinning == Binning::prebin ? kPrebins * 4u : 0u);
static_assert(kTableOffset + kTableBytes == kSharedBytes || (kTableOffset + kTableBytes == 0 && kSharedBytes == 0),
              "the kernel's shared layout is the size HistogramRangeConfig::shared_bytes() gives the host");
__host__ __device__ constexpr int top_step(int n) { return n <= 1 ? 1 : 2 * top_step(n / 2); }  // largest power of two <= n
constexpr int kTopStep = top_step(kMostChannelLevels);
static_assert(kTopStep <= kMostChannelLevels && 2 * kTopStep > kMostChannelLevels, "binary lifting covers every level");

typedef typename Raw<kVecBytes>::type raw_t;  // Raw: common.cuh
union Vec {
  raw_t raw;
  sample_t s[kElemsPerVec];
};

// Channel C's bins, first counter and first level (C = 0..3; a channel past the active ones repeats channel 0's).
template <int C>
struct Ch {
  static constexpr int bins = C == 0 ? kChBins0 : C == 1 ? kChBins1 : C == 2 ? kChBins2 : kChBins3;
  static constexpr int offset = C == 0 ? kChOffset0 : C == 1 ? kChOffset1 : C == 2 ? kChOffset2 : kChOffset3;
  static constexpr int first_level =
      C == 0 ? kChLevelOffset0 : C == 1 ? kChLevelOffset1 : C == 2 ? kChLevelOffset2 : kChLevelOffset3;
};
static_assert(Ch<0>::offset == 0 && Ch<0>::first_level == 0 && (kActive > 1 || Ch<0>::bins == kBins),
              "channel 0's counters and levels come first");
// The same, for a channel known only at run time (a select, no divergence: lanes may hold different channels).
__device__ __forceinline__ int ch_bins(int c) { return c == 0 ? Ch<0>::bins : c == 1 ? Ch<1>::bins : c == 2 ? Ch<2>::bins : Ch<3>::bins; }
__device__ __forceinline__ int ch_offset(int c) { return c == 0 ? 0 : c == 1 ? Ch<1>::offset : c == 2 ? Ch<2>::offset : Ch<3>::offset; }
__device__ __forceinline__ int ch_first_level(int c) {
  return c == 0 ? 0 : c == 1 ? Ch<1>::first_level : c == 2 ? Ch<2>::first_level : Ch<3>::first_level;
}

// A sample as the level type: halves from their bits to float (exact), the others converted as C++ converts them.
__device__ __forceinline__ level_t level_of(sample_t s) {
  if constexpr (kHalfKind != 0) return half_bits_to_float<kHalfKind>(static_cast<unsigned short>(s));
  else return static_cast<level_t>(s);
}
// 8- and 16-bit samples: their bits as a table index (values, lut), and back.
typedef typename Raw<sizeof(sample_t) <= 2 ? sizeof(sample_t) : 1>::type bits_t;
__device__ __forceinline__ int index_of(sample_t s) { return static_cast<int>(static_cast<bits_t>(s)); }
__device__ __forceinline__ sample_t sample_of(int index) { return static_cast<sample_t>(static_cast<bits_t>(index)); }

// The number of a channel's `count` levels (from `first`, ascending) at or below x: upper_bound's index. Binary
// lifting over compile-time steps, no data-dependent loop; a channel known at compile time folds count away. NaN
// compares false everywhere: 0, no bin.
template <class Load>
__device__ __forceinline__ int upper_count(level_t x, Load load, int first = 0, int count = kLevels) {
  int c = 0;
#pragma unroll
  for (int step = kTopStep; step > 0; step >>= 1)
    if (c + step <= count && load(first + c + step - 1) <= x) c += step;
  return c;
}

// A count of levels at or below x (0..bins + 1) as a bin of `bins`, or -1.
__device__ __forceinline__ int bin_of_count(int c, int bins = kBins) { return c >= 1 && c <= bins ? c - 1 : -1; }

// Channel c's counter of x, by a search over its levels (`load` reads them), or -1.
template <class Load>
__device__ __forceinline__ int search_counter(level_t x, Load load, int c) {
  const int b = bin_of_count(upper_count(x, load, ch_first_level(c), ch_bins(c) + 1), ch_bins(c));
  return b < 0 ? -1 : ch_offset(c) + b;
}

struct Binner {
  const level_t* global_levels;
  const level_t* levels;   // shared copy (search, prebin)
  const unsigned short* lut;
  const int* table;        // prebin
  level_t lo, hi;          // prebin: levels[0], levels[kBins]
  float scale;             // prebin: kPrebins / (hi - lo)

  // Counter index of one sample of channel c (values: its channel's slot of the sample's value; else its counter),
  // or -1. c < kActive: the caller skips inactive channels.
  __device__ __forceinline__ int operator()(sample_t s, int c) const {
    if constexpr (kBinning == Binning::values) {
      return c * 256 + index_of(s);
    } else if constexpr (kBinning == Binning::lut) {
      const int b = lut[c * kLutSize + index_of(s)];
      return b == 0xFFFF ? -1 : b;
    } else if constexpr (kBinning == Binning::search) {
      const level_t* lv = levels;
      return search_counter(level_of(s), [lv](int i) { return lv[i]; }, c);
    } else if constexpr (kBinning == Binning::search_global) {
      const level_t* lv = global_levels;
      return search_counter(level_of(s), [lv](int i) { return __ldg(lv + i); }, c);
    } else {  // prebin: one active channel
      const level_t x = level_of(s);
      if (!(x >= lo && x < hi)) return -1;  // written so that NaN fails the test
      const float f = static_cast<float>(static_cast<double>(x) - static_cast<double>(lo)) * scale;
      const int g = f < static_cast<float>(kPrebins) ? static_cast<int>(f) : kPrebins - 1;
      // The table's count is a guess (float rounding): walk to the exact one. lo <= x < hi keeps it in 1..kBins.
      int k = table[g];
      while (k < kLevels && levels[k] <= x) ++k;
      while (k > 0 && levels[k - 1] > x) --k;
      return k - 1;
    }
  }
};

// values: log2(kReplicas), and the bits of a value counter's index (channel * 256 + value).
constexpr int kReplicaShift = kReplicas >= 32 ? 5 : kReplicas >= 16 ? 4 : kReplicas >= 8 ? 3 : kReplicas >= 4 ? 2
                              : kReplicas >= 2 ? 1 : 0;
constexpr int kValueIndexBits = kChannels == 1 ? 8 : kChannels == 2 ? 9 : 10;

struct Counter {
  unsigned* smem;      // this lane's copy
  unsigned* counters;  // values: copy 0
  unsigned copy;       // values: this lane's copy
  out_t* out;
  __device__ __forceinline__ void add(int b) const {
    if (b < 0) return;
    if constexpr (kValues) {
      // Word (b << log2 R) | copy as one bit-field insert, the even u8 histogram's expression. Left to the compiler,
      // b * R + copy became two LOP3s per sample on the integer pipe (mask, then OR the copy) where the even loop has
      // an IMAD.SHL and one LOP3 select: 338 instructions per 64 samples against 324, the u8 range histogram 4-7 %
      // behind the even one at 512 MiB (bench/results/2026-12-03-h200-u8-range-sass.md).
      unsigned word;
      asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(word) : "r"(b), "r"(copy), "n"(kReplicaShift), "n"(kValueIndexBits));
      atomicAdd(counters + word, 1u);
    } else if constexpr (kShared) {
      atomicAdd(smem + b * kReplicas, 1u);
    } else {
      atomicAdd(out + b, static_cast<out_t>(1));
    }
  }
};

// Vectors hold whole pixels and start on a pixel: element e is channel e % kChannels.
constexpr bool kPixelVectors = kElemsPerVec % kChannels == 0;

// Counts one vector whose first sample is channel c0 (unused for pixel vectors): each element of an active channel.
__device__ __forceinline__ void count_vector(const Vec& v, int c0, const Binner& binner, const Counter& counter) {
#pragma unroll
  for (int e = 0; e < kElemsPerVec; ++e) {
    const int c = kPixelVectors ? e % kChannels : (c0 + e) % kChannels;
    if (kChannels > 1 && c >= kActive) continue;  // pixel vectors: known at compile time, the element costs nothing
    counter.add(binner(v.s[e], c));
  }
}
// One sample of channel c.
__device__ __forceinline__ void count_sample(sample_t s, int c, const Binner& binner, const Counter& counter) {
  if (kChannels == 1 || c < kActive) counter.add(binner(s, c));
}

// The 2D mapping (channel_at, the walk over a region's vectors, count_region: where each load of a region reads): a
// fragment of its own, which tests/cpu/test_histogram_range.cpp compiles for the host.
#include "region_map.cuh"

// Count of counter k summed over the block's copies; the j-th read of thread k goes to copy (j + k) mod R, so a
// warp's reads hit different banks.
__device__ __forceinline__ unsigned block_total(const unsigned* counters, int k) {
  unsigned total = 0;
#pragma unroll 4
  for (int j = 0; j < kReplicas; ++j) total += counters[k * kReplicas + ((j + k) & (kReplicas - 1))];
  return total;
}

// lut: thread t fills a contiguous run of the tables' entries (channel after channel). Within a channel the values
// of the entries mostly grow with the index, so each entry walks on from the last one's level count; where a value
// does not grow (the start of a run or of a channel, the sign of an i8/i16 or half sample's bits, NaN) it is found
// by a binary search instead. For u8 and u16 that is a merge of two sorted lists.
__device__ __forceinline__ void build_lut(unsigned short* lut, const level_t* __restrict__ levels) {
  constexpr int kPerThread = (kLutEntries + kBlock - 1) / kBlock;
  const int first = static_cast<int>(threadIdx.x) * kPerThread;
  int c = -1, count = 0;
  level_t last = 0;
  constexpr int kPerChannel = kLutSize > 0 ? kLutSize : 1;  // 0 where there is no table (never called)
  for (int k = first; k < first + kPerThread && k < kLutEntries; ++k) {
    const int ch = k / kPerChannel;
    const level_t x = level_of(sample_of(k - ch * kPerChannel));
    const int lv0 = ch_first_level(ch), nlv = ch_bins(ch) + 1;
    if (ch != c || !(x >= last)) {
      c = ch;
      count = upper_count(x, [levels](int i) { return __ldg(levels + i); }, lv0, nlv);
    } else {
      while (count < nlv && __ldg(levels + lv0 + count) <= x) ++count;
    }
    last = x;
    const int b = bin_of_count(count, nlv - 1);
    lut[k] = b < 0 ? static_cast<unsigned short>(0xFFFF) : static_cast<unsigned short>(ch_offset(ch) + b);
  }
}

// values: each channel's value counts go to the bins holding the values: one search per value, channel and block,
// into the block's per-bin totals.
__device__ __forceinline__ void map_values(unsigned* counters, const level_t* shared_levels) {
  unsigned* bin_totals = counters + kCounterWords;
  for (int k = threadIdx.x; k < kSlots; k += kBlock) {
    const unsigned t = block_total(counters, k);
    if (t == 0) continue;
    const int ch = k >> 8;
    const int b = search_counter(level_of(sample_of(k & 255)), [shared_levels](int i) { return shared_levels[i]; }, ch);
    if (b >= 0) atomicAdd(bin_totals + b, t);
  }
}

}  // namespace at

namespace at {

// Value counting keeps to 32 registers, so that 2048 threads fit on a multiprocessor whatever the block (a 1024-thread
// block of the even u8 histogram at 38 registers ran one block per SM and took 146.9 us instead of 134.9 us at 512
// MiB: bench/results/2026-12-01b-partial-tile-experiment.md). The other binnings take what they need: 0 is "no
// minimum", as if the argument were absent (ptxas given an explicit 1 allocates more: the f32 prebin 1024 x 4 variant
// took 40 registers instead of 32, one block per SM instead of two; nvcc 13.0 -Xptxas -v).
constexpr int kMinBlocks = kValues ? 2048 / kBlock : 0;

// The whole kernel; k2D: a region of rows (its own entry point, so that the 1D loop keeps its registers).
template <bool k2D>
__device__ __forceinline__ void histogram_range(const sample_t* __restrict__ in, u64 n,
                                                const level_t* __restrict__ levels, out_t* __restrict__ out,
                                                unsigned* __restrict__ workspace, u64 row_samples, u64 rows,
                                                u64 row_stride) {
  extern __shared__ __align__(16) unsigned char smem_raw[];  // kSharedBytes
  unsigned* counters = reinterpret_cast<unsigned*>(smem_raw);
  const int lane = threadIdx.x & 31;
  const bool one_block = gridDim.x == 1;  // it stores its counts: the host did not zero `out`

  // Prologue: zero the counters, bring the levels (or the table made from them) into shared memory.
  for (int i = threadIdx.x; i < kCounterWords + kBinTotalWords; i += kBlock) counters[i] = 0;
  Binner binner;
  binner.global_levels = levels;
  binner.levels = reinterpret_cast<const level_t*>(smem_raw + kLevelsOffset);
  binner.lut = reinterpret_cast<const unsigned short*>(smem_raw + kTableOffset);
  binner.table = reinterpret_cast<const int*>(smem_raw + kTableOffset);
  level_t* shared_levels = reinterpret_cast<level_t*>(smem_raw + kLevelsOffset);
  if constexpr (kLevelsFirst)
    for (int i = threadIdx.x; i < kLevels; i += kBlock) shared_levels[i] = levels[i];
  if constexpr (kBinning == Binning::lut) build_lut(reinterpret_cast<unsigned short*>(smem_raw + kTableOffset), levels);
  __syncthreads();
  if constexpr (kBinning == Binning::prebin) {
    binner.lo = binner.levels[0];
    binner.hi = binner.levels[kBins];
    const float width = static_cast<float>(static_cast<double>(binner.hi) - static_cast<double>(binner.lo));
    binner.scale = static_cast<float>(kPrebins) / width;  // an infinite width gives 0: one bucket, a long walk
    int* table = reinterpret_cast<int*>(smem_raw + kTableOffset);
    const level_t* lv = binner.levels;
    for (int g = threadIdx.x; g < kPrebins; g += kBlock) {
      const double start = static_cast<double>(binner.lo) + static_cast<double>(g) / static_cast<double>(binner.scale);
      const level_t x = start < static_cast<double>(binner.hi) ? static_cast<level_t>(start) : binner.hi;
      table[g] = upper_count(x, [lv](int i) { return lv[i]; });
    }
    __syncthreads();
  }

  bool zeroed_out = false;  // self_zero: this block zeroed `out` (known to warp 0 only; common.cuh)
  if constexpr (kSelfZero) {
    if (!one_block && threadIdx.x < 32)
      zeroed_out = self_zero_start(workspace + kStartTicketWord, workspace + kZeroFlagWord, out, kBins);
  }

  Counter counter;
  counter.smem = counters + (lane & (kReplicas - 1));
  counter.counters = counters;
  counter.copy = lane & (kReplicas - 1);
  counter.out = out;

  const u64 threads = static_cast<u64>(gridDim.x) * kBlock;
  const u64 tid = static_cast<u64>(blockIdx.x) * kBlock + threadIdx.x;
  if constexpr (!k2D) {
    const Split split = split_unaligned<kVecBytes>(in, n);
    const u64 nvec = split.nvec;
    // Every load of the samples through the read-only path (ld.global.nc), as the even histogram's loads compile to
    // (without __ldg these were plain ld.global; on an H200 the u8 winner at 512 MiB took 148.4 us with them and
    // 146.9 us with __ldg: bench/results/2026-12-01d-h200-histrange-bench-run1.md and -bench.md).
    if (tid < split.head) count_sample(__ldg(in + tid), channel_at(tid), binner, counter);
    if (tid < n - split.tail_begin)
      count_sample(__ldg(in + split.tail_begin + tid), channel_at(split.tail_begin + tid), binner, counter);

    const raw_t* vin = reinterpret_cast<const raw_t*>(in + split.head);
    // A vector through the read-only path, or evict-first (ld=cs: kLoadCs, 16-byte loads only).
    auto load = [vin](u64 j) {
      if constexpr (kLoadCs) return load_input<true>(vin + j);
      else return __ldg(vin + j);
    };
    // The channel of vector j's first sample (a constant 0 for pixel vectors).
    auto first_channel = [&](u64 j) { return kPixelVectors ? 0 : channel_at(split.head + j * kElemsPerVec); };
    const u64 tile = threads * kLoads;
    u64 base = 0;
    for (; base + tile <= nvec; base += tile) {
      Vec v[kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k) v[k].raw = load(tile_index<true, kLoads>(base, k, threads, tid));
#pragma unroll
      for (int k = 0; k < kLoads; ++k)
        count_vector(v[k], first_channel(tile_index<true, kLoads>(base, k, threads, tid)), binner, counter);
    }
    // The last, partial tile: its loads issued first, a lane past the end loading the last vector again and counting
    // nothing; a loop that runs at most once, as the even family's count_vectors says why.
    for (; base < nvec; base += tile) {
      Vec v[kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k) {
        const u64 i = tile_index<true, kLoads>(base, k, threads, tid);
        v[k].raw = load(i < nvec ? i : nvec - 1);
      }
#pragma unroll
      for (int k = 0; k < kLoads; ++k)
        if (const u64 i = tile_index<true, kLoads>(base, k, threads, tid); i < nvec)
          count_vector(v[k], first_channel(i), binner, counter);
    }
  } else {
    count_region(in, row_samples, rows, row_stride, threads, tid, binner, counter, [&](const Vec& v, u64 first) {
      count_vector(v, kPixelVectors ? 0 : channel_at(first), binner, counter);
    });
  }

  if constexpr (kShared) {
    if constexpr (kValues)
      for (int i = threadIdx.x; i < kLevels; i += kBlock) shared_levels[i] = levels[i];
    __syncthreads();
    if constexpr (kValues) {
      map_values(counters, shared_levels);
      __syncthreads();
    }
    if constexpr (kSelfZero) {
      // `out` may be added into once the first block has zeroed it (long ago, unless n is tiny). The first block
      // itself does not wait (the others may have taken back every count it lent): its warp 0 zeroed `out` before
      // the __syncthreads above, which orders that before its other warps' additions.
      if (threadIdx.x == 0 && !one_block && !zeroed_out) self_zero_wait(workspace + kZeroFlagWord);
      __syncthreads();
    }
    for (int b = threadIdx.x; b < kBins; b += kBlock) {
      const unsigned t = kValues ? counters[kCounterWords + b] : block_total(counters, b);
      if (one_block) out[b] = t;
      else if (t != 0) atomicAdd(out + b, static_cast<out_t>(t));
    }
    // Every block but the first gives back the count it was lent; the last one leaves the flag zero.
    if (kSelfZero && threadIdx.x == 0 && !one_block && !zeroed_out) self_zero_release(workspace + kZeroFlagWord);
  }
}

}  // namespace at

// 1D: n samples from `in`.
extern "C" __global__ void __launch_bounds__(at::kBlock, at::kMinBlocks)
autotune_histogram_range(const at::sample_t* __restrict__ in, unsigned long long n,
                         const at::level_t* __restrict__ levels, at::out_t* __restrict__ out,
                         unsigned* __restrict__ workspace) {
  at::histogram_range<false>(in, n, levels, out, workspace, n, 1, n);
}

// 2D: `rows` rows of `row_samples` samples, `row_stride` samples apart (n = rows * row_samples). Left out of what the
// tuner measures 1D calls with (AT_ENTRY_2D 0: kernel_source_1d): it is most of a variant's compile time.
#if AT_ENTRY_2D
extern "C" __global__ void __launch_bounds__(at::kBlock, at::kMinBlocks)
autotune_histogram_range_2d(const at::sample_t* __restrict__ in, unsigned long long n,
                            const at::level_t* __restrict__ levels, at::out_t* __restrict__ out,
                            unsigned* __restrict__ workspace, unsigned long long row_samples,
                            unsigned long long rows, unsigned long long row_stride) {
  at::histogram_range<true>(in, n, levels, out, workspace, row_samples, rows, row_stride);
}
#endif
