// Off the tuned points (issues #15, #26): problems that neither a plain `autotune tune` nor the standard preset
// tunes (other bins, ranges, sizes, sample types, operators, distributions), each served by a handle the way an
// application gets it, against the exact winner of that very problem and against CUB, on GPU 0, in one run.
//
// For each problem of the grid (grid() below):
//   1. the handle with an EMPTY cache (no tuning at all): what the measured default policy alone picks
//      (kernel_templates/<family>/policy.json, runtime/policy.cpp); its resolution must say `policy`;
//   2. with --tuned-cache FILE (a cache after a plain `autotune tune`, with or without `--preset standard`, on this
//      GPU): the handle from it, the ranked lookup's choice (runtime/rank.hpp) over everything the cache holds;
//   3. the exact winner: the problem tuned now (exhaustive, the tuner's own timing) into a temporary cache, or into
//      --exact-cache FILE, kept: every variant's time at the problem's n, to replay the lookup's choices offline;
//      with --exact-from FILE (an earlier run's --exact-cache, same GPU model), its winner is taken from there and
//      only the problems it lacks are tuned: a re-check of the lookup costs minutes, not a tuning of every row;
//   4. CUB (bench/baselines), the same input and output buffers.
// Each contender is verified against the CPU reference first (Workload::check_call / LoadedVariant::check); then all
// are timed round by round, interleaved, the L2 flushed before each call, median of --samples. Regret = time /
// time(exact) - 1.
//
// --text FILE adds u8 histograms of real bytes (FILE's contents repeated to n; e.g. C headers: text): the handle and
// CUB only (the tuner has no such distribution), each histogram compared bin for bin with a host count. --photo RGB
// does the same with a photo's raw 8-bit RGB bytes (e.g. `djpeg -pnm photo.jpg | tail -c +16`, past a PPM header of
// 15 bytes), among them issue #26's target: 37 bins over [10, 250) at 256M samples.
// --only histograms|reductions runs half of the grid (two device calls of under 10 minutes each); --rows A:B runs
// that part's grid rows A..B-1 alone, so that exact tunings too long for one call split over two.
//
// --compare-cache FILE times a second handle, from another cache (a plain tune's cache with `--preset standard` added
// to it), in the same rounds as the --tuned-cache handle: the summary counts the problems it runs more than 2 %
// slower (issue #26: the preset is never worse, beyond noise). --compare-measured-loads instead times the tuned cache's
// handle made with AUTOTUNE_LOADS_AS_MEASURED=1 (runtime/streaming.hpp's evict-first size rule off) as the compared
// one: an A/B of that rule in the same rounds (its "vs tuned" column: how much slower the handle without it runs).
// --compare-memset-zero does the same with AUTOTUNE_ZERO_WITH_MEMSET=1: merge=atomic histograms zeroed by a memset
// that the counting launch waits for, against the zeroing kernel it overlaps (cuda::zero_with_kernel).
// --compare-self-zero-as-measured with AUTOTUNE_SELF_ZERO_AS_MEASURED=1: one-launch merges served as measured,
// against the lookup's rule that serves them as merge=atomic with that zeroing kernel (runtime/one_launch.hpp).
// --compare-policy DIR times the tuned cache's handle made with AUTOTUNE_POLICY_DIR=DIR (DIR/<family>.json replaces
// the embedded policy: runtime/policy.hpp) as the compared one: an A/B of a policy change in the same rounds (DIR
// holding the policy before it, e.g. `git show REV:kernel_templates/histogram/policy.json > DIR/histogram.json`).
//
// --problem KEY (repeated) measures those histogram or reduce problems instead of a grid: e.g. a handle against the
// exact winner of an earlier tuning (--exact-from), loaded as the tuner loads it, in the same rounds.
//
//   shape_bench [--samples K] [--tune-samples K] [--tuned-cache FILE]
//               [--compare-cache FILE | --compare-measured-loads | --compare-memset-zero |
//                --compare-self-zero-as-measured | --compare-policy DIR]
//               [--exact-cache FILE]
//               [--exact-from FILE] [--only histograms|reductions] [--rows A:B] [--text FILE] [--quick]
//               [--held-out N [--seed S]] [--problem KEY ...] [--no-exact] [--list] [--commit HASH] [--markdown FILE]
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
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
#include "bench/bench_common.hpp"
#include "bench/held_out.hpp"
#include "bench/read_roof.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/ladder.hpp"
#include "core/workload.hpp"
#include "runtime/policy.hpp"

#ifndef AUTOTUNE_BENCH_COMMIT
#define AUTOTUNE_BENCH_COMMIT "unknown"
#endif

using namespace autotune;
using namespace autotune::bench;

namespace {

constexpr std::uint64_t M = 1ull << 20;

HistogramProblem hist(SampleType type, int bins, std::uint64_t n, std::string dist, std::optional<double> lower = {},
                      std::optional<double> upper = {}) {
  HistogramProblem p = HistogramProblem::with_defaults(type, bins, lower.value_or(0.0));
  if (upper) p.upper = *upper;
  p.n = n;
  p.distribution = std::move(dist);
  return p;
}

ReduceProblem red(ReduceOp op, ValueType type, std::uint64_t n) {
  ReduceProblem p;
  p.op = op;
  p.type = type;
  p.n = n;
  return p;
}

// Not in the standard preset (tuner/tuner.cpp, KernelFamily::preset_problems): the preset's histogram shapes are u8
// 32/256, u16 1024/65536, i32 1024, u32 256, f32 64/2048/32768/262144, f64 1024 at 64K, 1M, 16M (uniform and narrow);
// its reductions sum/min/max of every type at 64K, 1M, 16M, 256M (uniform). Nor in a plain `autotune tune` (u8/256
// and f32 sum at 64K..256M by powers of 4, f32/1024 bins at 16M): issue #26's grid spans sample types, bins from 16
// to 1M, ranges that are not a power of two, operators and sizes from 2K to 256M, on real-like data (photo-like
// gradients, text-like runs, skewed).
std::vector<Problem> grid(bool quick) {
  std::vector<Problem> out;
  out.push_back(hist(SampleType::u8, 128, 64 * M, "runs"));
  out.push_back(hist(SampleType::u8, 37, 24 * M, "image"));
  // Bins that are not a shift of the byte values: the direct kernel divides per sample, value counting does not.
  out.push_back(hist(SampleType::u8, 37, 256 * M, "image", 10.0, 250.0));
  out.push_back(hist(SampleType::f32, 65536, 64 * M, "image", 0.02, 0.8));
  out.push_back(hist(SampleType::f32, 4096, 64 * M, "narrow"));
  if (!quick) {
    out.push_back(hist(SampleType::u8, 16, 3 * M, "image"));
    out.push_back(hist(SampleType::u8, 100, 48 * M, "uniform", 0.0, 200.0));
    out.push_back(hist(SampleType::u8, 256, 100 * M, "image"));
    out.push_back(hist(SampleType::u8, 256, 200 * 1024, "runs"));
    out.push_back(hist(SampleType::i8, 64, 24 * M, "narrow", -128.0, 128.0));
    out.push_back(hist(SampleType::u16, 4096, 24 * M, "image"));
    out.push_back(hist(SampleType::u16, 300, 3 * M, "narrow"));
    out.push_back(hist(SampleType::i32, 37, 24 * M, "uniform"));
    out.push_back(hist(SampleType::i32, 5000, 100 * M, "narrow"));
    out.push_back(hist(SampleType::u32, 100000, 24 * M, "uniform"));
    out.push_back(hist(SampleType::f32, 1 << 20, 64 * M, "uniform"));
    out.push_back(hist(SampleType::f32, 37, 24 * M, "image"));
    out.push_back(hist(SampleType::f32, 100, 5 * M, "uniform", -1.0, 1.0));
    out.push_back(hist(SampleType::f32, 1000, 64 * M, "image"));
    out.push_back(hist(SampleType::f32, 5000, 200 * 1024, "narrow"));
    out.push_back(hist(SampleType::f32, 200000, 24 * M, "uniform"));
    out.push_back(hist(SampleType::f64, 100, 24 * M, "image"));
    out.push_back(hist(SampleType::f64, 5000, 5 * M, "uniform"));
    out.push_back(hist(SampleType::f16, 1000, 64 * M, "image"));
    out.push_back(hist(SampleType::bf16, 256, 16 * M, "narrow", -4.0, 4.0));
    // Runs of 1000 equal samples in the wider types (a flat region, a constant signal): a warp's lanes all count
    // into one bin, the contention that shared copies, run and warp aggregation are for.
    out.push_back(hist(SampleType::f32, 1000, 64 * M, "runs"));
    out.push_back(hist(SampleType::f32, 64, 16 * M, "runs", -1.0, 1.0));
    out.push_back(hist(SampleType::u16, 4096, 24 * M, "runs"));
    out.push_back(hist(SampleType::f16, 1000, 16 * M, "runs"));
    // Below the smallest size any policy entry or plain tune holds (64K): launch-bound calls.
    out.push_back(hist(SampleType::u8, 64, 8 * 1024, "image"));
    out.push_back(hist(SampleType::f32, 100, 16 * 1024, "narrow"));
  }
  if (quick) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max})
      out.push_back(red(op, ValueType::f32, op == ReduceOp::min ? 100 * M : 3 * M));
    return out;
  }
  // The examples (f32 min and max at 256M, f64 min at 128M), the launch floor (4K; and 2K to 16K of other
  // types and operators, below the policy's smallest entries), and sizes between the ladder's, for the three
  // operators CUB has for every type.
  using enum ReduceOp;
  const std::tuple<ReduceOp, ValueType, std::uint64_t> reductions[] = {
      {sum, ValueType::f32, 4096},    {sum, ValueType::f32, 200 * 1024}, {sum, ValueType::f32, 40 * M},
      {min, ValueType::f32, 256 * M}, {max, ValueType::f32, 256 * M},    {max, ValueType::f32, 3 * M},
      {sum, ValueType::f64, 3 * M},   {min, ValueType::f64, 128 * M},    {max, ValueType::f64, 500 * 1024},
      {sum, ValueType::i32, 100 * M}, {min, ValueType::i32, 3 * M},      {max, ValueType::i32, 40 * M},
      {sum, ValueType::f16, 3 * M},   {sum, ValueType::bf16, 100 * M},   {max, ValueType::i32, 8 * 1024},
      {sum, ValueType::f64, 16 * 1024}, {min, ValueType::f32, 2 * 1024}};
  for (const auto& [op, type, n] : reductions) out.push_back(red(op, type, n));
  return out;
}

struct Row {
  Problem problem = HistogramProblem{};
  std::string policy_why, tuned_source, exact_config, policy_config, tuned_config, compare_source, compare_config;
  double policy_ms = 0, tuned_ms = 0, exact_ms = 0, cub_ms = 0, tune_s = 0, compare_ms = 0;
  bool has_tuned = false, has_exact = false, has_cub = false, policy_served = false, wrong = false;
  bool has_compare = false;
  std::vector<std::string> notes;
  bool is_histogram() const { return problem.as<HistogramProblem>() != nullptr; }
};

std::string us(double ms) { return fmt::format("{:.1f}", ms * 1000.0); }
std::string pct(double x) { return std::isnan(x) ? "-" : fmt::format("{:+.1f}", x * 100.0); }
std::string ratio(double x) { return std::isnan(x) ? "-" : fmt::format("{:.2f}x", x); }

// The exact winner into `row`: from --exact-from when it holds the problem, else tuned now.
void find_exact_winner(Row& row, const Problem& p, const std::string& exact_from, const std::string& tune_cache,
                       int tune_samples, const std::string& compile_dir, const DeviceInfo& dev) {
  if (!exact_from.empty()) {
    const Cache earlier(exact_from);
    if (const auto w = earlier.find_winner(dev.model_key(), p)) {
      row.has_exact = true;
      row.exact_config = w->config.key();
      row.notes.push_back("exact winner from --exact-from");
      std::fprintf(stderr, "shape_bench: %s exact winner from %s: %s\n", p.key().c_str(), exact_from.c_str(),
                   row.exact_config.c_str());
    }
  }
  if (!row.has_exact) {
    Cache cache(tune_cache);
    TuneOptions o;
    o.device = 0;
    o.samples = tune_samples;
    o.compile_cache_dir = compile_dir;
    const auto t0 = Clock::now();
    const TuneReport r = tune(p, cache, o);
    row.tune_s = seconds_since(t0);
    if (r.winner) {
      row.has_exact = true;
      row.exact_config = r.winner->config.key();
    } else {
      row.notes.push_back("no correct variant when tuned");
    }
    std::fprintf(stderr, "shape_bench: %s tuned in %.1f s, winner %s\n", p.key().c_str(), row.tune_s,
                 row.exact_config.c_str());
  }
}

// The row's exact winner, loaded as the tuner loads a variant and checked against the CPU reference.
std::unique_ptr<LoadedVariant> load_exact(Row& row, const Problem& p, Workload& workload,
                                          const std::string& compile_dir, const DeviceInfo& dev, cudaStream_t stream) {
  const std::optional<Config> c = p.family().parse_config(row.exact_config);
  if (!c) throw Error("shape_bench: the tuner's winner key does not parse: " + row.exact_config);
  std::unique_ptr<LoadedVariant> exact = workload.load(*c, cubin_for(*c, {}, p, dev, compile_dir), false);
  if (auto why = exact->check(stream); !why.empty()) {
    row.notes.push_back("exact winner WRONG: " + why);
    row.wrong = true;
  }
  return exact;
}

// The cache files of a run: the empty one (the policy's handle), the tuned one, the compared one (--compare-cache),
// the earlier exact winners (--exact-from) and the one the exact tunings write.
struct Caches {
  std::string empty, tuned, compare, exact_from, tune;
  // --compare-measured-loads, --compare-memset-zero: the compared handle is the tuned cache's, made with this
  // environment variable set to 1 (the evict-first size rule off; the output zeroed by a memset)
  std::string compare_env;
  std::string policy_dir;       // --compare-policy: the compared handle is the tuned cache's from DIR's policy
};

// Sets an environment variable for a scope (one handle's construction), restoring its absence after.
// Sets an environment variable for a scope and then restores what it was (so that AUTOTUNE_POLICY_DIR set for the
// whole run, the policy the "tuned" handles come from, holds again after a compared handle's scope).
struct ScopedEnv {
  const char* name;
  std::optional<std::string> before;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* old = std::getenv(n)) before = old;
    ::setenv(n, value, 1);
  }
  ~ScopedEnv() {
    if (before) ::setenv(name, before->c_str(), 1);
    else ::unsetenv(name);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

Row run_problem(const Problem& p, const Caches& caches, int tune_samples, int samples, const std::string& compile_dir,
                const DeviceInfo& dev, const cuda::DeviceBuffer& flush, cudaStream_t stream) {
  Row row;
  row.problem = p;
  const Problem shape = p.with_n(0);  // a handle is made for the shape; n is the call's
  // 3. the exact winner (first: it may tune), unless --no-exact.
  if (tune_samples > 0) find_exact_winner(row, p, caches.exact_from, caches.tune, tune_samples, compile_dir, dev);

  const auto workload = p.family().make_workload(p, dev, 42);
  const std::uint64_t n = p.n();
  std::vector<std::function<void(cudaStream_t)>> contenders;
  std::vector<double*> slots;

  // 1. the handle from an empty cache: the policy.
  const Adaptive policy = make_adaptive(shape, caches.empty);
  const SizeRange& served = policy.range_for(n);
  row.policy_served = served.source_at(n) == ConfigSource::policy;
  row.policy_why = fmt::format("{} ({})", to_string(served.source_at(n)), served.why);
  row.policy_config = served.config.key();
  auto call_of = [&](const Adaptive& h) {
    return [&h, &workload, n](cudaStream_t s) { h.call(workload->input(), n, workload->output(), s); };
  };
  if (auto why = workload->check_call(call_of(policy), stream); !why.empty()) {
    row.notes.push_back("policy handle WRONG: " + why);
    row.wrong = true;
  }
  contenders.push_back(call_of(policy));
  slots.push_back(&row.policy_ms);

  // 2. the handles from the tuned cache (--tuned-cache) and from the compared one (--compare-cache), timed in the
  // same rounds: a cache after `--preset standard` against the plain tune's, problem by problem.
  std::optional<Adaptive> tuned, compared;
  auto add_cached = [&](const std::string& cache, std::optional<Adaptive>& handle, const std::string& what,
                        bool& present, std::string& source, std::string& config, double& ms) {
    if (cache.empty()) return;
    handle = make_adaptive(shape, cache);
    const SizeRange& r = handle->range_for(n);
    present = true;
    source = fmt::format("{} ({})", to_string(r.source_at(n)), r.why);
    config = r.config.key();
    if (auto why = workload->check_call(call_of(*handle), stream); !why.empty()) {
      row.notes.push_back(what + " handle WRONG: " + why);
      row.wrong = true;
    }
    contenders.push_back(call_of(*handle));
    slots.push_back(&ms);
  };
  add_cached(caches.tuned, tuned, "tuned", row.has_tuned, row.tuned_source, row.tuned_config, row.tuned_ms);
  {  // --compare-measured-loads, --compare-memset-zero: the tuned cache's handle with compare_env set;
     // --compare-policy: from DIR's policy
    std::optional<ScopedEnv> env;
    if (!caches.compare_env.empty()) env.emplace(caches.compare_env.c_str(), "1");
    if (!caches.policy_dir.empty()) env.emplace("AUTOTUNE_POLICY_DIR", caches.policy_dir.c_str());
    add_cached(!caches.compare_env.empty() || !caches.policy_dir.empty() ? caches.tuned : caches.compare, compared,
               "compared", row.has_compare, row.compare_source, row.compare_config, row.compare_ms);
  }

  // 3. the exact winner, loaded as the tuner loads a variant.
  std::unique_ptr<LoadedVariant> exact;
  if (row.has_exact) {
    exact = load_exact(row, p, *workload, compile_dir, dev, stream);
    contenders.push_back([&exact](cudaStream_t s) { exact->run(s); });
    slots.push_back(&row.exact_ms);
  }

  // 4. CUB.
  const auto cub = cub_baseline(p, workload->input(), workload->output());
  if (cub) {
    if (auto why = workload->check_call(cub->run, stream); !why.empty())
      row.notes.push_back("CUB differs from the CPU reference (" + why + "); timed anyway");
    contenders.push_back(cub->run);
    slots.push_back(&row.cub_ms);
    row.has_cub = true;
  } else {
    row.notes.push_back("no CUB call for this problem");
  }

  const auto t = time_interleaved(contenders, flush, samples, stream);
  for (std::size_t i = 0; i < t.size(); ++i) *slots[i] = t[i].median;
  return row;
}

// A u8 histogram of real bytes (text, or a photo's RGB bytes): the handle against CUB, each checked bin for bin
// against a host count.
struct TextRow {
  std::string data;  ///< "text" or "photo"
  HistogramProblem problem;
  std::string source, config;
  double policy_ms = 0, cub_ms = 0;
  bool wrong = false, has_cub = false;
  std::string note;
  /// The handle's configuration with other shared copies (R = 1, 16, 32) and with values counted or not, each
  /// checked against the host count and timed in the same rounds: what contention on real bytes costs.
  std::vector<std::pair<std::string, double>> probes;
};

// The probes of a real-bytes row: three bases (the handle's configuration; the built-in value-counting default, the
// u8/256 winner at 512 MiB; the best value counting of 37 bins over [10, 250) on generated photo-like data, H200
// 2026-12-02) each with R in {1, 16, 32} and binning values / direct, valid ones only.
std::vector<HistogramConfig> probe_configs(const HistogramProblem& p, const HistogramConfig& config,
                                           const Workload& workload) {
  std::vector<HistogramConfig> bases{config, HistogramConfig::fallback(p)};
  if (auto c = HistogramConfig::parse(
          "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0"))
    bases.push_back(*c);
  std::vector<HistogramConfig> out;
  for (const HistogramConfig& base : bases)
    for (Binning b : {Binning::values, Binning::direct})
      for (int r : {1, 16, 32}) {
        HistogramConfig c = base;
        c.binning = b, c.replicas = r;
        if (c.privatization != Privatization::shared && r != 1) continue;
        if (!c.invalid_reason(p).empty() || !workload.violation(Config(c)).empty()) continue;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
      }
  return out;
}

TextRow run_text(const std::vector<unsigned char>& bytes, int bins, double lower, double upper, std::uint64_t n,
                 const std::string& cache, const std::string& compile_dir, const DeviceInfo& dev,
                 const cuda::DeviceBuffer& flush, int samples, cudaStream_t stream) {
  TextRow row;
  row.problem = HistogramProblem::with_defaults(SampleType::u8, bins, lower);
  row.problem.upper = upper;
  row.problem.n = n;
  std::vector<unsigned char> host(n);
  for (std::uint64_t i = 0; i < n; ++i) host[i] = bytes[i % bytes.size()];
  std::vector<std::uint32_t> expect(static_cast<std::size_t>(bins), 0);
  for (unsigned char b : host)
    if (static_cast<double>(b) >= row.problem.lower && static_cast<double>(b) < row.problem.upper)
      ++expect[static_cast<std::size_t>((b - static_cast<int>(row.problem.lower)) * bins /
                                        static_cast<int>(row.problem.upper - row.problem.lower))];
  cuda::DeviceBuffer d_in(n), d_out(sizeof(std::uint32_t) * static_cast<std::size_t>(bins));
  AUTOTUNE_CUDA(cudaMemcpy(d_in.get(), host.data(), n, cudaMemcpyHostToDevice));

  HistogramProblem shape = row.problem;
  shape.n = 0;
  const Adaptive h = make_adaptive(shape, cache);
  row.source = fmt::format("{} ({})", to_string(h.range_for(n).source_at(n)), h.range_for(n).why);
  row.config = h.range_for(n).config.key();
  auto verify = [&](const std::function<void(cudaStream_t)>& f, const char* who) {
    AUTOTUNE_CUDA(cudaMemsetAsync(d_out.get(), 0xff, d_out.bytes(), stream));
    f(stream);
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    std::vector<std::uint32_t> got(expect.size());
    AUTOTUNE_CUDA(cudaMemcpy(got.data(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost));
    if (got != expect) {
      row.wrong = true;
      row.note += std::string(who) + " differs from the host count; ";
    }
  };
  std::vector<std::function<void(cudaStream_t)>> contenders{
      [&](cudaStream_t s) { h.call(d_in.get(), n, d_out.get(), s); }};
  verify(contenders[0], "handle");
  const Problem p = row.problem;
  const auto cub = cub_baseline(p, d_in.get(), d_out.get());
  if (cub) {
    verify(cub->run, "CUB");
    contenders.push_back(cub->run);
    row.has_cub = true;
  }
  // The probes run on the workload's buffers, its input overwritten with the same real bytes.
  const auto workload = p.family().make_workload(p, dev, 42);
  AUTOTUNE_CUDA(cudaMemcpy(const_cast<void*>(workload->input()), host.data(), n, cudaMemcpyHostToDevice));
  std::vector<std::unique_ptr<LoadedVariant>> probes;
  std::vector<std::string> probe_keys;
  const auto* handle_config = h.range_for(n).config.as<HistogramConfig>();
  for (const HistogramConfig& c : probe_configs(row.problem, *handle_config, *workload)) {
    try {
      probes.push_back(workload->load(Config(c), cubin_for(Config(c), {}, p, dev, compile_dir), false));
    } catch (const Error& e) {
      row.note += "probe " + c.key() + " not loaded: " + e.what() + "; ";
      continue;
    }
    probe_keys.push_back(c.key());
    const LoadedVariant* v = probes.back().get();
    // Checked against the host count on the workload's output buffer.
    AUTOTUNE_CUDA(cudaMemsetAsync(workload->output(), 0xff, expect.size() * sizeof(std::uint32_t), stream));
    v->run(stream);
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    std::vector<std::uint32_t> got(expect.size());
    AUTOTUNE_CUDA(cudaMemcpy(got.data(), workload->output(), got.size() * sizeof(std::uint32_t),
                             cudaMemcpyDeviceToHost));
    if (got != expect) {
      row.wrong = true;
      row.note += "probe " + c.key() + " differs from the host count; ";
    }
    contenders.push_back([v](cudaStream_t s) { v->run(s); });
  }
  const auto t = time_interleaved(contenders, flush, samples, stream);
  row.policy_ms = t[0].median;
  if (cub) row.cub_ms = t[1].median;
  for (std::size_t i = 0; i < probe_keys.size(); ++i)
    row.probes.emplace_back(probe_keys[i], t[t.size() - probe_keys.size() + i].median);
  return row;
}

std::string verdict(bool pass) { return pass ? "**PASS**" : "**MISS**"; }

// Issue #26: a cache after `--preset standard` is never worse than the plain tune's beyond noise. How many rows the
// compared handle ran slower than the tuned one by more than `noise`, and the largest slowdown of all.
std::pair<std::size_t, double> compared_slower(const std::vector<Row>& rows, double noise) {
  std::size_t slower = 0;
  double worst = -1.0;
  for (const Row& r : rows) {
    if (!r.has_compare || !r.has_tuned) continue;
    const double d = r.compare_ms / r.tuned_ms - 1;
    worst = std::max(worst, d);
    if (d > noise) ++slower;
  }
  return {slower, worst};
}

// --compare-policy DIR: with --tuned-cache and neither other comparison, DIR holding a policy file of a family the
// bench measures (runtime/policy.hpp: DIR/<family>.json), which parses.
void check_policy_dir(const std::string& dir, bool alone_with_tuned_cache) {
  if (!alone_with_tuned_cache)
    throw UsageError("--compare-policy: needs --tuned-cache, and not with --compare-cache, --compare-measured-loads or "
                     "--compare-memset-zero");
  bool any = false;
  for (const char* family : {"histogram", "reduce"}) {
    const std::filesystem::path file = std::filesystem::path(dir) / fmt::format("{}.json", family);
    if (!std::filesystem::is_regular_file(file)) continue;
    std::ifstream in(file);
    try {
      (void)parse_policy(family, std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
    } catch (const Error& e) {
      throw UsageError(fmt::format("--compare-policy: {}: {}", file.string(), e.what()));
    }
    any = true;
  }
  if (!any) throw UsageError("--compare-policy: " + dir + " holds neither histogram.json nor reduce.json");
}

// --rows A:B: the grid rows A..B-1 of the part (either bound may be left out: "10:" is from row 10 on).
std::pair<std::size_t, std::size_t> parse_rows(const std::string& text) {
  const auto colon = text.find(':');
  const auto bound = [&](const std::string& s, std::size_t fallback) -> std::size_t {
    if (s.empty()) return fallback;
    if (s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9)
      throw UsageError("--rows: A:B with A and B row numbers, not " + text);
    return std::stoul(s);
  };
  if (colon == std::string::npos) throw UsageError("--rows: A:B (rows A..B-1 of the part), not " + text);
  const std::size_t a = bound(text.substr(0, colon), 0), b = bound(text.substr(colon + 1), SIZE_MAX);
  if (a >= b) throw UsageError("--rows: A must be less than B in " + text);
  return {a, b};
}

}  // namespace

int main(int argc, char** argv) try {
  std::string tuned_cache, compare_cache, exact_keep, exact_from, only, text_file, photo_file, markdown, policy_dir,
      commit = AUTOTUNE_BENCH_COMMIT " (build configured at it; --commit to override)";
  bool quick = false, no_exact = false, list = false;
  std::string compare_env;  // --compare-measured-loads, --compare-memset-zero
  int samples = 21, tune_samples = 15;
  std::size_t held_out = 0;  // --held-out N: N problems drawn from --seed instead of grid()
  std::vector<Problem> given;  // --problem KEY (repeated): these problems instead of grid()
  std::uint64_t seed = 20261204;
  std::size_t first_row = 0, end_row = SIZE_MAX;  // --rows A:B, the part's grid rows A..B-1 (one device call each)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--samples" && has) samples = std::stoi(argv[++i]);
    else if (a == "--tune-samples" && has) tune_samples = std::stoi(argv[++i]);
    else if ((a == "--preset-cache" || a == "--tuned-cache") && has) tuned_cache = argv[++i];
    else if (a == "--exact-cache" && has) exact_keep = argv[++i];
    else if (a == "--compare-cache" && has) compare_cache = argv[++i];
    else if (a == "--exact-from" && has) exact_from = argv[++i];
    else if (a == "--compare-measured-loads") compare_env = "AUTOTUNE_LOADS_AS_MEASURED";
    else if (a == "--compare-memset-zero") compare_env = "AUTOTUNE_ZERO_WITH_MEMSET";
    else if (a == "--compare-self-zero-as-measured") compare_env = "AUTOTUNE_SELF_ZERO_AS_MEASURED";
    else if (a == "--compare-policy" && has) policy_dir = argv[++i];
    else if (a == "--only" && has) only = argv[++i];
    else if (a == "--rows" && has) std::tie(first_row, end_row) = parse_rows(argv[++i]);
    else if (a == "--text" && has) text_file = argv[++i];
    else if (a == "--photo" && has) photo_file = argv[++i];
    else if (a == "--quick") quick = true;
    else if (a == "--held-out" && has) held_out = std::stoul(argv[++i]);
    else if (a == "--seed" && has) seed = std::stoull(argv[++i]);
    else if (a == "--no-exact") no_exact = true;
    else if (a == "--problem" && has) {
      const std::optional<Problem> p = Problem::parse(argv[++i]);
      if (!p || (p->family().name() != "histogram" && p->family().name() != "reduce"))
        throw UsageError(fmt::format("--problem: '{}' is not the key of a histogram or reduce problem", argv[i]));
      given.push_back(*p);
    }
    else if (a == "--list") list = true;
    else if (a == "--commit" && has) commit = argv[++i];
    else if (a == "--markdown" && has) markdown = argv[++i];
    else {
      std::fprintf(stderr, "usage: shape_bench [--samples K] [--tune-samples K] [--tuned-cache FILE] "
                           "[--compare-cache FILE | --compare-measured-loads | --compare-memset-zero | "
                           "--compare-self-zero-as-measured | --compare-policy DIR] "
                           "[--exact-cache FILE] "
                           "[--exact-from FILE] "
                           "[--only histograms|reductions] [--rows A:B] [--text FILE] [--photo RGB] [--quick] "
                           "[--held-out N [--seed S]] [--problem KEY ...] [--no-exact] [--list] [--commit HASH] "
                           "[--markdown FILE]\n");
      return 2;
    }
  }
  if (samples < 1 || tune_samples < 1) throw UsageError("--samples, --tune-samples: at least 1");
  if (!only.empty() && only != "histograms" && only != "reductions" && only != "real")
    throw UsageError("--only: histograms, reductions or real (the real-bytes rows alone), not " + only);
  if (!exact_keep.empty() && std::filesystem::exists(exact_keep))
    throw UsageError("--exact-cache: " + exact_keep + " exists; name a new file");
  if (!tuned_cache.empty() && !std::filesystem::exists(tuned_cache))
    throw UsageError("--tuned-cache: no file " + tuned_cache);
  if (!compare_cache.empty() && (tuned_cache.empty() || !std::filesystem::exists(compare_cache)))
    throw UsageError("--compare-cache: needs --tuned-cache, and an existing file (not " + compare_cache + ")");
  if (!compare_env.empty() && (tuned_cache.empty() || !compare_cache.empty()))
    throw UsageError("--compare-measured-loads, --compare-memset-zero, --compare-self-zero-as-measured: need "
                     "--tuned-cache, and not with --compare-cache");
  if (!policy_dir.empty()) check_policy_dir(policy_dir, !tuned_cache.empty() && compare_cache.empty() && compare_env.empty());
  if (!exact_from.empty() && !std::filesystem::exists(exact_from))
    throw UsageError("--exact-from: no file " + exact_from);
  auto read_bytes = [](const std::string& file, const char* flag) {
    std::vector<unsigned char> out;
    if (file.empty()) return out;
    std::ifstream in(file, std::ios::binary);
    if (!in) throw UsageError(std::string(flag) + ": cannot read " + file);
    out.assign(std::istreambuf_iterator<char>(in), {});
    if (out.empty()) throw UsageError(std::string(flag) + ": " + file + " is empty");
    return out;
  };
  const std::vector<unsigned char> text = read_bytes(text_file, "--text"), photo = read_bytes(photo_file, "--photo");
  if (held_out > 0 && (quick || !text.empty() || !photo.empty()))
    throw UsageError("--held-out: its own grid; not with --quick, --text or --photo");
  if (!given.empty() && (held_out > 0 || quick || !text.empty() || !photo.empty()))
    throw UsageError("--problem: the given problems alone; not with --held-out, --quick, --text or --photo");
  const std::vector<Problem> problems =
      !given.empty() ? given : held_out > 0 ? held_out_problems(held_out, seed) : grid(quick);
  if (list) {  // the grid, without a GPU: what a device call would measure
    for (const Problem& p : problems) std::printf("%s\n", p.key().c_str());
    return 0;
  }
  if (no_exact) tune_samples = 0;  // run_problem: no exact winner, no regret

  const auto tmp = std::filesystem::temp_directory_path() / fmt::format("autotune_shape_bench_{}", ::getpid());
  std::filesystem::create_directories(tmp);
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } cleanup{tmp};
  const std::string empty_cache = (tmp / "empty.db").string();  // never created: a lookup never writes
  // --exact-cache keeps every measurement of the exact tunings (each problem's whole space at its n): what an
  // offline replay of the lookup's choices is priced with.
  const std::string tune_cache = exact_keep.empty() ? (tmp / "exact.db").string() : exact_keep;
  const std::string compile_dir = (tmp / "cubins").string();

  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * dev.l2_bytes);
  const ReadRoof roof = measure_bench_roof(flush, samples, stream.get());

  std::string doc = fmt::format(
      "# Off the tuned points: the default policy, a tuned cache and CUB on untuned problems (issues #15, #26)\n\n"
      "GPU: {}. Data: the tuner's generators "
      "(seed 42): uniform, narrow (skewed), runs (text-like runs), image (photo-like){}.\n\n"
      "Read roof (16-byte streaming read of 512 MiB, this run): **{:.0f} GB/s**. Every time is the median of {} "
      "calls with the L2 flushed before each, contenders interleaved round by round; every contender checked against "
      "the CPU reference first. `policy` = a handle with an empty cache (no tuning); `tuned` = a handle from {}; "
      "`exact` = {}{}; regret = time / exact - 1.{}\n\n",
      measured_on(dev, commit), fmt::format("{}{}", text.empty() ? "" : fmt::format("; real text: {} ({} bytes, repeated)", text_file, text.size()),
                  photo.empty() ? "" : fmt::format("; a real photo's RGB bytes: {} ({} bytes, repeated)", photo_file, photo.size())),
      roof.gbps,
      samples, tuned_cache.empty() ? "(not run: no --tuned-cache)" : "`" + tuned_cache + "`",
      no_exact ? std::string("not run (--no-exact)") : fmt::format("the problem tuned now ({} samples per variant)", tune_samples),
      exact_from.empty() ? ""
                         : fmt::format(", or the winner an earlier exact tuning on this GPU model recorded in `{}` "
                                       "(rows noted so), timed now",
                                       exact_from),
      held_out == 0 ? std::string()
                    : fmt::format(" The problems: {} drawn at random from seed {} (bench/held_out.hpp), none chosen by "
                                  "hand.", held_out, seed));
  std::printf("%s", doc.c_str());
  std::fflush(stdout);
  auto save = [&]() {
    if (!markdown.empty()) std::ofstream(markdown) << doc;
  };

  std::vector<Row> rows;
  std::size_t part_row = 0;  // the row's index among the part's grid rows, for --rows
  for (const Problem& p : problems) {
    const bool histogram = p.as<HistogramProblem>() != nullptr;
    if ((only == "histograms" && !histogram) || (only == "reductions" && histogram) || only == "real") continue;
    const std::size_t index = part_row++;
    if (index < first_row || index >= end_row) continue;
    try {
      rows.push_back(run_problem(p, {empty_cache, tuned_cache, compare_cache, exact_from, tune_cache, compare_env, policy_dir},
                                 tune_samples,
                                 samples, compile_dir, dev, flush, stream.get()));
    } catch (const UsageError& e) {  // a problem the grid should not hold: say so, and measure the rest
      std::fprintf(stderr, "shape_bench: %s: %s\n", p.key().c_str(), e.what());
      Row r;
      r.problem = p;
      r.wrong = true;
      r.notes.push_back(std::string("REFUSED: ") + e.what());
      rows.push_back(r);
      continue;
    }
    const Row& r = rows.back();
    const std::string compared =
        r.has_compare ? fmt::format(", compared {:.1f} us ({})", r.compare_ms * 1e3, r.compare_config) : "";
    std::fprintf(stderr, "shape_bench: %s policy %.1f us, tuned %.1f us (%s), exact %.1f us, CUB %.1f us%s%s\n",
                 p.key().c_str(), r.policy_ms * 1e3, r.tuned_ms * 1e3, r.tuned_config.c_str(), r.exact_ms * 1e3,
                 r.cub_ms * 1e3, compared.c_str(), r.wrong ? " WRONG" : "");
  }
  if (std::filesystem::exists(empty_cache)) throw Error("shape_bench: a lookup created the empty cache file");

  // The tables.
  auto section = [&](bool histograms) {
    if (std::none_of(rows.begin(), rows.end(), [&](const Row& r) { return r.is_histogram() == histograms; }))
      return std::string();  // --only
    std::string out = fmt::format(
        "## {}\n\n| problem | n | policy (us) | vs CUB | regret % | GB/s | % roof |{} exact (us) | CUB (us) | "
        "tune (s) |\n|---|---:|---:|---:|---:|---:|---:|{}---:|---:|---:|\n",
        histograms ? "Histograms" : "Reductions",
        tuned_cache.empty()                         ? ""
        : compare_cache.empty() && compare_env.empty() && policy_dir.empty() ? " tuned (us) | vs CUB | regret % |"
                                                    : " tuned (us) | vs CUB | regret % | compared (us) | vs tuned |",
        tuned_cache.empty()                         ? ""
        : compare_cache.empty() && compare_env.empty() && policy_dir.empty() ? "---:|---:|---:|"
                                                    : "---:|---:|---:|---:|---:|");
    for (const Row& r : rows) {
      if (r.is_histogram() != histograms) continue;
      const double gbps = static_cast<double>(r.problem.bytes()) / (r.policy_ms * 1e-3) / 1e9;
      std::string tuned;
      if (!tuned_cache.empty())
        tuned = fmt::format(" {} | {} | {} |", us(r.tuned_ms), r.has_cub ? ratio(r.cub_ms / r.tuned_ms) : "-",
                             r.has_exact ? pct(r.tuned_ms / r.exact_ms - 1) : "-");
      if (r.has_compare) tuned += fmt::format(" {} | {} % |", us(r.compare_ms), pct(r.compare_ms / r.tuned_ms - 1));
      std::string notes;
      for (const auto& nt : r.notes) notes += " " + nt;
      out += fmt::format("| `{}` | {} | {} | {} | {} | {:.0f} | {:.1f} |{} {} | {} | {:.1f} |{}\n",
                         r.problem.with_n(0).shape_key(), format_size(r.problem.n()), us(r.policy_ms),
                         r.has_cub ? ratio(r.cub_ms / r.policy_ms) : "-",
                         r.has_exact ? pct(r.policy_ms / r.exact_ms - 1) : "-", gbps, 100 * gbps / roof.gbps, tuned,
                         r.has_exact ? us(r.exact_ms) : "-", r.has_cub ? us(r.cub_ms) : "-", r.tune_s, notes);
    }
    out += "\nWhat each handle ran (policy: why / exact winner):\n\n";
    for (const Row& r : rows) {
      if (r.is_histogram() != histograms) continue;
      out += fmt::format("- `{}`: policy `{}` [{}]", r.problem.key(), r.policy_config, r.policy_why);
      if (r.has_tuned) out += fmt::format("; tuned `{}` [{}]", r.tuned_config, r.tuned_source);
      if (r.has_compare) out += fmt::format("; compared `{}` [{}]", r.compare_config, r.compare_source);
      out += fmt::format("; exact `{}`\n", r.exact_config);
    }
    return out + "\n";
  };
  doc += section(true) + section(false);

  std::vector<TextRow> text_rows;
  if ((!text.empty() || !photo.empty()) && only != "reductions") {
    doc += fmt::format("## Real bytes (u8, the handle from {} against CUB)\n\n",
                       tuned_cache.empty() ? "an empty cache" : "the tuned cache");
    doc += "| data | bins | range | n | handle (us) | CUB (us) | vs CUB | % roof | handle ran |\n"
           "|---|---:|---|---:|---:|---:|---:|---:|---|\n";
    struct Bytes {
      const std::vector<unsigned char>* bytes;
      const char* name;
      int bins;
      double lower, upper;
      std::uint64_t n;
    };
    // Issue #26's target row first: 37 bins over [10, 250) of a real photo at 256M; the 512M rows last.
    const std::vector<Bytes> cases{{&photo, "photo", 37, 10, 250, 256 * M}, {&text, "text", 96, 32, 128, 4 * M},
                                   {&photo, "photo", 100, 0, 256, 64 * M},  {&photo, "photo", 64, 16, 240, 4 * M},
                                   {&photo, "photo", 64, 0, 256, 16 * M},   {&text, "text", 128, 0, 256, 512 * M},
                                   {&text, "text", 256, 0, 256, 512 * M}};
    for (const Bytes& c : cases) {
      if (c.bytes->empty()) continue;
      text_rows.push_back(run_text(*c.bytes, c.bins, c.lower, c.upper, c.n,
                                   tuned_cache.empty() ? empty_cache : tuned_cache, compile_dir, dev, flush, samples,
                                   stream.get()));
      TextRow& t = text_rows.back();
      t.data = c.name;
      std::string probes;  // in the log at once: a run cut short keeps what it measured
      for (const auto& [key, ms] : t.probes) probes += fmt::format("\n    {:.1f} us {}", ms * 1e3, key);
      std::fprintf(stderr, "shape_bench: real %s %d bins over [%g,%g) n=%llu: handle %.1f us (%s), CUB %.1f us%s%s\n",
                   c.name, c.bins, c.lower, c.upper, static_cast<unsigned long long>(c.n), t.policy_ms * 1e3,
                   t.config.c_str(), t.cub_ms * 1e3, t.wrong ? " WRONG: " : "", (t.wrong ? t.note : probes).c_str());
      if (t.wrong) std::fprintf(stderr, "%s\n", probes.c_str());
      const double gbps = static_cast<double>(c.n) / (t.policy_ms * 1e-3) / 1e9;
      doc += fmt::format("| {} | {} | [{:g},{:g}) | {} | {} | {} | {} | {:.1f} | `{}` [{}]{} |\n", c.name, c.bins,
                         c.lower, c.upper, format_size(c.n), us(t.policy_ms), t.has_cub ? us(t.cub_ms) : "-",
                         t.has_cub ? ratio(t.cub_ms / t.policy_ms) : "-", 100 * gbps / roof.gbps, t.config, t.source,
                         t.wrong ? " WRONG: " + t.note : "");
    }
    doc += "\nThe handle's configuration with other shared copies and binning, on the same bytes, in the same rounds "
           "(each checked against the host count):\n\n";
    for (const TextRow& t : text_rows) {
      doc += fmt::format("- {} {} bins over [{:g},{:g}) at {} (handle {} us, CUB {} us):", t.data, t.problem.bins,
                         t.problem.lower, t.problem.upper, format_size(t.problem.n), us(t.policy_ms), us(t.cub_ms));
      for (const auto& [key, ms] : t.probes) {
        doc += fmt::format(" `{}` {} us ({});", key, us(ms), t.has_cub ? ratio(t.cub_ms / ms) : "-");
      }
      doc += "\n";
    }
    doc += "\n";
  }

  // The summary against the targets.
  std::vector<double> h_policy, r_policy, h_tuned, r_tuned, regret_policy, regret_tuned;
  bool wrong = false, all_policy = true;
  for (const Row& r : rows) {
    wrong = wrong || r.wrong;
    all_policy = all_policy && r.policy_served;
    if (r.has_cub) (r.is_histogram() ? h_policy : r_policy).push_back(r.cub_ms / r.policy_ms);
    if (r.has_cub && r.has_tuned) (r.is_histogram() ? h_tuned : r_tuned).push_back(r.cub_ms / r.tuned_ms);
    if (r.has_exact) {
      regret_policy.push_back(r.policy_ms / r.exact_ms - 1);
      if (r.has_tuned) regret_tuned.push_back(r.tuned_ms / r.exact_ms - 1);
    }
  }
  for (const TextRow& t : text_rows) {
    wrong = wrong || t.wrong;
    if (t.has_cub) (tuned_cache.empty() ? h_policy : h_tuned).push_back(t.cub_ms / t.policy_ms);
  }
  std::vector<double> all_policy_vs_cub = h_policy;
  all_policy_vs_cub.insert(all_policy_vs_cub.end(), r_policy.begin(), r_policy.end());
  doc += "## Summary against the targets of #26\n\n| metric | measured | target | result |\n|---|---:|---|---|\n";
  auto line = [&](const std::string& metric, const std::string& value, const std::string& target,
                  std::optional<bool> pass) {
    doc += fmt::format("| {} | {} | {} | {} |\n", metric, value, target, pass ? verdict(*pass) : "-");
  };
  line("every handle with an empty cache was served by the policy", all_policy ? "yes" : "NO", "policy",
       all_policy);
  line(fmt::format("empty cache: min vs CUB ({} problems)", all_policy_vs_cub.size()),
       ratio(min_of(all_policy_vs_cub)), "(>= 0.95x from the tuned cache)", std::nullopt);
  line("empty cache: histograms geometric mean vs CUB", ratio(geomean_of(h_policy)), "(>= 2.5x from the tuned cache)",
       std::nullopt);
  line("empty cache: reductions geometric mean vs CUB", ratio(geomean_of(r_policy)), "(>= 1.1x from the tuned cache)",
       std::nullopt);
  if (!regret_policy.empty()) {  // --no-exact: none
    line(fmt::format("empty cache: median regret vs the exact winner ({} problems)", regret_policy.size()),
         pct(median_of(regret_policy)) + " %", "(<= 3 % from the tuned cache)", std::nullopt);
    line("empty cache: worst regret", pct(max_of(regret_policy)) + " %", "(<= 10 % from the tuned cache)",
         std::nullopt);
  }
  if (!tuned_cache.empty()) {
    std::vector<double> both = h_tuned;
    both.insert(both.end(), r_tuned.begin(), r_tuned.end());
    if (!h_tuned.empty())
      line("tuned cache: histograms geometric mean vs CUB", ratio(geomean_of(h_tuned)), ">= 2.5x",
           geomean_of(h_tuned) >= 2.5);
    if (!r_tuned.empty())
      line("tuned cache: reductions geometric mean vs CUB", ratio(geomean_of(r_tuned)), ">= 1.1x",
           geomean_of(r_tuned) >= 1.1);
    line(fmt::format("tuned cache: min vs CUB ({} problems)", both.size()), ratio(min_of(both)), ">= 0.95x",
         min_of(both) >= 0.95);
    if (!regret_tuned.empty()) {
      line("tuned cache: median regret", pct(median_of(regret_tuned)) + " %", "<= 3 %",
           median_of(regret_tuned) <= 0.03);
      line("tuned cache: worst regret", pct(max_of(regret_tuned)) + " %", "<= 10 %", max_of(regret_tuned) <= 0.10);
    }
  }
  // An A/B in the same rounds: the compared handle (`compared`) against the tuned one (`tuned`), each way by more
  // than 2 %; the tuned handle (the rule or the change under test) is to be slower on none.
  auto ab_lines = [&](const std::string& compared, const std::string& tuned) {
    const auto [slower, worst] = compared_slower(rows, 0.02);
    line(fmt::format("handles {} slower than {} by more than 2 %", compared, tuned),
         fmt::format("{} of {} problems (most {} %)", slower, rows.size(), pct(worst)), "-", std::nullopt);
    const auto tuned_slower = std::count_if(rows.begin(), rows.end(), [](const Row& r) {
      return r.has_compare && r.has_tuned && r.tuned_ms / r.compare_ms - 1 > 0.02;
    });
    line(fmt::format("handles {} slower than {} by more than 2 %", tuned, compared),
         fmt::format("{} of {} problems", tuned_slower, rows.size()), "none", tuned_slower == 0);
  };
  if (compare_env == "AUTOTUNE_ZERO_WITH_MEMSET")
    ab_lines("zeroing by memset (AUTOTUNE_ZERO_WITH_MEMSET=1)", "with the overlapped zeroing kernel");
  if (compare_env == "AUTOTUNE_SELF_ZERO_AS_MEASURED")
    ab_lines("serving one-launch merges as measured (AUTOTUNE_SELF_ZERO_AS_MEASURED=1)", "with the one-launch rule");
  if (compare_env == "AUTOTUNE_LOADS_AS_MEASURED")
    ab_lines("with loads as measured (AUTOTUNE_LOADS_AS_MEASURED=1)", "with the size rule");
  if (!policy_dir.empty())
    ab_lines(fmt::format("from the policy of {}", policy_dir), "from the embedded policy");
  if (!compare_cache.empty()) {
    const auto [slower, worst] = compared_slower(rows, 0.02);
    line(fmt::format("compared cache ({}) slower than the tuned cache by more than 2 %", compare_cache),
         fmt::format("{} of {} problems (worst {} %)", slower, rows.size(), pct(worst)), "none", slower == 0);
  }
  line("correctness (every contender checked before timing)", wrong ? "WRONG results (see the tables)" : "all exact",
       "exact", !wrong);
  save();
  std::printf("%s", doc.substr(doc.find("\n## ") + 1).c_str());  // the tables: every section after the header
  return wrong ? 1 : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "shape_bench: %s\n", e.what());
  return 1;
}
