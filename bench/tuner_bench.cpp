// The tuner's own speed and its strategies, on the GPU (issue #5): the full default space tuned with a cold and a
// warm compile cache, then the random and successive-halving strategies compared with the exhaustive winner: how
// many variants each measured fully, how long it took, and how far its winner is from the exhaustive one (the
// chosen configuration's time in the exhaustive run divided by the exhaustive winner's time: 1.00 = found it).
//
//   tuner_bench [--markdown FILE] [--quick]
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/tuner.hpp"

using namespace autotune;

namespace {

struct Row {
  std::string problem, strategy, compile_cache, winner;
  double seconds = 0;
  int compiled = 0, measured = 0, space = 0;
  double winner_gbps = 0, vs_exhaustive = 0;
  bool same = false;
};

// One problem's rows: an exhaustive tuning from a cold compile cache, then exhaustive, random (a quarter of the
// space) and halving from a warm one, each winner's time compared with the exhaustive winner's.
std::vector<Row> strategy_rows(const Problem& p, bool quick) {
  std::vector<Row> rows;
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("autotune_tuner_bench_{}", ::getpid());
  std::filesystem::remove_all(dir);
  Cache cache(":memory:");
  TuneOptions o;
  o.compile_cache_dir = dir.string();
  if (quick) o.samples = 10;
  auto run = [&](const std::string& strategy, const std::string& cc, int budget = 0) {
    o.strategy = strategy;
    o.budget = budget;
    const TuneReport r = tune(p, cache, o);
    Row row;
    row.problem = p.key();
    row.strategy = budget ? fmt::format("{} ({})", strategy, budget) : strategy;
    row.compile_cache = cc;
    row.seconds = r.seconds;
    row.compiled = r.compiled;
    row.measured = r.fully_measured;
    row.space = static_cast<int>(r.measurements.size());
    if (r.winner) {
      row.winner = r.winner->config.key();
      row.winner_gbps = r.winner->gbps;
    }
    std::fprintf(stderr, "%s %s: %.1f s\n", row.problem.c_str(), row.strategy.c_str(), row.seconds);
    return std::pair{row, r};
  };
  auto [cold, exhaustive] = run("exhaustive", "cold");
  cold.same = true;
  cold.vs_exhaustive = 1.0;
  rows.push_back(cold);
  // Each configuration's time in the exhaustive run: the yardstick for the other strategies' winners.
  std::map<std::string, double> exhaustive_ms;
  for (const auto& m : exhaustive.measurements)
    if (m.status == MeasurementStatus::ok) exhaustive_ms[m.config.key()] = m.median_ms;
  const double best_ms = exhaustive.winner ? exhaustive_ms[exhaustive.winner->config.key()] : 0.0;
  auto compare = [&](Row row) {
    row.same = exhaustive.winner && row.winner == exhaustive.winner->config.key();
    if (exhaustive_ms.count(row.winner) && best_ms > 0) row.vs_exhaustive = exhaustive_ms[row.winner] / best_ms;
    rows.push_back(row);
  };
  compare(run("exhaustive", "warm").first);
  const int quarter = std::max(8, static_cast<int>(exhaustive.measurements.size()) / 4);
  compare(run("random", "warm", quarter).first);
  compare(run("halving", "warm").first);
  std::filesystem::remove_all(dir);
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  std::string markdown;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--markdown") && i + 1 < argc) markdown = argv[++i];
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else {
      std::fprintf(stderr, "usage: tuner_bench [--markdown FILE] [--quick]\n");
      return 2;
    }
  }
  try {
    const DeviceInfo dev = query_device(0);
    std::vector<Problem> problems;
    HistogramProblem u8;  // the target: the full default space of u8 / 256 bins / 64M samples
    u8.n = 64ull << 20;
    problems.push_back(u8);
    ReduceProblem sum;
    sum.op = ReduceOp::sum;
    sum.type = ValueType::f32;
    sum.n = 64ull << 20;
    problems.push_back(sum);

    std::vector<Row> rows;
    for (const Problem& p : problems)
      for (Row& r : strategy_rows(p, quick)) rows.push_back(std::move(r));

    std::string table = fmt::format(
        "GPU: {} ({}, {} SMs), driver {}, NVRTC {}\n\n"
        "| problem | strategy | compile cache | seconds | compiled | fully measured / space | winner | GB/s | "
        "same as exhaustive | its time / exhaustive winner's |\n|---|---|---|---:|---:|---:|---|---:|---|---:|\n",
        dev.name, dev.arch(), dev.sm_count, dev.driver_version, dev.nvrtc_version);
    for (const Row& r : rows)
      table += fmt::format("| {} | {} | {} | {:.1f} | {} | {} / {} | `{}` | {:.0f} | {} | {} |\n", r.problem, r.strategy,
                           r.compile_cache, r.seconds, r.compiled, r.measured, r.space, r.winner, r.winner_gbps,
                           r.same ? "yes" : "no", r.vs_exhaustive > 0 ? fmt::format("{:.3f}", r.vs_exhaustive) : "-");
    std::fputs(table.c_str(), stdout);
    if (!markdown.empty()) std::ofstream(markdown) << table;
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tuner_bench: %s\n", e.what());
    return 1;
  }
}
