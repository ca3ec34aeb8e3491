// What tests/cache_writer.cpp writes and tests/cpu/test_cache_concurrency.cpp checks: a fixed plan, so the test
// knows every row each writer process must have left in the shared cache file.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/cache.hpp"
#include "tests/test_devices.hpp"

namespace autotune::test::writer_plan {

constexpr int kWriters = 3;
constexpr int kRuns = 8;           // runs of a writer's own problems, then one of the problem all writers share
constexpr int kMeasurements = 40;  // per run

inline DeviceInfo device() { return h100_device("GPU-concurrency"); }

/// Run r < kRuns of writer w tunes its own problem; run kRuns tunes the shared one.
inline HistogramProblem problem(int writer, int run) {
  HistogramProblem p;
  p.n = run == kRuns ? 1 : static_cast<std::uint64_t>(1000 * (writer + 1) + run);
  return p;
}

inline RunInfo run_info(int writer) {
  RunInfo info;
  info.tool_version = fmt::format("writer-{}", writer);
  info.code = CodeIdentity{"00000000000000c0", 12040, 12040};
  return info;
}

/// Measurement i of a run: distinct configurations (schema-1 spelling, which every parser reads).
inline HistogramConfig config(int i) {
  return *HistogramConfig::parse(
      fmt::format("priv=shared,block={},ipt={},agg=0,part=interleaved", 32 * (i % 8 + 1), i / 8 + 1));
}

inline double median_ms(int writer, int run, int i) { return 1.0 + writer * 0.125 + run * 0.0625 + (i * 7 % 40) * 0.5; }

/// The fastest measurement of every run is i = 0 ((i * 7) % 40 == 0 only there).
inline Measurement measurement(int writer, int run, int i) {
  Measurement m;
  m.config = config(i);
  m.median_ms = median_ms(writer, run, i);
  m.samples = 15;
  m.spread = 0.01;
  m.gbps = 1000.0 / m.median_ms;
  m.log = fmt::format("writer {} run {} variant {}", writer, run, i);
  return m;
}

inline std::vector<char> cubin(int writer, int run) {
  std::vector<char> b(64 + run);
  for (std::size_t k = 0; k < b.size(); ++k) b[k] = static_cast<char>(k % 3 == 0 ? 0 : writer * 16 + run);
  std::copy_n("\x7f" "ELF", 4, b.begin());  // the cache stores ELF images only
  return b;
}

}  // namespace autotune::test::writer_plan
