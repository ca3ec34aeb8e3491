// The tuner end to end on the GPU: a small problem (tuner_problem, gpu_fixtures.hpp: its space depends on the tier),
// an in-memory cache.
#include <doctest/doctest.h>

#include <algorithm>
#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>

#include "gpu_fixtures.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "autotune/tuner.hpp"
#include "autotune/resolution.hpp"
#include "core/ladder.hpp"
#include "core/jit.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "tuner/ladder.hpp"
#include "tests/families/fill/fill.hpp"

using namespace autotune;
using namespace autotune::testing;

TEST_SUITE("gpu_tuner") {
  TEST_CASE("a family defined only in the tests is tuned, recorded and served through the registry alone") {
    test::register_fill_family();
    Cache cache(":memory:");
    const test::FillProblem p{0xC0FFEEu, 3u << 20, "uniform"};
    TuneOptions o;
    o.samples = 5;
    const TuneReport r = tune(Problem(p), cache, o);
    REQUIRE(r.measurements.size() == 6);
    for (const auto& m : r.measurements) {
      INFO(m.config.key(), " ", to_string(m.status), " ", m.log);
      CHECK(m.status == MeasurementStatus::ok);  // each variant wrote every word (the tuner checked it)
    }
    REQUIRE(r.winner);
    const DeviceInfo d = query_device(0);
    const auto w = cache.find_winner(d.model_key(), p);
    REQUIRE(w);
    CHECK(w->config == r.winner->config);
    CHECK_FALSE(w->cubin.empty());
    const Lookup l = lookup_config(cache, LookupTarget{d.model_key(), d.arch(), d.sm_count, d.driver_version},
                                   test::FillProblem{0xC0FFEEu, 5u << 20, "uniform"});
    CHECK(l.source == ConfigSource::nearest_size);
    CHECK(l.config == r.winner->config);
  }

  // The winner as the cache serves it, against the run's rows as the cache holds them (not the tuner's report):
  // its row is an ok measurement with the winner's time, and no ok row is faster than it beyond the near-tie rule
  // (pick_winner, tuner/timing.hpp: ties within twice the noise go to the cheaper variant) and the drift between a
  // variant's first measurement and the finalists' interleaved re-measurement that the winner's time comes from:
  // 5 %, the margin of the determinism case below (bench/results/2026-12-01-h200-tuner-determinism-bisect.md).
  void check_winner_backed_by_rows(const Cache& cache, const TuneReport& r, const HistogramProblem& p) {
    const auto served = cache.find_winner(r.device.model_key(), p);
    REQUIRE(served.has_value());
    const std::vector<Measurement> rows = cache.measurements(r.run_id);
    double fastest = 0;
    std::string fastest_key;
    bool backed = false;
    for (const Measurement& m : rows) {
      if (m.status != MeasurementStatus::ok) continue;
      if (fastest == 0 || m.median_ms < fastest) fastest = m.median_ms, fastest_key = m.config.key();
      backed = backed || (m.config == served->config && m.median_ms == served->median_ms);
    }
    INFO(fmt::format("winner {} {:.4f} ms; fastest row {} {:.4f} ms", served->config.key(), served->median_ms,
                     fastest_key, fastest));
    CHECK(backed);
    REQUIRE(fastest > 0);
    CHECK(served->median_ms <= fastest * 1.05);
  }

  // The tuner measured the variants without their 2D entry (tuning_source); the cache stores the full variant:
  // exactly kernel_source's cubin, whose 2D entry loads. A 1D-only cubin loaded as such refuses a region.
  void check_stored_cubin_is_the_full_variant(const Winner& w, const TuneReport& r, const HistogramProblem& p) {
    const HistogramConfig wc = *w.config.as<HistogramConfig>();
    const jit::CompileResult full = jit::compile(kernel_source(p, wc), "full.cu", r.device.arch());
    const jit::CompileResult one_row = jit::compile(kernel_source_1d(p, wc), "1d.cu", r.device.arch());
    REQUIRE(full.ok);
    REQUIRE(one_row.ok);
    CHECK(w.cubin == full.cubin);
    CHECK_NOTHROW(HistogramKernel(p, wc, r.device, w.cubin));
    const HistogramKernel measured(p, wc, r.device, one_row.cubin, false);
    cuda::DeviceBuffer samples(64 * 64), counts(static_cast<std::size_t>(p.counters()) * 4);
    CHECK_THROWS_WITH_AS(measured.run(samples.get(), HistogramKernel::Region{32, 8, 256}, counts.get(), nullptr),
                         doctest::Contains("without its 2D entry point"), UsageError);
  }

  TEST_CASE("tuning records every variant, and a winner that no correct variant beats beyond the near-tie rule, by "
            "the cache's rows") {
    Cache cache(":memory:");
    const HistogramProblem p = tuner_problem(4ull << 20);
    TuneOptions o;
    o.samples = 5;
    std::size_t callbacks = 0;
    o.on_measurement = [&](std::size_t done, std::size_t total, const Measurement&) {
      ++callbacks;
      CHECK(done == callbacks);
      CHECK(total == histogram_space(p).size());
    };
    const TuneReport r = tune(Problem(p), cache, o);
    CHECK(callbacks == histogram_space(p).size());
    REQUIRE(r.measurements.size() == histogram_space(p).size());
    REQUIRE(r.winner.has_value());
    REQUIRE(r.fallback.has_value());
    int ok = 0, cut = 0;
    double fastest = 0;
    for (const auto& m : r.measurements)
      if (m.status == MeasurementStatus::ok && (fastest == 0 || m.median_ms < fastest)) fastest = m.median_ms;
    for (const auto& m : r.measurements) {
      INFO(m.config.key(), " ", to_string(m.status), " ", m.log);
      // Both tiers' problems fit every configuration of their space on any sm_70+ GPU: all must be correct.
      CHECK(m.status == MeasurementStatus::ok);
      if (m.status != MeasurementStatus::ok) continue;
      ++ok;
      CHECK(m.median_ms > 0);
      // The stopping rule takes 3 to 5 here (throttled outliers may be dropped), but for the far-slower cut: two
      // samples, both above slow_cut times the fastest so far, so never within slow_cut of the run's fastest.
      if (m.samples < 3) {
        ++cut;
        CHECK(m.samples == 2);
        CHECK(m.median_ms > o.slow_cut * fastest);
      }
      CHECK(m.samples <= 5);
      CHECK(m.gbps == doctest::Approx(p.bytes() / (m.median_ms * 1e-3) / 1e9));
    }
    CHECK(ok == static_cast<int>(r.measurements.size()));
    MESSAGE(cut, " of ", ok, " variants stopped by the far-slower cut");
    bool winner_was_measured = false;  // the winner is one of the correct variants
    for (const auto& m : r.measurements) winner_was_measured = winner_was_measured || m.config == r.winner->config;
    CHECK(winner_was_measured);

    check_winner_backed_by_rows(cache, r, p);

    // The roof was measured and recorded, and every measurement carries its share of it.
    CHECK(r.roof_gbps > 100.0);
    REQUIRE(cache.device_roof(r.device.model_key()).has_value());
    CHECK(*cache.device_roof(r.device.model_key()) == doctest::Approx(r.roof_gbps));
    for (const auto& m : cache.measurements(r.run_id))
      if (m.status == MeasurementStatus::ok) CHECK(m.roof_pct == doctest::Approx(100.0 * m.gbps / r.roof_gbps));

    // The cache holds the same run and the winner with a loadable cubin for this architecture.
    CHECK(cache.measurements(r.run_id).size() == r.measurements.size());
    const auto w = cache.find_winner(r.device.model_key(), p);
    REQUIRE(w.has_value());
    CHECK(w->config == r.winner->config);
    CHECK(w->arch == r.device.arch());
    CHECK(w->cubin.size() > 4);
    MESSAGE(fmt::format("winner on {}: {} {:.1f} GB/s; default {:.1f} GB/s", r.device.name, w->config.key(), w->gbps,
                        r.fallback->gbps));

    check_stored_cubin_is_the_full_variant(*w, r, p);
  }

  TEST_CASE("a problem whose 32-bit shared variants do not fit finds a winner among the rest") {
    Cache cache(":memory:");
    HistogramProblem p;
    p.type = SampleType::f32, p.bins = 65536, p.lower = 0, p.upper = 1, p.n = 4 << 20;
    TuneOptions o;
    o.samples = 3;
    const TuneReport r = tune(Problem(p), cache, o);
    for (const auto& m : r.measurements) {
      INFO(m.config.key(), " ", m.log);
      CHECK(m.status == MeasurementStatus::ok);  // the space for 65536 bins holds only what fits 227 KiB
      CHECK((m.config.as<HistogramConfig>()->privatization == Privatization::global || m.config.as<HistogramConfig>()->counter_bits == 16));
    }
    REQUIRE(r.winner.has_value());
    MESSAGE(fmt::format("f32/65536 winner: {} {:.1f} GB/s", r.winner->config.key(), r.winner->gbps));
  }

  // Two tunes of one problem in one process must agree on how fast the best variant is, not necessarily on its name:
  // at this size (u8/256, 16M samples, ~12 us a call) the few fastest variants lie within 3 % of each other while
  // two runs measure the same variant 1-3 % apart (bench/results/2026-12-01-h200-tuner-determinism-bisect.md), so
  // either may win. What must hold: each run's winner, as the other run measured it, is within 5 % of that run's
  // winner (a tuner that kept a clearly slower variant, or ranked by noise, fails this), and the second run compiles
  // nothing. The tie-break itself is deterministic for given numbers: tests/cpu/test_timing.cpp.
  TEST_CASE("tuning twice picks winners equally fast in both runs (within 5 %); a second tune compiles nothing") {
    Cache cache(":memory:");
    const HistogramProblem p = tuner_problem(16ull << 20);
    TuneOptions o;
    o.compile_cache_dir = (std::filesystem::temp_directory_path() / ("autotune_cubins_" + std::to_string(::getpid()))).string();
    const TuneReport first = tune(Problem(p), cache, o);
    const TuneReport second = tune(Problem(p), cache, o);
    REQUIRE(first.winner.has_value());
    REQUIRE(second.winner.has_value());
    CHECK(first.run_id != second.run_id);  // the first run finished: the second is a new run, not a resume
    // The fastest ok time of `config` among a run's measurements (the finalists are measured more than once).
    auto time_in = [&](std::int64_t run, const Config& config) {
      double best = 0;
      for (const Measurement& m : cache.measurements(run))
        if (m.status == MeasurementStatus::ok && m.config == config && (best == 0 || m.median_ms < best))
          best = m.median_ms;
      return best;
    };
    const double first_in_first = time_in(first.run_id, first.winner->config);
    const double second_in_first = time_in(first.run_id, second.winner->config);
    const double first_in_second = time_in(second.run_id, first.winner->config);
    const double second_in_second = time_in(second.run_id, second.winner->config);
    REQUIRE(first_in_first > 0);
    REQUIRE(second_in_first > 0);
    REQUIRE(first_in_second > 0);
    REQUIRE(second_in_second > 0);
    INFO(fmt::format("first run: {} {:.4f} ms, {} {:.4f} ms; second run: {} {:.4f} ms, {} {:.4f} ms",
                     first.winner->config.key(), first_in_first, second.winner->config.key(), second_in_first,
                     first.winner->config.key(), first_in_second, second.winner->config.key(), second_in_second));
    CHECK(second_in_first <= first_in_first * 1.05);
    CHECK(first_in_second <= second_in_second * 1.05);
    CHECK(second.compiled == 0);
    CHECK(second.compile_cache_hits == static_cast<int>(histogram_space(p).size()));
    MESSAGE(fmt::format("twice: {} and {} ({} winner); first run {:.1f} s with {} compiles, second {:.1f} s",
                        first.winner->config.key(), second.winner->config.key(),
                        first.winner->config == second.winner->config ? "the same" : "a different, equally fast",
                        first.seconds, first.compiled, second.seconds));
    std::filesystem::remove_all(o.compile_cache_dir);
  }

  TEST_CASE("an interrupted run loses nothing and the same command resumes it") {
    Cache cache(":memory:");
    const HistogramProblem p = tuner_problem(2ull << 20);
    TuneOptions o;
    o.compile_cache = false;
    struct Interrupt {};
    o.on_measurement = [](std::size_t done, std::size_t, const Measurement&) {
      if (done == 20) throw Interrupt{};  // as if Ctrl-C arrived after the 20th variant
    };
    CHECK_THROWS_AS(tune(Problem(p), cache, o), Interrupt);
    const DeviceInfo dev = query_device(0);
    const auto run = cache.resumable_run(dev.model_key(), p, current_identity("histogram", dev.driver_version), "exhaustive");
    REQUIRE(run.has_value());
    CHECK(cache.measurements(*run).size() == 20);
    o.on_measurement = nullptr;
    const TuneReport r = tune(Problem(p), cache, o);
    CHECK(r.run_id == *run);
    CHECK(r.resumed == 20);
    CHECK(cache.measurements(*run).size() == histogram_space(p).size());
    REQUIRE(r.winner.has_value());
    CHECK(cache.find_winner(dev.model_key(), p).has_value());
  }

  TEST_CASE("a problem larger than the GPU's memory is refused with the sizes and a hint, before any run is recorded") {
    Cache cache(":memory:");
    const DeviceInfo dev = query_device(0);
    HistogramProblem p;
    p.n = dev.memory_bytes + (1ull << 30);  // u8: one byte a sample, 1 GiB more than the whole GPU
    TuneOptions o;
    o.compile_cache = false;
    CHECK_THROWS_WITH_AS(tune(Problem(p), cache, o),
                         doctest::Contains("not enough GPU memory to tune histogram/u8/bins=256"), Error);
    try {
      tune(Problem(p), cache, o);
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find("tune a smaller --n") != std::string::npos);
      CHECK(what.find("free of") != std::string::npos);
    }
    CHECK_FALSE(cache.resumable_run(dev.model_key(), Problem(p), current_identity("histogram", dev.driver_version),
                                    "exhaustive")
                    .has_value());
    CHECK_FALSE(cache.find_winner(dev.model_key(), Problem(p)).has_value());
    // The device is still usable afterwards: a small problem tunes.
    HistogramProblem small;
    small.n = 1 << 16;
    o.strategy = "random";
    o.budget = 8;
    CHECK(tune(Problem(small), cache, o).winner.has_value());
  }

  // A crossover's candidates are the two neighbours' winners, then the bridges their own runs' measurements rank
  // first; its measurements, as reported and as recorded, are exactly those, the two winners correct (a bridge may
  // not fit the size between: recorded as invalid_config, never wrong), and the winner is one of them.
  void check_crossover_candidates(const Cache& cache, const TuneReport& c, const TuneReport& below,
                                  const TuneReport& above) {
    const Config a = below.winner->config, b = above.winner->config;
    std::vector<Config> candidates{a, b};
    for (const Config& bridge : bridge_candidates(cache.measurements(below.run_id), cache.measurements(above.run_id),
                                                  a, b, kCrossoverBridges))
      candidates.push_back(bridge);
    CHECK(candidates.size() > 2);  // the space holds more than two configurations correct at both sizes
    CHECK(std::find(candidates.begin(), candidates.end(), c.winner->config) != candidates.end());
    CHECK(c.compiled == 0);  // every candidate was compiled for the neighbours
    for (const std::vector<Measurement>& ms : {c.measurements, cache.measurements(c.run_id)}) {
      REQUIRE(ms.size() == candidates.size());
      for (const Config& want : candidates) {
        const auto it = std::find_if(ms.begin(), ms.end(), [&](const Measurement& m) { return m.config == want; });
        REQUIRE(it != ms.end());
        if (want == a || want == b) CHECK(it->status == MeasurementStatus::ok);
        else CHECK((it->status == MeasurementStatus::ok || it->status == MeasurementStatus::invalid_config));
      }
    }
  }

  // The compile cache is shared along a ladder: the first size compiles the space, each later one only what no smaller
  // size's space held (at 4M the evict-first variants) and takes the rest from the cache.
  void check_shared_compiles(const std::vector<Problem>& sizes, const std::vector<const TuneReport*>& size_runs) {
    CHECK(size_runs[0]->compiled > 0);
    std::vector<HistogramConfig> seen = histogram_space(*sizes[0].as<HistogramProblem>());
    for (std::size_t i = 1; i < sizes.size(); ++i) {
      INFO("size ", i);
      const std::vector<HistogramConfig> space = histogram_space(*sizes[i].as<HistogramProblem>());
      int fresh = 0;
      for (const HistogramConfig& c : space)
        if (std::find(seen.begin(), seen.end(), c) == seen.end()) ++fresh, seen.push_back(c);
      const auto streaming =
          std::count_if(space.begin(), space.end(), [](const HistogramConfig& c) { return c.load_cs; });
      CHECK(fresh == (i == 2 ? static_cast<int>(streaming) : 0));
      CHECK(size_runs[i]->compiled == fresh);
      CHECK(size_runs[i]->compile_cache_hits == static_cast<int>(space.size()) - fresh);
    }
  }

  // One ladder of three sizes (256K, 1M, 4M f32 samples: the same space but for the evict-first group, which starts at
  // 8 MiB of input, 2M samples), from a cold compile cache. Whether neighbouring winners differ is the GPU's to say; the next case makes them differ.
  TEST_CASE("a size ladder: a run per size, crossovers only where winners differ, shared compiles, a rerun tunes nothing") {
    Cache cache(":memory:");
    std::vector<Problem> sizes;
    for (std::uint64_t n : {256ull << 10, 1ull << 20, 4ull << 20}) sizes.push_back(tuner_problem(n));
    TuneOptions o;
    o.samples = 5;
    o.compile_cache_dir =
        (std::filesystem::temp_directory_path() / ("autotune_ladder_cubins_" + std::to_string(::getpid()))).string();
    std::filesystem::remove_all(o.compile_cache_dir);
    const LadderReport r = tune_ladder(sizes, cache, o);
    std::vector<const TuneReport*> size_runs, crossover_runs;
    for (const TuneReport& run : r.runs) (run.strategy == kCrossoverStrategy ? crossover_runs : size_runs).push_back(&run);
    REQUIRE(size_runs.size() == 3);
    CHECK(r.summary.tuned == 3);
    CHECK(r.summary.failed == 0);
    CHECK(r.no_memory.empty());
    CHECK(r.skipped_finished.empty());
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(size_runs[i]->problem == sizes[i]);
      CHECK(size_runs[i]->strategy == "exhaustive");
      REQUIRE(size_runs[i]->winner.has_value());
    }
    check_shared_compiles(sizes, size_runs);
    const DeviceInfo d = query_device(0);
    std::size_t differ = 0;
    for (std::size_t i = 1; i < 3; ++i) {
      const Config a = size_runs[i - 1]->winner->config, b = size_runs[i]->winner->config;
      const auto m = crossover_size(sizes[i - 1].n(), sizes[i].n());
      REQUIRE(m.has_value());
      CHECK(*m == 2 * sizes[i - 1].n());  // powers of 4: the power of 2 between
      std::vector<const TuneReport*> at_m;
      for (const TuneReport* c : crossover_runs)
        if (c->problem.n() == *m) at_m.push_back(c);
      INFO(fmt::format("n={} won by {}, n={} won by {}", sizes[i - 1].n(), a.key(), sizes[i].n(), b.key()));
      if (a == b) {
        CHECK(at_m.empty());  // the same winner: nothing to decide between them
        continue;
      }
      ++differ;
      REQUIRE(at_m.size() == 1);
      const TuneReport& c = *at_m[0];
      CHECK(c.problem == sizes[i].with_n(*m));
      REQUIRE(c.winner.has_value());
      check_crossover_candidates(cache, c, *size_runs[i - 1], *size_runs[i]);
      // An ordinary tuned size: the exact lookup at m returns the crossover's winner.
      const auto w = cache.find_winner(d.model_key(), sizes[i].with_n(*m));
      REQUIRE(w.has_value());
      CHECK(w->config == c.winner->config);
      CHECK(w->run_id == c.run_id);
      MESSAGE(fmt::format("crossover at n={}: {} {:.4f} ms over {}", *m, c.winner->config.key(), c.winner->median_ms,
                          c.winner->config == a ? b.key() : a.key()));
    }
    CHECK(crossover_runs.size() == differ);
    CHECK(r.summary.crossovers == differ);
    CHECK(r.runs.size() == 3 + differ);
    MESSAGE(fmt::format("ladder of 3 sizes: {:.1f} s, {:.1f} s, {:.1f} s; {} crossover(s)", size_runs[0]->seconds,
                        size_runs[1]->seconds, size_runs[2]->seconds, differ));

    // The same ladder again: every size is finished with the current code and every crossover recorded.
    const LadderReport again = tune_ladder(sizes, cache, o);
    CHECK(again.runs.empty());
    CHECK(again.summary.tuned == 0);
    CHECK(again.summary.skipped_finished == 3);
    CHECK(again.summary.crossovers == 0);
    CHECK(again.summary.crossovers_skipped == 2);
    std::filesystem::remove_all(o.compile_cache_dir);
  }

  // The crossover path whatever the GPU measures: winners of two sizes recorded (different configurations), so the
  // ladder skips both sizes and must measure exactly those two at the size between (their runs measured nothing
  // else, so there is no bridge to add: bridge_candidates reads the neighbours' own measurements).
  TEST_CASE("a ladder whose neighbouring winners differ measures exactly those two at the size between, and serves "
            "the faster there") {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("autotune_crossover_" + std::to_string(::getpid()) + ".db")).string();
    std::filesystem::remove(path);
    const HistogramProblem below = tuner_problem(256ull << 10), above = tuner_problem(1ull << 20);
    const DeviceInfo d = query_device(0);
    std::vector<HistogramConfig> runnable_space;
    for (const HistogramConfig& c : histogram_space(below))
      if (histogram_violation(below, c, &d).empty()) runnable_space.push_back(c);
    REQUIRE(runnable_space.size() >= 2);
    const HistogramConfig a = runnable_space.front(), b = runnable_space[runnable_space.size() / 2];
    REQUIRE_FALSE(a == b);
    record_forced_winner(path, below, a);
    record_forced_winner(path, above, b);
    Cache cache(path);
    TuneOptions o;
    o.samples = 5;
    o.compile_cache = false;
    const LadderReport r = tune_ladder({Problem(below), Problem(above)}, cache, o);
    CHECK(r.summary.skipped_finished == 2);
    CHECK(r.summary.tuned == 0);
    CHECK(r.summary.crossovers == 1);
    REQUIRE(r.runs.size() == 1);
    const TuneReport& c = r.runs[0];
    CHECK(c.strategy == kCrossoverStrategy);
    const std::uint64_t m = 512ull << 10;  // the power of 2 between 2^18 and 2^20
    CHECK(c.problem == Problem(below).with_n(m));
    const std::vector<Measurement> rows = cache.measurements(c.run_id);
    REQUIRE(rows.size() == 2);
    CHECK(((rows[0].config == Config(a) && rows[1].config == Config(b)) ||
           (rows[0].config == Config(b) && rows[1].config == Config(a))));
    for (const Measurement& row : rows) CHECK(row.status == MeasurementStatus::ok);
    REQUIRE(c.winner.has_value());
    CHECK((c.winner->config == Config(a) || c.winner->config == Config(b)));
    // Served at m: the crossover's winner, no slower than the other row beyond the near-tie rule and the drift of
    // the finalists' re-measurement (the 5 % of the case "tuning records every variant").
    const auto w = cache.find_winner(d.model_key(), Problem(below).with_n(m));
    REQUIRE(w.has_value());
    CHECK(w->config == c.winner->config);
    CHECK(w->run_id == c.run_id);
    for (const Measurement& row : rows) CHECK(w->median_ms <= row.median_ms * 1.05);
    MESSAGE(fmt::format("crossover at n={}: {} {:.4f} ms against {}", m, w->config.key(), w->median_ms,
                        w->config == Config(a) ? b.key() : a.key()));
    std::filesystem::remove(path);
  }

  TEST_CASE("a bad device ordinal is a usage error naming the devices that exist") {
    Cache cache(":memory:");
    TuneOptions o;
    o.device = 99;
    HistogramProblem p;
    p.n = 1000;
    CHECK_THROWS_WITH_AS(tune(Problem(p), cache, o), doctest::Contains("device 99 does not exist"), UsageError);
  }
}
