// Size ladders (issue #14) without a GPU: the ladder and list syntax of `autotune tune --n`, the crossover size, the
// crossover decision, and run_ladders' order of steps, skips and crossovers with a made-up tuner that records runs
// in an in-memory cache as tune() would.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <map>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/identity.hpp"
#include "cli/options.hpp"
#include "cli/problem_options.hpp"
#include "core/ladder.hpp"
#include "tests/cpu/cache_fixtures.hpp"
#include "tuner/ladder.hpp"

using namespace autotune;
using namespace autotune::cli;
using autotune::test::contains;

namespace {

constexpr std::uint64_t K = 1024, M = K * K, G = K * M;

std::string refusal(const std::string& text) {
  try {
    parse_size_list(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "accepted";
}

std::vector<std::uint64_t> sizes_of(const std::string& text) { return parse_size_list(text).sizes; }

TuneCommand tune_of(std::vector<std::string> args) {
  args.insert(args.begin(), "tune");
  return std::get<TuneCommand>(parse_command_line(args).command);
}

std::string usage_error(std::vector<std::string> args) {
  try {
    parse_command_line(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "accepted";
}

// run_ladders with a made-up tuner: each step records a run in `cache` as tune() would, its winner taken from
// `winners` by size (a crossover: the candidate of the smaller size), and says what it did in `steps`.
struct FakeTuner {
  Cache& cache;
  DeviceInfo dev;
  CodeIdentity code;
  std::map<std::uint64_t, Config> winners;
  std::vector<std::string> steps;
  std::size_t no_memory_at = 0;  // a size whose step runs out of memory
  // Other configurations a size's run measures besides its winner (time in ms; the winner's is 1.0).
  std::map<std::uint64_t, std::vector<std::pair<Config, double>>> others = {};
  bool bridge_wins = false;                       // a crossover's last candidate wins, not its first
  std::vector<std::vector<Config>> crossovers = {};  // every crossover's candidates

  StepOutcome run(const LadderStep& step) {
    const std::uint64_t n = step.problem.n();
    if (n == no_memory_at) {
      steps.push_back("no memory " + format_size(n));
      return StepOutcome::no_memory;
    }
    const auto run = cache.begin_run(dev, step.problem, RunInfo{step.candidates.empty() ? "exhaustive" : "crossover",
                                                               "test", code});
    Config won;
    if (step.candidates.empty()) {
      won = winners.at(n);
      cache.add_measurement(run, test::ok_measurement(*won.as<HistogramConfig>(), 1.0));
      for (const auto& [config, ms] : others[n]) cache.add_measurement(run, test::ok_measurement(*config.as<HistogramConfig>(), ms));
      steps.push_back("tune " + format_size(n));
    } else {
      REQUIRE(step.candidates.size() >= 2);
      // The neighbours' winners as recorded (a refined crossover's neighbour is a crossover).
      CHECK(step.candidates[0] == cache.find_winner(dev.model_key(), *step.below, code)->config);
      CHECK(step.candidates[1] == cache.find_winner(dev.model_key(), *step.above, code)->config);
      crossovers.push_back(step.candidates);
      won = bridge_wins ? step.candidates.back() : step.candidates[0];
      for (const Config& c : step.candidates)
        cache.add_measurement(run, test::ok_measurement(*c.as<HistogramConfig>(), c == won ? 1.0 : 2.0));
      steps.push_back(fmt::format("crossover {} of {} and {}", format_size(n), format_size(step.below->n()),
                                  format_size(step.above->n())));
    }
    cache.finish_run(run, test::ok_measurement(*won.as<HistogramConfig>(), 1.0), {});
    return StepOutcome::tuned;
  }
};

}  // namespace

TEST_SUITE("ladder") {
  TEST_CASE("--n: one size, a list or a ladder, ascending, exactly") {
    CHECK(sizes_of("64M") == std::vector<std::uint64_t>{64 * M});
    CHECK_FALSE(parse_size_list("64M").several);
    CHECK(sizes_of("4K,64K,1M") == std::vector<std::uint64_t>{4 * K, 64 * K, M});
    CHECK(parse_size_list("4K,64K,1M").several);
    CHECK(sizes_of("1M,4K,64K") == std::vector<std::uint64_t>{4 * K, 64 * K, M});  // any order, tuned ascending
    CHECK(sizes_of("1000,1.5K") == std::vector<std::uint64_t>{1000, 1536});
    CHECK(sizes_of("4K..1G") == std::vector<std::uint64_t>{4 * K, 16 * K, 64 * K, 256 * K, M, 4 * M, 16 * M, 64 * M,
                                                           256 * M, G});
    CHECK(sizes_of("64K..256M") == default_ladder());
    CHECK(sizes_of("1M..64M:x2") == std::vector<std::uint64_t>{M, 2 * M, 4 * M, 8 * M, 16 * M, 32 * M, 64 * M});
    CHECK(sizes_of("64K..1M:x8") == std::vector<std::uint64_t>{64 * K, 512 * K, M});  // HI included when not reached
    CHECK(sizes_of("1000..5000") == std::vector<std::uint64_t>{1000, 4000, 5000});
    CHECK(sizes_of("3M..3M") == std::vector<std::uint64_t>{3 * M});
    CHECK(parse_size_list("3M..3M").several);
    CHECK(sizes_of("1..2G:x2").size() == 32);  // 2^0 .. 2^31: the most a ladder may have
  }

  TEST_CASE("--n: bad lists and ladders are refused, saying why") {
    CHECK(refusal("") == "empty size (e.g. 64M, a list 4K,64K,1M or a ladder 64K..256M)");
    CHECK(contains(refusal("4K,,1M"), "an item of the list '4K,,1M' is empty"));
    CHECK(contains(refusal("4K,1M,"), "is empty"));
    CHECK(contains(refusal(",4K"), "is empty"));
    CHECK(contains(refusal("4K,0"), "0 is not a size to tune"));
    CHECK(contains(refusal("4K,4096"), "names 4K twice"));
    CHECK(contains(refusal("4K,abc"), "'abc' is not a size"));
    CHECK(contains(refusal("4K, 8K"), "' 8K' is not a size"));
    CHECK(contains(refusal("1M..4K"), "the ladder 1M..4K is empty: its low end is above its high end"));
    CHECK(contains(refusal("0..4K"), "0 is not a size to tune"));
    CHECK(contains(refusal("..4K"), "the low end of the ladder '..4K' is empty"));
    CHECK(contains(refusal("4K.."), "the high end of the ladder '4K..' is empty"));
    CHECK(contains(refusal("4K..1M:x1"), "factor must be at least x2"));
    CHECK(contains(refusal("4K..1M:x0"), "factor must be at least x2"));
    CHECK(contains(refusal("4K..1M:2"), "is not x followed by an integer"));
    CHECK(contains(refusal("4K..1M:x"), "is not x followed by an integer"));
    CHECK(contains(refusal("4K..1M:x2.5"), "is not x followed by an integer"));
    CHECK(contains(refusal("4K..1M:"), "is not x followed by an integer"));
    CHECK(contains(refusal("4K..1M,8M"), "mixes a list and a ladder"));
    CHECK(contains(refusal("4K..1M..4M"), "'1M..4M' is not a size"));
    CHECK(contains(refusal("1..4G:x2"), "has more than 32 sizes"));  // 2^0 .. 2^32: 33
    std::string many;
    for (int i = 1; i <= 33; ++i) many += (i > 1 ? "," : "") + std::to_string(i * 1000);
    CHECK(contains(refusal(many), "has more than 32 sizes"));
    many.resize(many.rfind(','));
    CHECK(sizes_of(many).size() == 32);
  }

  TEST_CASE("tune takes a list or ladder, best and bench one size; a problem without --n gets the default ladder") {
    const TuneCommand t = tune_of({"--type", "u8", "--bins", "256", "--n", "64K..4M"});
    CHECK(t.ladder);
    CHECK_FALSE(t.retune);
    REQUIRE(t.problems.size() == 4);
    const std::uint64_t want[] = {64 * K, 256 * K, M, 4 * M};
    for (std::size_t i = 0; i < 4; ++i) {
      CHECK(t.problems[i].n() == want[i]);
      CHECK(t.problems[i].shape_key() == t.problems[0].shape_key());
    }
    const TuneCommand one = tune_of({"--type", "u8", "--bins", "256", "--n", "64M"});
    CHECK_FALSE(one.ladder);  // one size: tuned again when asked again, as before
    REQUIRE(one.problems.size() == 1);
    const TuneCommand list = tune_of({"--kernel", "reduce", "--op", "sum", "--type", "f32", "--n", "1M,4K", "--retune"});
    CHECK(list.ladder);
    CHECK(list.retune);
    REQUIRE(list.problems.size() == 2);
    CHECK(list.problems[0].n() == 4 * K);
    const TuneCommand dflt = tune_of({"--kernel", "reduce", "--op", "sum", "--type", "f32"});
    CHECK(dflt.ladder);
    REQUIRE(dflt.problems.size() == default_ladder().size());
    for (std::size_t i = 0; i < dflt.problems.size(); ++i) CHECK(dflt.problems[i].n() == default_ladder()[i]);
    CHECK(tune_of({}).ladder);  // the default set: finished sizes are skipped too

    CHECK(contains(usage_error({"tune", "--type", "u8", "--n", "4K,,8K"}), "--n: an item of the list"));
    CHECK(contains(usage_error({"tune", "--type", "u8", "--n", "1M..4K"}), "--n: the ladder 1M..4K is empty"));
    CHECK(contains(usage_error({"best", "--device", "0", "--n", "4K,64K"}),
                   "--n: '4K,64K' is a list or ladder of sizes, but autotune best takes one size"));
    CHECK(contains(usage_error({"bench", "--n", "4K..1M"}), "autotune bench takes one size"));
    CHECK(contains(usage_error({"best", "--device", "0", "--type", "u8"}), "--n is required"));
    CHECK(contains(usage_error({"tune", "--worker", "--problem-key", t.problems[0].key(), "--crossover", "x"}),
                   "at least two configurations"));
  }

  TEST_CASE("tune --help documents ladders, lists, the default ladder, crossovers and --retune") {
    const auto cl = parse_command_line({"tune", "--help"});
    const std::string help = std::get<HelpCommand>(cl.command).text;
    for (const char* needle : {"4K,64K,1M", "64K..256M", ":x2", "--retune", "crossover", "default ladder",
                               "geometric mean", "skipped"})
      CHECK_MESSAGE(contains(help, needle), needle);
    CHECK(contains(help, fmt::format("up to {} bridging", kCrossoverBridges)));
    // best keeps one size.
    const std::string best = std::get<HelpCommand>(parse_command_line({"best", "--help"}).command).text;
    CHECK_FALSE(contains(best, "64K..256M"));
  }

  TEST_CASE("size_ladder, default_ladder and format_size") {
    CHECK(size_ladder(4 * K, 64 * K) == std::vector<std::uint64_t>{4 * K, 16 * K, 64 * K});
    CHECK(size_ladder(3, 100, 3) == std::vector<std::uint64_t>{3, 9, 27, 81, 100});
    CHECK(size_ladder(~0ull / 2, ~0ull, 4) == std::vector<std::uint64_t>{~0ull / 2, ~0ull});  // no overflow
    CHECK_THROWS_AS(size_ladder(0, 4), UsageError);
    CHECK_THROWS_AS(size_ladder(8, 4), UsageError);
    CHECK_THROWS_AS(size_ladder(4, 8, 1), UsageError);
    CHECK(default_ladder() == std::vector<std::uint64_t>{64 * K, 256 * K, M, 4 * M, 16 * M, 64 * M, 256 * M});
    CHECK(format_size(64 * K) == "64K");
    CHECK(format_size(3 * G) == "3G");
    CHECK(format_size(1536) == "1536");
    CHECK(format_size(1536 * K) == "1536K");
    CHECK(parse_size(format_size(1536 * K)) == 1536 * K);
  }

  TEST_CASE("the crossover size is the geometric mean, rounded to a multiple of 4096, strictly between") {
    CHECK(crossover_size(64 * K, 256 * K) == 128 * K);  // powers of 4: exactly the power of 2 between
    CHECK(crossover_size(64 * M, 256 * M) == 128 * M);
    CHECK(crossover_size(M, 2 * M) == 1448 * K);  // sqrt(2) M = 1482910.4 -> 362.04 x 4096 -> 362 x 4096
    CHECK(*crossover_size(M, 2 * M) % 4096 == 0);
    CHECK(crossover_size(4 * K, 64 * K) == 16 * K);
    CHECK(crossover_size(1000, 5000) == 2176);  // 2236.1, below 64K: a multiple of 128 (at most m / 16 = 139.8)
    CHECK(crossover_size(4 * K, 8 * K) == 5888);  // 5792.6 -> multiple of 256
    CHECK(crossover_size(1000, 1000) == std::nullopt);
    CHECK(crossover_size(2000, 1000) == std::nullopt);
    CHECK(crossover_size(1, 2) == std::nullopt);   // 1.41 rounds to 1: not strictly between
    CHECK(crossover_size(0, 2) == std::nullopt);
    for (std::uint64_t a : {4 * K, 64 * K, 3 * M, 100 * M})
      for (std::uint64_t f : {2ull, 4ull, 16ull}) {
        const auto m = crossover_size(a, a * f);
        REQUIRE(m);
        CHECK(*m > a);
        CHECK(*m < a * f);
        const double g = std::sqrt(double(a) * double(a * f));
        if (g >= 65536) CHECK(*m % 4096 == 0);
        CHECK(std::abs(double(*m) - g) <= std::min(2048.0, g / 32));
      }
  }

  TEST_CASE("a crossover is measured only where winners differ and nothing current is recorded") {
    const Config a = test::config(256, 4), b = test::config(512, 8), c = test::config(128, 2);
    CHECK(crossover_decision(a, a, 64 * K, 256 * K, std::nullopt, true) == CrossoverDecision::same_winner);
    CHECK(crossover_decision(a, b, 64 * K, 256 * K, std::nullopt, false) == CrossoverDecision::measure);
    CHECK(crossover_decision(a, b, 64 * K, 256 * K, b, false) == CrossoverDecision::recorded);
    CHECK(crossover_decision(a, b, 64 * K, 256 * K, a, false) == CrossoverDecision::recorded);
    CHECK(crossover_decision(a, b, 64 * K, 256 * K, a, true) == CrossoverDecision::measure);  // a neighbour changed
    CHECK(crossover_decision(a, b, 64 * K, 256 * K, c, false) == CrossoverDecision::measure);  // stale answer at m
    CHECK(crossover_decision(a, b, 1, 2, std::nullopt, true) == CrossoverDecision::no_size_between);
  }

  TEST_CASE("a winner at m that is one of the crossover's bridges is recorded, unless a neighbour was tuned now") {
    const Config a = test::config(256, 4), b = test::config(512, 8), c = test::config(128, 2), d = test::config(64, 1);
    CHECK(crossover_decision(a, b, 64 * K, 256 * K, c, false, {d, c}) == CrossoverDecision::recorded);
    CHECK(crossover_decision(a, b, 64 * K, 256 * K, c, true, {d, c}) == CrossoverDecision::measure);
    CHECK(crossover_decision(a, b, 64 * K, 256 * K, c, false, {d}) == CrossoverDecision::measure);
  }

  TEST_CASE("bridge_candidates: configurations ok at both sizes, by the sum of their log slowdowns, ties to the "
            "smaller key, neither winner, at most `count`") {
    using test::config;
    const auto ok = [](const Config& c, double ms) { return Measurement{c, MeasurementStatus::ok, {}, ms}; };
    const Config A = config(256, 4), B = config(512, 8);  // the winners below and above
    const Config C = config(128, 2), D = config(64, 1), E = config(1024, 16), F = config(128, 4), G = config(64, 2);
    const Config T1 = config(256, 2), T2 = config(256, 8);  // equal sums
    Measurement failed{E, MeasurementStatus::wrong_result, "wrong", 0.0};
    const std::vector<Measurement> below{ok(A, 1.0), ok(C, 1.1), ok(D, 1.5), failed, ok(F, 1.02), ok(T2, 1.2),
                                         ok(T1, 1.2), ok(B, 1.3)};
    const std::vector<Measurement> above{ok(B, 2.0), ok(C, 2.1),  ok(D, 2.0), ok(E, 2.0), ok(F, 3.0),
                                         ok(G, 2.0), ok(T1, 2.4), ok(T2, 2.4), ok(A, 2.2)};
    // C: ln 1.1 + ln 1.05 = 0.144; T1 and T2: ln 1.2 + ln 1.2 = 0.365; D: ln 1.5 = 0.405; F: ln 1.02 + ln 1.5 = 0.425.
    // E failed below, G ran above only, A and B are the winners.
    const bool t1_first = T1.key() < T2.key();
    const Config first_tie = t1_first ? T1 : T2, second_tie = t1_first ? T2 : T1;
    CHECK(bridge_candidates(below, above, A, B, 10) == std::vector<Config>{C, first_tie, second_tie, D, F});
    CHECK(bridge_candidates(below, above, A, B, 2) == std::vector<Config>{C, first_tie});
    CHECK(bridge_candidates(below, above, A, B, 0).empty());
    CHECK(bridge_candidates(below, {}, A, B, 4).empty());
  }

  TEST_CASE("run_ladders measures a crossover with its bridges; a bridge that won at m is not measured again") {
    Cache cache(":memory:");
    const DeviceInfo dev = test::h100();
    const Config A = test::config(256, 4), B = test::config(512, 8), C = test::config(128, 2), D = test::config(64, 1);
    FakeTuner tuner{cache, dev, current_identity("histogram", dev.driver_version), {{256 * K, A}, {M, B}}};
    // C runs 5 % off at both sizes, D 40 % off at 256K and 1 % at 1M; B at 256K and A at 1M are the other winners.
    tuner.others = {{256 * K, {{C, 1.05}, {D, 1.4}, {B, 1.5}}}, {M, {{C, 1.05}, {D, 1.01}, {A, 1.6}}}};
    tuner.bridge_wins = true;
    LadderEvents events;
    events.run = [&](const LadderStep& step) { return tuner.run(step); };
    const std::vector<Problem> ladder{test::problem(256 * K), test::problem(M)};
    const LadderSummary first = run_ladders(ladder, cache, dev, LadderSettings{true}, events);
    CHECK(first.crossovers == 1);
    REQUIRE(tuner.crossovers.size() == 1);
    CHECK(tuner.crossovers[0] == std::vector<Config>{A, B, C, D});  // the winners, then C (0.098) before D (0.346)
    const auto at_512k = cache.find_winner(dev.model_key(), test::problem(512 * K), tuner.code);
    REQUIRE(at_512k);
    CHECK(at_512k->config == D);
    tuner.steps.clear();
    const LadderSummary again = run_ladders(ladder, cache, dev, LadderSettings{true}, events);
    CHECK(tuner.steps.empty());
    CHECK(again.crossovers_skipped == 1);
  }

  TEST_CASE("crossovers between sizes 16x apart are refined to 2x where the winners differ, and not measured again") {
    Cache cache(":memory:");
    const DeviceInfo dev = test::h100();
    const Config A = test::config(256, 4), B = test::config(512, 8), C = test::config(128, 2);
    FakeTuner tuner{cache, dev, current_identity("histogram", dev.driver_version), {{M, A}, {16 * M, B}}};
    LadderEvents events;
    events.run = [&](const LadderStep& step) { return tuner.run(step); };
    const std::vector<Problem> ladder{test::problem(M), test::problem(16 * M)};
    // The crossover at 4M is won by A (the smaller size's winner): A = A below it, nothing to refine; A != B above it.
    const LadderSummary first = run_ladders(ladder, cache, dev, LadderSettings{true}, events);
    CHECK(tuner.steps == std::vector<std::string>{"tune 1M", "tune 16M", "crossover 4M of 1M and 16M",
                                                  "crossover 8M of 4M and 16M"});
    CHECK(first.crossovers == 2);
    CHECK(first.crossovers_skipped == 0);
    // 8M and 16M are 2x apart: no crossover between them although their winners differ.
    CHECK_FALSE(cache.find_winner(dev.model_key(), test::problem(*crossover_size(8 * M, 16 * M)), tuner.code));
    tuner.steps.clear();
    const LadderSummary again = run_ladders(ladder, cache, dev, LadderSettings{true}, events);
    CHECK(tuner.steps.empty());
    CHECK(again.crossovers == 0);
    CHECK(again.crossovers_skipped == 2);  // 4M and 8M: recorded

    // A bridge C, 5 % off at both sizes, wins at 4M: it differs from both neighbours, so both halves are refined.
    Cache fresh(":memory:");
    std::swap(cache, fresh);
    tuner.steps.clear();
    tuner.others = {{M, {{C, 1.05}}}, {16 * M, {{C, 1.05}}}};
    tuner.bridge_wins = true;
    run_ladders(ladder, cache, dev, LadderSettings{true}, events);
    CHECK(tuner.steps == std::vector<std::string>{"tune 1M", "tune 16M", "crossover 4M of 1M and 16M",
                                                  "crossover 2M of 1M and 4M", "crossover 8M of 4M and 16M"});
    // The default ladder's 4x steps are not refined: their crossovers are 2x from each neighbour.
    Cache third(":memory:");
    std::swap(cache, third);
    tuner.steps.clear();
    tuner.winners = {{M, A}, {4 * M, B}};
    tuner.others = {};
    tuner.bridge_wins = false;
    run_ladders({test::problem(M), test::problem(4 * M)}, cache, dev, LadderSettings{true}, events);
    CHECK(tuner.steps == std::vector<std::string>{"tune 1M", "tune 4M", "crossover 2M of 1M and 4M"});
  }

  TEST_CASE("group_ladders: one ladder per shape, ascending, each size once") {
    const Problem u64k = test::problem(64 * K), u1m = test::problem(M), u4k = test::problem(4 * K);
    const Problem b1m = test::problem(M, 128);
    const auto g = group_ladders({u1m, b1m, u64k, u1m, u4k});
    REQUIRE(g.size() == 2);
    CHECK(g[0] == std::vector<Problem>{u4k, u64k, u1m});
    CHECK(g[1] == std::vector<Problem>{b1m});
  }

  TEST_CASE("run_ladders tunes each size, measures crossovers where winners differ, and skips finished sizes") {
    Cache cache(":memory:");
    const DeviceInfo dev = test::h100();
    const Config A = test::config(256, 4), B = test::config(512, 8);
    // A, A, B, A: crossovers between 256K and 1M, and between 1M and 4M; none between 64K and 256K.
    FakeTuner tuner{cache, dev, current_identity("histogram", dev.driver_version),
                    {{64 * K, A}, {256 * K, A}, {M, B}, {4 * M, A}}};
    const CodeIdentity& code = tuner.code;
    std::vector<std::string>& steps = tuner.steps;
    std::size_t& no_memory_at = tuner.no_memory_at;
    LadderEvents events;
    events.run = [&](const LadderStep& step) { return tuner.run(step); };
    std::vector<std::string> skipped;
    events.finished = [&](const Problem& p, const Winner&) { skipped.push_back(format_size(p.n())); };
    std::vector<Problem> ladder;
    for (std::uint64_t n : {64 * K, 256 * K, M, 4 * M}) ladder.push_back(test::problem(n));

    const LadderSummary first = run_ladders(ladder, cache, dev, LadderSettings{true}, events);
    CHECK(steps == std::vector<std::string>{"tune 64K", "tune 256K", "tune 1M", "crossover 512K of 256K and 1M",
                                            "tune 4M", "crossover 2M of 1M and 4M"});
    CHECK(first.tuned == 4);
    CHECK(first.crossovers == 2);
    CHECK(first.crossovers_skipped == 1);  // 64K and 256K: the same winner
    CHECK(skipped.empty());
    // The crossover is an ordinary tuned size: the exact lookup at m returns its winner.
    const auto at_512k = cache.find_winner(dev.model_key(), test::problem(512 * K), code);
    REQUIRE(at_512k);
    CHECK(at_512k->config == A);

    // The same command again: nothing is tuned, no crossover measured again.
    steps.clear();
    const LadderSummary again = run_ladders(ladder, cache, dev, LadderSettings{true}, events);
    CHECK(steps.empty());
    CHECK(again.tuned == 0);
    CHECK(again.skipped_finished == 4);
    CHECK(again.crossovers_skipped == 3);
    CHECK(skipped == std::vector<std::string>{"64K", "256K", "1M", "4M"});

    // --retune: every size and the crossovers again.
    steps.clear();
    const LadderSummary retuned = run_ladders(ladder, cache, dev, LadderSettings{false}, events);
    CHECK(retuned.tuned == 4);
    CHECK(retuned.crossovers == 2);

    // Interrupted after 1M (here: 4M never finished): the rerun tunes only 4M and the crossover it makes.
    Cache fresh(":memory:");
    std::swap(cache, fresh);
    no_memory_at = 0;
    steps.clear();
    run_ladders({ladder[0], ladder[1], ladder[2]}, cache, dev, LadderSettings{true}, events);
    steps.clear();
    run_ladders(ladder, cache, dev, LadderSettings{true}, events);
    CHECK(steps == std::vector<std::string>{"tune 4M", "crossover 2M of 1M and 4M"});

    // A size that does not fit is skipped; the ladder goes on, without crossovers next to it.
    Cache third(":memory:");
    std::swap(cache, third);
    steps.clear();
    no_memory_at = M;
    const LadderSummary short_of_memory = run_ladders(ladder, cache, dev, LadderSettings{true}, events);
    CHECK(steps == std::vector<std::string>{"tune 64K", "tune 256K", "no memory 1M", "tune 4M"});
    CHECK(short_of_memory.no_memory == 1);
    CHECK(short_of_memory.tuned == 3);
    CHECK(short_of_memory.crossovers == 0);
  }
}
