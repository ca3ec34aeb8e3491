// The tuning strategies as objects (tuner/strategy.hpp): which one a run gets, what each selects, and how each
// measures. The selections are checked against a runnable mask built here, not against the strategies' own code.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "tuner/strategy.hpp"

using namespace autotune;

namespace {

struct Space {
  std::vector<Config> configs;
  std::vector<bool> runnable;  // every third configuration cannot run, except the fallback
  Config fallback;
  std::size_t fallback_index = 0;
};

Space u8_space() {
  HistogramProblem p;
  Space s;
  for (const HistogramConfig& c : space_decl::any_n(p, histogram_space)) {
    s.runnable.push_back(s.configs.size() % 3 != 0);
    s.configs.emplace_back(c);
  }
  s.fallback = Config(HistogramConfig::fallback(p));
  s.fallback_index = static_cast<std::size_t>(
      std::find(s.configs.begin(), s.configs.end(), s.fallback) - s.configs.begin());
  if (s.fallback_index < s.configs.size()) s.runnable[s.fallback_index] = true;  // the built-in default runs anywhere
  return s;
}

std::vector<std::size_t> runnable_indices(const Space& s) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < s.runnable.size(); ++i)
    if (s.runnable[i]) out.push_back(i);
  return out;
}

TuneOptions named(const char* strategy) {
  TuneOptions o;
  o.strategy = strategy;
  return o;
}

}  // namespace

TEST_SUITE("timing") {
  TEST_CASE("make_strategy: the named strategy, the crossover for candidates whatever the name, and a UsageError "
            "listing the known names for any other") {
    CHECK(make_strategy(named("exhaustive"))->name() == "exhaustive");
    CHECK(make_strategy(named("random"))->name() == "random");
    CHECK(make_strategy(named("halving"))->name() == "halving");
    TuneOptions crossover = named("halving");
    crossover.candidates = {Config(HistogramConfig{})};
    CHECK(make_strategy(crossover)->name() == "crossover");
    CHECK(tune_strategies() == std::vector<std::string>{"exhaustive", "random", "halving"});
    CHECK_THROWS_WITH_AS(make_strategy(named("genetic")),
                         "unknown strategy 'genetic' (known: exhaustive, random, halving)", UsageError);
  }

  TEST_CASE("only halving measures in two rounds, and only random stops at its time budget") {
    for (const char* name : {"exhaustive", "random", "halving"}) {
      CAPTURE(name);
      const auto s = make_strategy(named(name));
      CHECK(s->measures_in_two_rounds() == (std::string(name) == "halving"));
      CHECK(s->stops_at_time_budget() == (std::string(name) == "random"));
    }
    TuneOptions crossover;
    crossover.candidates = {Config(HistogramConfig{})};
    CHECK_FALSE(make_strategy(crossover)->measures_in_two_rounds());
    CHECK_FALSE(make_strategy(crossover)->stops_at_time_budget());
  }

  TEST_CASE("exhaustive, halving and crossover select every runnable configuration, in space order") {
    const Space s = u8_space();
    REQUIRE(s.configs.size() > 100);
    TuneOptions crossover;
    crossover.candidates = {s.fallback};
    for (const TuneOptions& o : {named("exhaustive"), named("halving"), crossover}) {
      CAPTURE(o.strategy);
      CHECK(make_strategy(o)->select(s.configs, s.runnable, s.fallback, o) == runnable_indices(s));
    }
  }

  TEST_CASE("random draws `budget` distinct runnable configurations with the fallback, the same for one seed") {
    const Space s = u8_space();
    REQUIRE(s.fallback_index < s.configs.size());
    REQUIRE(s.runnable[s.fallback_index]);
    const std::vector<std::size_t> all = runnable_indices(s);
    TuneOptions o = named("random");
    o.budget = 10, o.seed = 1;
    const auto random = make_strategy(o);
    const auto a = random->select(s.configs, s.runnable, s.fallback, o);
    CHECK(a.size() == 10);
    CHECK(std::is_sorted(a.begin(), a.end()));
    CHECK(std::set<std::size_t>(a.begin(), a.end()).size() == a.size());
    for (std::size_t i : a) CHECK(s.runnable[i]);
    CHECK(std::count(a.begin(), a.end(), s.fallback_index) == 1);
    CHECK(random->select(s.configs, s.runnable, s.fallback, o) == a);  // the same seed, the same draw
    o.seed = 2;
    CHECK(random->select(s.configs, s.runnable, s.fallback, o) != a);
    // No budget: a quarter of the runnable space (at least 8); a budget past the space: all of it.
    o.budget = 0;
    CHECK(random->select(s.configs, s.runnable, s.fallback, o).size() == std::max<std::size_t>(8, all.size() / 4));
    o.budget = static_cast<int>(all.size()) + 5;
    CHECK(random->select(s.configs, s.runnable, s.fallback, o) == all);
  }
}
