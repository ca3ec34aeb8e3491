// The read roof as both benchmark tables report it: the 16-byte streaming read kernel (bench/cub_baseline.cu) over
// 512 MiB, well past the L2, timed with the benchmarks' harness.
#pragma once

#include "bench/cub_baseline.hpp"
#include "core/cuda.hpp"
#include "tuner/harness.hpp"

namespace autotune::bench {

struct ReadRoof {
  double gbps = 0.0;
  double spread = 0.0;  ///< SampleStats::spread of the timed reads
};

inline ReadRoof measure_bench_roof(const cuda::DeviceBuffer& flush, int samples, cudaStream_t stream) {
  constexpr std::size_t kBytes = 512ull << 20;
  cuda::DeviceBuffer data(kBytes), sink(16);
  AUTOTUNE_CUDA(cudaMemset(data.get(), 1, kBytes));
  const SampleStats st = time_calls(
      [&](cudaStream_t s) { launch_read_roof(data.get(), kBytes, sink.as<unsigned>(), s); }, flush, samples, stream);
  return {kBytes / (st.median * 1e-3) / 1e9, st.spread};
}

}  // namespace autotune::bench
