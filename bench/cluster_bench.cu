// A one-launch reduction finished inside one thread-block cluster, against the last-block finish the reduction
// templates use and against CUB, timed as the benchmarks time a call (the memset L2 flush of tuner/harness.cpp before
// each call, CUDA events around one launch), all contenders interleaved round by round. The question it answers:
// whether a small reduction (1M halves: 2 MiB) can drop the last-block finish's global round trips (partial, fence,
// ticket, the last block's reads of every partial) by reducing in one cluster of up to 16 blocks through distributed
// shared memory (sm_90), and what reading the input with 8 or 16 SMs instead of all of them costs.
//   last_block  cover-n grid of 256-thread blocks, 4 float4 loads each, partial + __threadfence + ticket, the last
//               block folds the partials (the templates' finish; bench/last_block_sum.cuh, fence_bench's kernel too);
//   cluster C   one cluster of C blocks of 1024 threads, a loop over tiles of 4 (or 8) float4 loads each, each block's
//               sum in its shared memory, cluster.sync(), block 0 folds the C sums through map_shared_rank;
//   last_block, plain ld.global: the same with loads the compiler does not make ld.global.nc;
//   CUB         cub::DeviceReduce::Sum of the same floats;
//   read        kernel_templates/roof.cu's 16-byte streaming read of the same bytes (no reduction).
// Data: i % 7 - 3 (small integers: every order of the sum is exact, and each call's result is checked).
//
//   cluster_bench [--rounds R]      prints a markdown table
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr const char* kBenchName = "cluster_bench";

}  // namespace

#include "last_block_sum.cuh"
#include "check_cuda.cuh"
#include "kernel_templates/roof.cu"

namespace {

namespace cg = cooperative_groups;

constexpr int kLbBlock = kLastBlockThreads, kLoads = kLastBlockLoads;

constexpr int kClBlock = 1024;

// One cluster (the launch's whole grid); nvec a multiple of kClBlock * L (whole tiles, taken in turn).
template <int L>
__global__ void __launch_bounds__(kClBlock) cluster_sum(const float4* in, size_t nvec, float* out) {
  __shared__ float smem[kClBlock / 32];
  __shared__ float block_total;
  cg::cluster_group cluster = cg::this_cluster();
  constexpr size_t kTile = static_cast<size_t>(kClBlock) * L;
  float s = 0.0f;
  for (size_t tile = blockIdx.x; (tile + 1) * kTile <= nvec; tile += gridDim.x) {
    const size_t base = tile * kTile + threadIdx.x;
    float4 v[L];
#pragma unroll
    for (int k = 0; k < L; ++k) v[k] = __ldg(in + base + k * kClBlock);
#pragma unroll
    for (int k = 0; k < L; ++k) s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  s = block_sum<kClBlock>(s, smem);
  if (threadIdx.x == 0) block_total = s;
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x < 32) {
    float f = threadIdx.x < cluster.num_blocks() ? *cluster.map_shared_rank(&block_total, threadIdx.x) : 0.0f;
    for (int o = 16; o > 0; o >>= 1) f += __shfl_down_sync(0xFFFFFFFFu, f, o);
    if (threadIdx.x == 0) *out = f;
  }
  cluster.sync();  // no block leaves while block 0 may still read its shared memory
}

template <int L>
void launch_cluster(int blocks, const float4* in, size_t nvec, float* out) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(kClBlock);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = blocks;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CHECK_CUDA(cudaLaunchKernelEx(&cfg, cluster_sum<L>, in, nvec, out));
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

constexpr int kKinds = 9;
const char* const kNames[kKinds] = {"read (no reduction)",
                                    "CUB DeviceReduce::Sum",
                                    "last_block, cover grid of 256",
                                    "cluster of 4 x 1024",
                                    "cluster of 8 x 1024",
                                    "cluster of 16 x 1024",
                                    "cluster of 8 x 1024, 8 loads",
                                    "cluster of 16 x 1024, 8 loads",
                                    "last_block, cover grid of 256, plain ld.global"};
constexpr std::size_t kMaxN = 4u << 20;

// The device buffers of every contender, the host input, and one timed call of a contender.
struct Bench {
  cudaDeviceProp prop{};
  std::vector<float> host;
  float *in = nullptr, *partials = nullptr, *out = nullptr;
  unsigned *ticket = nullptr, *sink = nullptr;
  unsigned char* flush = nullptr;
  std::size_t flush_bytes = 0, temp_bytes = 0;
  void* temp = nullptr;
  cudaEvent_t start{}, stop{};

  Bench() : host(kMaxN) {
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    CHECK_CUDA(cudaFuncSetAttribute(cluster_sum<4>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CHECK_CUDA(cudaFuncSetAttribute(cluster_sum<8>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    flush_bytes = 2ull * prop.l2CacheSize;
    for (std::size_t i = 0; i < kMaxN; ++i) host[i] = static_cast<float>(i % 7) - 3.0f;
    CHECK_CUDA(cudaMalloc(&in, kMaxN * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&partials, kMaxN / (4 * kLbBlock * kLoads) * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&out, sizeof(float)));
    CHECK_CUDA(cudaMalloc(&ticket, sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&sink, sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
    CHECK_CUDA(cudaMemcpy(in, host.data(), kMaxN * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(ticket, 0, sizeof(unsigned)));
    CHECK_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out, static_cast<long long>(kMaxN)));
    CHECK_CUDA(cudaMalloc(&temp, temp_bytes));
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
  }

  void launch(int kind, std::size_t n) const {
    const auto* v4 = reinterpret_cast<const float4*>(in);
    const unsigned lb_grid = static_cast<unsigned>(n / (4 * kLbBlock * kLoads));
    switch (kind) {
      case 0:
        autotune_read_roof<<<prop.multiProcessorCount * 4, 512>>>(reinterpret_cast<const uint4*>(in), n / 4, sink);
        break;
      case 1: {
        std::size_t bytes = temp_bytes;
        CHECK_CUDA(cub::DeviceReduce::Sum(temp, bytes, in, out, static_cast<long long>(n)));
        break;
      }
      case 2: last_block_sum<true, false><<<lb_grid, kLbBlock>>>(v4, partials, ticket, out); break;
      case 8: last_block_sum<false, false><<<lb_grid, kLbBlock>>>(v4, partials, ticket, out); break;
      case 3: case 4: case 5: launch_cluster<4>(4 << (kind - 3), v4, n / 4, out); break;
      case 6: case 7: launch_cluster<8>(8 << (kind - 6), v4, n / 4, out); break;
    }
  }

  // One call of `kind` after the memset flush, in microseconds; exits when a reduction's result is not `want`.
  float time(int kind, std::size_t n, int round, double want) const {
    CHECK_CUDA(cudaMemsetAsync(flush, round & 0xff, flush_bytes));
    CHECK_CUDA(cudaMemsetAsync(out, 0xFF, sizeof(float)));
    CHECK_CUDA(cudaEventRecord(start));
    launch(kind, n);
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK_CUDA(cudaGetLastError());
    float ms = 0.0f, got = 0.0f;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    CHECK_CUDA(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost));
    if (kind != 0 && got != static_cast<float>(want)) {
      std::fprintf(stderr, "cluster_bench: %s at n = %zu gave %g, want %g\n", kNames[kind], n, got, want);
      std::exit(1);
    }
    return ms * 1000.0f;
  }

  // Every contender at n, interleaved round by round (three warm-up rounds), one table row each.
  void rows(std::size_t n, int rounds) const {
    double want = 0.0;
    for (std::size_t i = 0; i < n; ++i) want += host[i];
    std::vector<float> t[kKinds];
    for (int r = -3; r < rounds; ++r)
      for (int kind = 0; kind < kKinds; ++kind) {
        const float us = time(kind, n, r, want);
        if (r >= 0) t[kind].push_back(us);
      }
    const float cub = median(t[1]);
    for (int kind = 0; kind < kKinds; ++kind) {
      const float m = median(t[kind]);
      std::printf("| %zuK | %zu KiB | %s | %.2f | %.2fx |\n", n >> 10, n * 4 >> 10, kNames[kind], m, cub / m);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 51;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) rounds = std::max(3, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: cluster_bench [--rounds R]\n");
      return 2;
    }
  }
  const Bench b;
  std::printf("# One-cluster reductions against the last-block finish and CUB: %s (%d SMs, %d MiB L2)\n\n", b.prop.name,
              b.prop.multiProcessorCount, b.prop.l2CacheSize >> 20);
  std::printf("f32 sums of i %% 7 - 3 (each result checked); median of %d interleaved rounds; a memset of twice the L2 "
              "before each call; events around one call.\n\n",
              rounds);
  std::printf("| n (floats) | bytes | contender | median (us) | vs CUB |\n|---:|---:|---|---:|---:|\n");
  for (std::size_t n : {std::size_t{128} << 10, std::size_t{512} << 10, std::size_t{1} << 20, std::size_t{4} << 20})
    b.rows(n, rounds);
  return 0;
}
