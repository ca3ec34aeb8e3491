// A cache as a small fleet would have it, for the CLI and report tests: two made-up devices ("NVIDIA H100 80GB HBM3",
// "NVIDIA H200") with measured roofs, two problems, realistic configurations from the tuner's search space, and the
// identity of this build (so that nothing is stale unless a test makes it so). Every expected value in the tests is
// computed from what is recorded here, never from the code under test.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "tests/cpu/cache_fixtures.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "tuner/origin.hpp"

namespace autotune::test {

inline DeviceInfo fleet_h100() {
  DeviceInfo d = h100();
  d.nvrtc_version = nvrtc_version();  // as a run of this build would record it
  return d;
}

inline DeviceInfo fleet_h200() {
  DeviceInfo d = fleet_h100();
  d.name = "NVIDIA H200";
  d.memory_bytes = 150'754'820'096ull;
  d.l2_bytes = 62'914'560;
  d.uuid = "GPU-99999999-2222-3333-4444-555555555555";
  return d;
}

constexpr double kH100Roof = 3000.0;  // GB/s
constexpr double kH200Roof = 4200.0;

inline HistogramProblem u8_problem(std::uint64_t n = 64 * M) { return problem(n); }

inline HistogramProblem f32_problem() {
  HistogramProblem p;
  p.type = SampleType::f32;
  p.bins = 1024;
  p.lower = 0;
  p.upper = 1;
  p.n = 16 * M;
  return p;
}

inline double gbps_of(const HistogramProblem& p, double ms) { return static_cast<double>(p.bytes()) / (ms * 1e-3) / 1e9; }

/// What one fixture run recorded.
struct FixtureRun {
  HistogramConfig winner;
  double winner_ms = 0.0;
  std::vector<Measurement> ok;  ///< every ok measurement, winner included
};

/// One finished run on `d`: every configuration of `p`'s space with shared privatization and R in {16, 32}, plus
/// the first 3 global ones, timed `base_ms * (1 + 0.01 * (i + 1))`, except `winner` (the first configuration
/// that matches block/loads/R) timed `base_ms`; one compile error. Returns what was recorded.
inline FixtureRun record_run(Cache& cache, const DeviceInfo& d, const HistogramProblem& p, int replicas, int block,
                             int loads, double base_ms, RunInfo info = {}) {
  if (info.tool_version.empty()) info.tool_version = "test";
  const auto run = cache.begin_run(d, p, info);
  FixtureRun r;
  bool have_winner = false;
  int globals = 0, i = 0;
  bool failed_one = false;
  for (const HistogramConfig& c : histogram_space(p)) {
    const bool shared = c.privatization == Privatization::shared && (c.replicas == 16 || c.replicas == 32);
    const bool global = c.privatization == Privatization::global && globals < 3;
    if (!shared && !global) continue;
    globals += global;
    if (!failed_one) {  // the first one failed to compile
      cache.add_measurement(run, failed_measurement(c, MeasurementStatus::compile_error, "error: too many registers"));
      failed_one = true;
      continue;
    }
    const bool is_winner = !have_winner && shared && c.replicas == replicas && c.block == block && c.loads == loads;
    const double ms = is_winner ? base_ms : base_ms * (1.0 + 0.01 * ++i);
    Measurement m = ok_measurement(c, ms);
    m.gbps = gbps_of(p, ms);
    cache.add_measurement(run, m);
    r.ok.push_back(m);
    if (is_winner) {
      have_winner = true;
      r.winner = c;
      r.winner_ms = ms;
    }
  }
  REQUIRE_MESSAGE(have_winner, "no configuration with R=" << replicas << " block=" << block << " loads=" << loads);
  Measurement best = ok_measurement(r.winner, base_ms);
  best.gbps = gbps_of(p, base_ms);
  cache.finish_run(run, best, elf({'c', 'u', 'b', 'i', 'n'}), cubin_origin(Problem(p), best.config, d.arch()));
  return r;
}

/// The fleet: u8/256/64M on both devices (the H200 faster, with another configuration); f32/1024/16M on the H100 only.
struct Fleet {
  FixtureRun h100_u8, h200_u8, h100_f32;
};

inline Fleet build_fleet(const std::string& path) {
  Cache c(path);
  c.set_device_roof(fleet_h100(), kH100Roof);
  c.set_device_roof(fleet_h200(), kH200Roof);
  Fleet f;
  f.h100_u8 = record_run(c, fleet_h100(), u8_problem(), 32, 512, 2, 0.050);
  f.h200_u8 = record_run(c, fleet_h200(), u8_problem(), 16, 1024, 4, 0.040);
  f.h100_f32 = record_run(c, fleet_h100(), f32_problem(), 32, 256, 4, 0.080);
  return f;
}

/// A minimal RFC 4180 reader: rows of fields (quoted fields may hold commas, doubled quotes, line breaks).
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(std::move(field)), field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      row.push_back(std::move(field)), field.clear();
      rows.push_back(std::move(row)), row.clear();
      ++i;
    } else {
      field += c;
      any = true;
    }
  }
  if (!field.empty() || !row.empty()) row.push_back(field), rows.push_back(row);
  return rows;
}

}  // namespace autotune::test
