// The family-independent layer: Problem / Config keys, the shared lookup order (include/autotune/resolution.hpp),
// and reductions in the cache next to histograms. CPU only: devices are made-up DeviceInfo values.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>

#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "autotune/identity.hpp"
#include "autotune/resolution.hpp"
#include "cli/options.hpp"
#include "runtime/resolve.hpp"
#include "tests/cpu/cache_fixtures.hpp"
#include "tests/scoped_env.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "tuner/robust.hpp"
#include "tuner/origin.hpp"
#include "runtime/nearest.hpp"

using namespace autotune;
using namespace autotune::test;

namespace {

ReduceProblem i32_sum(std::uint64_t n) {
  ReduceProblem p;
  p.op = ReduceOp::sum;
  p.type = ValueType::i32;
  p.n = n;
  return p;
}

ReduceConfig reduce_config(int block) {
  ReduceConfig c;
  c.block = block;
  return c;
}

// An H100 variant with fewer SMs: the same architecture, another model.
DeviceInfo h100_pcie() {
  DeviceInfo d = h100();
  d.name = "NVIDIA H100 PCIe";
  d.sm_count = 114;
  return d;
}

// A run recorded with this build's code for `family`, so that the lookup's staleness check keeps it.
RunInfo current_run(std::string_view family) {
  RunInfo info = run_info(current_identity(family, 0).template_hash, nvrtc_version(), 0);
  info.code.family = std::string(family);
  return info;
}

template <class P, class C>
std::int64_t record(Cache& cache, const DeviceInfo& d, const P& p, const C& c, double ms = 0.25) {
  const RunInfo info = current_run(Problem(p).family_name());
  const auto run = cache.begin_run(d, p, info);
  Measurement m;
  m.config = c;
  m.median_ms = ms;
  m.samples = 10;
  m.gbps = 1.0 / ms;
  cache.add_measurement(run, m);
  cache.finish_run(run, m, {'\x7f', 'E', 'L', 'F'}, cubin_origin(Problem(p), Config(c), d.arch()));
  return run;
}

LookupTarget target_of(const DeviceInfo& d) { return LookupTarget{d.model_key(), d.arch(), d.sm_count, 0}; }

}  // namespace

TEST_SUITE("family") {
  TEST_CASE("problem keys parse back to the problem they name, for both families") {
    const auto h = Problem::parse("histogram/f32/bins=1024/range=[-1,1)/n=5/dist=runs/counters=64");
    REQUIRE(h);
    REQUIRE(h->as<HistogramProblem>());
    CHECK(h->as<HistogramProblem>()->type == SampleType::f32);
    CHECK(h->as<HistogramProblem>()->bins == 1024);
    CHECK(h->as<HistogramProblem>()->lower == -1.0);
    CHECK(h->as<HistogramProblem>()->upper == 1.0);
    CHECK(h->n() == 5);
    CHECK(h->as<HistogramProblem>()->distribution == "runs");
    CHECK(h->as<HistogramProblem>()->counter_bits == 64);

    const auto r = Problem::parse("reduce/sum/i32/acc=i64/n=1000/dist=uniform");
    REQUIRE(r);
    REQUIRE(r->as<ReduceProblem>());
    CHECK(r->family_name() == "reduce");
    CHECK(r->as<ReduceProblem>()->op == ReduceOp::sum);
    CHECK(r->as<ReduceProblem>()->type == ValueType::i32);
    CHECK(r->as<ReduceProblem>()->accumulator_type() == ValueType::i64);
    CHECK(r->n() == 1000);
    CHECK(*r == Problem(i32_sum(1000)));  // the default accumulator of an i32 sum is i64

    const auto fast = Problem::parse("reduce/sum/f32/acc=f32/n=16/dist=uniform/mode=fast");
    REQUIRE(fast);
    CHECK_FALSE(fast->as<ReduceProblem>()->deterministic);
    CHECK(fast->with_n(32).key() == "reduce/sum/f32/acc=f32/n=32/dist=uniform/mode=fast");
  }

  TEST_CASE("only canonical, valid keys parse") {
    for (const char* bad : {"", "histogram", "histogram/u8/bins=0/range=[0,256)/n=1/dist=uniform",
                            "histogram/u8/bins=256/range=[0,256)/n=1/dist=zipf",
                            "histogram/u8/bins=256/range=[0,256)/n=-1/dist=uniform",
                            "reduce/avg/f32/acc=f32/n=1/dist=uniform", "reduce/sum/f32/acc=f32/n=1/dist=uniform/x=1",
                            "reduce/sum/i32/n=1000/dist=uniform",       // the accumulator is spelled out in a key
                            "reduce/max/f32/acc=f64/n=10/dist=uniform",  // min/max accumulate in the input type
                            "reduce/sum/i32/acc=i64/n=10/dist=uniform/mode=fast",  // integers are exact: no mode
                            "sort/u32/n=10"}) {
      CAPTURE(bad);
      CHECK_FALSE(Problem::parse(bad));
    }
  }

  TEST_CASE("configurations parse within their family only") {
    const std::string hk = HistogramConfig{}.key(), rk = ReduceConfig{}.key();
    REQUIRE(Config::parse("histogram", hk));
    REQUIRE(Config::parse("reduce", rk));
    CHECK_FALSE(Config::parse("reduce", hk));
    CHECK_FALSE(Config::parse("histogram", rk));
    CHECK(Config::parse("reduce", rk)->as<ReduceConfig>()->block == 256);
    CHECK(Config::fallback(Problem(i32_sum(10))).family_name() == "reduce");
    CHECK_THROWS_AS(kernel_source(Problem(i32_sum(10)), Config(HistogramConfig{})), UsageError);
  }

  TEST_CASE("a lookup target reads the architecture and SM count from a model key") {
    const auto t = LookupTarget::from_model_key("NVIDIA H100 80GB HBM3|sm_90|132SM|81090MiB");
    CHECK(t.arch == "sm_90");
    CHECK(t.sm_count == 132);
    const auto odd = LookupTarget::from_model_key("made up");
    CHECK(odd.arch.empty());
    CHECK(odd.sm_count == 0);
  }

  TEST_CASE("the lookup order: exact, nearest size, a similar GPU model, then the built-in default") {
    Cache cache(":memory:");
    const HistogramProblem u8 = problem(64 * M);
    record(cache, h100(), u8, config(512, 4));
    record(cache, h100_pcie(), u8, config(128, 2));
    record(cache, a100(), u8, config(1024, 8));

    SUBCASE("exact") {
      const Lookup l = lookup_config(cache, target_of(h100()), u8);
      CHECK(l.source == ConfigSource::exact);
      CHECK(l.config == Config(config(512, 4)));
      CHECK(l.distance.empty());
    }
    SUBCASE("nearest size on the same model") {
      // One doubling away (farther, the shipped policy's entries of u8/256 rank first: runtime/rank.hpp).
      const Lookup l = lookup_config(cache, target_of(h100()), problem(32 * M));
      CHECK(l.source == ConfigSource::nearest_size);
      CHECK(l.config == Config(config(512, 4)));
      CHECK(l.distance == "tuned for n=67108864");
    }
    SUBCASE("a distribution hint: its own winner first, else the uniform one, said so") {
      HistogramProblem runs = u8;
      runs.distribution = "runs";
      // Measured data only: a uniform winner on other data ranks below the shipped policy's robust entry otherwise
      // (runtime/rank.hpp, other_dist).
      Lookup l = lookup_config(cache, target_of(h100()), runs, Requirement::tuned);
      CHECK(l.source == ConfigSource::exact);
      CHECK(l.config == Config(config(512, 4)));
      CHECK(l.distance == "measured on dist=uniform, not runs");
      record(cache, h100(), runs, config(256, 8));
      l = lookup_config(cache, target_of(h100()), runs);
      CHECK(l.config == Config(config(256, 8)));  // the per-distribution winner, once tuned
      CHECK(l.distance.empty());
      runs.n = 32 * M;
      l = lookup_config(cache, target_of(h100()), runs);
      CHECK(l.source == ConfigSource::nearest_size);
      CHECK(l.config == Config(config(256, 8)));
    }
    SUBCASE("a model of the same architecture with the closest SM count") {
      DeviceInfo h200 = h100();
      h200.name = "NVIDIA H200";
      h200.memory_bytes = 150'000'000'000ull;  // another model key, 132 SMs like the H100 SXM
      const Lookup l = lookup_config(cache, target_of(h200), u8);
      CHECK(l.source == ConfigSource::similar_device);
      CHECK(l.config == Config(config(512, 4)));  // the H100 SXM (132 SMs), not the PCIe card (114)
      CHECK(l.winner->device_name == "NVIDIA H100 80GB HBM3");
      CHECK(l.distance.find("NVIDIA H100 80GB HBM3") != std::string::npos);

      DeviceInfo small = h100();
      small.name = "NVIDIA H100 NVL-ish";
      small.sm_count = 110;
      CHECK(lookup_config(cache, target_of(small), u8).config == Config(config(128, 2)));  // the 114-SM model
    }
    SUBCASE("another architecture gets nothing measured: the shipped policy, not a winner") {
      DeviceInfo turing = a100();
      turing.name = "Tesla T4";
      turing.cc_major = 7;
      turing.cc_minor = 5;
      const Lookup l = lookup_config(cache, target_of(turing), u8);
      CHECK(l.source == ConfigSource::policy);
      CHECK_FALSE(l.winner);
      HistogramProblem wide = u8;  // 64-bit counters: the policy holds none, the built-in default answers
      wide.counter_bits = 64;
      const Lookup d = lookup_config(cache, target_of(turing), wide);
      CHECK(d.source == ConfigSource::fallback);
      CHECK(d.config == Config::fallback(wide));
    }
  }

  TEST_CASE("the lookup never serves a run of another kernel template, not even to a similar model") {
    const HistogramProblem u8 = problem(64 * M);
    DeviceInfo h200 = h100();
    h200.name = "NVIDIA H200";
    Cache old(":memory:");
    tune(old, h100(), u8, config(512, 4), {}, run_info("00000000000000aa", nvrtc_version(), 0));
    const Lookup l = lookup_config(old, target_of(h200), u8);
    CHECK(l.source == ConfigSource::policy);
    CHECK_FALSE(l.winner);
    const Lookup same = lookup_config(old, target_of(h100()), u8);
    CHECK(same.source == ConfigSource::policy);
    CHECK_FALSE(same.winner);
    CHECK(same.stale_skipped == 1);
    CHECK(old.winners().size() == 1);  // skipped, not marked: the lookups wrote nothing
  }

  TEST_CASE("the similar-problem step: the nearest tuned shape of the family on this model, if its winner is valid") {
    // The configurations as measured: the evict-first size rule (tests/cpu/test_streaming.cpp) would load the 64M u8
    // answers (64 MiB, from a quarter to 4x this H100's L2) evict-first.
    const ScopedEnv loads_as_measured("AUTOTUNE_LOADS_AS_MEASURED", "1");
    Cache cache(":memory:");
    record(cache, h100(), problem(64 * M, 256), config(512, 4));
    record(cache, h100(), problem(64 * M, 1024), config(256, 2));
    HistogramProblem f32 = HistogramProblem::with_defaults(SampleType::f32, 1024);
    f32.n = 16 * M;
    HistogramConfig wide = config(1024, 2);
    wide.replicas = 32;  // 32 copies of 1024 bins: 128 KiB of shared memory
    record(cache, h100(), f32, wide);
    LookupTarget with_device = target_of(h100());
    with_device.device = h100();

    SUBCASE("exact and nearest size come first") {
      CHECK(lookup_config(cache, with_device, problem(64 * M, 256)).source == ConfigSource::exact);
      CHECK(lookup_config(cache, with_device, problem(4 * M, 1024)).source == ConfigSource::nearest_size);
    }
    SUBCASE("other bins: the closest count in log scale (128 is one doubling from 256, three from 1024)") {
      HistogramProblem u8_128 = problem(512 * M, 128);
      u8_128.upper = 128;
      const Lookup l = lookup_config(cache, with_device, u8_128);
      CHECK(l.source == ConfigSource::similar_problem);
      // [0, 128) is short of the byte's 256 values: the transfer counts values, in the measured value-counting
      // configuration (kernel_templates/histogram/family.cpp, value_counting).
      const std::string measured =
          "priv=shared,R=32,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0,bin=values";
      CHECK(l.config == *Config::parse("histogram", measured));
      CHECK(l.distance == "tuned for " + problem(64 * M, 256).key() +
                              " (adapted: R=32, block=1024, vec=16, loads=2, bin=values)");
      const Lookup l600 = lookup_config(cache, with_device, problem(64 * M, 600));  // log2(600/256) > log2(1024/600)
      CHECK(l600.source == ConfigSource::similar_problem);
      // 600 bins over [0, 256) divide per sample: counted as values, in the measured configuration.
      CHECK(l600.config == *Config::parse("histogram", measured));
    }
    SUBCASE("another sample type is never similar") {
      HistogramProblem u16 = HistogramProblem::with_defaults(SampleType::u16, 256);
      u16.n = 64 * M;
      const Lookup l = lookup_config(cache, with_device, u16);
      CHECK(l.source == ConfigSource::policy);  // not similar_problem: the cache's u8 winners are not adopted
      CHECK_FALSE(l.winner);
    }
    SUBCASE("a winner this problem cannot run on this device as tuned is adopted with fewer replicas") {
      HistogramProblem big = f32;
      big.bins = 4096;  // 32 copies of 4096 bins: 512 KiB, more than the H100's 227 KiB per block; 8 copies: 128 KiB
      // Measured data only: the shipped policy's entry of the H200 (another model: x1.05, measured) ranks before a
      // tuned shape four times narrower otherwise (runtime/rank.hpp).
      const Lookup l = lookup_config(cache, with_device, big, Requirement::tuned);
      CHECK(l.source == ConfigSource::similar_problem);
      HistogramConfig eight = wide;
      eight.replicas = 8;
      CHECK(l.config == Config(eight));
      CHECK(l.distance == "tuned for " + f32.key() + " (adapted: R=8)");
      REQUIRE(l.winner);
      CHECK(l.winner->cubin.empty());  // the tuned cubin is another kernel
      HistogramProblem fits = f32;
      fits.bins = 512;
      CHECK(lookup_config(cache, with_device, fits, Requirement::tuned).source == ConfigSource::similar_problem);
    }
    SUBCASE("a reduction adopts another operator's winner of the same element type") {
      record(cache, h100(), i32_sum(64 * M), reduce_config(512));
      ReduceProblem max = i32_sum(64 * M);
      max.op = ReduceOp::max;
      // Measured data only: the shipped policy's own entries of i32 max rank first otherwise (runtime/rank.hpp).
      const Lookup l = lookup_config(cache, with_device, max, Requirement::tuned);
      CHECK(l.source == ConfigSource::similar_problem);
      CHECK(l.config == Config(reduce_config(512)));
    }
  }

  TEST_CASE("strict mode: which sources meet which requirement, and the requirement from the environment") {
    CHECK(meets(ConfigSource::fallback, Requirement::any));
    CHECK_FALSE(meets(ConfigSource::fallback, Requirement::tuned));
    CHECK_FALSE(meets(ConfigSource::fallback, Requirement::exact));
    for (ConfigSource s : {ConfigSource::nearest_size, ConfigSource::similar_problem, ConfigSource::similar_device}) {
      CHECK(meets(s, Requirement::tuned));
      CHECK_FALSE(meets(s, Requirement::exact));
    }
    CHECK(meets(ConfigSource::exact, Requirement::exact));
    ::unsetenv("AUTOTUNE_REQUIRE");
    CHECK(effective_requirement(std::nullopt) == Requirement::any);
    ::setenv("AUTOTUNE_REQUIRE", "exact", 1);
    CHECK(effective_requirement(std::nullopt) == Requirement::exact);
    CHECK(effective_requirement(Requirement::tuned) == Requirement::tuned);  // the handle's option wins
    ::setenv("AUTOTUNE_REQUIRE", "always", 1);
    CHECK_THROWS_WITH_AS(effective_requirement(std::nullopt), doctest::Contains("AUTOTUNE_REQUIRE='always'"),
                         UsageError);
    ::unsetenv("AUTOTUNE_REQUIRE");
  }

  TEST_CASE("the tune command a strict handle prints names the same problem when the CLI reads it") {
    HistogramProblem f32 = HistogramProblem::with_defaults(SampleType::f32, 1000);
    f32.n = 64 * M;
    HistogramProblem wide = problem(5 * M, 37);
    wide.lower = 3;
    wide.upper = 200;
    wide.counter_bits = 64;
    wide.distribution = "runs";
    HistogramProblem i32 = HistogramProblem::with_defaults(SampleType::i32, 100, -50);
    i32.n = 1000;
    ReduceProblem fast;
    fast.op = ReduceOp::sum;
    fast.type = ValueType::f32;
    fast.deterministic = false;
    fast.n = 12345;
    ReduceProblem max = i32_sum(7);
    max.op = ReduceOp::max;
    for (const Problem& p : {Problem(f32), Problem(wide), Problem(i32), Problem(i32_sum(3 * M)), Problem(fast),
                             Problem(max)}) {
      const std::string command = tune_command(p, "/tmp/x.db");
      CAPTURE(command);
      std::vector<std::string> args;
      std::istringstream words(command);
      for (std::string w; words >> w;) args.push_back(w);
      REQUIRE(args.size() > 2);
      CHECK(args[0] == "autotune");
      const auto parsed = cli::parse_command_line({args.begin() + 1, args.end()});
      const auto& t = std::get<cli::TuneCommand>(parsed.command);
      REQUIRE(t.problems.size() == 1);
      CHECK(t.problems[0].key() == p.key());
      CHECK(parsed.cache_path == "/tmp/x.db");
    }
  }

  TEST_CASE("reductions live in the cache beside histograms") {
    TempPath file(".db");
    const ReduceProblem sum = i32_sum(1 * M);
    std::int64_t run = 0;
    {
      Cache cache(file.str());
      record(cache, h100(), problem(M), config(256, 4));
      run = record(cache, h100(), sum, reduce_config(512));
      const auto w = cache.find_winner(h100().model_key(), sum);
      REQUIRE(w);
      REQUIRE(w->problem.as<ReduceProblem>());
      CHECK(w->problem == Problem(sum));
      CHECK(w->config == Config(reduce_config(512)));
      REQUIRE(cache.measurements(run).size() == 1);
      CHECK(cache.measurements(run)[0].config == Config(reduce_config(512)));
      // The nearest size works the same for a reduction.
      const auto near = nearest_winner(cache, h100().model_key(), i32_sum(4 * M));
      REQUIRE(near);
      CHECK(near->problem.n() == 1 * M);
      CHECK(cache.winners().size() == 2);
    }
    {
      SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
      CHECK(rows(raw, "SELECT p.family, pp.name, pp.value FROM problems p JOIN problem_parameters pp"
                      " ON pp.problem_id = p.id WHERE p.family = 'reduce' ORDER BY p.key, pp.name") ==
            std::vector<std::string>{"t:reduce | t:acc | t:i64", "t:reduce | t:op | t:sum",
                                     "t:reduce | t:type | t:i32"});
      CHECK(rows(raw, "SELECT family FROM templates ORDER BY family") ==
            std::vector<std::string>{"t:histogram", "t:reduce"});
    }
    // Export -> import into a new file gives the same winners.
    std::stringstream doc;
    Cache(file.str()).export_json(doc);
    Cache copy(":memory:");
    copy.import_json(doc, "doc");
    const auto w = copy.find_winner(h100().model_key(), sum);
    REQUIRE(w);
    CHECK(w->config == Config(reduce_config(512)));
  }

  TEST_CASE("staleness of a template concerns its own family only") {
    Cache cache(":memory:");
    record(cache, h100(), problem(M), config(256, 4));
    record(cache, h100(), i32_sum(M), reduce_config(512));
    CodeIdentity changed = current_identity("histogram", 0);
    changed.template_hash = "0123456789abcdef";
    CHECK(cache.mark_stale(changed, h100().model_key()) == 1);  // the histogram run, not the reduction's
    CHECK_FALSE(cache.find_winner(h100().model_key(), problem(M)));
    CHECK(cache.find_winner(h100().model_key(), i32_sum(M)));
  }

  TEST_CASE("baselines (CUB's times from `autotune bench`) are stored, replaced, exported and kept by gc") {
    Cache cache(":memory:");
    const ReduceProblem sum = i32_sum(M);
    CHECK_FALSE(cache.baseline(h100().model_key(), sum, "cub"));
    cache.set_baseline(h100(), sum, "cub", 0.5, 8.0);
    cache.set_baseline(h100(), sum, "cub", 0.25, 16.0);  // a newer measurement replaces the older one
    const auto b = cache.baseline(h100().model_key(), sum, "cub");
    REQUIRE(b);
    CHECK(b->median_ms == 0.25);
    CHECK(b->gbps == 16.0);
    CHECK(is_utc_time(b->measured_at));
    CHECK_FALSE(cache.baseline(a100().model_key(), sum, "cub"));
    CHECK_THROWS_AS(cache.set_baseline(h100(), sum, "cub", 0.0, 1.0), UsageError);
    CHECK_THROWS_AS(cache.set_baseline(h100(), sum, "", 1.0, 1.0), UsageError);
    // A problem measured only by bench has no run: gc keeps it, since its baseline refers to it.
    CHECK(cache.gc() == 0);
    std::stringstream doc;
    cache.export_json(doc);
    Cache copy(":memory:");
    const ImportStats first = copy.import_json(doc, "doc");
    CHECK(first.baselines == 1);
    REQUIRE(copy.baseline(h100().model_key(), sum, "cub"));
    CHECK(copy.baseline(h100().model_key(), sum, "cub")->median_ms == 0.25);
    std::stringstream again;
    cache.export_json(again);
    CHECK(copy.import_json(again, "doc").total() == 0);  // the same data twice changes nothing
  }

  TEST_CASE("the float-sum tolerance covers each variant's sequential chain: a thread's elements, plus per-thread atomics") {
    ReduceConfig naive;
    naive.block_reduce = BlockReduce::atomic;
    naive.finish = Finish::atomic;
    naive.block = 256;
    // 100 blocks of 256 threads = 25,600 threads: ceil(10^6 / 25,600) = 40 elements each, then one atomic add each.
    CHECK(addition_chain(naive, 1'000'000, 100) == 40 + 25'600);
    CHECK(addition_chain(naive, 1'000, 100) == 1 + 1'000);  // one element per busy thread, no more adds than elements
    // A fixed tree after each thread's run: only the run (the default block is 256 threads).
    CHECK(addition_chain(ReduceConfig{}, 1'000'000, 100) == 40);
    // The single-block path (grid=1): 512 threads over 2^20 elements, 2048 each in turn. On an H200, bf16 sums of
    // squares of this shape erred by 1.9-3.0 against a bound without the chain (1.07): the chain must count.
    ReduceConfig single;
    single.block = 512;
    single.grid_blocks = 1;
    CHECK(addition_chain(single, 1u << 20, 1) == 2048);
    CHECK(addition_chain(single, 0, 1) == 0);
    const long double u24 = 0x1p-24L, k1 = 2048.0L + 20 + 32;
    CHECK(static_cast<double>(reduce_sum_tolerance(ValueType::f32, 1u << 20, 349825.0L, 2048)) ==
          doctest::Approx(static_cast<double>(k1 * u24 / (1 - k1 * u24) * 349825.0L)));
    CHECK(reduce_sum_tolerance(ValueType::f32, 1u << 20, 349825.0L, 2048) > 3.04L);  // the largest error seen
    // gamma_k * sum|x| with k = chain + ceil(log2 n) + 32 and u = 2^-24: for n = 2^20, sum|x| = 1 and a chain of
    // 2^20, k = 2^20 + 52.
    const long double k = 1048576.0L + 20 + 32, u = 0x1p-24L;
    CHECK(static_cast<double>(reduce_sum_tolerance(ValueType::f32, 1u << 20, 1.0L, 1u << 20)) ==
          doctest::Approx(static_cast<double>(k * u / (1 - k * u))));
    CHECK(reduce_sum_tolerance(ValueType::f32, 1u << 20, 1.0L, 1ull << 25) == std::numeric_limits<long double>::infinity());
  }

  TEST_CASE("the robust winner: least worst-case slowdown over the distributions, by hand") {
    // Three configurations on two distributions (ms). Fastest per distribution: 1.0 (a) and 2.0 (c).
    //   a: 1.0 / 4.0 -> slowdowns 1.00, 2.00 -> worst 2.00
    //   b: 1.2 / 2.4 -> 1.20, 1.20 -> worst 1.20  <- the robust choice, though it wins neither
    //   c: 3.0 / 2.0 -> 3.00, 1.00 -> worst 3.00
    const std::vector<std::string> keys{"a", "b", "c"};
    const auto r = pick_robust({{1.0, 1.2, 3.0}, {4.0, 2.4, 2.0}}, keys);
    REQUIRE(r);
    CHECK(r->index == 1);
    CHECK(r->worst_slowdown == doctest::Approx(1.2));
    REQUIRE(r->slowdowns.size() == 2);
    CHECK(r->slowdowns[0] == doctest::Approx(1.2));
    CHECK(r->slowdowns[1] == doctest::Approx(1.2));
    // A configuration that failed on one distribution (0) cannot be chosen, however fast elsewhere; its time still
    // sets that distribution's fastest (1.0 on the second): a: 1/1, 4/1 -> 4.0; c: 3/1, 2/1 -> 3.0.
    const auto r2 = pick_robust({{1.0, 0.0, 3.0}, {4.0, 1.0, 2.0}}, keys);
    REQUIRE(r2);
    CHECK(r2->index == 2);
    CHECK(r2->worst_slowdown == doctest::Approx(3.0));
    // Equal worst cases (within 0.5 %): the smaller total time, then the smaller key.
    CHECK(pick_robust({{1.0, 1.0}, {2.0, 2.0}}, {"y", "x"})->index == 1);
    CHECK(pick_robust({{1.0, 1.001}, {2.0, 1.5}}, {"y", "x"})->index == 1);
    CHECK_FALSE(pick_robust({{1.0, 0.0}, {0.0, 1.0}}, {"a", "b"}));
  }

  TEST_CASE("tune --dists records the robust winner of the per-distribution runs, and the lookup serves it") {
    Cache cache(":memory:");
    const HistogramProblem u8 = problem(64 * M);
    auto run_on = [&](const char* dist, std::vector<std::pair<HistogramConfig, double>> ms) {
      HistogramProblem p = u8;
      p.distribution = dist;
      const auto run = cache.begin_run(h100(), p, current_run("histogram"));
      Measurement best;
      for (const auto& [c, t] : ms) {
        Measurement m;
        m.config = c;
        m.median_ms = t;
        m.samples = 5;
        m.gbps = 1.0 / t;
        cache.add_measurement(run, m);
        if (best.median_ms == 0.0 || t < best.median_ms) best = m;
      }
      cache.finish_run(run, best, {});
    };
    const HistogramConfig a = config(256, 4), b = config(512, 4), c = config(1024, 8);
    run_on("uniform", {{a, 1.0}, {b, 1.2}, {c, 3.0}});
    run_on("runs", {{a, 4.0}, {b, 2.4}, {c, 2.0}});
    CHECK_THROWS_AS(record_robust_winner(cache, h100(), u8, {"uniform"}), UsageError);
    CHECK_THROWS_WITH_AS(record_robust_winner(cache, h100(), u8, {"uniform", "image"}), doctest::Contains("dist=image"),
                         Error);
    const RobustRecord r = record_robust_winner(cache, h100(), u8, {"uniform", "runs"});
    CHECK(r.config == Config(b));
    CHECK(r.worst_slowdown == doctest::Approx(1.2));
    CHECK(r.worst_ms == doctest::Approx(2.4));
    CHECK(r.problem.distribution() == "robust");
    const auto w = cache.find_winner(h100().model_key(), r.problem);
    REQUIRE(w);
    CHECK(w->config == Config(b));
    CHECK_FALSE(w->cubin.empty());  // compiled by NVRTC for sm_90
    CHECK(cache.measurements(w->run_id).size() == 3);

    // A hint with a per-distribution winner gets it; another distribution gets the robust one.
    HistogramProblem narrow = u8;
    narrow.distribution = "narrow";
    Lookup l = lookup_config(cache, target_of(h100()), narrow);
    CHECK(l.config == Config(b));
    CHECK(l.distance == "measured on dist=robust, not narrow");
    HistogramProblem runs = u8;
    runs.distribution = "runs";
    CHECK(lookup_config(cache, target_of(h100()), runs).config == Config(c));
  }

  TEST_CASE("an import refuses a reduction whose key is not a reduction") {
    Cache cache(":memory:");
    record(cache, h100(), i32_sum(M), reduce_config(512));
    std::stringstream doc;
    cache.export_json(doc);
    std::string text = doc.str();
    const std::string key = Problem(i32_sum(M)).key();
    for (std::size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), "reduce/sum/bogus");
    std::istringstream in(text);
    Cache other(":memory:");
    CHECK_THROWS_WITH_AS(other.import_json(in, "doc"), doctest::Contains("not a valid reduce problem"), CacheError);
  }
}
