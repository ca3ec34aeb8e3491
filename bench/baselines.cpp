// CUB's call per family (bench/baselines.hpp), from the nvcc-compiled wrappers bench/cub_baseline.cu and
// bench/cub_reduce.cu.
#include "bench/baselines.hpp"

#include <stdexcept>

#include "autotune/argreduce_problem.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "bench/cub_argreduce.hpp"
#include "bench/cub_baseline.hpp"
#include "bench/cub_range.hpp"
#include "bench/cub_reduce.hpp"
#include "bench/cub_segreduce.hpp"
#include "core/cuda.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/segreduce/reference.hpp"

namespace autotune::bench {

CubProblem cub_problem(const HistogramProblem& p) {
  CubProblem cp{static_cast<CubSample>(p.type), p.bins, p.lower, p.upper, p.channels, p.active};
  if (!p.uniform_channels())
    for (int c = 0; c < p.active; ++c) {
      const HistogramChannel ch = p.channel(c);
      cp.channel_bins[c] = ch.bins, cp.channel_lower[c] = ch.lower, cp.channel_upper[c] = ch.upper;
    }
  return cp;
}

namespace {

std::optional<BaselineCall> histogram_baseline(const HistogramProblem& p, const void* input, void* output) {
  if (p.counter_bits != 32) return std::nullopt;  // CUB's counters are the sample count type: 32 bits here
  const CubProblem cp = cub_problem(p);
  if (!cub_supports(cp)) return std::nullopt;  // channels CUB is not instantiated for here
  // CUB bins __half samples in half arithmetic (ScaleTransform in cub/device/dispatch/dispatch_histogram.cuh): past
  // 65504 bins, the largest finite half, its scale is infinite and its sweep kernel adds out of bounds
  // (compute-sanitizer on an H200, 2026-12-04: 71379 bins over [0.02, 300.02); bench/results/2026-12-04h-summary.md).
  if (p.type == SampleType::f16 && p.counters() > 65504) return std::nullopt;
  // A 2D region: CUB's 2D overloads, instantiated here for u8 samples.
  if (p.row_pixels != 0 && p.type != SampleType::u8) return std::nullopt;
  auto cub = p.row_pixels == 0
                 ? std::make_shared<CubHistogram>(cp, p.n)
                 : std::make_shared<CubHistogram>(cp, CubRegion{p.row_pixels, p.n / p.row_pixels,
                                                                static_cast<std::size_t>(p.row_stride_bytes)});
  auto* counts = static_cast<unsigned*>(output);
  return BaselineCall{"cub", [cub, input, counts](cudaStream_t s) { cub->run(input, counts, s); }, cub};
}

std::optional<BaselineCall> range_baseline(const HistogramRangeProblem& p, const void* input, void* output) {
  if (p.counter_bits != 32) return std::nullopt;
  // The levels the family's workload measures on: generated from the problem alone, so these are the same.
  if (!CubHistogramRange::supports(static_cast<CubSample>(p.type), p.channels, p.active)) return std::nullopt;
  struct State {
    State(const HistogramRangeProblem& p, std::size_t level_bytes) : cub(make(p)), levels(level_bytes) {}
    static CubHistogramRange make(const HistogramRangeProblem& p) {
      if (p.channels == 1) return CubHistogramRange(static_cast<CubSample>(p.type), p.bins, p.n);
      int bins[4] = {0, 0, 0, 0};
      for (int c = 0; c < p.active; ++c) bins[c] = p.channel_bins(c);
      return CubHistogramRange(static_cast<CubSample>(p.type), p.channels, p.active, bins, p.n);
    }
    CubHistogramRange cub;
    cuda::DeviceBuffer levels;
  };
  const std::vector<unsigned char> levels = generate_levels(p);
  auto state = std::make_shared<State>(p, levels.size());
  AUTOTUNE_CUDA(cudaMemcpy(state->levels.get(), levels.data(), levels.size(), cudaMemcpyHostToDevice));
  auto* counts = static_cast<unsigned*>(output);
  return BaselineCall{"cub",
                      [state, input, counts](cudaStream_t s) { state->cub.run(input, state->levels.get(), counts, s); },
                      state};
}

std::optional<BaselineCall> reduce_baseline(const ReduceProblem& p, const void* input, void* output) {
  // CUB accumulates as autotune's defaults do for the types it covers (bench/cub_reduce.hpp).
  if (p.accumulator_type() != ReduceProblem{p.op, p.type, std::nullopt, p.n}.accumulator_type())
    return std::nullopt;
  try {
    auto cub = std::make_shared<CubReduce>(static_cast<CubValue>(p.type), static_cast<CubOp>(p.op), p.n);
    return BaselineCall{"cub", [cub, input, output](cudaStream_t s) { cub->run(input, output, s); }, cub};
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // a type the CUB baseline does not instantiate
  }
}

std::optional<BaselineCall> argreduce_baseline(const ArgReduceProblem& p, const void* input, void* output) {
  // Value at byte 0, index at byte 8 of the output: where the family's variants write them.
  try {
    auto cub = std::make_shared<CubArgReduce>(static_cast<CubValue>(p.type), p.op == ArgOp::argmax, p.n);
    return BaselineCall{"cub", [cub, input, output](cudaStream_t s) { cub->run(input, output, s); }, cub};
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // a type the CUB baseline does not instantiate
  }
}

std::optional<BaselineCall> segreduce_baseline(const SegReduceProblem& p, const void* input, void* output) {
  // The CUB wrapper is instantiated for f32, f16 and bf16 values (sums into float), int and int64 offsets. The
  // offsets are the workload's: generated from the problem alone (problem_offsets), so these are the same segments.
  const auto type = static_cast<CubValue>(p.type);
  const bool float_sum = p.op != SegReduceOp::sum || p.accumulator_type() == ValueType::f32;
  if (!cub_segreduce_supports(type, static_cast<CubSegOp>(p.op)) || !float_sum) return std::nullopt;
  const std::vector<unsigned char> offsets = problem_offsets(p);
  struct State {
    State(SegReduceOp op, std::uint64_t segments, bool wide, CubValue type, std::size_t bytes)
        : cub(static_cast<CubSegOp>(op), segments, wide, type), offsets(bytes) {}
    CubSegReduce cub;
    cuda::DeviceBuffer offsets;
  };
  const std::size_t width = p.offset_bytes();
  const std::uint64_t segments = offsets.size() / width - 1;
  auto state = std::make_shared<State>(p.op, segments, p.offset_bits == 64, type, offsets.size());
  AUTOTUNE_CUDA(cudaMemcpy(state->offsets.get(), offsets.data(), offsets.size(), cudaMemcpyHostToDevice));
  const void* values = input;
  return BaselineCall{"cub",
                      [state, values, output, width](cudaStream_t s) {
                        const auto* o = static_cast<const unsigned char*>(state->offsets.get());
                        state->cub.run(values, o, o + width, output, s);
                      },
                      state};
}

}  // namespace

std::optional<BaselineCall> cub_baseline(const Problem& problem, const void* input, void* output) {
  if (const auto* p = problem.as<HistogramProblem>()) return histogram_baseline(*p, input, output);
  if (const auto* p = problem.as<HistogramRangeProblem>()) return range_baseline(*p, input, output);
  if (const auto* p = problem.as<ReduceProblem>()) return reduce_baseline(*p, input, output);
  if (const auto* p = problem.as<ArgReduceProblem>()) return argreduce_baseline(*p, input, output);
  if (const auto* p = problem.as<SegReduceProblem>()) return segreduce_baseline(*p, input, output);
  return std::nullopt;
}

}  // namespace autotune::bench
