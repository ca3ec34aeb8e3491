// Histogram kernel template, compiled with NVRTC once per variant.
//
// Between the preamble and this text comes the device code the templates share (kernel_templates/common.cuh: u64,
// Raw, split_unaligned, tile_index, last_block_to_finish).
//
// Every tuning parameter arrives as a compile-time constant in namespace `at`, from the preamble that
// autotune::kernel_source() generates from a HistogramProblem and a HistogramConfig (the one source of truth):
//   sample_t, out_t       sample type; output counter type (unsigned int or unsigned long long)
//   kBins                 number of bins
//   kIsFloat              f32 uses kLowerF / kUpperF / kScaleF, f64 kLowerD / kUpperD / kScaleD (binned in double),
//                         integers kLowerI / kUpperI
//   kBlock                threads per block (the host launches exactly this many)
//   kVecBytes             bytes per load: a power of two in sizeof(sample_t) .. 16 (4 or 8 load 4 or 8 u8 samples);
//                         the pointer's unaligned head is done one sample at a time
//   kLoads                vector loads in flight per thread per tile (all issued before the first count)
//   kPriv                 Privatization::global: atomics straight into `out`; shared: a shared histogram,
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
//
// When the grid is a single block or a single cluster, its sums are the answer: they are stored into `out`, with no
// atomics and no workspace (the small-n path), whatever kMerge says.
//
// Semantics (CUB's HistogramEven): a sample s counts iff lower <= s < upper; NaN never counts.
//   integer bin = (s - lower) * bins / (upper - lower), exact in 64-bit (constants fold: u8/256 bins is bin = s)
//   float bin   = min(bins - 1, (int)((s - lower) * scale)), scale = float(bins / (upper - lower)); f64 the same in
//                 double, scale = bins / (upper - lower)
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
static_assert(at::kMerge == at::Merge::atomic || at::kMerge == at::Merge::last_block ||
                  at::kMerge == at::Merge::self_zero,
              "merge is atomic, last_block or self_zero");
static_assert(at::kMerge != at::Merge::self_zero || (at::kPriv != at::Privatization::global && !at::kCounter16),
              "self_zero needs 32-bit shared counters");
static_assert(at::kCluster == 1 || ((at::kCluster & (at::kCluster - 1)) == 0 && at::kCluster <= 16 &&
                                    at::kPriv != at::Privatization::global &&
                                    !at::kCounter16),
              "clusters of 2..16 blocks sum 32-bit shared counters");

namespace at {

constexpr int kElemsPerVec = kVecBytes / static_cast<int>(sizeof(sample_t));
constexpr int kWarps = kBlock / 32;
constexpr int kCopies = kPriv == Privatization::shared ? kReplicas : (kPriv == Privatization::warp ? kWarps : 1);
constexpr int kPerWord = kCounter16 ? 2 : 1;
constexpr int kSlots = (kBins + kPerWord - 1) / kPerWord;  // words per copy
constexpr int kSharedWords = kPriv == Privatization::global ? 0 : kSlots * kCopies;  // the copies; with clusters kBins totals follow
constexpr bool kLastBlock = kMerge == Merge::last_block;
constexpr bool kSelfZero = kMerge == Merge::self_zero;
constexpr bool kInterleaved = kPartitioning == Partitioning::interleaved;

typedef typename Raw<kVecBytes>::type raw_t;  // Raw: common.cuh
union Vec {
  raw_t raw;
  sample_t s[kElemsPerVec];
};

// Bin of one sample, or -1 when it is out of range (or NaN).
__device__ __forceinline__ int bin_of(sample_t s) {
  if constexpr (kIsFloat && sizeof(sample_t) == 8) {  // f64: binned in double
    const double d = static_cast<double>(s);
    if (!(d >= kLowerD && d < kUpperD)) return -1;  // written so that NaN fails the test
    const int b = static_cast<int>((d - kLowerD) * kScaleD);
    return b < kBins ? b : kBins - 1;
  } else if constexpr (kIsFloat) {
    const float f = static_cast<float>(s);
    if (!(f >= kLowerF && f < kUpperF)) return -1;  // written so that NaN fails the test
    const int b = static_cast<int>((f - kLowerF) * kScaleF);
    return b < kBins ? b : kBins - 1;
  } else {
    const long long v = static_cast<long long>(s);
    if (v < kLowerI || v >= kUpperI) return -1;
    return static_cast<int>(static_cast<u64>(v - kLowerI) * static_cast<u64>(kBins) /
                            static_cast<u64>(kUpperI - kLowerI));
  }
}

__device__ __forceinline__ void global_add(out_t* out, int b, out_t count) { atomicAdd(out + b, count); }

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

struct Counter {
  unsigned* smem;  // this thread's view: base of its copy
  out_t* out;
  int run_bin = -1;
  unsigned run_len = 0;

  // Word of bin b (or of its pair, for 16-bit counters) in this thread's copy.
  __device__ __forceinline__ unsigned* word(int b) const {
    if constexpr (kPriv == Privatization::shared) return smem + (b / kPerWord) * kReplicas;
    else return smem + b / kPerWord;
  }
  __device__ __forceinline__ void add_n(int b, unsigned n) {
    if constexpr (kPriv == Privatization::global) global_add(out, b, static_cast<out_t>(n));
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
};

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

extern "C" __global__ void __launch_bounds__(at::kBlock) AT_CLUSTER_DIMS
autotune_histogram(const at::sample_t* __restrict__ in, unsigned long long n, at::out_t* __restrict__ out,
                   unsigned* __restrict__ workspace) {
  using namespace at;
  extern __shared__ unsigned smem[];  // kSharedWords words: the host passes HistogramConfig::shared_bytes()
  const int lane = threadIdx.x & 31;

  // Workspace (the preamble's layout, from kernel_templates/histogram/workspace_layout.hpp): the last-block ticket,
  // the self-zero start ticket and its "out is zero" flag, the last-block histogram. All zero between launches.
  unsigned* ticket = workspace + kTicketWord;
  out_t* acc = kLastBlock ? reinterpret_cast<out_t*>(workspace + kHistogramWord) : out;  // where every count goes
  // The whole grid is one block or one cluster: it stores its sums into `out` (no atomics, no workspace).
  const bool one_unit = gridDim.x == static_cast<unsigned>(kCluster);
  Counter counter;
  counter.out = acc;
  if constexpr (kPriv != Privatization::global) {
    for (int i = threadIdx.x; i < kSharedWords; i += kBlock) smem[i] = 0;
    __syncthreads();
    counter.smem = kPriv == Privatization::shared ? smem + (lane & (kReplicas - 1)) : smem + (threadIdx.x >> 5) * kSlots;
  }
  bool zeroed_out = false;  // self_zero: this block zeroed `out` (known to warp 0 only)
  if constexpr (kSelfZero) {
    // Warp 0 takes a ticket (atomicInc wraps to 0 after gridDim.x of them, so the launch leaves it zero); the
    // first block to start zeroes `out`, publishes that, and only then counts. The other warps count meanwhile.
    if (!one_unit && threadIdx.x < 32) {
      unsigned first = 0;
      if (lane == 0) first = atomicInc(workspace + kStartTicketWord, gridDim.x - 1) == 0;
      first = __shfl_sync(0xFFFFFFFFu, first, 0);
      zeroed_out = first != 0;
      if (first) {
        for (int b = lane; b < kBins; b += 32) out[b] = 0;
        __threadfence();
        __syncwarp();
        // The other gridDim.x - 1 blocks each take one back after they have seen it: it ends at zero.
        if (lane == 0) atomicAdd(workspace + kZeroFlagWord, gridDim.x - 1);
      }
    }
  }

  const u64 threads = static_cast<u64>(gridDim.x) * kBlock;
  const u64 tid = static_cast<u64>(blockIdx.x) * kBlock + threadIdx.x;

  // A scalar head up to the first kVecBytes-aligned sample, whole vectors, and a scalar tail (common.cuh).
  const Split split = split_unaligned<kVecBytes>(in, n);
  const u64 nvec = split.nvec;
  if (tid < split.head) counter.add(bin_of(in[tid]));
  if (tid < n - split.tail_begin) counter.add(bin_of(in[split.tail_begin + tid]));

  const raw_t* vin = reinterpret_cast<const raw_t*>(in + split.head);
  const u64 tile = threads * kLoads;
  u64 base = 0;
  // Full tiles: every thread of the grid runs the same iterations, so warps stay converged and no bounds checks.
  for (; base + tile <= nvec; base += tile) {
    Vec v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k)
      v[k].raw = vin[tile_index<kInterleaved, kLoads>(base, k, threads, tid)];
#pragma unroll
    for (int k = 0; k < kLoads; ++k)
#pragma unroll
      for (int e = 0; e < kElemsPerVec; ++e) counter.add_converged(bin_of(v[k].s[e]));
  }
  // The last, partial tile.
  if (base < nvec) {
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const u64 i = tile_index<kInterleaved, kLoads>(base, k, threads, tid);
      if (i < nvec) {
        Vec v;
        v.raw = vin[i];
#pragma unroll
        for (int e = 0; e < kElemsPerVec; ++e) counter.add(bin_of(v.s[e]));
      }
    }
  }
  counter.flush();

  if constexpr (kPriv != Privatization::global) {
    __syncthreads();
    if (kCluster == 1 && one_unit) {  // the small-n path: the only block's histogram is the answer
      for (int b = threadIdx.x; b < kBins; b += kBlock) {
        // 16-bit counters may have spilled into `acc` (the workspace, or `out` when the host zeroed it): take
        // those counts too, and leave zeros.
        const out_t spilled = kCounter16 ? atomicExch(acc + b, static_cast<out_t>(0)) : static_cast<out_t>(0);
        out[b] = spilled + block_total(smem, b);
      }
      return;
    }
    if constexpr (kSelfZero) {
      // `out` may be added into once the first block has zeroed it; that happened long ago unless n is tiny. The
      // first block itself must not wait: the others may already have taken back every count it lent. Its own
      // warp 0 zeroed `out` before this __syncthreads, which orders that before its other warps' additions.
      if (threadIdx.x == 0 && !one_unit && !zeroed_out) {
        while (*static_cast<volatile unsigned*>(workspace + kZeroFlagWord) == 0) {
        }
        __threadfence();
      }
      __syncthreads();
    }
    if constexpr (kCluster > 1) {
      // This block's totals, for its peers; then block r of the cluster sums slice r of the bins over all of them.
      unsigned* totals = smem + kSharedWords;
      for (int b = threadIdx.x; b < kBins; b += kBlock) totals[b] = block_total(smem, b);
      cluster_sync();
      constexpr int kSlice = (kBins + kCluster - 1) / kCluster;
      const int lo = cluster_rank() * kSlice;
      const int hi = lo + kSlice < kBins ? lo + kSlice : kBins;
      for (int b = lo + static_cast<int>(threadIdx.x); b < hi; b += kBlock) {
        out_t c = 0;
#pragma unroll
        for (int r = 0; r < kCluster; ++r) c += peer_shared(totals, r)[b];
        if (one_unit) out[b] = c;
        else if (c != 0) global_add(acc, b, c);
      }
      cluster_sync();  // every block keeps its shared memory until its peers have read it
      if (one_unit) return;
    } else {
      for (int b = threadIdx.x; b < kBins; b += kBlock) {
        const unsigned c = block_total(smem, b);
        if (c != 0) global_add(acc, b, static_cast<out_t>(c));
      }
    }
    if constexpr (kSelfZero) {
      // Every block but the first gives back the count it was lent; the last one leaves the flag zero. No return
      // value is awaited (a reduction, not a ticket).
      if (threadIdx.x == 0 && !zeroed_out) atomicSub(workspace + kZeroFlagWord, 1u);
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
