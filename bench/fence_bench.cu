// The ticket's fence, A against B in the same run: a last-block sum of 1M floats (the reduction template's finish:
// partial per block, fence, ticket, the last block folds the partials after a fence) with __threadfence()
// (fence.sc.gpu) or fence.acq_rel.gpu (kernel_templates/common.cuh's fence_acq_rel_gpu), timed as the benchmarks time
// a call (L2 flushed before each, CUDA events around one launch), the two interleaved round by round. It measured the
// one change of commit 01c8362 apart from everything else a tuned variant does: on an H200 fence.acq_rel.gpu ran
// 0.13 us slower (bench/results/2026-12-03g-h200-fence-bench-7b417b9.md), and 01c8362 was reverted; the templates keep
// __threadfence.
//
//   fence_bench [--n N] [--rounds R]      prints a markdown table: median and 10th/90th percentile per fence
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr const char* kBenchName = "fence_bench";

}  // namespace

#include "last_block_sum.cuh"
#include "check_cuda.cuh"

namespace {

constexpr int kBlock = kLastBlockThreads, kLoads = kLastBlockLoads;

__global__ void scribble(unsigned* p, size_t n, unsigned v) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = v + static_cast<unsigned>(i);
}

double percentile(std::vector<float> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 1u << 20;
  int rounds = 101;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--n") n = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--rounds") rounds = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: fence_bench [--n N] [--rounds R]\n");
      return 2;
    }
  }
  constexpr size_t kTile = 4ull * kBlock * kLoads;
  if (n == 0 || n % kTile != 0 || rounds < 3) {
    std::fprintf(stderr, "fence_bench: --n must be a positive multiple of %zu, --rounds at least 3\n", kTile);
    return 2;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const unsigned grid = static_cast<unsigned>(n / kTile);
  std::vector<float> host(n);
  double want = 0.0;
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 7) - 3.0f, want += host[i];
  float *in = nullptr, *partials = nullptr, *out = nullptr;
  unsigned *ticket = nullptr, *flush = nullptr;
  const size_t flush_words = 256ull << 20 >> 2;  // 256 MiB: past the L2 of any GPU we target
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&partials, grid * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&out, sizeof(float)));
  CHECK_CUDA(cudaMalloc(&ticket, sizeof(unsigned)));
  CHECK_CUDA(cudaMalloc(&flush, flush_words * sizeof(unsigned)));
  CHECK_CUDA(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(ticket, 0, sizeof(unsigned)));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<float> times[2];
  for (int r = -3; r < rounds; ++r)  // three warm-up rounds
    for (int kind = 0; kind < 2; ++kind) {
      scribble<<<1024, 256>>>(flush, flush_words, static_cast<unsigned>(r));
      CHECK_CUDA(cudaMemset(out, 0xFF, sizeof(float)));
      CHECK_CUDA(cudaEventRecord(start));
      const auto* v4 = reinterpret_cast<const float4*>(in);
      if (kind == 0) last_block_sum<true, false><<<grid, kBlock>>>(v4, partials, ticket, out);
      else last_block_sum<true, true><<<grid, kBlock>>>(v4, partials, ticket, out);
      CHECK_CUDA(cudaEventRecord(stop));
      CHECK_CUDA(cudaEventSynchronize(stop));
      float ms = 0.0f, got = 0.0f;
      CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      CHECK_CUDA(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost));
      if (got != static_cast<float>(want)) {  // small integers: every order of the sum is exact
        std::fprintf(stderr, "fence_bench: %s gave %g, want %g\n", kind ? "fence.acq_rel.gpu" : "__threadfence", got,
                     want);
        return 1;
      }
      if (r >= 0) times[kind].push_back(ms * 1000.0f);
    }
  std::printf("# The ticket's fence, A/B: %s, n = %zu floats, %u blocks of %d, %d interleaved rounds\n\n", prop.name,
              n, grid, kBlock, rounds);
  std::printf("| fence | median (us) | p10 (us) | p90 (us) |\n|---|---:|---:|---:|\n");
  const char* names[2] = {"`__threadfence()` (fence.sc.gpu)", "`fence.acq_rel.gpu`"};
  for (int kind = 0; kind < 2; ++kind)
    std::printf("| %s | %.2f | %.2f | %.2f |\n", names[kind], percentile(times[kind], 0.5),
                percentile(times[kind], 0.1), percentile(times[kind], 0.9));
  std::printf("\nEvery call's sum checked exact. acq_rel - sc, median: %+.2f us\n",
              percentile(times[1], 0.5) - percentile(times[0], 0.5));
  return 0;
}
