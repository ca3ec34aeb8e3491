// The reference implementations a problem is compared with (`autotune bench`, the report's bars): CUB's call for a
// problem, bound to a workload's input and output buffers (core/workload.hpp). Looked up by the problem, so that
// the CLI names no family; the families' CUB calls live here in bench/ and nowhere else.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/problem.hpp"

namespace autotune::bench {

struct BaselineCall {
  std::string name;                        ///< "cub"
  std::function<void(cudaStream_t)> run;   ///< one call, asynchronous on the stream
  std::shared_ptr<void> state;             ///< what the call uses (temporary storage), kept alive with it
};

struct CubProblem;
/// CUB's description of a histogram problem (bench/cub_baseline.hpp), each active channel's bins and range included.
CubProblem cub_problem(const HistogramProblem& problem);

/// CUB's call for `problem` reading `input` and writing `output` as the family's variants do, or nullopt when
/// CUB has no such case (a counter width or accumulator CUB does not offer, a type not instantiated).
std::optional<BaselineCall> cub_baseline(const Problem& problem, const void* input, void* output);

}  // namespace autotune::bench
