#include "cli/commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <functional>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "autotune/resolution.hpp"
#include "autotune/tuner.hpp"
#include "cli/bench.hpp"
#include "cli/format.hpp"
#include "cli/output_file.hpp"
#include "cli/progress.hpp"
#include "cli/watchdog.hpp"
#include "tuner/robust.hpp"
#include "cli/report.hpp"
#include "core/family.hpp"
#include "core/jit.hpp"
#include "core/ladder.hpp"
#include "core/signing.hpp"
#include "tuner/ahead_compile.hpp"
#include "tuner/ladder.hpp"


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

// The read-only commands never create, migrate or write the file, nor leave side files (Cache::open_read_only); a
// missing file reads as an empty cache.
// Every page is checked (quick_check): a damaged file is said to be damaged rather than read in part.
Cache open_for_reading(const std::string& path) {
  std::error_code ec;
  if (path == ":memory:" || !std::filesystem::exists(path, ec)) return Cache(":memory:");
  return Cache::open_read_only(path, ReadCheck::pages);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void print_summary(const TuneReport& r, std::ostream& out) {
  std::map<std::string, int> by_status;
  const Measurement* slowest = nullptr;
  for (const auto& m : r.measurements) {
    ++by_status[std::string(to_string(m.status))];
    if (m.status == MeasurementStatus::ok && (!slowest || m.median_ms > slowest->median_ms)) slowest = &m;
  }
  fmt::print(out, "\n{} on {} ({}): {} variants in {:.1f} s ({}; {} compiled, {} from the compile cache, {} resumed)\n",
             r.problem.key(), r.device.name, r.device.arch(), r.measurements.size(), r.seconds, r.strategy, r.compiled,
             r.compile_cache_hits, r.resumed);
  std::string statuses;
  for (const auto& [s, c] : by_status) statuses += fmt::format("{}{} {}", statuses.empty() ? "" : ", ", c, s);
  fmt::print(out, "  outcomes: {}\n", statuses);
  // Variants that did not run, grouped by why: the first line of each log.
  std::map<std::string, int> reasons;
  for (const auto& m : r.measurements)
    if (m.status != MeasurementStatus::ok)
      ++reasons[fmt::format("{}: {}", to_string(m.status), m.log.substr(0, std::min<std::size_t>(m.log.find('\n'), 100)))];
  int shown = 0;
  for (const auto& [why, count] : reasons)
    if (shown++ < 6) fmt::print(out, "    {} x {}\n", count, why);
  if (reasons.size() > 6)
    fmt::print(out, "    ... {} more reasons (`autotune report` or the cache's measurements)\n", reasons.size() - 6);
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

// Exit code of a worker whose CUDA context was lost to a faulting variant: the parent starts a new worker, which
// resumes the run (the faulting variant is already recorded, so it is not run again).
constexpr int kContextLostExit = 3;
// A worker restarted this often for one problem stops being restarted (every variant faulting is a bug to report,
// not something to grind through).
constexpr int kMaxRestarts = 64;

TuneOptions options_of(const TuneCommand& cmd, int device) {
  TuneOptions o;
  o.device = device;
  o.samples = cmd.samples;
  o.warmup = cmd.warmup;
  o.flush_l2 = cmd.flush_l2;
  o.strategy = cmd.strategy;
  o.budget = cmd.budget;
  o.budget_s = cmd.budget_s;
  o.inject_fault = cmd.inject_fault;
  return o;
}

// The end of a ladder on one device: a line when it tuned several sizes, and the exit code: 1 when a size or a
// crossover failed (no correct variant), or when nothing could be tuned because nothing fit.
int finish_ladder(const LadderSummary& s, const TuneCommand& cmd, std::ostream& out, std::ostream& err) {
  if (cmd.problems.size() > 1)
    fmt::print(out, "\nsizes: {} tuned, {} already tuned (skipped{}), {} too large for the GPU; crossovers: {} measured, "
                    "{} not needed\n", s.tuned, s.skipped_finished, s.skipped_finished ? "; --retune tunes them again" : "",
               s.no_memory, s.crossovers, s.crossovers_skipped);
  if (s.failed) {
    fmt::print(err, "autotune: {} problem{} had no correct variant\n", s.failed, s.failed == 1 ? "" : "s");
    return 1;
  }
  if (s.no_memory && s.tuned == 0 && s.skipped_finished == 0) {
    fmt::print(err, "autotune: nothing fit the GPU's memory\n");
    return 1;
  }
  return 0;
}

// A worker that found its problem too large for the GPU's free memory (DeviceMemoryError): the size is skipped.
constexpr int kNoMemoryExit = 4;

// What a ladder's steps say on the way (tuner/ladder.hpp), in this process or around workers.
LadderEvents ladder_notes(std::ostream& out) {
  LadderEvents e;
  e.finished = [&out](const Problem& p, const Winner& w) {
    fmt::print(out, "\n== {}\n  skipped: tuned already with the current code ({}, {:.4f} ms, {}); --retune tunes it "
                    "again\n", p.key(), w.config.key(), w.median_ms, w.tuned_at);
  };
  e.crossover_skipped = [&out](const Problem& below, const Problem& above, CrossoverDecision why) {
    const auto m = crossover_size(below.n(), above.n());
    if (why == CrossoverDecision::same_winner)
      fmt::print(out, "  no crossover between n={} and n={}: both won with the same configuration\n",
                 format_size(below.n()), format_size(above.n()));
    else if (why == CrossoverDecision::recorded && m)
      fmt::print(out, "  crossover between n={} and n={} already measured at n={}\n", format_size(below.n()),
                 format_size(above.n()), format_size(*m));
    else
      fmt::print(out, "  no crossover between n={} and n={}: no size between them\n", format_size(below.n()),
                 format_size(above.n()));
  };
  return e;
}

std::string step_title(const LadderStep& step) {
  if (step.candidates.empty()) return step.problem.key();
  const std::size_t bridges = step.candidates.size() - 2;
  return fmt::format("{} (crossover of n={} and n={}: {} vs {}{})", step.problem.key(), format_size(step.below->n()),
                     format_size(step.above->n()), step.candidates[0].key(), step.candidates[1].key(),
                     bridges == 0 ? std::string()
                                  : fmt::format(", and {} bridging configuration{}", bridges, bridges == 1 ? "" : "s"));
}

void print_crossover(const TuneReport& r, std::ostream& out) {
  fmt::print(out, "\n{} on {}: crossover in {:.1f} s\n", r.problem.key(), r.device.name, r.seconds);
  for (const Measurement& m : r.measurements) {
    if (m.status == MeasurementStatus::ok)
      fmt::print(out, "  {:<52} {:9.4f} ms  {:8.1f} GB/s\n", m.config.key(), m.median_ms, m.gbps);
    else
      fmt::print(out, "  {:<52} {}: {}\n", m.config.key(), to_string(m.status), m.log.substr(0, m.log.find('\n')));
  }
  if (r.winner) fmt::print(out, "  winner:   {}  {:.4f} ms  {:.1f} GB/s\n", r.winner->config.key(), r.winner->median_ms,
                           r.winner->gbps);
  else fmt::print(out, "  neither candidate ran correctly: nothing was recorded\n");
}

// Marks the runs of this GPU model measured with another template, NVRTC or driver stale, for every family of the
// command's problems: they no longer describe this machine.
void mark_stale_runs(const TuneCommand& cmd, const DeviceInfo& device, Cache& cache, std::ostream& out) {
  std::set<std::string, std::less<>> tuned_families;
  for (const Problem& p : cmd.problems) tuned_families.insert(std::string(p.family_name()));
  std::size_t marked = 0;
  for (const std::string& f : tuned_families)
    marked += cache.mark_stale(current_identity(f, device.driver_version), device.model_key());
  if (marked)
    fmt::print(out, "marked {} earlier run{} of this GPU model stale: the kernel template, NVRTC or driver changed "
                    "(`autotune show --all` lists them, `autotune gc` deletes them)\n",
               marked, marked == 1 ? "" : "s");
}

// The tuner's options for one step of `cmd`: its candidates, the variants that timed out, and for a worker the lines
// its parent's watchdog reads (cli/watchdog.hpp) on --progress-fd.
TuneOptions step_options(const TuneCommand& cmd, int device_ordinal, const LadderStep& step) {
  TuneOptions o = options_of(cmd, device_ordinal);
  o.candidates = step.candidates;
  o.stop_on_fault = cmd.worker;
  for (const std::string& key : cmd.timed_out)
    o.timed_out[key] = fmt::format("timed out after {} s: it ran that long without finishing, so the worker "
                                   "process running it was ended (--variant-timeout)", cmd.variant_timeout_s);
  if (cmd.progress_fd >= 0) {
    auto tell = [fd = cmd.progress_fd](const char* what, const Config& c) {
      const std::string line = fmt::format("{} {}\n", what, c.key());
      (void)!::write(fd, line.data(), line.size());  // one write of a short line: never interleaved
    };
    o.on_variant_start = [tell, hang = cmd.inject_hang](const Config& c) {
      tell("start", c);
      // Testing aid: stop here as a worker whose kernel never ends would (its watchdog ends it).
      if (c.key() == hang)
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    };
    o.on_variant_end = [tell](const Config& c) { tell("done", c); };
  }
  return o;
}

// A worker's one step: its exit status (0, 1, kNoMemoryExit, or kContextLostExit after a fault).
int run_worker_step(const TuneCommand& cmd, const std::function<StepOutcome(const LadderStep&, ProgressScope)>& run_step,
                    Progress& progress, std::ostream& err) {
  LadderStep step;
  step.problem = cmd.problems.at(0);
  for (const std::string& key : cmd.crossover) step.candidates.push_back(*Config::parse(step.problem.family_name(), key));
  const ProgressScope scope = ProgressScope::parse(cmd.progress_scope).value_or(ProgressScope{});
  try {
    switch (run_step(step, scope)) {
      case StepOutcome::tuned: return 0;
      case StepOutcome::no_memory: return kNoMemoryExit;
      case StepOutcome::failed: return 1;
    }
    return 1;
  } catch (const ContextLostError& e) {
    progress.finish();
    fmt::print(err, "autotune: {}; a new worker resumes the run\n", e.what());
    return kContextLostExit;
  }
}

// Tunes the problems on one device in this process (a worker: its one problem; it stops at the first fault with
// kContextLostExit, and at a problem that does not fit with kNoMemoryExit).
int tune_in_process(const TuneCommand& cmd, int device_ordinal, const std::string& cache_path, std::ostream& out,
                    std::ostream& err) {
  const DeviceInfo device = query_device(device_ordinal);  // fails early and clearly without a GPU
  Cache cache(cache_path);
  if (!cmd.worker)
    fmt::print(out, "autotune {}: tuning {} problem{} on GPU {} ({}, {}) into {}\n", version(), cmd.problems.size(),
               cmd.problems.size() == 1 ? "" : "s", device.ordinal, device.name, device.arch(), cache_path);
  mark_stale_runs(cmd, device, cache, out);
  // A bar with an ETA only on a terminal; logs and pipes get one plain line per variant.
  const bool tty = &out == &std::cout && ::isatty(STDOUT_FILENO) == 1;
  Progress progress(out, tty, use_colour(tty, std::getenv("NO_COLOR")));
  const double started = steady_seconds();
  std::size_t done_before = 0;
  auto run_step = [&](const LadderStep& step, ProgressScope scope) -> StepOutcome {
    if (!cmd.worker) fmt::print(out, "\n== {}\n", step_title(step));
    TuneOptions o = step_options(cmd, device_ordinal, step);
    progress.start(scope);
    std::size_t measured = 0;
    o.on_measurement = [&](std::size_t done, std::size_t total, const Measurement& m) {
      measured = total;
      progress.update(done, total, m);
    };
    TuneReport r;
    try {
      r = tune(step.problem, cache, o);
    } catch (const DeviceMemoryError& e) {
      progress.finish();
      fmt::print(err, "autotune: skipped {}: {}\n", step.problem.key(), e.what());
      return StepOutcome::no_memory;
    }
    progress.finish();
    done_before += measured;
    if (step.candidates.empty()) print_summary(r, out);
    else print_crossover(r, out);
    return r.winner ? StepOutcome::tuned : StepOutcome::failed;
  };
  if (cmd.worker) return run_worker_step(cmd, run_step, progress, err);
  LadderEvents events = ladder_notes(out);
  events.run = [&](const LadderStep& step) {
    return run_step(step, ProgressScope{started, done_before, step.sizes_after, step.size_number, step.sizes});
  };
  const LadderSummary s = run_ladders(cmd.problems, cache, device, LadderSettings{cmd.ladder && !cmd.retune}, events);
  return finish_ladder(s, cmd, out, err);
}

// Runs `autotune tune --worker` for one step (a size, or a crossover) on one device under the watchdog
// (cli/watchdog.hpp) and waits.
WorkerResult run_worker(const TuneCommand& cmd, const LadderStep& step, int device, const std::string& cache_path,
                        const std::vector<std::string>& timed_out, const ProgressScope& scope, std::ostream& err) {
  std::vector<std::string> args{"autotune", "tune", "--worker", "--problem-key", step.problem.key(),
                                "--device", std::to_string(device), "--cache", cache_path,
                                "--samples", std::to_string(cmd.samples), "--strategy", cmd.strategy,
                                "--progress-fd", std::to_string(kProgressFd),
                                "--variant-timeout", fmt::format("{}", cmd.variant_timeout_s)};
  if (cmd.budget > 0) args.insert(args.end(), {"--budget", std::to_string(cmd.budget)});
  if (cmd.budget_s > 0) args.insert(args.end(), {"--budget-s", fmt::format("{}", cmd.budget_s)});
  if (!cmd.flush_l2) args.push_back("--no-flush");
  if (!cmd.inject_fault.empty()) args.insert(args.end(), {"--inject-fault", cmd.inject_fault});
  if (!cmd.inject_hang.empty()) args.insert(args.end(), {"--inject-hang", cmd.inject_hang});
  for (const std::string& key : timed_out) args.insert(args.end(), {"--timed-out", key});
  for (const Config& c : step.candidates) args.insert(args.end(), {"--crossover", c.key()});
  if (scope.sizes > 1) args.insert(args.end(), {"--progress-scope", scope.text()});
  std::fflush(stdout);
  std::string why;
  // The same binary, freshly loaded: a new process gets a new CUDA context whatever the last one suffered.
  const auto limit = std::chrono::milliseconds(static_cast<long long>(cmd.variant_timeout_s * 1000.0));
  WorkerResult r = run_watched("/proc/self/exe", args, limit, why);
  if (!why.empty()) fmt::print(err, "autotune: {}\n", why);
  return r;
}

// The user stopped a worker (Ctrl-C): the whole command stops with its code.
struct Stopped {
  int code;
};

// Tunes every problem on one device through worker processes, restarting a worker whose context was lost or whose
// variant hung (ended by the watchdog; the next worker records that variant as failed and goes on).
int tune_isolated(const TuneCommand& cmd, int device, const std::string& cache_path, std::ostream& out,
                  std::ostream& err) {
  const DeviceInfo info = query_device(device);
  Cache cache(cache_path);  // the parent reads the winners the workers record (a ladder's crossovers and skips)
  const double started = steady_seconds();
  std::size_t done_before = 0;
  LadderEvents events = ladder_notes(out);
  events.run = [&](const LadderStep& step) -> StepOutcome {
    fmt::print(out, "\n== {} (GPU {})\n", step_title(step), device);
    out.flush();
    const ProgressScope scope{started, done_before, step.sizes_after, step.size_number, step.sizes};
    std::vector<std::string> timed_out;
    StepOutcome outcome = StepOutcome::failed;
    for (int restarts = 0;; ++restarts) {
      const WorkerResult r = run_worker(cmd, step, device, cache_path, timed_out, scope, err);
      const std::string& key = step.problem.key();
      if (r.timed_out) {
        fmt::print(err, "autotune: {}: variant {} ran {} s without finishing: its worker was ended; a new worker "
                        "records it as launch_error and resumes the run\n", key, r.in_flight, cmd.variant_timeout_s);
        timed_out.push_back(r.in_flight);
        if (restarts < kMaxRestarts) continue;
        fmt::print(err, "autotune: {}: gave up after {} restarts\n", key, restarts);
        break;
      }
      const int rc = r.exit_code;
      if (rc == kContextLostExit && restarts < kMaxRestarts) continue;
      if (rc == 128 + SIGINT || rc == 128 + SIGTERM) throw Stopped{rc};  // the user stopped it: so do we
      if (rc == kNoMemoryExit) outcome = StepOutcome::no_memory;
      else if (rc == 0) outcome = StepOutcome::tuned;
      if (rc == kContextLostExit)
        fmt::print(err, "autotune: {}: gave up after {} faulting variants\n", key, restarts);
      break;
    }
    // Progress: what the step's run measured (its measurements in the cache), for the next step's bar.
    if (outcome == StepOutcome::tuned)
      if (const auto w = cache.find_winner(info.model_key(), step.problem)) done_before += cache.measurements(w->run_id).size();
    return outcome;
  };
  try {
    const LadderSummary s = run_ladders(cmd.problems, cache, info, LadderSettings{cmd.ladder && !cmd.retune}, events);
    return finish_ladder(s, cmd, out, err);
  } catch (const Stopped& s) {
    return s.code;
  }
}

// What the default set covers, one phrase per shape: "histogram/u8/bins=256/range=[0,256) at 7 sizes 64K..256M".
std::string default_set_summary() {
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> shapes;
  for (const Problem& p : default_problems()) {
    auto it = std::find_if(shapes.begin(), shapes.end(), [&](const auto& s) { return s.first == p.shape_key(); });
    if (it == shapes.end()) it = shapes.insert(shapes.end(), {p.shape_key(), {}});
    it->second.push_back(p.n());
  }
  std::string out;
  for (const auto& [shape, sizes] : shapes)
    out += fmt::format("{}{} at {}", out.empty() ? "" : "; ", shape,
                       sizes.size() == 1 ? format_size(sizes.front())
                                         : fmt::format("{} sizes {}..{}", sizes.size(), format_size(sizes.front()),
                                                       format_size(sizes.back())));
  return out;
}

// --dists: the robust winner of each problem whose family keeps one, across the distributions just tuned on `device`.
int record_robust(const TuneCommand& cmd, int device, const std::string& cache_path, std::ostream& out,
                  std::ostream& err) {
  if (cmd.dists.empty()) return 0;
  const DeviceInfo d = query_device(device);
  Cache cache(cache_path);
  int failures = 0;
  for (const Problem& p : cmd.problems) {
    if (!p.family().robust_across_distributions()) continue;
    try {
      const RobustRecord r = record_robust_winner(cache, d, p, cmd.dists);
      std::string per;
      for (std::size_t i = 0; i < r.distributions.size(); ++i)
        per += fmt::format("{}{} {:.2f}x", i ? ", " : "", r.distributions[i], r.slowdowns[i]);
      fmt::print(out, "\n{} on {}: robust winner across {} distributions: {}\n  worst-case slowdown {:.2f}x ({}); "
                      "its slowest time {:.4f} ms\n",
                 r.problem.key(), d.name, r.distributions.size(), r.config.key(), r.worst_slowdown, per, r.worst_ms);
    } catch (const Error& e) {
      fmt::print(err, "autotune: {}: no robust winner: {}\n", p.key(), e.what());
      ++failures;
    }
  }
  return failures ? 1 : 0;
}

// The problems as tuned: with --dists, each problem whose family keeps robust winners once per distribution.
TuneCommand expand_distributions(const TuneCommand& cmd) {
  TuneCommand t = cmd;
  if (cmd.dists.empty()) return t;
  t.problems.clear();
  for (const Problem& p : cmd.problems) {
    if (!p.family().robust_across_distributions()) t.problems.push_back(p);
    else
      for (const std::string& d : cmd.dists) t.problems.push_back(p.with_distribution(d));
  }
  return t;
}

int run_tune(const TuneCommand& given, const std::string& cache_path, std::ostream& out, std::ostream& err) {
  if (given.worker) return tune_in_process(given, given.devices.at(0), cache_path, out, err);
  const TuneCommand cmd = expand_distributions(given);
  device_count();  // without a GPU: its one-line error, before anything is printed
  if (given.default_set)
    fmt::print(out, "The default set: {} (one problem per size). For common shapes of every family (what an "
                    "application's untuned problems are served from) run `autotune tune --preset standard`.\n",
               default_set_summary());
  if (!given.preset.empty()) fmt::print(out, "Preset {}: {}\n", given.preset, tune_preset(given.preset).summary);
  // One device per distinct GPU model: tuning results belong to a model, not to a card.
  std::vector<int> devices = cmd.devices;
  if (cmd.all_devices) {
    devices.clear();
    std::set<std::string> models;
    for (const DeviceInfo& d : list_devices())  // NoDeviceError without a GPU
      if (models.insert(d.model_key()).second) devices.push_back(d.ordinal);
  } else if (devices.size() > 1) {
    std::set<std::string> models;
    std::vector<int> distinct;
    for (int d : devices)
      if (models.insert(query_device(d).model_key()).second) distinct.push_back(d);
    devices = distinct;
  }
  // The later problems' variants, compiled meanwhile for the first device's architecture (the cache serves any
  // device of it); stopped when the command ends.
  std::optional<AheadCompiler> ahead;
  if (cmd.compile_ahead)
    ahead.emplace(compile_ahead_order(cmd.problems), query_device(devices.front()), jit::default_compile_cache_dir());
  if (!cmd.isolate) {
    int rc = 0;
    for (int d : devices) {
      rc = std::max(rc, tune_in_process(cmd, d, cache_path, out, err));
      rc = std::max(rc, record_robust(given, d, cache_path, out, err));
    }
    return rc;
  }
  const DeviceInfo first = query_device(devices.front());  // a clear error without a GPU, before any worker
  {
    Cache cache(cache_path);  // created (or migrated) once, before workers open it concurrently
  }
  fmt::print(out, "autotune {}: tuning {} problem{} on {} into {} (a worker process per problem)\n", version(),
             cmd.problems.size(), cmd.problems.size() == 1 ? "" : "s",
             devices.size() == 1 ? fmt::format("GPU {} ({}, {})", first.ordinal, first.name, first.arch())
                                 : fmt::format("{} GPU models in parallel", devices.size()),
             cache_path);
  std::vector<int> codes(devices.size());
  {
    std::vector<std::jthread> lanes;
    for (std::size_t i = 0; i < devices.size(); ++i)
      lanes.emplace_back([&, i] { codes[i] = tune_isolated(cmd, devices[i], cache_path, out, err); });
  }
  for (std::size_t i = 0; i < devices.size(); ++i)
    codes[i] = std::max(codes[i], record_robust(given, devices[i], cache_path, out, err));
  return *std::max_element(codes.begin(), codes.end());
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

// The runtime API's lookup (include/autotune/resolution.hpp, the same function), read-only: runs measured with
// other code are skipped, not marked.
// `best`'s source column: the kind of evidence and what separates it from the problem.
std::string source_text(const Lookup& lookup) {
  switch (lookup.source) {
    case ConfigSource::fallback: return "fallback: built-in default (nothing tuned applies)";
    case ConfigSource::nearest_size: return "nearest_size: same problem, " + lookup.distance;
    case ConfigSource::similar_problem: return "similar_problem: " + lookup.distance;
    case ConfigSource::similar_device: return "similar_device: " + lookup.distance;
    case ConfigSource::policy: return "policy: " + lookup.distance;
    case ConfigSource::exact: break;
  }
  return lookup.distance.empty() ? std::string(to_string(lookup.source)) : "exact: " + lookup.distance;
}

Cell size_cell(std::uint64_t v) {
  return v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
             ? null_cell("max")
             : integer_cell(static_cast<std::int64_t>(v));
}

// The whole size table of a handle (each range, its configuration and where it came from), the range of n marked;
// that range's description and bounds are appended to `row`.
Listing size_listing(const SizeLookup& sizes, std::uint64_t n, std::vector<Cell>& row) {
  Listing table;
  table.columns = {{"", "selected"},          {"from n", "n_from"}, {"to n", "n_to"},      {"configuration", "config"},
                   {"source", "source"},      {"tuned n", "tuned_n"}, {"predicted", "predicted_slowdown"},
                   {"why", "why"}};
  for (const SizeRange& r : sizes.sizes) {
    Cell selected = bool_cell(r.contains(n));
    selected.text = r.contains(n) ? "=>" : "";
    std::string tuned;
    for (const std::uint64_t t : r.tuned_n) {
      if (!tuned.empty()) tuned += ' ';
      tuned += std::to_string(t);
    }
    table.rows.push_back({selected, size_cell(r.n_from), size_cell(r.n_to), text_cell(r.config.key()),
                          text_cell(std::string(to_string(r.source))), tuned.empty() ? null_cell("-") : text_cell(tuned),
                          number_cell(r.predicted_slowdown, 3), text_cell(r.why)});
    if (r.contains(n)) {
      row.push_back(text_cell(r.describe()));
      row.push_back(size_cell(r.n_from));
      row.push_back(size_cell(r.n_to));
    }
  }
  return table;
}

// best --source FILE: the configuration's CUDA source, the text a handle of the problem compiles with NVRTC (the same
// for every n), written as cli/output_file.hpp says, before anything is printed (a file that cannot be written leaves
// no answer behind it). After the table (not JSON or CSV), a line says where, with NVRTC's options.
std::string write_source(const BestCommand& cmd, const Config& config, const std::string& arch) {
  if (cmd.source_file.empty()) return {};
  const bool replaced = write_output_file(cmd.source_file, kernel_source(cmd.problem, config)) == Written::replaced;
  if (!replaced || cmd.format != OutputFormat::table) return {};
  return fmt::format("wrote the CUDA source of {} to {} (NVRTC options: {})\n", config.key(), cmd.source_file,
                     fmt::join(jit::options_for(arch), " "));
}

int run_best(const BestCommand& cmd, const std::string& cache_path, std::ostream& out) {
  LookupTarget target = LookupTarget::from_model_key(cmd.device_model);
  std::string device_name;
  if (cmd.device_model.empty()) {
    const DeviceInfo d = query_device(cmd.device);  // NoDeviceError without a GPU: exit 1
    target = LookupTarget{d.model_key(), d.arch(), d.sm_count, d.driver_version, d};
    device_name = d.name;
  }
  const std::string& model_key = target.model_key;
  Cache cache = open_for_reading(cache_path);
  // The size table a handle of this shape builds (lookup_sizes), and the lookup for n itself (the same answer).
  const SizeLookup sizes = lookup_sizes(cache, target, cmd.problem);
  const Lookup& lookup = sizes.at_hint;
  const ConfigSource source = lookup.source;
  const std::optional<Winner>& w = lookup.winner;
  if (w && source != ConfigSource::similar_device) device_name = w->device_name;
  std::optional<double> roof = cache.device_roof(model_key);
  const std::string wrote = write_source(cmd, lookup.config, target.arch);

  Listing l;
  l.columns = {{"source", "source"},       {"problem", "problem"},  {"device model", "model_key"},
               {"device", "device"},       {"configuration", "config"}, {"tuned for n", "tuned_n"},
               {"time ms", "median_ms"},   {"GB/s", "gbps"},        {"% of roof", "roof_pct"},
               {"stale runs skipped", "stale_runs_skipped"},        {"cache", "cache"},
               {"size range", "range"},    {"range from n", "range_n_from"}, {"range to n", "range_n_to"},
               {"size ranges", "size_ranges"}, {"predicted slowdown", "predicted_slowdown"},
               {"runner-up", "runner_up"}};
  Cell src = text_cell(std::string(to_string(source)));
  src.text = source_text(lookup);
  l.rows.push_back({src, text_cell(cmd.problem.key()), text_cell(model_key),
                    device_name.empty() ? null_cell("-") : text_cell(device_name), text_cell(lookup.config.key()),
                    w ? integer_cell(static_cast<std::int64_t>(w->problem.n())) : null_cell("-"),
                    w ? number_cell(w->median_ms, 4) : null_cell("-"),
                    w ? number_cell(w->gbps, 1) : null_cell("-"),
                    w && roof && source != ConfigSource::similar_device ? number_cell(w->gbps / *roof * 100.0, 1)
                                                                        : null_cell("-"),
                    integer_cell(static_cast<std::int64_t>(lookup.stale_skipped)), text_cell(cache_path)});
  // The range a handle runs for n, and the whole table: each range, its configuration and where it came from.
  const std::uint64_t n = cmd.problem.n();
  const Listing table = size_listing(sizes, n, l.rows.front());
  l.rows.front().push_back(integer_cell(static_cast<std::int64_t>(sizes.sizes.size())));
  // The ranking behind the choice: its predicted time over the problem's own best, and the next-best configuration.
  l.rows.front().push_back(number_cell(lookup.predicted_slowdown, 3));
  const std::optional<Alternative>& next = lookup.runner_up;
  l.rows.front().push_back(next ? text_cell(fmt::format("{} {} (predicted {:.3f}x{})", to_string(next->source),
                                                        next->config.key(), next->predicted_slowdown,
                                                        next->distance.empty() ? "" : ": " + next->distance))
                                : null_cell("-"));
  out << render_record_with(l, "sizes",
                            fmt::format("size table (a handle of this shape runs, for each n, its range's configuration;"
                                        " => n={}):",
                                        n),
                            table, cmd.format);
  out << wrote;
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
  std::map<std::string, Config> fastest;  // the view lists each problem's fastest device first
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

// Written as cli/output_file.hpp says: a regular file is replaced atomically (a failed report never replaces a good
// one), a FIFO or a device is written through, never replaced.
int run_report(const ReportCommand& cmd, const std::string& cache_path, std::ostream& out) {
  const Cache cache = open_for_reading(cache_path);
  if (write_output_file(cmd.output, render_report(cache, cache_path)) == Written::replaced)
    fmt::print(out, "wrote the report of {} to {}\n", cache_path, cmd.output);
  return 0;
}

std::string describe(const ImportStats& s) {
  if (s.total() == 0) return "nothing new";
  auto n = [](std::size_t count, const char* what) {
    return fmt::format("{} {}{}", count, what, count == 1 ? "" : "s");
  };
  return fmt::format("{}, {}, {}, {}, {}, {}{} added or updated", n(s.devices, "device"), n(s.problems, "problem"),
                     n(s.templates, "template"), n(s.runs, "run"), n(s.measurements, "measurement"),
                     n(s.winners, "winner"), s.baselines ? ", " + n(s.baselines, "baseline") : std::string());
}

// The document is written as cli/output_file.hpp says: an export that fails half-way never replaces an earlier good
// one, and a FIFO or a device (/dev/null) is written through, never replaced.
int run_export(const ExportCommand& cmd, const std::string& cache_path, std::ostream& out) {
  // Never created, migrated or written by an export; a damaged file is refused rather than exported in part.
  const Cache cache = Cache::open_read_only(cache_path, ReadCheck::pages);
  // A filter that matches nothing is a mistake (a mistyped problem or model), not a file to ship.
  auto check = [&](const ExportStats& s) {
    if (cmd.filter.empty() || s.runs > 0) return;
    std::string flags;
    for (const auto& p : cmd.filter.problems) flags += fmt::format(" --problem '{}'", p);
    for (const auto& m : cmd.filter.device_models) flags += fmt::format(" --device-model '{}'", m);
    throw UsageError(fmt::format("autotune export: no run in {} matches{}", cache_path, flags));
  };
  if (cmd.output == "-") {
    std::ostringstream document;  // written only when something matched and it could be signed
    check(cache.export_json(document, cmd.filter, cmd.sign));
    out << document.str();
    return 0;
  }
  std::ostringstream document;
  check(cache.export_json(document, cmd.filter, cmd.sign));
  // Written through to a stream (a FIFO, /dev/stdout), the document is all its reader gets: no message after it.
  if (write_output_file(cmd.output, document.str()) == Written::replaced)
    fmt::print(out, "exported {} to {}\n", cache_path, cmd.output);
  return 0;
}

// Adds to the cache at `path` with `add(Cache&)`. A path that does not exist yet is written as a temporary file
// beside it, linked into place only when `add` succeeded: a refused import leaves nothing, and a killed one no
// cache file (at most the temporary, named "<path>.import-<pid>.tmp"), never an empty or partial cache.
template <class Add>
ImportStats add_to_cache(const std::string& path, Add&& add) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path == ":memory:" || fs::exists(fs::symlink_status(path, ec))) {
    Cache cache(path);
    return add(cache);
  }
  const std::string tmp = fmt::format("{}.import-{}.tmp", path, ::getpid());
  auto remove_tmp = [&] {
    for (const char* side : {"", "-wal", "-shm", "-journal"}) fs::remove(tmp + side, ec);
  };
  remove_tmp();  // left by a killed process of the same pid
  ImportStats stats;
  try {
    Cache cache(tmp);
    stats = add(cache);
  } catch (...) {
    remove_tmp();
    throw;
  }
  // Closed: its WAL is checkpointed into the file. link() never replaces a cache another process created meanwhile.
  const bool linked = ::link(tmp.c_str(), path.c_str()) == 0;
  const int link_errno = errno;
  remove_tmp();
  if (linked) return stats;
  if (link_errno != EEXIST)
    throw CacheError(fmt::format("cache file '{}' cannot be created ({})", path, std::strerror(link_errno)));
  Cache cache(path);
  return add(cache);
}

std::string dropped(const ImportStats& s) {
  std::string out;
  if (s.cubins_verified)
    out += fmt::format(" ({} cubin{} kept: compiled to the same bytes here)", s.cubins_verified,
                       s.cubins_verified == 1 ? "" : "s");
  if (s.cubins_dropped)
    out += fmt::format(" ({} cubin{} left out: applications compile from source)", s.cubins_dropped,
                       s.cubins_dropped == 1 ? "" : "s");
  return out;
}

// How the import's results are recorded (README "What a cache file is trusted for"): with trusted keys, the
// document was signed by one of them (or refused).
std::string provenance(const ImportStats& s, const std::vector<std::string>& trusted_ids) {
  if (s.winners == 0 && s.runs == 0) return "";
  if (!trusted_ids.empty()) return fmt::format(" (signed by trusted key {})", fmt::join(trusted_ids, " or "));
  return " (recorded as imported: never served as exact)";
}

int run_import(const ImportCommand& cmd, const std::string& cache_path, std::ostream& out) {
  // The input and the keys are opened first, so that a missing file changes nothing (not even creates the cache).
  std::ifstream file;
  if (cmd.file != "-") {
    std::error_code ec;
    if (std::filesystem::is_directory(cmd.file, ec))
      throw Error(fmt::format("cannot import '{}': it is a directory, not an `autotune export` document",
                                   cmd.file));
    file.open(cmd.file, std::ios::binary);
    if (!file) throw Error(fmt::format("cannot open '{}' for reading ({})", cmd.file, std::strerror(errno)));
  }
  ImportOptions options;
  options.cubins = !cmd.no_cubins;
  options.verify_cubins = true;
  std::vector<std::string> ids;
  for (const std::string& key : cmd.trust) {
    const signing::PublicKey k = signing::read_public_key(key);
    options.trusted_keys.push_back(k.text());
    ids.push_back(k.id());
  }
  const bool stdin_input = cmd.file == "-";
  const std::string source = stdin_input ? "standard input" : cmd.file;
  const ImportStats s = add_to_cache(cache_path, [&](Cache& cache) {
    return cache.import_json(stdin_input ? std::cin : file, source, options);
  });
  fmt::print(out, "imported {} into {}: {}{}{}\n", source, cache_path, describe(s), provenance(s, ids), dropped(s));
  return 0;
}

int run_merge(const MergeCommand& cmd, const std::string& cache_path, std::ostream& out) {
  std::error_code ec;
  if (!std::filesystem::exists(cmd.file, ec)) throw CacheError(fmt::format("cache file '{}' does not exist", cmd.file));
  ImportOptions options;
  options.cubins = !cmd.no_cubins;
  options.verify_cubins = true;
  const ImportStats s = add_to_cache(cache_path, [&](Cache& cache) { return cache.merge(cmd.file, options); });
  fmt::print(out, "merged {} into {}: {}{}{}\n", cmd.file, cache_path, describe(s), provenance(s, {}), dropped(s));
  return 0;
}

int run_keygen(const KeygenCommand& cmd, std::ostream& out) {
  const std::string id = generate_signing_key(cmd.output);
  fmt::print(out, "created key {}: private key {} (keep it secret), public key {}.pub\n", id, cmd.output, cmd.output);
  return 0;
}

int run_gc(const std::string& cache_path, std::ostream& out) {
  Cache cache(cache_path);
  const std::size_t removed = cache.gc();
  if (removed == 0) fmt::print(out, "no stale rows in {}\n", cache_path);
  else fmt::print(out, "deleted {} stale row{} from {}\n", removed, removed == 1 ? "" : "s", cache_path);
  return 0;
}

// Only reads (Cache::open_read_only): never creates, migrates or writes the file; an older schema is checked in an
// upgraded copy in memory.
int run_check(const std::string& cache_path, std::ostream& out) {
  // Damage is what check reports (integrity_check, among the invariants): it opens what SQLite can open.
  const Cache cache = Cache::open_read_only(cache_path, ReadCheck::none);
  const std::vector<std::string> violations = cache.invariant_violations();
  for (const std::string& v : violations) fmt::print(out, "{}\n", printable_line(v));
  if (violations.empty()) fmt::print(out, "{}: every row keeps the schema's invariants\n", cache_path);
  return violations.empty() ? 0 : 1;
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
        } else if constexpr (std::is_same_v<T, BenchCommand>) {
          return run_bench(cmd, cache_path_of(cl), out, err);
        } else if constexpr (std::is_same_v<T, ReportCommand>) {
          return run_report(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, ExportCommand>) {
          return run_export(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, ImportCommand>) {
          return run_import(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, MergeCommand>) {
          return run_merge(cmd, cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, CheckCommand>) {
          return run_check(cache_path_of(cl), out);
        } else if constexpr (std::is_same_v<T, KeygenCommand>) {
          return run_keygen(cmd, out);
        } else {
          static_assert(std::is_same_v<T, GcCommand>);
          return run_gc(cache_path_of(cl), out);
        }
      },
      cl.command);
}

}  // namespace autotune::cli
