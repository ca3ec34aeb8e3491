#include "cli/commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <ostream>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
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
  fmt::print(out, "  winner:   {}  {:.4f} ms  {:.1f} GB/s  ({:.1f} % of the {:.0f} GB/s read roof)\n",
             r.winner->config.key(), r.winner->median_ms, r.winner->gbps, r.winner->roof_pct, r.roof_gbps);
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
  // Results of this model measured with another template, NVRTC or driver no longer describe this machine.
  if (const std::size_t marked = cache.mark_stale(current_identity(device.driver_version), device.model_key()))
    fmt::print(out, "marked {} earlier run{} of this GPU model stale: the kernel template, NVRTC or driver changed "
                    "(`autotune show --all` lists them, `autotune gc` deletes them)\n",
               marked, marked == 1 ? "" : "s");
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

int run_show(const ShowCommand& cmd, const std::string& cache_path, std::ostream& out) {
  Cache cache(cache_path);
  const auto winners = cache.winners(cmd.all);
  if (winners.empty()) {
    fmt::print(out, "no winners recorded in {} (run `autotune tune`)\n", cache_path);
    return 0;
  }
  std::vector<std::string> header{"device", "arch", "problem", "winner", "time ms", "GB/s", "tuned at"};
  if (cmd.all) header.push_back("stale");
  Table t(header);
  std::size_t stale = 0;
  for (const Winner& w : winners) {
    std::vector<std::string> row{w.device_name, w.arch, w.problem.key(), w.config.key(),
                                 fmt::format("{:.4f}", w.median_ms), fmt::format("{:.1f}", w.gbps), w.tuned_at};
    if (cmd.all) row.push_back(w.stale ? "STALE: " + w.stale_reason : "");
    stale += w.stale;
    t.add(std::move(row));
  }
  out << t.render();
  if (stale)
    fmt::print(out, "{} stale winner{} (never served; re-tune, or `autotune gc` to delete)\n", stale,
               stale == 1 ? "" : "s");
  return 0;
}

std::string describe(const ImportStats& s) {
  if (s.total() == 0) return "nothing new";
  auto n = [](std::size_t count, const char* what) {
    return fmt::format("{} {}{}", count, what, count == 1 ? "" : "s");
  };
  return fmt::format("{}, {}, {}, {}, {}, {} added or updated", n(s.devices, "device"), n(s.problems, "problem"),
                     n(s.templates, "template"), n(s.runs, "run"), n(s.measurements, "measurement"),
                     n(s.winners, "winner"));
}

// The document goes to a temporary file renamed over FILE at the end: an export that fails half-way never
// replaces an earlier good one.
int run_export(const ExportCommand& cmd, const std::string& cache_path, std::ostream& out) {
  const Cache cache(cache_path);
  if (cmd.output == "-") {
    cache.export_json(out);
    return 0;
  }
  const std::string tmp = fmt::format("{}.tmp-{}", cmd.output, ::getpid());
  struct RemoveOnFailure {
    const std::string& path;
    bool keep = false;
    ~RemoveOnFailure() {
      std::error_code ec;
      if (!keep) std::filesystem::remove(path, ec);
    }
  } guard{tmp};
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    if (!file) throw Error(fmt::format("cannot write '{}' ({})", tmp, std::strerror(errno)));
    cache.export_json(file);
    file.close();
    if (!file) throw Error(fmt::format("cannot write '{}' ({})", tmp, std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, cmd.output, ec);
  if (ec) throw Error(fmt::format("cannot write '{}' ({})", cmd.output, ec.message()));
  guard.keep = true;
  fmt::print(out, "exported {} to {}\n", cache_path, cmd.output);
  return 0;
}

int run_import(const ImportCommand& cmd, const std::string& cache_path, std::ostream& out) {
  // The input is opened first, so that a missing file changes nothing (not even creates the cache).
  std::ifstream file;
  if (cmd.file != "-") {
    file.open(cmd.file, std::ios::binary);
    if (!file) throw Error(fmt::format("cannot open '{}' for reading ({})", cmd.file, std::strerror(errno)));
  }
  const bool stdin_input = cmd.file == "-";
  const std::string source = stdin_input ? "standard input" : cmd.file;
  Cache cache(cache_path);
  const ImportStats s = cache.import_json(stdin_input ? std::cin : file, source);
  fmt::print(out, "imported {} into {}: {}\n", source, cache_path, describe(s));
  return 0;
}

int run_merge(const MergeCommand& cmd, const std::string& cache_path, std::ostream& out) {
  std::error_code ec;
  if (!std::filesystem::exists(cmd.file, ec)) throw CacheError(fmt::format("cache file '{}' does not exist", cmd.file));
  Cache cache(cache_path);
  const ImportStats s = cache.merge(cmd.file);
  fmt::print(out, "merged {} into {}: {}\n", cmd.file, cache_path, describe(s));
  return 0;
}

int run_gc(const std::string& cache_path, std::ostream& out) {
  Cache cache(cache_path);
  const std::size_t removed = cache.gc();
  if (removed == 0) fmt::print(out, "no stale rows in {}\n", cache_path);
  else fmt::print(out, "deleted {} stale row{} from {}\n", removed, removed == 1 ? "" : "s", cache_path);
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
        } else if constexpr (std::is_same_v<T, ShowCommand>) {
          return run_show(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, ExportCommand>) {
          return run_export(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, ImportCommand>) {
          return run_import(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, MergeCommand>) {
          return run_merge(cmd, cache_path_of(cl), out);
        } else {
          static_assert(std::is_same_v<T, GcCommand>);
          return run_gc(cache_path_of(cl), out);
        }
      },
      cl.command);
}

}  // namespace autotune::cli
