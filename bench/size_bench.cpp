// Size-adaptive handles, measured (issue #14): regret of the adaptive handle against the exact per-size winner, the
// leave-one-out regret of the size table between tuned sizes, and the handle against CUB, on GPU 0, in one run.
//
// For each shape (u8/256 bins over [0,256); f32/1024 bins over [0,1); f32 sum):
//   1. tunes a size ladder with tune_ladder (tuner/ladder.hpp: every size, then the crossovers between adjacent sizes
//      whose winners differ) into the --cache file, with a fresh (cold) compile cache per shape; the u8 ladder is
//      tuned in two steps so that its first 8 sizes (4K..64M) are timed against the 60 s target;
//   2. builds one adaptive handle of the shape (n hint 0) from that cache and times its construction (the first in
//      the process, then the median of 5 more, cubins cached: the one compared with 10 ms);
//   3. at every ladder size s times, interleaved round by round, L2 flushed before each call (time_calls with the
//      flush buffer), median of --samples: (a) the adaptive handle at s, (b) the exact winner at s (the configuration
//      tuned at s, loaded through the family's Workload), (c) the leave-one-out choice (build_size_table over the
//      shape's winners without s and the crossovers adjacent to s: what the handle would run had s not been tuned),
//      (d) CUB (bench/baselines). Each is verified against the CPU reference first (Workload::check_call). Regret =
//      time / time(exact) - 1. When the LOO choice is the exact winner's configuration its regret is 0 by definition
//      (not timed again);
//   4. at untuned sizes 3 * 4^k between the ladder's ends times the handle and CUB; with --exact-untuned also each
//      such size's own exact winner (tuned there now, into a scratch cache the handle never reads): the regret of
//      the handle at sizes nobody tuned, between a tuned size and a crossover;
//   5. per-call overhead at n = 4K: batches of back-to-back calls on one stream, no flush, events around each batch
//      (and the host's enqueue time per call), the handle against the same configuration launched directly through
//      the family's launcher (Workload::load), batches alternating;
//   6. prints a Markdown table per shape and a summary with every target, PASS or MISS with the numbers.
//
//   size_bench [--cache FILE] [--reuse] [--samples K] [--tune-samples K] [--shape u8|f32|sum]... [--quick]
//              [--exact-untuned] [--calls N] [--commit HASH] [--markdown FILE]
//
// --cache: the cache file the ladders are tuned into (default: a file in a fresh temporary directory, removed at the
// end). --reuse: sizes already tuned in it with the current code are not tuned again (their tuning time is then not
// comparable with the targets, and the summary says so). --shape: only these shapes (repeatable; default all three).
// --quick: only u8/256 at 5 sizes (4K..256M by powers of 16). --tune-samples: the tuner's samples per variant
// (default 15, as `autotune tune`). Data: synthetic uniform input (the workloads' generator, seed 42).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/histogram.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/reduce.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/resolution.hpp"
#include "autotune/tuner.hpp"
#include "bench/baselines.hpp"
#include "bench/read_roof.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/jit.hpp"
#include "core/ladder.hpp"
#include "core/workload.hpp"
#include "runtime/resolve.hpp"
#include "runtime/size_table.hpp"
#include "tuner/harness.hpp"
#include "tuner/ladder.hpp"
#include "bench/bench_common.hpp"

#ifndef AUTOTUNE_BENCH_COMMIT
#define AUTOTUNE_BENCH_COMMIT "unknown"
#endif

using namespace autotune;
using namespace autotune::bench;

namespace {

struct Shape {
  std::string id;     // --shape value
  std::string title;  // for the tables
  Problem base;       // n = 0
  std::vector<std::uint64_t> ladder;
  std::size_t timed_prefix = 0;  // sizes tuned (and timed) first: the 60 s target's "8 first sizes"; 0 = all at once
  bool cub_geomean_target = false;  // u8/256: geometric mean vs CUB >= 1.5x
};

std::vector<Shape> all_shapes(bool quick) {
  std::vector<Shape> out;
  {
    Shape s;
    s.id = "u8";
    s.title = "u8/256 bins over [0,256)";
    s.base = HistogramProblem{.type = SampleType::u8, .bins = 256};
    s.ladder = quick ? size_ladder(4ull << 10, 256ull << 20, 16) : size_ladder(4ull << 10, 512ull << 20);
    s.timed_prefix = quick ? 0 : 8;
    s.cub_geomean_target = true;
    out.push_back(s);
  }
  if (quick) return out;
  {
    Shape s;
    s.id = "f32";
    s.title = "f32/1024 bins over [0,1)";
    s.base = HistogramProblem{.type = SampleType::f32, .bins = 1024};
    s.ladder = size_ladder(4ull << 10, 256ull << 20);
    out.push_back(s);
  }
  {
    Shape s;
    s.id = "sum";
    s.title = "sum of f32";
    ReduceProblem sum;
    sum.op = ReduceOp::sum;
    sum.type = ValueType::f32;
    s.base = sum;
    s.ladder = size_ladder(4ull << 10, 256ull << 20);
    out.push_back(s);
  }
  return out;
}

struct TuneSummary {
  double seconds = 0.0, prefix_seconds = 0.0;  // all steps; the timed prefix (first timed_prefix sizes)
  std::size_t prefix_sizes = 0;
  bool prefix_clean = false;  // every size of the prefix tuned now, none skipped, compile cache cold at its start
  std::size_t tuned = 0, skipped = 0, crossovers = 0, no_memory = 0, failed = 0;
  int compiled = 0, compile_hits = 0;
  std::vector<std::string> notes;
};

TuneSummary tune_shape(const Shape& shape, const std::string& cache_path, bool reuse, int tune_samples,
                       const std::string& compile_dir) {
  TuneSummary t;
  std::filesystem::create_directories(compile_dir);
  const bool cold = std::filesystem::is_empty(compile_dir);
  Cache cache(cache_path);
  TuneOptions o;
  o.device = 0;
  o.samples = tune_samples;
  o.compile_cache_dir = compile_dir;
  auto run_start = Clock::now();
  o.on_measurement = [&](std::size_t done, std::size_t total, const Measurement&) {  // progress, one line per run
    if (done == 1) run_start = Clock::now();
    if (done == total)
      std::fprintf(stderr, "size_bench: %s: a run of %zu variants measured in %.1f s\n", shape.id.c_str(), total,
                   seconds_since(run_start));
  };
  auto problems = [&](std::size_t from, std::size_t to) {
    std::vector<Problem> v;
    for (std::size_t i = from; i < to; ++i) v.push_back(shape.base.with_n(shape.ladder[i]));
    return v;
  };
  auto step = [&](const std::vector<Problem>& ps, bool skip_finished) {
    LadderSettings st;
    st.skip_finished = skip_finished;
    const auto t0 = Clock::now();
    const LadderReport r = tune_ladder(ps, cache, o, st);
    const double s = seconds_since(t0);
    for (const TuneReport& run : r.runs) {
      t.compiled += run.compiled;
      t.compile_hits += run.compile_cache_hits;
      std::fprintf(stderr, "size_bench: %s n=%s %s: %.1f s, %d compiled, winner %s\n", shape.id.c_str(),
                   format_size(run.problem.n()).c_str(), run.strategy.c_str(), run.seconds, run.compiled,
                   run.winner ? run.winner->config.key().c_str() : "(none)");
    }
    for (const Problem& p : r.no_memory) t.notes.push_back("n=" + format_size(p.n()) + " did not fit the GPU's memory");
    t.tuned += r.summary.tuned;
    t.skipped += r.summary.skipped_finished;
    t.crossovers += r.summary.crossovers;
    t.no_memory += r.summary.no_memory;
    t.failed += r.summary.failed;
    return std::pair{s, r.summary};
  };
  const std::size_t prefix = shape.timed_prefix && shape.timed_prefix < shape.ladder.size() ? shape.timed_prefix
                                                                                            : shape.ladder.size();
  const auto [s1, sum1] = step(problems(0, prefix), reuse);
  t.prefix_seconds = s1;
  t.prefix_sizes = prefix;
  t.prefix_clean = cold && sum1.skipped_finished == 0 && sum1.tuned == prefix;
  t.seconds = s1;
  if (prefix < shape.ladder.size()) {
    // The whole ladder: the prefix is finished now and skipped; the rest and the crossovers next to it are tuned.
    const auto [s2, sum2] = step(problems(0, shape.ladder.size()), true);
    t.seconds += s2;
    t.skipped -= std::min<std::size_t>(t.skipped, prefix);  // the prefix, skipped the second time by design
  }
  std::fprintf(stderr, "size_bench: %s ladder: %.1f s (%zu sizes tuned, %zu reused, %zu crossovers)\n",
               shape.id.c_str(), t.seconds, t.tuned, t.skipped, t.crossovers);
  return t;
}

struct Row {
  std::uint64_t n = 0;
  bool ladder = false;   // a tuned ladder size (else an untuned size between)
  bool edge = false;     // the first or last ladder size (LOO extrapolates: not in the LOO statistics)
  std::string source;    // the handle's range at n: source and why
  std::string handle_config;
  double adaptive_ms = 0, exact_ms = 0, loo_ms = 0, cub_ms = 0;
  bool has_exact = false, has_cub = false, loo_same = false;
  std::string exact_config, loo_config;
  double regret = 0, loo_regret = 0;
  std::vector<std::string> notes;  // verification failures
  bool wrong = false;              // ours (handle, exact or LOO) disagreed with the CPU reference
};

struct Overhead {
  double handle_event_us = 0, raw_event_us = 0, handle_host_us = 0, raw_host_us = 0;
  std::string config;
  double diff() const { return std::max(handle_event_us - raw_event_us, handle_host_us - raw_host_us); }
};

// Per-call cost at `n`: batches of `batch` back-to-back calls on one stream (no flush), events around each batch
// and the host's enqueue time; handle and raw batches alternate; medians over batches, per call.
Overhead measure_overhead(const std::function<void(cudaStream_t)>& handle, const std::function<void(cudaStream_t)>& raw,
                          int calls, cudaStream_t stream) {
  constexpr int kBatch = 256;
  const int batches = std::max(4, calls / kBatch);
  std::vector<double> he, re, hh, rh;
  cuda::Event start, stop;
  auto one = [&](const std::function<void(cudaStream_t)>& f, std::vector<double>& ev, std::vector<double>& host) {
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    const auto t0 = Clock::now();
    start.record(stream);
    for (int i = 0; i < kBatch; ++i) f(stream);
    stop.record(stream);
    const double host_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    ev.push_back(stop.elapsed_since(start) * 1000.0 / kBatch);
    host.push_back(host_us / kBatch);
  };
  for (int w = 0; w < 2; ++w) one(handle, he, hh), one(raw, re, rh);  // warm-up batches, discarded
  he.clear(), re.clear(), hh.clear(), rh.clear();
  for (int b = 0; b < batches; ++b) {
    if (b % 2) one(raw, re, rh), one(handle, he, hh);
    else one(handle, he, hh), one(raw, re, rh);
  }
  return {median_of(he), median_of(re), median_of(hh), median_of(rh), {}};
}

struct ShapeResult {
  const Shape* shape = nullptr;
  TuneSummary tuning;
  double construct_first_ms = 0, construct_ms = 0;
  double construct_resolve_ms = 0;  // of construct_ms: resolve() alone (lookup, trust checks, any compile)
  bool construct_compiled = false;
  std::size_t ranges = 0, winners = 0;
  std::vector<Row> rows;
  Overhead overhead;
  std::string table;  // the Markdown section
};

std::string us(double ms) { return fmt::format("{:.1f}", ms * 1000.0); }
std::string pct(double x) { return std::isnan(x) ? "-" : fmt::format("{:+.1f}", x * 100.0); }

// What timing one shape's sizes needs: the handle, the winners its table is built from, and the GPU's harness.
struct ShapeContext {
  const Shape& shape;
  const Adaptive& handle;
  const SizeLookup& sl;
  std::map<std::uint64_t, const Winner*> by_n;  // this GPU model's winner at each tuned size
  std::map<std::uint64_t, Config> untuned_exact;  // --exact-untuned: the winner tuned now at each untuned size
  const DeviceInfo& dev;
  const std::string& compile_dir;
  const cuda::DeviceBuffer& flush;
  int samples;
  cudaStream_t stream;
};

// The handle's construction: the first in the process, then the median of 5 more (cubins cached), and of those the
// median of resolve() alone (the rest is loading the modules and allocating the workspaces).
void measure_construction(const Shape& shape, const std::string& cache_path, ShapeResult& res) {
  auto t0 = Clock::now();
  { const Adaptive first = make_adaptive(shape.base, cache_path); }
  res.construct_first_ms = seconds_since(t0) * 1000.0;
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) {
    t0 = Clock::now();
    const Adaptive again = make_adaptive(shape.base, cache_path);
    ms.push_back(seconds_since(t0) * 1000.0);
    res.construct_compiled = res.construct_compiled || again.resolution().compiled;
  }
  res.construct_ms = median_of(ms);
  ms.clear();
  for (int i = 0; i < 5; ++i) {
    t0 = Clock::now();
    const Resolved r = resolve(shape.base, 0, cache_path, std::nullopt);
    ms.push_back(seconds_since(t0) * 1000.0);
  }
  res.construct_resolve_ms = median_of(ms);
}

// Leave-one-out: the configuration of the size table built without ladder size i and the crossovers adjacent to it.
Config loo_config(const ShapeContext& ctx, std::size_t i) {
  const std::vector<std::uint64_t>& ladder = ctx.shape.ladder;
  const std::uint64_t s = ladder[i];
  std::set<std::uint64_t> excluded{s};
  if (i > 0)
    if (auto m = crossover_size(ladder[i - 1], s)) excluded.insert(*m);
  if (i + 1 < ladder.size())
    if (auto m = crossover_size(s, ladder[i + 1])) excluded.insert(*m);
  std::vector<TunedSize> tuned;
  for (const Winner& w : ctx.sl.winners)
    if (!excluded.count(w.problem.n())) tuned.push_back({w.problem.n(), w.config, w.model_key, ""});
  const auto table = build_size_table(std::move(tuned), ctx.sl.at_hint);
  for (const SizeRange& r : table)
    if (r.contains(s)) return r.config;
  throw Error("size_bench: the leave-one-out table does not cover n=" + std::to_string(s));
}

// Loads `config` for the row's workload and adds it to the contenders, noting a wrong result under `what`.
std::unique_ptr<LoadedVariant> contender(const ShapeContext& ctx, const Workload& workload, const Problem& p,
                                         const Config& config, const char* what, Row& row,
                                         std::vector<std::function<void(cudaStream_t)>>& contenders) {
  auto v = workload.load(config, cubin_for(config, ctx.sl.winners, p, ctx.dev, ctx.compile_dir), false);
  if (auto why = v->check(ctx.stream); !why.empty()) {
    row.notes.push_back(std::string(what) + " WRONG: " + why);
    row.wrong = true;
  }
  LoadedVariant* raw = v.get();
  contenders.push_back([raw](cudaStream_t s) { raw->run(s); });
  return v;
}

// One size's row: the handle, and at a ladder size the exact winner and the leave-one-out choice, against CUB,
// verified and timed interleaved. `index`: the size's place in the ladder, none for an untuned size.
Row time_size(const ShapeContext& ctx, std::uint64_t n, std::optional<std::size_t> index) {
  const Shape& shape = ctx.shape;
  Row row;
  row.n = n;
  row.ladder = index.has_value();
  row.edge = index && (*index == 0 || *index + 1 == shape.ladder.size());
  const SizeRange& range = ctx.handle.range_for(n);
  row.source = fmt::format("{} ({})", to_string(range.source_at(n)), range.why);
  row.handle_config = range.config.key();
  const Problem p = shape.base.with_n(n);
  if (row.ladder && !ctx.by_n.count(n)) {
    row.notes.push_back("not tuned (no winner at this size: skipped for memory, or failed): not timed");
    return row;
  }
  std::fprintf(stderr, "size_bench: %s n=%s: timing\n", shape.id.c_str(), format_size(n).c_str());
  const auto workload = p.family().make_workload(p, ctx.dev, 42);
  std::vector<std::function<void(cudaStream_t)>> contenders;
  const auto handle_call = [&](cudaStream_t s) { ctx.handle.call(workload->input(), n, workload->output(), s); };
  if (auto why = workload->check_call(handle_call, ctx.stream); !why.empty()) {
    row.notes.push_back("adaptive handle WRONG: " + why);
    row.wrong = true;
  }
  contenders.push_back(handle_call);
  std::unique_ptr<LoadedVariant> exact, loo;
  if (!row.ladder && ctx.untuned_exact.count(n)) {
    const Config& c = ctx.untuned_exact.at(n);
    row.exact_config = c.key();
    exact = contender(ctx, *workload, p, c, "exact winner", row, contenders);
  }
  if (row.ladder) {
    const Winner& w = *ctx.by_n.at(n);
    row.exact_config = w.config.key();
    exact = contender(ctx, *workload, p, w.config, "exact winner", row, contenders);
    const Config lc = loo_config(ctx, *index);
    row.loo_config = lc.key();
    row.loo_same = lc == w.config;
    if (!row.loo_same) loo = contender(ctx, *workload, p, lc, "LOO choice", row, contenders);
  }
  const auto cub = bench::cub_baseline(p, workload->input(), workload->output());
  if (cub) {
    if (auto why = workload->check_call(cub->run, ctx.stream); !why.empty())
      row.notes.push_back("CUB differs from the CPU reference (" + why + "); timed anyway");
    contenders.push_back(cub->run);
  }
  const auto t = time_interleaved(contenders, ctx.flush, ctx.samples, ctx.stream);
  std::size_t k = 0;
  row.adaptive_ms = t[k++].median;
  if (exact && !row.ladder) {
    row.has_exact = true;
    row.exact_ms = t[k++].median;
    row.regret = row.adaptive_ms / row.exact_ms - 1.0;
  }
  if (row.ladder) {
    row.has_exact = true;
    row.exact_ms = t[k++].median;
    row.regret = row.adaptive_ms / row.exact_ms - 1.0;
    row.loo_ms = row.loo_same ? row.exact_ms : t[k++].median;
    row.loo_regret = row.loo_same ? 0.0 : row.loo_ms / row.exact_ms - 1.0;
  }
  if (cub) {
    row.has_cub = true;
    row.cub_ms = t[k++].median;
  }
  return row;
}

// Per-call overhead at the smallest ladder size (4K), against the same configuration launched directly.
Overhead call_overhead(const ShapeContext& ctx, int calls) {
  const std::uint64_t n = ctx.shape.ladder.front();
  const Problem p = ctx.shape.base.with_n(n);
  const auto workload = p.family().make_workload(p, ctx.dev, 42);
  const Config& c = ctx.handle.range_for(n).config;
  const auto raw = workload->load(c, cubin_for(c, ctx.sl.winners, p, ctx.dev, ctx.compile_dir), false);
  Overhead o = measure_overhead(
      [&](cudaStream_t s) { ctx.handle.call(workload->input(), n, workload->output(), s); },
      [&](cudaStream_t s) { raw->run(s); }, calls, ctx.stream);
  o.config = c.key();
  return o;
}

// The timing table's rows, then each row's configurations.
std::string rows_markdown(const Shape& shape, const std::vector<Row>& rows, double roof_gbps) {
  std::string out =
      "| n | tuned | handle's range at n | adaptive (us) | exact (us) | regret % | LOO same config? | LOO regret % | "
      "CUB (us) | vs CUB | GB/s | % roof |\n|---:|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|\n";
  for (const Row& r : rows) {
    if (r.adaptive_ms <= 0) {
      out += fmt::format("| {} | {} | {} | - | - | - | - | - | - | - | - | - |{}\n", format_size(r.n),
                         r.ladder ? "yes" : "no", r.source, r.notes.empty() ? "" : " " + r.notes.front());
      continue;
    }
    const double gbps = static_cast<double>(shape.base.with_n(r.n).bytes()) / (r.adaptive_ms * 1e-3) / 1e9;
    std::string notes;
    for (const auto& nt : r.notes) notes += " " + nt;
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0f} | {:.1f} |{}\n", format_size(r.n),
        r.ladder ? "yes" : "no", r.source, us(r.adaptive_ms), r.has_exact ? us(r.exact_ms) : "-",
        r.has_exact ? pct(r.regret) : "-",
        r.has_exact && r.ladder ? (r.loo_same ? std::string("yes") : "no") + (r.edge ? " (edge)" : "") : "-",
        r.has_exact && r.ladder ? pct(r.loo_regret) + (r.edge ? " (edge)" : "") : "-", r.has_cub ? us(r.cub_ms) : "-",
        r.has_cub ? fmt::format("{:.2f}x", r.cub_ms / r.adaptive_ms) : "-", gbps, 100.0 * gbps / roof_gbps, notes);
  }
  out += "\nConfigurations (handle at n / exact winner / leave-one-out choice when it differs):\n\n";
  for (const Row& r : rows) {
    if (r.adaptive_ms <= 0) continue;
    out += fmt::format("- {}: `{}`", format_size(r.n), r.handle_config);
    if (r.has_exact && r.exact_config != r.handle_config) out += fmt::format(" / exact `{}`", r.exact_config);
    if (r.has_exact && r.ladder && !r.loo_same) out += fmt::format(" / LOO `{}`", r.loo_config);
    out += "\n";
  }
  return out;
}

// The shape's Markdown section: how its ladder was tuned, the handle, the rows, the overhead and the size table.
std::string shape_markdown(const ShapeResult& res, const Adaptive& handle, double roof_gbps) {
  const Shape& shape = *res.shape;
  const TuneSummary& tu = res.tuning;
  std::string out = fmt::format("## {} (`{}`)\n\n", shape.title, shape.base.shape_key());
  std::string ladder_text;
  for (std::uint64_t n : shape.ladder) ladder_text += (ladder_text.empty() ? "" : ", ") + format_size(n);
  out += fmt::format(
      "Ladder {} ({} sizes): tuned in **{:.1f} s** ({} sizes tuned now, {} reused from the cache, {} crossovers "
      "measured, {} variants compiled, {} from the compile cache; compile cache {} at the start){}.",
      ladder_text, shape.ladder.size(), tu.seconds, tu.tuned, tu.skipped, tu.crossovers, tu.compiled,
      tu.compile_hits, tu.prefix_clean ? "cold" : "not cold or sizes reused",
      tu.prefix_sizes < shape.ladder.size()
          ? fmt::format(" Its first {} sizes with their crossovers: {:.1f} s", tu.prefix_sizes, tu.prefix_seconds)
          : std::string());
  for (const auto& note : tu.notes) out += " " + note + ".";
  out += fmt::format(
      "\n\nAdaptive handle (n hint 0): {} ranges from {} tuned sizes (ladder and crossovers); construction {:.2f} ms "
      "(median of 5, cubins cached{}; of it resolve() {:.2f} ms: lookup, trust checks, any compile; the rest loads "
      "modules), the first in the process {:.2f} ms.\n\n",
      res.ranges, res.winners, res.construct_ms,
      res.construct_compiled ? "; a range compiled from source (NVRTC, or its compile cache)" : "",
      res.construct_resolve_ms, res.construct_first_ms);
  out += rows_markdown(shape, res.rows, roof_gbps);
  out += fmt::format(
      "\nPer-call overhead at n={} (`{}`), {} calls per batch back to back, no flush: handle {:.2f} us/call on the GPU "
      "(events) and {:.2f} us/call enqueue on the host; direct launch {:.2f} / {:.2f} us/call.\n\n",
      format_size(shape.ladder.front()), res.overhead.config, 256, res.overhead.handle_event_us,
      res.overhead.handle_host_us, res.overhead.raw_event_us, res.overhead.raw_host_us);
  out += "Size table of the handle:\n\n```\n" + handle.resolution().sizes_summary() + "```\n\n";
  return out;
}

// --exact-untuned: each untuned size's exact winner, tuned now into `scratch` (a cache the handle never reads).
std::map<std::uint64_t, Config> tune_untuned(const Shape& shape, const std::vector<std::uint64_t>& sizes,
                                             const std::string& scratch, int tune_samples,
                                             const std::string& compile_dir) {
  std::map<std::uint64_t, Config> out;
  Cache cache(scratch);
  TuneOptions o;
  o.device = 0;
  o.samples = tune_samples;
  o.compile_cache_dir = compile_dir;
  for (const std::uint64_t n : sizes) {
    const auto t0 = Clock::now();
    const TuneReport r = tune(shape.base.with_n(n), cache, o);
    std::fprintf(stderr, "size_bench: %s n=%s exact (untuned size): %.1f s, winner %s\n", shape.id.c_str(),
                 format_size(n).c_str(), seconds_since(t0), r.winner ? r.winner->config.key().c_str() : "(none)");
    if (r.winner) out.emplace(n, r.winner->config);
  }
  return out;
}

ShapeResult run_shape(const Shape& shape, const std::string& cache_path, bool reuse, int tune_samples, int samples,
                      int calls, const std::string& compile_dir, const DeviceInfo& dev, const cuda::DeviceBuffer& flush,
                      cudaStream_t stream, double roof_gbps, const std::string& exact_untuned_cache) {
  ShapeResult res;
  res.shape = &shape;
  res.tuning = tune_shape(shape, cache_path, reuse, tune_samples, compile_dir);
  measure_construction(shape, cache_path, res);
  const Adaptive handle = make_adaptive(shape.base, cache_path);
  res.ranges = handle.resolution().sizes.size();

  // The winners the handle's table is built from, with the lookup the handle uses.
  const Cache ro = Cache::open_read_only(cache_path);
  const LookupTarget target{dev.model_key(), dev.arch(), dev.sm_count, dev.driver_version, dev};
  const SizeLookup sl = lookup_sizes(ro, target, shape.base);
  res.winners = sl.winners.size();
  ShapeContext ctx{shape, handle, sl, {}, {}, dev, compile_dir, flush, samples, stream};
  for (const Winner& w : sl.winners)
    if (w.model_key == dev.model_key()) ctx.by_n[w.problem.n()] = &w;

  // Ladder sizes and the untuned sizes 3 * 4^k between the ladder's ends, in ascending order.
  std::vector<std::pair<std::uint64_t, std::optional<std::size_t>>> sizes;  // n, index in the ladder
  for (std::size_t i = 0; i < shape.ladder.size(); ++i) sizes.push_back({shape.ladder[i], i});
  for (std::uint64_t n = 3 * 4096; n < shape.ladder.back(); n *= 4)
    if (n > shape.ladder.front() && !ctx.by_n.count(n)) sizes.push_back({n, std::nullopt});
  std::sort(sizes.begin(), sizes.end());
  if (!exact_untuned_cache.empty()) {
    std::vector<std::uint64_t> untuned;
    for (const auto& [n, index] : sizes)
      if (!index) untuned.push_back(n);
    ctx.untuned_exact = tune_untuned(shape, untuned, exact_untuned_cache, tune_samples, compile_dir);
  }
  for (const auto& [n, index] : sizes) res.rows.push_back(time_size(ctx, n, index));

  res.overhead = call_overhead(ctx, calls);
  res.table = shape_markdown(res, handle, roof_gbps);
  return res;
}

std::string verdict(bool pass) { return pass ? "**PASS**" : "**MISS**"; }

// The summary's lines over every shape: regret at the tuned sizes and leave-one-out regret.
std::string all_shapes_lines(const std::vector<double>& all_regret, const std::vector<double>& all_loo) {
  const double mr = median_of(all_regret), wr = max_of(all_regret), ml = median_of(all_loo), wl = max_of(all_loo);
  std::string out;
  out += fmt::format("| median regret ({} sizes) | all shapes | {} % | <= 2 % | {} |\n", all_regret.size(), pct(mr),
                     all_regret.empty() ? "-" : verdict(mr <= 0.02));
  out += fmt::format("| worst regret | all shapes | {} % | <= 5 % | {} |\n", pct(wr),
                     all_regret.empty() ? "-" : verdict(wr <= 0.05));
  out += fmt::format("| median LOO regret ({} sizes) | all shapes | {} % | <= 3 % | {} |\n", all_loo.size(), pct(ml),
                     all_loo.empty() ? "-" : verdict(ml <= 0.03));
  out += fmt::format("| worst LOO regret | all shapes | {} % | <= 10 % | {} |\n", pct(wl),
                     all_loo.empty() ? "-" : verdict(wl <= 0.10));
  return out;
}

std::string summary(const std::vector<ShapeResult>& results) {
  std::string out =
      "## Summary\n\nRegret: adaptive handle / exact per-size winner - 1 at the tuned ladder sizes. LOO: the size "
      "table's choice with the size and its adjacent crossovers left out, at interior ladder sizes only (at the "
      "ladder's ends it extrapolates; shown in the tables as (edge)). vs CUB: CUB's time / the handle's, at every "
      "size timed (ladder and between).\n\n| metric | shape | measured | target | result |\n|---|---|---:|---|---|\n";
  std::vector<double> all_regret, all_loo;
  bool any_wrong = false;
  for (const ShapeResult& r : results) {
    std::vector<double> regret, loo, vs_cub, untuned;
    for (const Row& row : r.rows) {
      any_wrong = any_wrong || row.wrong;
      if (row.has_exact && !row.ladder) untuned.push_back(row.regret);
      if (row.has_exact && row.ladder) {
        regret.push_back(row.regret);
        if (!row.edge) loo.push_back(row.loo_regret);
      }
      if (row.has_cub && row.adaptive_ms > 0) vs_cub.push_back(row.cub_ms / row.adaptive_ms);
    }
    all_regret.insert(all_regret.end(), regret.begin(), regret.end());
    all_loo.insert(all_loo.end(), loo.begin(), loo.end());
    const std::string& t = r.shape->title;
    auto line = [&](const std::string& metric, const std::string& value, const std::string& target,
                    std::optional<bool> pass) {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", metric, t, value, target, pass ? verdict(*pass) : "-");
    };
    const double mr = median_of(regret), wr = max_of(regret), ml = median_of(loo), wl = max_of(loo);
    line(fmt::format("median regret ({} sizes)", regret.size()), pct(mr) + " %", "<= 2 %",
         regret.empty() ? std::nullopt : std::optional(mr <= 0.02));
    line("worst regret", pct(wr) + " %", "<= 5 %", regret.empty() ? std::nullopt : std::optional(wr <= 0.05));
    line(fmt::format("median LOO regret ({} interior sizes)", loo.size()), pct(ml) + " %", "<= 3 %",
         loo.empty() ? std::nullopt : std::optional(ml <= 0.03));
    line("worst LOO regret", pct(wl) + " %", "<= 10 %", loo.empty() ? std::nullopt : std::optional(wl <= 0.10));
    if (!untuned.empty()) {  // --exact-untuned: the handle against each untuned size's own exact winner
      line(fmt::format("median regret at untuned sizes ({} sizes, each tuned exactly for this)", untuned.size()),
           pct(median_of(untuned)) + " %", "-", std::nullopt);
      line("worst regret at untuned sizes", pct(max_of(untuned)) + " %", "-", std::nullopt);
    }
    const double mc = min_of(vs_cub), gc = geomean_of(vs_cub);
    line(fmt::format("min vs CUB ({} sizes)", vs_cub.size()), fmt::format("{:.2f}x", mc), ">= 1.0x",
         vs_cub.empty() ? std::nullopt : std::optional(mc >= 1.0));
    line("geometric mean vs CUB", fmt::format("{:.2f}x", gc), r.shape->cub_geomean_target ? ">= 1.5x" : "-",
         r.shape->cub_geomean_target && !vs_cub.empty() ? std::optional(gc >= 1.5) : std::nullopt);
    const TuneSummary& tu = r.tuning;
    if (r.shape->timed_prefix == 8) {
      if (tu.prefix_clean && tu.prefix_sizes == 8)
        line("ladder tuning, first 8 sizes, cold compile cache", fmt::format("{:.1f} s", tu.prefix_seconds), "<= 60 s",
             tu.prefix_seconds <= 60.0);
      else
        line("ladder tuning, first 8 sizes", fmt::format("{:.1f} s (not comparable: sizes reused or cache warm)",
                                                         tu.prefix_seconds),
             "<= 60 s", std::nullopt);
    } else if (r.shape->id == "u8") {
      line(fmt::format("ladder tuning, {} sizes (--quick)", r.shape->ladder.size()),
           fmt::format("{:.1f} s", tu.seconds), "<= 60 s at 8 sizes: not measured", std::nullopt);
    }
    line("ladder tuning, whole ladder", fmt::format("{:.1f} s ({} tuned, {} reused, {} crossovers)", tu.seconds,
                                                    tu.tuned, tu.skipped, tu.crossovers),
         "-", std::nullopt);
    line(fmt::format("construction, cubins cached ({} ranges, {} tuned sizes)", r.ranges, r.winners),
         fmt::format("{:.2f} ms (resolve {:.2f}){}", r.construct_ms, r.construct_resolve_ms,
                     r.construct_compiled ? " (a range from source)" : ""),
         "<= 10 ms (8-entry table)", r.construct_ms <= 10.0);
    const Overhead& o = r.overhead;
    line("per-call overhead over a direct launch (max of GPU-event and host-enqueue difference)",
         fmt::format("{:+.2f} us (events {:+.2f}, host {:+.2f})", o.diff(), o.handle_event_us - o.raw_event_us,
                     o.handle_host_us - o.raw_host_us),
         "<= 1 us", o.diff() <= 1.0);
  }
  if (results.size() > 1) out += all_shapes_lines(all_regret, all_loo);
  out += fmt::format("| correctness (every timed call checked against the CPU reference) | all shapes | {} | exact | {} |\n",
                     any_wrong ? "WRONG results (see the tables)" : "all exact", verdict(!any_wrong));
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string cache_path, markdown, commit = AUTOTUNE_BENCH_COMMIT " (build configured at it; --commit to override)";
  bool reuse = false, quick = false, exact_untuned = false;
  int samples = 30, tune_samples = 15, calls = 4096;
  std::set<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--cache" && has) cache_path = argv[++i];
    else if (a == "--reuse") reuse = true;
    else if (a == "--quick") quick = true;
    else if (a == "--exact-untuned") exact_untuned = true;
    else if (a == "--samples" && has) samples = std::stoi(argv[++i]);
    else if (a == "--tune-samples" && has) tune_samples = std::stoi(argv[++i]);
    else if (a == "--calls" && has) calls = std::stoi(argv[++i]);
    else if (a == "--shape" && has) only.insert(argv[++i]);
    else if (a == "--commit" && has) commit = argv[++i];
    else if (a == "--markdown" && has) markdown = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: size_bench [--cache FILE] [--reuse] [--samples K] [--tune-samples K] [--shape u8|f32|sum]... "
                   "[--quick] [--exact-untuned] [--calls N] [--commit HASH] [--markdown FILE]\n");
      return 2;
    }
  }
  if (samples < 1 || tune_samples < 1 || calls < 1) throw UsageError("--samples, --tune-samples, --calls: at least 1");
  for (const auto& s : only)
    if (s != "u8" && s != "f32" && s != "sum") throw UsageError("--shape: u8, f32 or sum, not " + s);

  const auto tmp = std::filesystem::temp_directory_path() / fmt::format("autotune_size_bench_{}", ::getpid());
  std::filesystem::create_directories(tmp);
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } cleanup{tmp};
  if (cache_path.empty()) cache_path = (tmp / "size_bench.db").string();

  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * dev.l2_bytes);
  const bench::ReadRoof roof = bench::measure_bench_roof(flush, samples, stream.get());

  std::string doc = fmt::format(
      "# Size-adaptive handles: regret and CUB (issue #14)\n\n"
      "GPU: {}. Synthetic uniform data (seed 42).\n\n"
      "Read roof (16-byte streaming read of 512 MiB, this run): **{:.0f} GB/s** (spread {:.1f} %). Every time is the "
      "median of {} calls with the L2 flushed before each, events around one whole call (zeroing included); the "
      "contenders of a size are timed round by round, interleaved. Tuning: `tune_ladder`, {} samples per variant, "
      "cache `{}`{}.\n\n",
      bench::measured_on(dev, commit), roof.gbps, roof.spread * 100, samples, tune_samples, cache_path, reuse ? " (--reuse)" : "");
  std::printf("%s", doc.c_str());
  std::fflush(stdout);
  auto save = [&](const std::string& text) {
    if (!markdown.empty()) std::ofstream(markdown) << text;
  };
  save(doc);

  const std::vector<Shape> shapes = all_shapes(quick);
  std::vector<ShapeResult> results;
  results.reserve(shapes.size());
  for (const Shape& shape : shapes) {
    if (!only.empty() && !only.count(shape.id)) continue;
    const std::string compile_dir = (tmp / ("cubins_" + shape.id)).string();  // fresh: cold for each shape
    const std::string scratch = exact_untuned ? (tmp / ("exact_untuned_" + shape.id + ".db")).string() : "";
    results.push_back(run_shape(shape, cache_path, reuse, tune_samples, samples, calls, compile_dir, dev, flush,
                                stream.get(), roof.gbps, scratch));
    std::printf("%s", results.back().table.c_str());
    std::fflush(stdout);
    doc += results.back().table;
    save(doc);  // partial results survive a timeout
  }
  const std::string s = summary(results);
  std::printf("%s", s.c_str());
  doc += s;
  save(doc);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "size_bench: %s\n", e.what());
  return 1;
}
