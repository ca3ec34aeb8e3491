#include "tuner/harness.hpp"

#include <vector>

namespace autotune {

SampleStats time_calls(const std::function<void(cudaStream_t)>& call, const cuda::DeviceBuffer& flush, int samples,
                       cudaStream_t stream, int warmup) {
  cuda::Event start, stop;
  std::vector<double> ms;
  for (int s = 0; s < samples + warmup; ++s) {
    if (flush.bytes()) AUTOTUNE_CUDA(cudaMemsetAsync(flush.get(), s & 0xff, flush.bytes(), stream));
    start.record(stream);
    call(stream);
    stop.record(stream);
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    if (s >= warmup) ms.push_back(stop.elapsed_since(start));
  }
  return summarize(ms);
}

}  // namespace autotune
