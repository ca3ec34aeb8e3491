// What the benchmarks that compare handles share (bench/size_bench.cpp, bench/shape_bench.cpp): statistics over
// samples, a type-erased handle of any family with one call on (input, n, output), interleaved timing with the L2
// flushed, and the cubin of a configuration (a stored winner's, else compiled).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/histogram.hpp"
#include "autotune/reduce.hpp"
#include "autotune/resolution.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/jit.hpp"
#include "tuner/harness.hpp"
#include "tuner/timing.hpp"

namespace autotune::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// What a result table's header says of where it was measured: "NVIDIA H200 (sm_90, 132 SMs, 60 MiB L2), driver 13.0,
// NVRTC 13.0; 2026-12-01 04:43 UTC; commit 24301bb".
inline std::string measured_on(const DeviceInfo& dev, const std::string& commit) {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return fmt::format("{} ({}, {} SMs, {} MiB L2), driver {}.{}, NVRTC {}.{}; {}; commit {}", dev.name, dev.arch(),
                     dev.sm_count, dev.l2_bytes >> 20, dev.driver_version / 1000, dev.driver_version % 1000 / 10,
                     dev.nvrtc_version / 1000, dev.nvrtc_version % 1000 / 10, date, commit);
}

inline double median_of(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}
inline double max_of(const std::vector<double>& v) {
  return v.empty() ? std::numeric_limits<double>::quiet_NaN() : *std::max_element(v.begin(), v.end());
}
inline double min_of(const std::vector<double>& v) {
  return v.empty() ? std::numeric_limits<double>::quiet_NaN() : *std::min_element(v.begin(), v.end());
}
inline double geomean_of(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

// The adaptive handle of a shape, type-erased: one call on (input, n, output).
struct Adaptive {
  std::function<void(const void*, std::uint64_t, void*, cudaStream_t)> call;
  std::function<const SizeRange&(std::uint64_t)> range_for;
  std::function<const Resolution&()> resolution;
  std::shared_ptr<void> keep;
};

inline Adaptive make_adaptive(const Problem& base, const std::string& cache_path) {
  Adaptive a;
  if (const auto* hp = base.as<HistogramProblem>()) {
    Histogram::Options o;
    o.device = 0;
    o.cache_path = cache_path;
    auto h = std::make_shared<Histogram>(*hp, o);
    a.call = [h](const void* in, std::uint64_t n, void* out, cudaStream_t s) {
      (*h)(in, n, static_cast<unsigned int*>(out), s);
    };
    a.range_for = [h](std::uint64_t n) -> const SizeRange& { return h->range_for(n); };
    a.resolution = [h]() -> const Resolution& { return h->resolution(); };
    a.keep = h;
  } else if (const auto* rp = base.as<ReduceProblem>()) {
    Reduce::Options o;
    o.device = 0;
    o.cache_path = cache_path;
    auto r = std::make_shared<Reduce>(*rp, o);
    a.call = [r](const void* in, std::uint64_t n, void* out, cudaStream_t s) { r->run(in, n, out, s); };
    a.range_for = [r](std::uint64_t n) -> const SizeRange& { return r->range_for(n); };
    a.resolution = [r]() -> const Resolution& { return r->resolution(); };
    a.keep = r;
  } else {
    throw Error("bench: no handle for " + base.key());
  }
  return a;
}

// Interleaved timing: round by round, each contender once (L2 flushed before each call), the starting contender
// rotating; after two untimed warm-up calls of each. Medians in ms, in the contenders' order.
inline std::vector<SampleStats> time_interleaved(const std::vector<std::function<void(cudaStream_t)>>& calls,
                                          const cuda::DeviceBuffer& flush, int samples, cudaStream_t stream) {
  for (const auto& c : calls) time_calls(c, flush, 0, stream, 2);
  std::vector<std::vector<double>> ms(calls.size());
  for (int r = 0; r < samples; ++r)
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(r)) % calls.size();
      ms[i].push_back(time_calls(calls[i], flush, 1, stream, 0).median);
    }
  std::vector<SampleStats> out;
  for (auto& v : ms) out.push_back(summarize(v));
  return out;
}

// The final round of a benchmark that screens every variant (reduce_bench, argreduce_bench), as the tuner's
// (tuner/tuner.cpp, final_round): the `count` fastest screened candidates, and any others within 1 % of the fastest
// (up to three times as many), are timed again together with CUB in interleaved rounds (time_interleaved), the
// winner is picked among them by pick_winner on those times, and CUB's time comes from the same rounds. Screening
// a variant apart from CUB, then timing the winner and CUB one after the other, let the drift of the GPU between
// them decide rows of ~10 us: f32 argmax at 1M measured 1.28x and 0.96x CUB in two runs of one binary on an H200.
struct FinalRound {
  std::size_t winner = 0;  ///< an index into the screened candidates
  SampleStats ours, cub;
};
inline FinalRound final_round(const std::vector<Candidate>& screened,
                              const std::function<void(std::size_t, cudaStream_t)>& run,
                              const std::function<void(cudaStream_t)>& cub, const cuda::DeviceBuffer& flush,
                              int samples, cudaStream_t stream, std::size_t count = 4) {
  if (screened.empty()) throw Error("final_round: no candidate");
  std::vector<std::size_t> order(screened.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return screened[a].median_ms < screened[b].median_ms; });
  std::size_t keep = std::min(order.size(), count);
  while (keep < order.size() && keep < 3 * count &&
         screened[order[keep]].median_ms <= 1.01 * screened[order.front()].median_ms)
    ++keep;
  order.resize(keep);
  std::vector<std::function<void(cudaStream_t)>> calls;
  for (std::size_t i : order) calls.push_back([&run, i](cudaStream_t s) { run(i, s); });
  calls.push_back(cub);
  const std::vector<SampleStats> times = time_interleaved(calls, flush, samples, stream);
  std::vector<Candidate> finalists;
  for (std::size_t k = 0; k < order.size(); ++k) {
    Candidate c = screened[order[k]];
    c.median_ms = times[k].median, c.noise = times[k].noise;
    finalists.push_back(c);
  }
  const std::size_t w = pick_winner(finalists);
  return {order[w], times[w], times.back()};
}

// A cubin for `config` of `problem`'s family: a winner's stored one (a variant's source does not depend on n), else
// compiled (compile cache `dir`).
inline std::vector<char> cubin_for(const Config& config, const std::vector<Winner>& winners, const Problem& problem,
                            const DeviceInfo& dev, const std::string& dir) {
  for (const Winner& w : winners)
    if (w.config == config && !w.cubin.empty() && w.arch == dev.arch()) return w.cubin;
  const auto r = jit::compile_cached(problem.family().kernel_source(problem, config), "bench.cu", dev.arch(), dir);
  if (!r.ok) throw Error("bench: " + config.key() + " does not compile: " + r.log);
  return r.cubin;
}

}  // namespace autotune::bench
