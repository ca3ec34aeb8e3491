// The input loads' cache policy, A against B in the same run: a resident-grid read of N 32-bit words (16-byte
// loads, four in flight per thread, the kernel templates' inner loop) summed exactly, with four load instructions:
//   nc     ld.global.nc (what `const __restrict__` pointers and __ldg compile to: the templates' loads today);
//   cs     ld.global.cs (__ldcs: "cache streaming", evict-first in L1 and L2);
//   ef     ld.global.nc.L1::no_allocate.L2::cache_hint with a createpolicy.fractional.L2::evict_first policy;
//   ef256  ef plus .L2::256B (the L2 fetches 256-byte blocks).
// Each is timed as the benchmarks time a call (events around one launch, median of interleaved rounds), after one of
// two L2 states:
//   dirty  the harness's flush (tuner/harness.cpp, bench/bench_common.hpp, nvbench's l2flush likewise): a buffer of
//          twice the L2 overwritten, so the L2 is full of dirty lines that the next kernel's misses write back;
//   clean  the same writes, then a read of another buffer of twice the L2: the L2 holds clean lines only.
// An evict-first load can only help where the L2 holds lines worth keeping (dirty ones, or another kernel's data);
// the clean rows say what is left when there is nothing to keep.
//
//   load_bench [--rounds R] [--sizes N,N,...]    prints a markdown table per L2 state
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr const char* kBenchName = "load_bench";

}  // namespace

#include "check_cuda.cuh"

namespace {

constexpr int kBlock = 256, kLoads = 4, kModes = 4;
const char* const kModeNames[kModes] = {"nc", "cs", "ef", "ef256"};

template <int Mode>
__device__ __forceinline__ uint4 load(const uint4* p, unsigned long long policy) {
  uint4 v;
  if constexpr (Mode == 0) {
    v = __ldg(p);
  } else if constexpr (Mode == 1) {
    v = __ldcs(p);
  } else if constexpr (Mode == 2) {
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(policy));
  } else {
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(policy));
  }
  return v;
}

// Grid-stride over n16 16-byte vectors, kLoads of them in flight per thread; one 64-bit atomic per block.
template <int Mode>
__global__ void __launch_bounds__(kBlock) read_sum(const uint4* __restrict__ in, unsigned long long n16,
                                                   unsigned long long* out) {
  unsigned long long policy = 0;
  if constexpr (Mode >= 2) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * kBlock;
  unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * kBlock + threadIdx.x;
  unsigned long long s = 0;
  for (; i + (kLoads - 1) * stride < n16; i += kLoads * stride) {
    uint4 v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) v[k] = load<Mode>(in + i + k * stride, policy);
#pragma unroll
    for (int k = 0; k < kLoads; ++k) s += (v[k].x + v[k].y) + static_cast<unsigned long long>(v[k].z + v[k].w);
  }
  for (; i < n16; i += stride) {
    const uint4 v = load<Mode>(in + i, policy);
    s += (v.x + v.y) + static_cast<unsigned long long>(v.z + v.w);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xFFFFFFFFu, s, o);
  __shared__ unsigned long long warp_sums[kBlock / 32];
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long b = 0;
    for (int w = 0; w < kBlock / 32; ++w) b += warp_sums[w];
    atomicAdd(out, b);
  }
}

__global__ void scribble(unsigned* p, size_t n, unsigned v) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = v + static_cast<unsigned>(i);
}

__global__ void sweep(const uint4* __restrict__ p, size_t n16, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

double percentile(std::vector<float> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)];
}

void launch(int mode, unsigned grid, const uint4* in, unsigned long long n16, unsigned long long* out) {
  switch (mode) {
    case 0: read_sum<0><<<grid, kBlock>>>(in, n16, out); break;
    case 1: read_sum<1><<<grid, kBlock>>>(in, n16, out); break;
    case 2: read_sum<2><<<grid, kBlock>>>(in, n16, out); break;
    default: read_sum<3><<<grid, kBlock>>>(in, n16, out); break;
  }
}

// The device buffers and launch shape of a run.
struct Run {
  unsigned grid = 0;
  size_t flush_words = 0;
  unsigned *in = nullptr, *flush = nullptr, *clean = nullptr, *sink = nullptr;
  unsigned long long* out = nullptr;
  cudaEvent_t start{}, stop{};
  int rounds = 0;
};

// The median time of each load at n words after L2 state `state` (0 dirty, 1 clean), every sum checked.
bool time_size(const Run& run, int state, size_t n, double (&med)[kModes]) {
  // The expected sum: v + i for word i, in 64 bits (each vector adds its four words in 32 then 64 bits, as the
  // kernel does).
  unsigned long long want = 0;
  for (size_t i = 0; i < n; i += 4) {
    const unsigned a = 12345u + static_cast<unsigned>(i), b = a + 1, c = a + 2, d = a + 3;
    want += (a + b) + static_cast<unsigned long long>(c + d);
  }
  std::vector<float> times[kModes];
  for (int r = -2; r < run.rounds; ++r)
    for (int k = 0; k < kModes; ++k) {
      const int mode = (k + r + 2) % kModes;  // the starting mode rotates round by round
      scribble<<<1024, 256>>>(run.flush, run.flush_words, static_cast<unsigned>(r));
      if (state == 1) sweep<<<1024, 256>>>(reinterpret_cast<const uint4*>(run.clean), run.flush_words / 4, run.sink);
      CHECK_CUDA(cudaMemsetAsync(run.out, 0, 8));
      CHECK_CUDA(cudaEventRecord(run.start));
      launch(mode, run.grid, reinterpret_cast<const uint4*>(run.in), n / 4, run.out);
      CHECK_CUDA(cudaEventRecord(run.stop));
      CHECK_CUDA(cudaEventSynchronize(run.stop));
      float ms = 0.0f;
      unsigned long long got = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, run.start, run.stop));
      CHECK_CUDA(cudaMemcpy(&got, run.out, 8, cudaMemcpyDeviceToHost));
      if (got != want) {
        std::fprintf(stderr, "load_bench: %s at n=%zu summed %llu, want %llu\n", kModeNames[mode], n, got, want);
        return false;
      }
      if (r >= 0) times[mode].push_back(ms * 1000.0f);
    }
  for (int m = 0; m < kModes; ++m) med[m] = percentile(times[m], 0.5);
  return true;
}

bool parse_args(int argc, char** argv, int& rounds, std::vector<size_t>& sizes) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else if (a == "--sizes") {
      sizes.clear();
      std::stringstream ss(argv[i + 1]);
      for (std::string t; std::getline(ss, t, ',');) sizes.push_back(std::strtoull(t.c_str(), nullptr, 10));
    } else {
      std::fprintf(stderr, "usage: load_bench [--rounds R] [--sizes N,N,...]  (N: 32-bit words, multiples of 4)\n");
      return false;
    }
  }
  if (rounds < 3 || sizes.empty() ||
      std::any_of(sizes.begin(), sizes.end(), [](size_t n) { return n == 0 || n % 4 != 0; })) {
    std::fprintf(stderr, "load_bench: --rounds at least 3, every size a positive multiple of 4 words\n");
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Run run;
  run.rounds = 31;
  std::vector<size_t> sizes{1u << 18, 1u << 20, 3u << 20, 1u << 22, 1u << 24, 40u << 20, 1u << 26, 1u << 28};
  if (!parse_args(argc, argv, run.rounds, sizes)) return 2;
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int per_sm = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_sum<0>, kBlock, 0));
  run.grid = static_cast<unsigned>(prop.multiProcessorCount * per_sm);
  const size_t max_n = *std::max_element(sizes.begin(), sizes.end());
  run.flush_words = 2ull * prop.l2CacheSize / 4;
  CHECK_CUDA(cudaMalloc(&run.in, max_n * 4));
  CHECK_CUDA(cudaMalloc(&run.flush, run.flush_words * 4));
  CHECK_CUDA(cudaMalloc(&run.clean, run.flush_words * 4));
  CHECK_CUDA(cudaMalloc(&run.sink, 4));
  CHECK_CUDA(cudaMalloc(&run.out, 8));
  scribble<<<1024, 256>>>(run.in, max_n, 12345u);
  scribble<<<1024, 256>>>(run.clean, run.flush_words, 777u);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaEventCreate(&run.start));
  CHECK_CUDA(cudaEventCreate(&run.stop));

  std::printf("# Input loads' cache policy, A/B: %s (%d SMs, %d MiB L2), grid %u x %d (resident), %d loads of 16 B "
              "in flight per thread, %d interleaved rounds, median of the calls\n\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, run.grid, kBlock, kLoads, run.rounds);
  for (int state = 0; state < 2; ++state) {
    std::printf("## L2 %s before each call\n\n"
                "| words | MiB | nc (us) | GB/s | cs (us) | ef (us) | ef256 (us) | best vs nc |\n"
                "|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                state == 0 ? "dirty (twice the L2 overwritten)" : "clean (overwritten, then another buffer read)");
    for (const size_t n : sizes) {
      double med[kModes];
      if (!time_size(run, state, n, med)) return 1;
      const double best = *std::min_element(med + 1, med + kModes);
      std::printf("| %zu | %.1f | %.2f | %.0f | %.2f | %.2f | %.2f | %.3fx |\n", n, n * 4.0 / (1 << 20), med[0],
                  n * 4.0 / (med[0] * 1e3), med[1], med[2], med[3], med[0] / best);
    }
    std::printf("\n");
  }
  std::printf("Every call's sum checked exact.\n");
  return 0;
}
