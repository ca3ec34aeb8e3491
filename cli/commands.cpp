#include "cli/commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <map>
#include <ostream>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/tuner.hpp"
#include "cli/table.hpp"

namespace autotune::cli {

namespace {

std::string cache_path_of(const CommandLine& cl) { return cl.cache_path.empty() ? Cache::default_path() : cl.cache_path; }

int run_devices(std::ostream& out) {
  Table t({"#", "name", "arch", "SMs", "memory", "L2", "driver", "model key"});
  for (const DeviceInfo& d : list_devices())
    t.add({std::to_string(d.ordinal), d.name, d.arch(), std::to_string(d.sm_count),
           fmt::format("{:.1f} GiB", d.memory_bytes / 1073741824.0), fmt::format("{} MiB", d.l2_bytes >> 20),
           fmt::format("{}.{}", d.driver_version / 1000, d.driver_version % 1000 / 10), d.model_key()});
  out << t.render();
  return 0;
}

void print_summary(const TuneReport& r, std::ostream& out) {
  std::map<std::string, int> by_status;
  const Measurement* slowest = nullptr;
  for (const auto& m : r.measurements) {
    ++by_status[std::string(to_string(m.status))];
    if (m.status == MeasurementStatus::ok && (!slowest || m.median_ms > slowest->median_ms)) slowest = &m;
  }
  fmt::print(out, "\n{} on {} ({}): {} variants in {:.1f} s\n", r.problem.key(), r.device.name, r.device.arch(),
             r.measurements.size(), r.seconds);
  std::string statuses;
  for (const auto& [s, c] : by_status) statuses += fmt::format("{}{} {}", statuses.empty() ? "" : ", ", c, s);
  fmt::print(out, "  outcomes: {}\n", statuses);
  if (!r.winner) {
    fmt::print(out, "  no variant ran correctly: nothing was recorded as the winner\n");
    return;
  }
  fmt::print(out, "  winner:   {}  {:.4f} ms  {:.1f} GB/s\n", r.winner->config.key(), r.winner->median_ms,
             r.winner->gbps);
  if (r.fallback)
    fmt::print(out, "  vs default ({}): {:.2f}x\n", r.fallback->config.key(), r.fallback->median_ms / r.winner->median_ms);
  if (slowest)
    fmt::print(out, "  vs slowest correct ({}): {:.2f}x\n", slowest->config.key(), slowest->median_ms / r.winner->median_ms);
}

int run_tune(const TuneCommand& cmd, const std::string& cache_path, std::ostream& out, std::ostream& err) {
  const DeviceInfo device = query_device(cmd.device);  // fails early and clearly without a GPU
  Cache cache(cache_path);
  fmt::print(out, "autotune {}: tuning {} problem{} on GPU {} ({}, {}) into {}\n", version(), cmd.problems.size(),
             cmd.problems.size() == 1 ? "" : "s", device.ordinal, device.name, device.arch(), cache_path);
  int failures = 0;
  for (const HistogramProblem& p : cmd.problems) {
    fmt::print(out, "\n== {}\n", p.key());
    TuneOptions o;
    o.device = cmd.device;
    o.samples = cmd.samples;
    o.warmup = cmd.warmup;
    o.flush_l2 = cmd.flush_l2;
    o.on_measurement = [&](std::size_t done, std::size_t total, const Measurement& m) {
      if (m.status == MeasurementStatus::ok)
        fmt::print(out, "[{:>3}/{}] {:<52} ok  {:>9.4f} ms  {:>8.1f} GB/s\n", done, total, m.config.key(),
                   m.median_ms, m.gbps);
      else
        fmt::print(out, "[{:>3}/{}] {:<52} {}: {}\n", done, total, m.config.key(), to_string(m.status),
                   m.log.substr(0, m.log.find('\n')));
      out.flush();
    };
    const TuneReport r = tune_histogram(p, cache, o);
    print_summary(r, out);
    if (!r.winner) ++failures;
  }
  if (failures) {
    fmt::print(err, "autotune: {} problem{} had no correct variant\n", failures, failures == 1 ? "" : "s");
    return 1;
  }
  return 0;
}

int run_show(const std::string& cache_path, std::ostream& out) {
  Cache cache(cache_path);
  const auto winners = cache.winners();
  if (winners.empty()) {
    fmt::print(out, "no winners recorded in {} (run `autotune tune`)\n", cache_path);
    return 0;
  }
  Table t({"device", "arch", "problem", "winner", "time ms", "GB/s", "tuned at"});
  for (const Winner& w : winners)
    t.add({w.device_name, w.arch, w.problem.key(), w.config.key(), fmt::format("{:.4f}", w.median_ms),
           fmt::format("{:.1f}", w.gbps), w.tuned_at});
  out << t.render();
  return 0;
}

}  // namespace

int run(const CommandLine& cl, std::ostream& out, std::ostream& err) {
  return std::visit(
      [&](const auto& cmd) -> int {
        using T = std::decay_t<decltype(cmd)>;
        if constexpr (std::is_same_v<T, HelpCommand>) {
          out << cmd.text;
          return 0;
        } else if constexpr (std::is_same_v<T, VersionCommand>) {
          fmt::print(out, "autotune {}\n", version());
          return 0;
        } else if constexpr (std::is_same_v<T, DevicesCommand>) {
          return run_devices(out);
        } else if constexpr (std::is_same_v<T, TuneCommand>) {
          return run_tune(cmd, cache_path_of(cl), out, err);
        } else {
          return run_show(cache_path_of(cl), out);
        }
      },
      cl.command);
}

}  // namespace autotune::cli
