// The one timing harness of the benchmarks (`autotune bench`, bench/*_bench): the nvbench method the tuner uses
// (tuner/tuner.cpp), for any callable. CUDA events around one whole call, a buffer overwritten before every sample
// so the input is read from memory (cold L2), warm-up calls not counted, the statistics of tuner/timing.hpp.
#pragma once

#include <functional>

#include "core/cuda.hpp"
#include "tuner/timing.hpp"

namespace autotune {

/// Times `samples` calls of `call` on `stream` after `warmup` untimed ones; `flush` (may be empty) is overwritten
/// before each. Synchronizes after every call.
SampleStats time_calls(const std::function<void(cudaStream_t)>& call, const cuda::DeviceBuffer& flush, int samples,
                       cudaStream_t stream, int warmup = 3);

}  // namespace autotune
