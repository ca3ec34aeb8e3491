// Histogram kernel template, compiled with NVRTC once per variant.
//
// Every tuning parameter arrives as a compile-time constant in namespace `at`, from the preamble that
// autotune::kernel_source() generates from a HistogramProblem and a HistogramConfig (the one source of truth):
//   at::sample_t        sample type
//   at::kBins           number of bins
//   at::kIsFloat        float samples use at::kLowerF / at::kUpperF / at::kScaleF, integers at::kLowerI / at::kUpperI
//   at::kBlock          threads per block (the host launches exactly this many)
//   at::kItemsPerThread samples per thread per tile (coarsening; all loads of a tile are issued before use)
//   at::kAggregation    count runs of equal bins in a register, one atomic per run
//   at::kShared         privatize: one shared-memory histogram per block (else atomics straight into `out`)
//   at::kInterleaved    interleaved partitioning (else contiguous)
//
// Semantics (CUB's HistogramEven): a sample s counts iff lower <= s < upper; NaN never counts.
//   integer bin = (s - lower) * bins / (upper - lower), exact in 64-bit (constants fold: u8/256 bins is bin = s)
//   float bin   = min(bins - 1, (int)((s - lower) * scale)), scale = float(bins / (upper - lower))
// `out` holds 32-bit counters and must be zeroed before the launch; the kernel adds to it.
//
// The grid is sized by the host (persistent: at most the resident blocks); each block walks tiles of
// gridDim.x * kBlock * kItemsPerThread samples, so any grid covers any n.

static_assert(at::kBlock >= 32 && at::kBlock <= 1024 && at::kBlock % 32 == 0, "block must be a multiple of 32 up to 1024");
static_assert(at::kItemsPerThread >= 1 && at::kItemsPerThread <= 64, "items per thread must be in 1..64");
static_assert(at::kBins >= 1, "at least one bin");

namespace at {

typedef unsigned long long u64;

// Bin of one sample, or -1 when it is out of range (or NaN).
__device__ __forceinline__ int bin_of(sample_t s) {
  if constexpr (kIsFloat) {
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

// Per-thread state for run aggregation: the bin of the current run and its length.
struct Counter {
  unsigned int* hist;
  int run_bin = -1;
  unsigned int run_len = 0;

  __device__ __forceinline__ void add(int b) {
    if (b < 0) return;
    if constexpr (kAggregation) {
      if (b == run_bin) {
        ++run_len;
        return;
      }
      flush();
      run_bin = b;
      run_len = 1;
    } else {
      atomicAdd(hist + b, 1u);
    }
  }
  __device__ __forceinline__ void flush() {
    if (kAggregation && run_len != 0) atomicAdd(hist + run_bin, run_len);
    run_len = 0;
  }
};

// Index of item k of this thread in the tile starting at `base`.
__device__ __forceinline__ u64 item_index(u64 base, u64 threads, u64 tid, int k) {
  return kInterleaved ? base + static_cast<u64>(k) * threads + tid
                      : base + tid * static_cast<u64>(kItemsPerThread) + static_cast<u64>(k);
}

}  // namespace at

extern "C" __global__ void __launch_bounds__(at::kBlock)
autotune_histogram(const at::sample_t* __restrict__ in, unsigned long long n, unsigned int* __restrict__ out) {
  using namespace at;
  extern __shared__ unsigned int shared_hist[];

  Counter counter;
  if constexpr (kShared) {
    for (int b = threadIdx.x; b < kBins; b += kBlock) shared_hist[b] = 0;
    __syncthreads();
    counter.hist = shared_hist;
  } else {
    counter.hist = out;
  }

  const u64 threads = static_cast<u64>(gridDim.x) * kBlock;
  const u64 tid = static_cast<u64>(blockIdx.x) * kBlock + threadIdx.x;
  const u64 tile = threads * kItemsPerThread;

  // Full tiles: no bounds checks; all kItemsPerThread loads are in flight before the first atomic.
  u64 base = 0;
  for (; base + tile <= n; base += tile) {
    sample_t v[kItemsPerThread];
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) v[k] = in[item_index(base, threads, tid, k)];
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) counter.add(bin_of(v[k]));
  }
  // The last, partial tile.
  if (base < n) {
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
      const u64 i = item_index(base, threads, tid, k);
      if (i < n) counter.add(bin_of(in[i]));
    }
  }
  counter.flush();

  if constexpr (kShared) {
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += kBlock) {
      const unsigned int c = shared_hist[b];
      if (c != 0) atomicAdd(out + b, c);
    }
  }
}
