// What the L2 flush charges the timed call. The tuner and the benchmarks flush the L2 before each timed call with a
// cudaMemsetAsync of twice the L2 (tuner/tuner.cpp sample_variant, tuner/harness.cpp time_calls), as nvbench does.
// A memset leaves the L2 full of dirty lines, and the timed call then pays for writing them back as it evicts them.
// This program times the same calls after three flushes, interleaved round by round:
//   memset  the tuner's flush (twice the L2 written);
//   clean   the same memset, then a read of the whole flush buffer (the L2 left holding clean lines);
//   none    no flush (the call's own input partly in the L2 from the round before, for inputs that fit).
// The calls: the 16-byte streaming read of kernel_templates/roof.cu (the read roof), and cub::DeviceReduce::Sum of
// f32, at sizes from 2 MiB to 2 GiB. If a memset flush charges the call a fixed write-back, its time exceeds the
// clean flush's by about the same microseconds at every size at least as large as the L2. bench/load_bench.cu
// measured the same two L2 states for the templates' load instructions (kernel_templates/reduce/README.md, "Evict-first
// loads", says why the tuner keeps the dirty state, as nvbench does); this program prices the state itself: for CUB,
// and for the read roof that every benchmark's "% of the roof" divides by.
//
//   flush_bench [--rounds R] [--max-mib M]      prints a markdown table
#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr const char* kBenchName = "flush_bench";

}  // namespace

#include "check_cuda.cuh"
// The read roof's kernel (autotune_read_roof), which the tuner compiles with NVRTC, compiled here by nvcc.
#include "kernel_templates/roof.cu"

namespace {

enum Flush { kMemset, kClean, kNone, kFlushes };

struct Bench {
  int sms = 0;
  unsigned char* flush = nullptr;
  std::size_t flush_bytes = 0;
  unsigned* sink = nullptr;
  cudaEvent_t start{}, stop{};

  void read(const void* p, std::size_t bytes) const {
    autotune_read_roof<<<sms * 4, 512>>>(static_cast<const uint4*>(p), bytes / 16, sink);
  }
  void do_flush(Flush f, int round) const {
    if (f == kNone) return;
    CHECK_CUDA(cudaMemsetAsync(flush, round & 0xff, flush_bytes));
    if (f == kClean) read(flush, flush_bytes);
  }
  template <class Call>
  float time(Flush f, int round, Call call) const {
    do_flush(f, round);
    CHECK_CUDA(cudaEventRecord(start));
    call();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return ms * 1000.0f;
  }
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 21;
  std::size_t max_mib = 2048;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) rounds = std::max(3, std::atoi(argv[++i]));
    else if (a == "--max-mib" && i + 1 < argc) max_mib = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: flush_bench [--rounds R] [--max-mib M]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  Bench b;
  b.sms = prop.multiProcessorCount;
  b.flush_bytes = 2ull * prop.l2CacheSize;
  const std::size_t max_bytes = max_mib << 20;
  float* data = nullptr;
  float* out = nullptr;
  CHECK_CUDA(cudaMalloc(&b.flush, b.flush_bytes));
  CHECK_CUDA(cudaMalloc(&data, max_bytes));
  CHECK_CUDA(cudaMalloc(&out, sizeof(float)));
  CHECK_CUDA(cudaMalloc(&b.sink, sizeof(unsigned)));
  CHECK_CUDA(cudaMemset(data, 0, max_bytes));
  CHECK_CUDA(cudaEventCreate(&b.start));
  CHECK_CUDA(cudaEventCreate(&b.stop));
  std::size_t temp_bytes = 0;
  CHECK_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, data, out, static_cast<long long>(max_bytes / 4)));
  void* temp = nullptr;
  CHECK_CUDA(cudaMalloc(&temp, temp_bytes));

  std::printf("# The L2 flush's share of a timed call: %s (%d SMs, %d MiB L2)\n\n", prop.name, b.sms,
              prop.l2CacheSize >> 20);
  std::printf("Median of %d rounds, the three flushes interleaved in each round; CUDA events around one call.\n\n",
              rounds);
  std::printf("| bytes | call | memset (us) | clean (us) | none (us) | memset - clean (us) | GB/s memset | GB/s clean |\n");
  std::printf("|---:|---|---:|---:|---:|---:|---:|---:|\n");
  for (std::size_t bytes = 2u << 20; bytes <= max_bytes; bytes *= 4) {
    const long long n = static_cast<long long>(bytes / 4);
    for (int call = 0; call < 2; ++call) {
      std::vector<float> t[kFlushes];
      for (int r = 0; r < rounds + 1; ++r)
        for (int f = 0; f < kFlushes; ++f) {
          const float us = b.time(static_cast<Flush>(f), r, [&] {
            if (call == 0) b.read(data, bytes);
            else CHECK_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, data, out, n));
          });
          if (r > 0) t[f].push_back(us);  // round 0 warms up
        }
      CHECK_CUDA(cudaGetLastError());
      const float m = median(t[kMemset]), c = median(t[kClean]), z = median(t[kNone]);
      std::printf("| %zu MiB | %s | %.1f | %.1f | %.1f | %+.1f | %.0f | %.0f |\n", bytes >> 20,
                  call == 0 ? "read roof" : "CUB f32 sum", m, c, z, m - c, bytes / m / 1e3, bytes / c / 1e3);
    }
  }
  return 0;
}
