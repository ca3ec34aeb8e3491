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
#include "autotune/histogram.hpp"
#include "autotune/identity.hpp"
#include "autotune/tuner.hpp"
#include "cli/format.hpp"
#include "cli/progress.hpp"
#include "cli/report.hpp"

namespace autotune::cli {

namespace {

std::string cache_path_of(const CommandLine& cl) { return cl.cache_path.empty() ? Cache::default_path() : cl.cache_path; }

int run_devices(const DevicesCommand& cmd, std::ostream& out) {
  Listing l;
  l.columns = {{"#", "ordinal"},      {"name", "name"},     {"arch", "arch"},
               {"SMs", "sm_count"},   {"memory", "memory_bytes"}, {"L2", "l2_bytes"},
               {"driver", "driver_version"}, {"model key", "model_key"}};
  for (const DeviceInfo& d : list_devices()) {
    Cell memory = integer_cell(static_cast<std::int64_t>(d.memory_bytes));
    memory.text = fmt::format("{:.1f} GiB", d.memory_bytes / 1073741824.0);
    Cell l2 = integer_cell(static_cast<std::int64_t>(d.l2_bytes));
    l2.text = fmt::format("{} MiB", d.l2_bytes >> 20);
    Cell driver = integer_cell(d.driver_version);
    driver.text = fmt::format("{}.{}", d.driver_version / 1000, d.driver_version % 1000 / 10);
    l.rows.push_back({integer_cell(d.ordinal), text_cell(d.name), text_cell(d.arch()), integer_cell(d.sm_count),
                      memory, l2, driver, text_cell(d.model_key())});
  }
  out << render(l, cmd.format);
  return 0;
}

// The read-only commands never create, migrate or write the file (Cache::read_only_snapshot); a missing file reads
// as an empty cache.
Cache open_for_reading(const std::string& path) {
  std::error_code ec;
  if (path == ":memory:" || !std::filesystem::exists(path, ec)) return Cache(":memory:");
  return Cache::read_only_snapshot(path);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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
  // A bar with an ETA only on a terminal; logs and pipes get one plain line per variant.
  const bool tty = &out == &std::cout && ::isatty(STDOUT_FILENO) == 1;
  Progress progress(out, tty, use_colour(tty, std::getenv("NO_COLOR")));
  int failures = 0;
  for (const HistogramProblem& p : cmd.problems) {
    fmt::print(out, "\n== {}\n", p.key());
    TuneOptions o;
    o.device = cmd.device;
    o.samples = cmd.samples;
    o.warmup = cmd.warmup;
    o.flush_l2 = cmd.flush_l2;
    progress.start();
    o.on_measurement = [&](std::size_t done, std::size_t total, const Measurement& m) {
      progress.update(done, total, m);
    };
    const TuneReport r = tune_histogram(p, cache, o);
    progress.finish();
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
  const Cache cache = open_for_reading(cache_path);
  std::vector<Winner> winners;
  for (Winner& w : cache.winners(cmd.all))
    if ((cmd.device.empty() || contains(w.device_name, cmd.device) || contains(w.model_key, cmd.device)) &&
        (cmd.problem.empty() || contains(w.problem.key(), cmd.problem)))
      winners.push_back(std::move(w));
  if (winners.empty() && cmd.format == OutputFormat::table) {
    const bool filtered = !cmd.device.empty() || !cmd.problem.empty();
    if (filtered) fmt::print(out, "no winners in {} match the filters\n", cache_path);
    else fmt::print(out, "no winners recorded in {} (run `autotune tune`)\n", cache_path);
    return 0;
  }
  Listing l;
  l.columns = {{"device", "device"},   {"arch", "arch"},          {"problem", "problem"},  {"winner", "config"},
               {"time ms", "median_ms"}, {"GB/s", "gbps"},        {"tuned at", "tuned_at"}, {"model key", "model_key"}};
  if (cmd.all) l.columns.push_back({"stale", "stale_reason"});
  std::size_t stale = 0;
  for (const Winner& w : winners) {
    std::vector<Cell> row{text_cell(w.device_name),       text_cell(w.arch),          text_cell(w.problem.key()),
                          text_cell(w.config.key()),      number_cell(w.median_ms, 4), number_cell(w.gbps, 1),
                          text_cell(w.tuned_at),          text_cell(w.model_key)};
    if (cmd.all) row.push_back(w.stale ? text_cell("STALE: " + w.stale_reason) : null_cell(""));
    stale += w.stale;
    l.rows.push_back(std::move(row));
  }
  out << render(l, cmd.format);
  if (stale && cmd.format == OutputFormat::table)
    fmt::print(out, "{} stale winner{} (never served; re-tune, or `autotune gc` to delete)\n", stale,
               stale == 1 ? "" : "s");
  return 0;
}

// The runtime API's lookup (runtime/histogram.cpp) on a snapshot: runs measured with other code are marked stale in
// the copy only, then the exact problem, the nearest tuned size, the built-in default.
int run_best(const BestCommand& cmd, const std::string& cache_path, std::ostream& out) {
  std::string model_key = cmd.device_model, device_name;
  int driver_version = 0;  // unknown without a GPU: not compared (CodeIdentity)
  if (model_key.empty()) {
    const DeviceInfo d = query_device(cmd.device);  // NoDeviceError without a GPU: exit 1
    model_key = d.model_key();
    device_name = d.name;
    driver_version = d.driver_version;
  }
  Cache cache = open_for_reading(cache_path);
  const std::size_t marked = cache.mark_stale(current_identity(driver_version), model_key);
  ConfigSource source = ConfigSource::fallback;
  std::optional<Winner> w = cache.find_winner(model_key, cmd.problem);
  if (w) source = ConfigSource::exact;
  else if ((w = cache.find_nearest_winner(model_key, cmd.problem))) source = ConfigSource::nearest_size;
  const HistogramConfig config = w ? w->config : HistogramConfig::fallback(cmd.problem);
  if (w) device_name = w->device_name;
  std::optional<double> roof = cache.device_roof(model_key);

  Listing l;
  l.columns = {{"source", "source"},       {"problem", "problem"},  {"device model", "model_key"},
               {"device", "device"},       {"configuration", "config"}, {"tuned for n", "tuned_n"},
               {"time ms", "median_ms"},   {"GB/s", "gbps"},        {"% of roof", "roof_pct"},
               {"stale runs skipped", "stale_runs_skipped"},        {"cache", "cache"}};
  Cell src = text_cell(std::string(to_string(source)));
  if (source == ConfigSource::fallback) src.text = "fallback: built-in default (nothing tuned applies)";
  else if (source == ConfigSource::nearest_size) src.text = "nearest_size: same histogram, nearest tuned n";
  l.rows.push_back({src, text_cell(cmd.problem.key()), text_cell(model_key),
                    device_name.empty() ? null_cell("-") : text_cell(device_name), text_cell(config.key()),
                    w ? integer_cell(static_cast<std::int64_t>(w->problem.n)) : null_cell("-"),
                    w ? number_cell(w->median_ms, 4) : null_cell("-"),
                    w ? number_cell(w->gbps, 1) : null_cell("-"),
                    w && roof ? number_cell(w->gbps / *roof * 100.0, 1) : null_cell("-"),
                    integer_cell(static_cast<std::int64_t>(marked)), text_cell(cache_path)});
  out << render_record(l, cmd.format);
  return 0;
}

int run_compare(const CompareCommand& cmd, const std::string& cache_path, std::ostream& out) {
  const Cache cache = open_for_reading(cache_path);
  std::vector<DeviceComparisonRow> rows;
  for (DeviceComparisonRow& r : cache.device_comparison())
    if (cmd.problem.empty() || contains(r.problem, cmd.problem)) rows.push_back(std::move(r));
  if (rows.empty() && cmd.format == OutputFormat::table) {
    fmt::print(out, "no winners {} in {}\n", cmd.problem.empty() ? "recorded" : "match the filter", cache_path);
    return 0;
  }
  Listing l;
  l.columns = {{"problem", "problem"},     {"device", "device"},    {"arch", "arch"},
               {"winner", "config"},       {"time ms", "median_ms"}, {"GB/s", "gbps"},
               {"% roof", "roof_pct"},     {"vs fastest", "time_vs_fastest"}, {"rank", "rank"},
               {"same config as fastest", "same_config_as_fastest"}};
  std::map<std::string, HistogramConfig> fastest;  // the view lists each problem's fastest device first
  for (const DeviceComparisonRow& r : rows) fastest.try_emplace(r.problem, r.config);
  for (const DeviceComparisonRow& r : rows)
    l.rows.push_back({text_cell(r.problem), text_cell(r.device), text_cell(r.arch), text_cell(r.config.key()),
                      number_cell(r.median_ms, 4), number_cell(r.gbps, 1),
                      r.roof_pct ? number_cell(*r.roof_pct, 1) : null_cell("-"),
                      number_cell(r.time_vs_fastest, 2, "x"), integer_cell(r.rank),
                      bool_cell(r.config == fastest.at(r.problem))});
  out << render(l, cmd.format);
  return 0;
}

// Written to a temporary file renamed over FILE at the end, like export: a failed report never replaces a good one.
int run_report(const ReportCommand& cmd, const std::string& cache_path, std::ostream& out) {
  const Cache cache = open_for_reading(cache_path);
  const std::string html = render_report(cache, cache_path);
  const std::string tmp = fmt::format("{}.tmp-{}", cmd.output, ::getpid());
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    if (!file) throw Error(fmt::format("cannot write '{}' ({})", tmp, std::strerror(errno)));
    file << html;
    file.close();
    if (!file) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw Error(fmt::format("cannot write '{}' ({})", tmp, std::strerror(errno)));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, cmd.output, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw Error(fmt::format("cannot write '{}' ({})", cmd.output, ec.message()));
  }
  fmt::print(out, "wrote the report of {} to {}\n", cache_path, cmd.output);
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
          return run_devices(cmd, out);
        } else if constexpr (std::is_same_v<T, TuneCommand>) {
          return run_tune(cmd, cache_path_of(cl), out, err);
        } else if constexpr (std::is_same_v<T, ShowCommand>) {
          return run_show(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, BestCommand>) {
          return run_best(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, CompareCommand>) {
          return run_compare(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, ReportCommand>) {
          return run_report(cmd, cache_path_of(cl), out);
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
