// A winner recorded without measuring anything: what `autotune tune` leaves in a cache when `config` wins. The GPU
// tests use it to make a handle run a chosen configuration (tests/gpu/gpu_fixtures.hpp), the API benchmark to time a
// handle's construction from a known cache (bench/api_overhead.cpp). Header-only, no test framework.
#pragma once

#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "tuner/origin.hpp"

namespace autotune::testing {

/// Records `config` as the winner of `problem` on `device` in the cache file at `path` (created if missing), with
/// `cubin` (may be empty: the handle then compiles it), under a run of strategy "forced" by `tool`.
inline void write_forced_winner(const std::string& path, const DeviceInfo& device, const Problem& problem,
                                const Config& config, const std::vector<char>& cubin, const std::string& tool) {
  RunInfo info;
  info.strategy = "forced";
  info.tool_version = tool;
  Cache cache(path);
  const auto run = cache.begin_run(device, problem, info);
  Measurement m;
  m.config = config;
  m.median_ms = 1.0;
  m.samples = 1;
  m.gbps = static_cast<double>(problem.bytes()) / 1e6;
  cache.add_measurement(run, m);
  cache.finish_run(run, m, cubin, cubin.empty() ? CubinOrigin{} : cubin_origin(Problem(problem), Config(config), device.arch()));
}

}  // namespace autotune::testing
