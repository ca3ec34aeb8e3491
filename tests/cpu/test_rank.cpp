// The lookup's ranking on the CPU (runtime/candidates.hpp, runtime/rank.hpp, runtime/size_table.hpp): the candidates
// gathered from a cache, the policy and the family; their predicted slowdowns from a small cost table written here
// (so every expected number is worked out by hand below, not taken from the shipped data); the tie rules; the table's
// switch between two tuned sizes; what a requirement keeps; the examples the ranking was built for, with the shipped
// costs; and `autotune best` printing the choice, its prediction and the runner-up.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/resolution.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/family.hpp"
#include "runtime/candidates.hpp"
#include "runtime/policy.hpp"
#include "runtime/rank.hpp"
#include "runtime/size_table.hpp"
#include "tests/cpu/cache_fixtures.hpp"

using namespace autotune;
using namespace autotune::test;

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// Made-up costs, chosen so that the arithmetic below is exact in binary floating point. The reduce family holds only
// its fallback: the rest comes from the default family (histogram).
constexpr const char* kCosts = R"({
  "format": 1, "default_family": "histogram", "other_model": {"factor": 1.5},
  "families": {
    "histogram": {
      "size": {"from_larger": [{"at": 4, "predicted": 1.25}], "from_smaller": [{"at": 4, "predicted": 1.75}],
               "large_from": 1048576, "large_from_smaller": [{"at": 4, "predicted": 1.125}]},
      "shape": {"similar_problem": [{"at": 2, "predicted": 1.5}], "policy": [{"at": 2, "predicted": 1.5}]},
      "policy_own": {"count": 3, "predicted": 1.25}, "other_dist": {"count": 3, "predicted": 2.0},
      "fallback": {"count": 3, "predicted": 4.0}},
    "reduce": {"fallback": {"count": 3, "predicted": 1.125}}}})";

const TransferCosts& costs() {
  static const TransferCosts c = parse_transfer_costs(kCosts);
  return c;
}

Config A() { return config(256, 4); }
Config B() { return config(512, 8); }
Config C() { return config(1024, 2, true); }

Evidence evidence(ConfigSource kind, std::vector<std::pair<std::uint64_t, Config>> sizes, double shape_distance = 0,
                  std::string shape = "shape") {
  Evidence e;
  e.kind = kind;
  e.shape = std::move(shape);
  e.shape_distance = shape_distance;
  for (auto& [n, c] : sizes) e.sizes.push_back(EvidenceSize{n, c, std::nullopt, {}, "key", {}, {}, 0, std::nullopt});
  return e;
}

double predicted(const std::vector<Evidence>& ev, std::size_t e, std::size_t size, std::uint64_t n) {
  return price(costs(), "histogram", ev, e, size, n).predicted;
}

DeviceInfo h200() {
  DeviceInfo d = h100();
  d.name = "NVIDIA H200";  // the GPU the shipped policy and costs were measured on
  d.memory_bytes = 150'754'820'096ull;
  return d;
}

LookupTarget target_of(const DeviceInfo& d) { return LookupTarget{d.model_key(), d.arch(), d.sm_count, 0, d}; }

ReduceProblem reduction(ReduceOp op, ValueType type, std::uint64_t n) {
  return ReduceProblem{.op = op, .type = type, .n = n};
}

std::size_t count_kind(const Gathered& g, ConfigSource kind) {
  return static_cast<std::size_t>(
      std::count_if(g.evidence.begin(), g.evidence.end(), [&](const Evidence& e) { return e.kind == kind; }));
}

}  // namespace

TEST_SUITE("rank") {
  TEST_CASE("a cost curve is 1 at distance 0, linear between its points and flat after the last") {
    const CostCurve c{{{2.0, 1.5}, {4.0, 3.5}}};
    CHECK(c.at(0) == 1.0);
    CHECK(c.at(1) == 1.25);
    CHECK(c.at(2) == 1.5);
    CHECK(c.at(3) == 2.5);
    CHECK(c.at(100) == 3.5);
    CHECK(c.at(1, 1.25) == 1.375);  // from another origin (the policy's own entry)
    CHECK(CostCurve{}.at(7) == 1.0);
  }

  TEST_CASE("a family takes what its entry lacks from the default family; bad documents are refused") {
    const FamilyCosts& r = costs().of("reduce");
    CHECK(r.fallback == 1.125);
    CHECK(r.from_smaller.at(4) == 1.75);  // the histogram's
    CHECK(costs().of("segreduce").fallback == 4.0);  // no entry: the default family's
    CHECK(costs().other_model == 1.5);
    auto refused = [](const std::string& doc, const std::string& why) {
      CHECK_THROWS_WITH_AS(parse_transfer_costs(doc), doctest::Contains(why.c_str()), Error);
    };
    refused("[1]", "not a JSON object");
    refused(R"({"format": 2})", "format is not 1");
    refused(R"({"format": 1, "default_family": "x", "families": {}})", "default family 'x'");
    refused(R"({"format": 1, "default_family": "h", "families": {"h": {"size": {"from_larger":
               [{"at": 4, "predicted": 1.2}, {"at": 2, "predicted": 1.1}]}}}})", "not ascending");
    refused(R"({"format": 1, "default_family": "h", "families": {"h": {"fallback": {"count": 1, "predicted": 0}}}})",
            "no positive 'predicted'");
    refused(R"({"format": 1, "default_family": "h", "other_model": {"factor": 0.5}, "families": {"h": {}}})",
            "below 1");
  }

  TEST_CASE("the shipped costs parse, name their data (a file of the repository), and price both measured families") {
    const TransferCosts& t = shipped_transfer_costs();
    const auto data = t.provenance.find(", data bench/results/");
    REQUIRE(data != std::string::npos);
    const std::string path = t.provenance.substr(data + std::string(", data ").size());
    CHECK(std::filesystem::is_regular_file(std::string(AUTOTUNE_SOURCE_DIR) + "/" + path));
    CHECK(t.gpu == "NVIDIA H200");
    for (const char* f : {"histogram", "reduce"}) {
      REQUIRE(t.families.count(f) == 1);
      CHECK_FALSE(t.of(f).from_larger.points.empty());
      CHECK_FALSE(t.of(f).from_smaller.points.empty());
      CHECK(t.of(f).fallback > 1.0);
    }
  }

  TEST_CASE("each factor of a prediction, worked out by hand") {
    // The problem is at n = 1023: a size at 4095 is 2 doublings above it ((4095+1)/(1023+1) = 4), 255 two below.
    std::vector<Evidence> ev{evidence(ConfigSource::nearest_size, {{255, A()}, {1023, B()}, {4095, C()}}),
                             evidence(ConfigSource::similar_problem, {{1023, A()}, {4095, A()}}, 1),
                             evidence(ConfigSource::policy, {{1023, A()}}, 0),
                             evidence(ConfigSource::policy, {{1023, A()}}, 1),
                             evidence(ConfigSource::similar_device, {{1023, A()}}),
                             evidence(ConfigSource::fallback, {{0, A()}})};
    ev[4].other_model = true;
    CHECK(predicted(ev, 0, 1, 1023) == 1.0);                 // tuned exactly
    CHECK(price(costs(), "histogram", ev, 0, 1, 1023).source == ConfigSource::exact);
    CHECK(price(costs(), "histogram", ev, 0, 2, 1023).source == ConfigSource::nearest_size);
    CHECK(predicted(ev, 0, 2, 1023) == 1.125);               // from a larger n: 1 + 0.25 x 2/4
    CHECK(predicted(ev, 0, 0, 1023) == 1.375);               // from a smaller n: 1 + 0.75 x 2/4
    CHECK(predicted(ev, 1, 0, 1023) == 1.25);                // another shape at distance 1: 1 + 0.5 x 1/2
    CHECK(predicted(ev, 1, 1, 1023) == 1.25 * 1.125);        // ... and a larger n
    CHECK(predicted(ev, 2, 0, 1023) == 1.25);                // the policy's own entry of the problem
    CHECK(predicted(ev, 3, 0, 1023) == 1.375);               // a policy shape at distance 1: 1.25 + 0.25 x 1/2
    ev[2].policy_of_distribution = ev[3].policy_of_distribution = true;  // fitted on the problem's distribution
    CHECK(predicted(ev, 2, 0, 1023) == 1.0);                 // its own entry: the winner measured on it
    CHECK(predicted(ev, 3, 0, 1023) == 1.25);                // at distance 1: 1 + 0.5 x 1/2
    ev[2].policy_of_distribution = ev[3].policy_of_distribution = false;
    CHECK(predicted(ev, 4, 0, 1023) == 1.5);                 // another GPU model
    CHECK(predicted(ev, 5, 0, 1023) == 4.0);                 // the built-in default, at any n
    CHECK(predicted(ev, 5, 0, kMax) == 4.0);
    // Both sizes at least 1M (large_from): the large-size curve where there is one (from a smaller n), 2 doublings.
    const std::vector<Evidence> large{evidence(ConfigSource::nearest_size, {{(1u << 21) - 1, A()}, {(1u << 25) - 1, B()}}),
                                      evidence(ConfigSource::nearest_size, {{(1u << 19) - 1, A()}})};
    CHECK(predicted(large, 0, 0, (1u << 23) - 1) == 1.0625);  // 1 + 0.125 x 2/4
    CHECK(predicted(large, 0, 1, (1u << 23) - 1) == 1.125);   // from a larger n: no large curve, the general one
    CHECK(predicted(large, 1, 0, (1u << 21) - 1) == 1.375);   // the smaller n is below 1M: the general curve
    ev[0].distribution = DistributionMatch::other;
    CHECK(predicted(ev, 0, 1, 1023) == 2.0);                 // exact, but measured on another distribution
    ev[0].distribution = DistributionMatch::robust;
    CHECK(predicted(ev, 0, 1, 1023) == 1.25);                // ... on the robust set
    // The ranking at 1023: the exact size, then the larger size of the same shape is not listed (one entry per
    // piece of evidence, at its best size), then the others by prediction.
    ev[0].distribution = DistributionMatch::same;
    const std::vector<Ranked> r = rank_at(costs(), "histogram", ev, 1023);
    REQUIRE(r.size() == ev.size());
    CHECK(r[0].evidence == 0);
    CHECK(r[0].size == 1);
    CHECK(r.back().evidence == 5);
  }

  TEST_CASE("where the best answer is a robust policy entry of 16-bit shared counters and the policy holds an entry of "
            "the problem's distribution, every robust entry is priced x concentrated from its n on; not below it, not "
            "for 32-bit counters, not without such an entry") {
    // The costs above with the rule: x1.25 where both n are at least 1M (exact in binary floating point).
    std::string doc = kCosts;
    doc.insert(doc.find("\"families\""), R"("concentrated": {"factor": 1.25, "from": 1048576}, )");
    const TransferCosts t = parse_transfer_costs(doc);
    REQUIRE(t.concentrated == 1.25);
    REQUIRE(t.concentrated_from == 1048576);
    auto cfg = [](int bits) {
      const auto c = HistogramConfig::parse(fmt::format(
          "priv=shared,R=1,cbits={},block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0", bits));
      REQUIRE(c);
      return Config(*c);
    };
    const std::uint64_t n = (1u << 24) - 1;  // every entry below is of this n: no size factor
    auto answer = [&](const std::vector<Evidence>& ev, std::uint64_t at) {
      return best_at(t, "histogram", ev, at).value().evidence;
    };
    auto entries = [&](std::uint64_t at, int robust_bits) {
      std::vector<Evidence> ev{evidence(ConfigSource::policy, {{at, cfg(robust_bits)}}, 0, "robust-16"),
                               evidence(ConfigSource::policy, {{at, cfg(32)}}, 1, "robust-32"),
                               evidence(ConfigSource::policy, {{at, B()}}, 2, "narrow")};
      ev[2].policy_of_distribution = true;
      return ev;
    };
    // Without the rule: the robust entry of the problem's shape 1.25 (policy_own), the farther robust one 1.375
    // (1.25 + 0.25 x 1/2), the entry of the problem's distribution at distance 2: 1.5.
    std::vector<Evidence> ev = entries(n, 16);
    CHECK(predicted(ev, 0, 0, n) == 1.25);  // the table above has no rule
    CHECK(concentrated_at(t, "histogram", ev, n));
    CHECK(price(t, "histogram", ev, 0, 0, n).predicted == 1.5625);  // 1.25 x 1.25
    CHECK(price(t, "histogram", ev, 1, 0, n).predicted == 1.71875);  // 1.375 x 1.25: every robust entry, not the
                                                                     // 16-bit one alone (it would then serve)
    CHECK(price(t, "histogram", ev, 2, 0, n).predicted == 1.5);
    CHECK(answer(ev, n) == 2);
    const std::vector<Ranked> r = rank_at(t, "histogram", ev, n);
    CHECK(r.front().evidence == 2);
    CHECK(r[1].evidence == 0);
    // 32-bit counters in the best robust entry: the rule does not apply, and the robust entry serves.
    ev = entries(n, 32);
    CHECK_FALSE(concentrated_at(t, "histogram", ev, n));
    CHECK(answer(ev, n) == 0);
    // Below 1M (the problem and the entries): no rule.
    ev = entries(1048575, 16);
    CHECK_FALSE(concentrated_at(t, "histogram", ev, 1048575));
    CHECK(answer(ev, 1048575) == 0);
    // No entry of the problem's distribution: nothing to prefer.
    ev = entries(n, 16);
    ev[2].policy_of_distribution = false;
    CHECK_FALSE(concentrated_at(t, "histogram", ev, n));
    CHECK(answer(ev, n) == 0);
    // The shipped table's rule, with its data named.
    CHECK(shipped_transfer_costs().concentrated > 1.0);
    CHECK(shipped_transfer_costs().concentrated_from >= 1048576);
    // Bad rules are refused.
    auto refused = [&](const std::string& rule, const std::string& why) {
      std::string bad = kCosts;
      bad.insert(bad.find("\"families\""), rule);
      CHECK_THROWS_WITH_AS(parse_transfer_costs(bad), doctest::Contains(why.c_str()), Error);
    };
    refused(R"("concentrated": {"factor": 0.5, "from": 1}, )", "concentrated.factor");
    refused(R"("concentrated": {"factor": 1.25}, )", "concentrated.from");
    refused(R"("concentrated": {"factor": 1.25, "from": -1}, )", "concentrated.from");
  }

  TEST_CASE("ties go to the smaller shape distance, then the fewer doublings, then the closer kind, then a policy "
            "shape of the problem's own distribution, then the key") {
    // Every pair below predicts the same 1.25 (or 1.5): only the tie rules separate them.
    std::vector<Evidence> ev{evidence(ConfigSource::similar_problem, {{1023, A()}}, 1),  // 1.25, distance 1
                             evidence(ConfigSource::policy, {{1023, B()}}, 0)};           // 1.25, distance 0
    CHECK(rank_at(costs(), "histogram", ev, 1023).front().evidence == 1);

    // Distance 0 both: exact on the robust set (1.25, 0 doublings) vs 4 doublings above (1.25, flat after 4).
    ev = {evidence(ConfigSource::nearest_size, {{16383, A()}}, 0, "s-uniform"),
          evidence(ConfigSource::nearest_size, {{1023, B()}}, 0, "s-robust")};
    ev[1].distribution = DistributionMatch::robust;
    CHECK(rank_at(costs(), "histogram", ev, 1023).front().evidence == 1);

    // 0 doublings and distance 0 both: the exact robust winner (1.25) before the policy's own entry (1.25).
    ev = {evidence(ConfigSource::policy, {{1023, A()}}), evidence(ConfigSource::nearest_size, {{1023, B()}})};
    ev[1].distribution = DistributionMatch::robust;
    const Ranked first = rank_at(costs(), "histogram", ev, 1023).front();
    CHECK(first.evidence == 1);
    CHECK(first.source == ConfigSource::exact);

    // Two policy shapes past the curve's last point (1.5 both): the one fitted on the problem's own distribution,
    // whatever the keys' order.
    ev = {evidence(ConfigSource::policy, {{1023, A()}}, 3, "histogram/a/dist=uniform"),
          evidence(ConfigSource::policy, {{1023, B()}}, 3, "histogram/a/dist=wide")};
    ev[1].policy_of_distribution = true;
    CHECK(predicted(ev, 0, 0, 1023) == predicted(ev, 1, 0, 1023));
    CHECK(rank_at(costs(), "histogram", ev, 1023).front().evidence == 1);
    ev[1].policy_of_distribution = false;
    CHECK(rank_at(costs(), "histogram", ev, 1023).front().evidence == 0);

    // Two policy shapes of another GPU's policy past the curve's last point (1.5 x 1.5 both), the farther one's entry
    // measured on the target's model (EvidenceSize::other_model): that one, before the nearer shape.
    ev = {evidence(ConfigSource::policy, {{1023, A()}}, 3, "histogram/a"),
          evidence(ConfigSource::policy, {{1023, B()}}, 4, "histogram/b")};
    ev[0].other_model = ev[1].other_model = true;
    CHECK(predicted(ev, 0, 0, 1023) == 2.25);
    CHECK(rank_at(costs(), "histogram", ev, 1023).front().evidence == 0);  // the smaller distance
    ev[1].sizes[0].other_model = false;
    CHECK(predicted(ev, 1, 0, 1023) == 2.25);  // a tie rule, not a factor
    CHECK(rank_at(costs(), "histogram", ev, 1023).front().evidence == 1);
    // The policy of the target's model with an entry measured on another: the others first.
    ev[0].other_model = ev[1].other_model = false;
    ev[0].sizes[0].other_model = true;
    ev[1].sizes[0].other_model.reset();
    CHECK(rank_at(costs(), "histogram", ev, 1023).front().evidence == 1);

    // Everything equal but the shape key: its order.
    ev = {evidence(ConfigSource::similar_problem, {{1023, A()}}, 1, "histogram/b"),
          evidence(ConfigSource::similar_problem, {{1023, B()}}, 1, "histogram/a")};
    CHECK(rank_at(costs(), "histogram", ev, 1023).front().evidence == 1);
    // Within one piece of evidence, equal predictions: the nearer size (0 is 10 doublings below 1023, 16383 four
    // above 1023: 1.25 both, flat after 4 doublings... 0 is served from 1023 at 1.25, from 16383 at 1.25).
    ev = {evidence(ConfigSource::nearest_size, {{1023, A()}, {16383, B()}})};
    CHECK(rank_at(costs(), "histogram", ev, 0).front().size == 0);
  }

  TEST_CASE("between two tuned sizes the switch is where their predictions cross, not at the geometric mean") {
    // 1023 and 16383 are 4 doublings apart. n = 1023 + x doublings: from below 1 + 0.75 x/4, from above
    // 1 + 0.25 (4 - x)/4; equal at x = 1, n = 2047 (1.1875 both: the tie goes to the fewer doublings, 1023's).
    // The geometric mean would switch at 4095.
    const std::vector<Evidence> ev{evidence(ConfigSource::nearest_size, {{1023, A()}, {16383, B()}}),
                                   evidence(ConfigSource::fallback, {{0, C()}})};
    Gathered g;
    g.evidence = ev;
    const SizeLookup s = rank_sizes(g, costs(), Problem(problem(3000)));
    REQUIRE(s.sizes.size() == 2);
    CHECK(s.sizes[0].n_from == 0);
    CHECK(s.sizes[0].n_to == 2047);
    CHECK(s.sizes[0].config == A());
    CHECK(s.sizes[1].n_from == 2048);
    CHECK(s.sizes[1].n_to == kMax);
    CHECK(s.sizes[1].config == B());
    CHECK(s.sizes[0].why == "tuned for n=1023");
    CHECK(s.sizes[0].source_at(1023) == ConfigSource::exact);
    // The worst prediction of each range: n = 0 is 10 doublings below 1023 (1.25, flat); n = max far above 16383.
    CHECK(s.sizes[0].predicted_slowdown == 1.25);
    CHECK(s.sizes[1].predicted_slowdown == 1.75);
    // The hint: 3000 is served by 16383 (2.42 doublings below it): 1 + 0.25 x log2(16384/3001)/4.
    CHECK(s.at_hint.config == B());
    CHECK(s.at_hint.source == ConfigSource::nearest_size);
    CHECK(s.at_hint.predicted_slowdown == doctest::Approx(1 + 0.25 * std::log2(16384.0 / 3001) / 4));
    REQUIRE(s.at_hint.runner_up);
    CHECK(s.at_hint.runner_up->config == C());  // the next configuration: the built-in default (A is not another
                                                // candidate: one entry per piece of evidence)
    CHECK(s.at_hint.runner_up->predicted_slowdown == 4.0);
    // The table and the hint agree at every switch, as a handle's call reads it.
    for (const std::uint64_t n : {0ull, 2047ull, 2048ull, 16383ull}) {
      Problem p = Problem(problem(n));
      CAPTURE(n);
      const SizeLookup at = rank_sizes(g, costs(), p);
      CHECK(at.at_hint.config == (n <= 2047 ? A() : B()));
    }
  }

  TEST_CASE("between two tuned sizes that both timed a configuration, it is priced from those times, interpolated "
            "geometrically in log2(n+1), against the fastest times there") {
    // Tuned at 1023 (A won in 1 ms) and 16383 (B won in 2 ms); n = 4095 lies half-way in log2(n+1) (10, 12, 14
    // bits). The curves alone: A from 2 doublings below 1 + 0.75 x 2/4 = 1.375, B from 2 above 1 + 0.25 x 2/4 = 1.125.
    std::vector<Evidence> ev{evidence(ConfigSource::nearest_size, {{1023, A()}, {16383, B()}})};
    CHECK(predicted(ev, 0, 0, 4095) == 1.375);
    CHECK(predicted(ev, 0, 1, 4095) == 1.125);
    CHECK_FALSE(price(costs(), "histogram", ev, 0, 0, 4095).measured_between);
    // The tunings timed both at both sizes: A 1.0625x the best at 16383 (2.125 ms), B 1.5x at 1023 (1.5 ms). At
    // n: A sqrt(1 x 2.125), B sqrt(1.5 x 2), against the fastest sqrt(1 x 2): sqrt(1.0625) and sqrt(1.5).
    ev[0].sizes[0].measured = {{1023, 1.0, 1.0}, {16383, 1.0625, 2.0}};
    ev[0].sizes[1].measured = {{1023, 1.5, 1.0}, {16383, 1.0, 2.0}};
    CHECK(predicted(ev, 0, 0, 4095) == doctest::Approx(std::sqrt(1.0625)));
    CHECK(predicted(ev, 0, 1, 4095) == doctest::Approx(std::sqrt(1.5)));
    CHECK(price(costs(), "histogram", ev, 0, 0, 4095).measured_between);
    CHECK(time_between(ev[0], ev[0].sizes[0], 4095) == doctest::Approx(std::sqrt(2.125)));
    CHECK(predicted(ev, 0, 1, 2047) == doctest::Approx(std::pow(1.5, 0.75)));  // a quarter of the way
    CHECK(rank_at(costs(), "histogram", ev, 4095).front().size == 0);
    // Timed at one end only (B at 1023): the curves.
    ev[0].sizes[1].measured = {{1023, 1.5, 1.0}};
    CHECK(predicted(ev, 0, 1, 4095) == 1.125);
    CHECK_FALSE(price(costs(), "histogram", ev, 0, 1, 4095).measured_between);
    // A alone is timed at both ends: against the fastest times there, sqrt(1 x 2), still sqrt(1.0625).
    CHECK(predicted(ev, 0, 0, 4095) == doctest::Approx(std::sqrt(1.0625)));
    ev[0].sizes[1].measured.clear();  // timed at neither end: the curve
    CHECK(predicted(ev, 0, 1, 4095) == 1.125);
    // Without the fastest times (a cache row without them): nothing to interpolate, the curves.
    ev[0].sizes[0].measured = {{1023, 1.0}, {16383, 1.0625}};
    CHECK(predicted(ev, 0, 0, 4095) == 1.375);
    // At a tuned size, exact; outside the tuned sizes, the curves; another kind of evidence, the curves.
    CHECK(predicted(ev, 0, 0, 1023) == 1.0);
    CHECK(predicted(ev, 0, 0, 65535) == 1.75);  // 6 doublings above 1023: flat after 4
    ev[0].sizes[0].measured = {{1023, 1.0, 1.0}, {16383, 1.0625, 2.0}};
    ev[0].kind = ConfigSource::similar_problem;
    ev[0].shape_distance = 0;
    CHECK(predicted(ev, 0, 0, 4095) == 1.375);
  }

  TEST_CASE("a configuration whose one-block path lies between n and a tuned size is priced from the other size's "
            "time alone, flat") {
    // As above: A (1 ms at 1023, 2.125 at 16383) and B (1.5 ms at 1023, 2 at 16383); now A runs up to 2047 in one
    // block (EvidenceSize::one_block_up_to), B never.
    std::vector<Evidence> ev{evidence(ConfigSource::nearest_size, {{1023, A()}, {16383, B()}})};
    ev[0].sizes[0].measured = {{1023, 1.0, 1.0}, {16383, 1.0625, 2.0}};
    ev[0].sizes[1].measured = {{1023, 1.5, 1.0}, {16383, 1.0, 2.0}};
    ev[0].sizes[0].one_block_up_to = 2047;
    // At 4095 A runs several blocks, as at 16383: its time there, 2.125 ms, flat. B: sqrt(1.5 x 2). The fastest
    // times' interpolation is no floor: 1023's winner (A) ran it in one block. So B is the fastest, at 1.
    CHECK(time_between(ev[0], ev[0].sizes[0], 4095) == 2.125);
    CHECK(predicted(ev, 0, 0, 4095) == doctest::Approx(2.125 / std::sqrt(3.0)));
    CHECK(predicted(ev, 0, 1, 4095) == 1.0);
    CHECK(rank_at(costs(), "histogram", ev, 4095).front().size == 1);
    // At 2047, a quarter of the way, A runs one block, as at 1023 (its own size, and still news): 1 ms, flat. B:
    // 1.5^0.75 x 2^0.25. The fastest times' interpolation, 2^0.25, is a floor again (both winners keep their path)
    // but above A's 1: A at 1, B at 1.5^0.75 x 2^0.25.
    CHECK(time_between(ev[0], ev[0].sizes[0], 2047) == 1.0);
    CHECK(predicted(ev, 0, 0, 2047) == 1.0);
    CHECK(predicted(ev, 0, 1, 2047) == doctest::Approx(std::pow(1.5, 0.75) * std::pow(2.0, 0.25)));
    // Not timed at the end on n's side: the curves.
    ev[0].sizes[0].measured = {{1023, 1.0, 1.0}};
    CHECK_FALSE(time_between(ev[0], ev[0].sizes[0], 4095));
    CHECK(predicted(ev, 0, 0, 4095) == 1.375);
  }

  TEST_CASE("a policy entry whose configuration ran its own n in one block serves no n it reads in several while "
            "another entry keeps its path; the problem's own tuned sizes are priced as before") {
    // A policy shape with entries at 64K - 1 (A) and 1M - 1 (B). At 128K - 1, A is one doubling below (1 + 0.75/4),
    // B three above (1 + 0.25 x 3/4), each times policy_own: 1.484375 both, and the tie goes to the fewer
    // doublings, A.
    std::vector<Evidence> ev{evidence(ConfigSource::policy, {{65535, A()}, {1048575, B()}})};
    const std::uint64_t n = 131071;
    CHECK(predicted(ev, 0, 0, n) == 1.484375);
    CHECK(predicted(ev, 0, 1, n) == 1.484375);
    CHECK(rank_at(costs(), "histogram", ev, n).front().size == 0);
    // A read its 64K in one block and reads 128K in several (EvidenceSize::one_block_up_to): B serves, though its
    // price is no lower.
    ev[0].sizes[0].one_block_up_to = 65535;
    CHECK(rank_at(costs(), "histogram", ev, n).front().size == 1);
    REQUIRE(best_at(costs(), "histogram", ev, n));
    CHECK(best_at(costs(), "histogram", ev, n)->size == 1);
    // At its own n, and below it, A keeps its path: A.
    CHECK(rank_at(costs(), "histogram", ev, 65535).front().size == 0);
    CHECK(rank_at(costs(), "histogram", ev, 40000).front().size == 0);
    // A policy of A alone still serves n: no entry keeps its path there, and the prices decide.
    std::vector<Evidence> alone{evidence(ConfigSource::policy, {{65535, A()}})};
    alone[0].sizes[0].one_block_up_to = 65535;
    CHECK(rank_at(costs(), "histogram", alone, n).front().size == 0);
    // The problem's own tuned sizes (nearest_size) are priced from their measured times where there are some
    // (measured_between), else by the curves, as before: the tie, A.
    ev[0].kind = ConfigSource::nearest_size;
    CHECK(rank_at(costs(), "histogram", ev, n).front().size == 0);
  }

  TEST_CASE("the gathered sizes of the problem's own shape carry each configuration's times at every tuned size that "
            "timed it, over the fastest there") {
    Cache cache(":memory:");
    // Two tunings of one shape: at 1M config(256, 2) won in 0.5 ms and config(512, 4) ran 0.75; at 64M config(512, 4)
    // won in 2 ms and config(256, 2) ran 2.5; config(64, 1) ran at 1M only, 2.0 ms.
    auto tune = [&](std::uint64_t n, std::vector<std::pair<HistogramConfig, double>> times) {
      RunInfo info = run_info(current_identity("histogram", 0).template_hash, nvrtc_version(), 0);
      info.code.family = "histogram";
      const auto run = cache.begin_run(h100(), problem(n), info);
      for (const auto& [c, ms] : times) cache.add_measurement(run, ok_measurement(c, ms));
      const auto best = ok_measurement(times.front().first, times.front().second);
      cache.finish_run(run, best, elf(), cubin_origin(Problem(problem(n)), Config(times.front().first), h100().arch()));
    };
    tune(M, {{config(256, 2), 0.5}, {config(512, 4), 0.75}, {config(64, 1), 2.0}});
    tune(64 * M, {{config(512, 4), 2.0}, {config(256, 2), 2.5}});
    const Gathered g = gather_candidates(&cache, target_of(h100()), problem(8 * M));
    const Evidence& own = g.evidence.front();
    REQUIRE(own.kind == ConfigSource::nearest_size);
    REQUIRE(own.sizes.size() == 2);
    using Timed = std::vector<MeasuredAt>;
    CHECK(own.sizes[0].measured == Timed{{M, 1.0, 0.5}, {64 * M, 1.25, 2.0}});
    CHECK(own.sizes[1].measured == Timed{{M, 1.5, 0.5}, {64 * M, 1.0, 2.0}});
    // The family's one-block bound of each configuration for the problem (its values: test_config.cpp).
    for (const EvidenceSize& s : own.sizes) {
      CHECK(s.one_block_up_to > 0);
      CHECK(s.one_block_up_to == family_named("histogram").one_block_up_to(Problem(problem(8 * M)), s.config));
    }
    // 8M lies half-way (20, 23, 26 bits, +1 rounded away): 1M's winner sqrt(0.5 x 2.5), 64M's sqrt(0.75 x 2), against
    // the fastest sqrt(0.5 x 2) = 1; other shapes and the policy are never priced from times.
    CHECK(price(costs(), "histogram", g.evidence, 0, 0, 8 * M - 1).predicted ==
          doctest::Approx(std::sqrt(1.25)).epsilon(1e-6));
    CHECK(price(costs(), "histogram", g.evidence, 0, 1, 8 * M - 1).predicted ==
          doctest::Approx(std::sqrt(1.5)).epsilon(1e-6));
    for (const Evidence& e : g.evidence)
      if (e.kind != ConfigSource::nearest_size)
        for (const EvidenceSize& s : e.sizes) CHECK(s.measured.empty());
  }

  TEST_CASE("a size table range between two sizes that timed its configuration says so and records the size below") {
    Gathered g;
    g.evidence = {evidence(ConfigSource::nearest_size, {{1023, A()}, {16383, B()}}),
                  evidence(ConfigSource::fallback, {{0, C()}})};
    g.evidence[0].sizes[0].measured = {{1023, 1.0, 1.0}, {16383, 1.0625, 2.0}};
    g.evidence[0].sizes[1].measured = {{1023, 1.5, 1.0}, {16383, 1.0, 2.0}};
    const SizeLookup s = rank_sizes(g, costs(), Problem(problem(4095)));
    CHECK(s.at_hint.config == A());
    CHECK(s.at_hint.predicted_slowdown == doctest::Approx(std::sqrt(1.0625)));
    CHECK(s.at_hint.distance == "tuned for n=1023, timed at the tuned sizes around n");
    // A 1.0625^f against B 1.5^(1 - f), f the fraction of the way in log2(n+1): A up to
    // f = ln 1.5 / (ln 1.0625 + ln 1.5) = 0.86993, that is n = 2^(10 + 4 f) - 1 = 11422.5: B from n = 11423.
    bool found = false;
    for (const SizeRange& r : s.sizes)
      if (r.contains(4095)) {
        found = true;
        CHECK(r.config == A());
        CHECK(r.timed_below == 0);  // the range starts at 0: no tuned size below it
      }
    CHECK(found);
    const SizeRange& b = *std::find_if(s.sizes.begin(), s.sizes.end(), [](const SizeRange& r) { return r.contains(16383); });
    CHECK(b.config == B());
    CHECK(b.n_from == 11423);
    CHECK(b.timed_below == 1023);  // B was timed at 1023, the tuned size below its range
  }

  TEST_CASE("a requirement narrows the candidates before the ranking") {
    Gathered g;
    g.evidence = {evidence(ConfigSource::nearest_size, {{16383, A()}}),  // 1.75 at n = 1000000
                  evidence(ConfigSource::similar_problem, {{1000000, B()}}, 2),  // 1.5
                  evidence(ConfigSource::policy, {{1000000, C()}})};            // 1.25
    const Problem p = Problem(problem(1000000));
    CHECK(rank_sizes(g, costs(), p, Requirement::any).at_hint.config == C());
    const SizeLookup tuned = rank_sizes(g, costs(), p, Requirement::tuned);
    CHECK(tuned.at_hint.config == B());  // measured data only: the policy is not
    CHECK(size_table_violation(tuned.sizes, tuned.at_hint, p.n(), Requirement::tuned).empty());
    // exact with a hint the shape does not hold: nothing meets it, everything is ranked, and the violation says so.
    const SizeLookup exact = rank_sizes(g, costs(), p, Requirement::exact);
    CHECK(exact.at_hint.config == C());
    CHECK_FALSE(size_table_violation(exact.sizes, exact.at_hint, p.n(), Requirement::exact).empty());
    // exact with no hint: the shape's own sizes make the whole table.
    const SizeLookup whole = rank_sizes(g, costs(), p.with_n(0), Requirement::exact);
    REQUIRE(whole.sizes.size() == 1);
    CHECK(whole.sizes[0].config == A());
    CHECK(size_table_violation(whole.sizes, whole.at_hint, 0, Requirement::exact).empty());
  }

  TEST_CASE("the candidates gathered from a cache, the policy and the family") {
    Cache cache(":memory:");
    record_current(cache, h100(), problem(64 * M), config(512, 4));
    record_current(cache, h100(), problem(M), config(256, 2));
    record_current(cache, h100(), problem(16 * M, 1024), config(128, 2));
    record_current(cache, a100(), problem(64 * M), config(1024, 8));
    DeviceInfo other = h100();  // another model of the architecture
    other.name = "NVIDIA H100 PCIe-ish";
    other.sm_count = 114;
    record_current(cache, other, problem(4 * M), config(64, 2));

    const Gathered g = gather_candidates(&cache, target_of(h100()), problem(8 * M));
    REQUIRE(count_kind(g, ConfigSource::nearest_size) == 1);
    const Evidence& own = g.evidence.front();
    CHECK(own.kind == ConfigSource::nearest_size);
    REQUIRE(own.sizes.size() == 2);  // ascending n
    CHECK(own.sizes[0].n == M);
    CHECK(own.sizes[1].n == 64 * M);
    CHECK(own.model_key == h100().model_key());
    REQUIRE(count_kind(g, ConfigSource::similar_problem) == 1);
    const auto similar = std::find_if(g.evidence.begin(), g.evidence.end(),
                                      [](const Evidence& e) { return e.kind == ConfigSource::similar_problem; });
    // u8 with 1024 bins over [0,256) for 256 bins: log2(4) = 2 more bins, counted twice, plus log2 of the ratio of
    // values per bin (1 vs 1/4) = 2.
    CHECK(similar->shape_distance == 6.0);
    CHECK(similar->sizes.front().n == 16 * M);
    REQUIRE(count_kind(g, ConfigSource::similar_device) == 1);
    const auto device = std::find_if(g.evidence.begin(), g.evidence.end(),
                                     [](const Evidence& e) { return e.kind == ConfigSource::similar_device; });
    CHECK(device->other_model);
    CHECK(device->sizes.front().winner->device_name == "NVIDIA H100 PCIe-ish");  // same arch; the A100 is sm_80
    const DeviceInfo limits = h100();
    CHECK(count_kind(g, ConfigSource::policy) ==
          policy_shapes(family_policy("histogram"), Problem(problem(8 * M)), &limits).size());
    CHECK(count_kind(g, ConfigSource::policy) >= 2);
    CHECK(g.evidence.back().kind == ConfigSource::fallback);
    // The policy was measured on an H200: on an H100 its evidence is another model's, on an H200 not; an entry measured
    // on another GPU than the policy's (PolicyEntry::gpu) is that GPU's evidence.
    const std::string here = h100().name;
    std::size_t measured_here = 0;
    for (const Evidence& e : g.evidence)
      if (e.kind == ConfigSource::policy) {
        CHECK(e.other_model);
        for (const EvidenceSize& s : e.sizes) {
          CHECK(s.other_model == (s.measured_on.empty() ? std::nullopt : std::optional<bool>(s.measured_on != here)));
          measured_here += s.measured_on == here;
        }
      }
    CHECK(measured_here > 0);  // the shipped histogram policy holds entries updated on an H100
    for (const Evidence& e : gather_candidates(nullptr, target_of(h200()), problem(8 * M)).evidence)
      if (e.kind == ConfigSource::policy) {
        CHECK_FALSE(e.other_model);
        for (const EvidenceSize& s : e.sizes)
          CHECK(s.other_model == (s.measured_on.empty() ? std::nullopt : std::optional<bool>(s.measured_on != "NVIDIA H200")));
      }
    // A uniform table serves a runs problem as another distribution's evidence, said so.
    HistogramProblem runs = problem(8 * M);
    runs.distribution = "runs";
    const Gathered r = gather_candidates(&cache, target_of(h100()), runs);
    CHECK(r.evidence.front().distribution == DistributionMatch::other);
    CHECK(r.evidence.front().note == "measured on dist=uniform, not runs");
  }

  TEST_CASE("f32 max at 256M: the shipped policy entry of max beats the winner of sum") {
    // The f32 sum winner of 256M is in the cache; the policy holds f32 max at 256M measured on an H200: on that
    // model and on another one (an H100, where the policy is another model's evidence).
    Cache cache(":memory:");
    const auto parsed = ReduceConfig::parse("red=warp_shuffle,block=256,vec=16,loads=4,acc=1,finish=two_pass,grid=-1");
    REQUIRE(parsed);
    const ReduceConfig sum_winner = *parsed;
    for (const DeviceInfo& d : {h200(), h100()})
      record_current(cache, d, reduction(ReduceOp::sum, ValueType::f32, 256 * M), sum_winner);
    const ReduceProblem max = reduction(ReduceOp::max, ValueType::f32, 256 * M);
    const auto entry = policy_choice(family_policy("reduce"), Problem(max), nullptr);
    REQUIRE(entry);
    REQUIRE(entry->shape.n() == 256 * M);  // the policy holds this very problem
    REQUIRE_FALSE(entry->config == Config(sum_winner));
    for (const DeviceInfo& d : {h200(), h100()}) {
      CAPTURE(d.name);
      const Lookup l = lookup_config(cache, target_of(d), max);
      CHECK(l.source == ConfigSource::policy);
      CHECK(l.config == entry->config);
      REQUIRE(l.runner_up);
      CHECK(l.predicted_slowdown < l.runner_up->predicted_slowdown);
      // The sum winner is a candidate, ranked after the policy entry.
      const Gathered g = gather_candidates(&cache, target_of(d), max);
      const std::vector<Ranked> ranked = rank_at(shipped_transfer_costs(), "reduce", g.evidence, max.n);
      auto position = [&](ConfigSource kind) {
        return std::find_if(ranked.begin(), ranked.end(),
                            [&](const Ranked& r) { return g.evidence[r.evidence].kind == kind; }) - ranked.begin();
      };
      REQUIRE(position(ConfigSource::similar_problem) < static_cast<std::ptrdiff_t>(ranked.size()));
      CHECK(g.evidence[ranked[position(ConfigSource::similar_problem)].evidence].sizes.front().config ==
            Config(sum_winner));
      CHECK(position(ConfigSource::policy) < position(ConfigSource::similar_problem));
    }
    // Tuned exactly, the problem's own winner comes first again.
    record_current(cache, h200(), max, sum_winner);
    CHECK(lookup_config(cache, target_of(h200()), max).source == ConfigSource::exact);
  }

  TEST_CASE("f32 with 1M bins after a partial preset: a closer policy shape beats a far tuned one") {
    // The cache holds f32/2048 bins (9 doublings fewer) at the preset's sizes; the policy holds f32/262144 (2 more).
    Cache cache(":memory:");
    HistogramProblem preset = HistogramProblem::with_defaults(SampleType::f32, 2048);
    preset.upper = 1;
    for (const std::uint64_t n : std::vector<std::uint64_t>{64 * 1024, M, 16 * M}) {
      preset.n = n;
      record_current(cache, h200(), preset, config(256, 1, false, true, true));
    }
    HistogramProblem wanted = HistogramProblem::with_defaults(SampleType::f32, 1 << 20);
    wanted.upper = 1;
    wanted.n = 64 * M;
    const SizeLookup s = lookup_sizes(cache, target_of(h200()), wanted);
    CHECK(s.at_hint.source == ConfigSource::policy);
    CHECK(s.at_hint.distance.find("policy fitted for histogram/f32/bins=262144") != std::string::npos);
    REQUIRE(s.at_hint.runner_up);
    CHECK(s.at_hint.predicted_slowdown < s.at_hint.runner_up->predicted_slowdown);
    // Without the preset shape: the same choice (the preset changes nothing here).
    CHECK(lookup_config(Cache(":memory:"), target_of(h200()), wanted).config == s.at_hint.config);
  }

  TEST_CASE("u16 with 991 bins at 110K on an H100: the shipped policy's u16/1024 entry of 64K, one cluster of 16 "
            "there, serves no n its grid covers with two; at 64K it still serves") {
    // That entry (measured on an H200) ran this problem in 7.8 us on an H100, two clusters merging into a zeroed output
    // with atomics; the entry served now ran 6.0 and the exact winner 5.8 (bench/results/2026-12-07c-summary.md).
    const KernelFamily& family = family_named("histogram");
    HistogramProblem u16 = HistogramProblem::with_defaults(SampleType::u16, 1024);
    u16.upper = 65536;
    u16.n = 65536;
    const auto entry = policy_choice(family_policy("histogram"), Problem(u16), nullptr);
    REQUIRE(entry);
    REQUIRE(entry->shape.n() == 65536);
    REQUIRE(entry->config.as<HistogramConfig>()->cluster == 16);
    REQUIRE(family.one_block_up_to(Problem(u16), entry->config) == 65536);  // one cluster of 16 tiles of 4096

    HistogramProblem wanted = HistogramProblem::with_defaults(SampleType::u16, 991, 7095);
    wanted.upper = 53132;
    wanted.distribution = "narrow";
    for (const std::uint64_t n : std::vector<std::uint64_t>{70000, 110000}) {
      CAPTURE(n);
      wanted.n = n;
      const Lookup l = lookup_config(Cache(":memory:"), target_of(h100()), wanted);
      CHECK(l.source == ConfigSource::policy);
      CHECK_FALSE(l.config == entry->config);
      // Whatever serves runs n on the side of its one-block path that its own tuned n ran on: many blocks.
      CHECK(family.one_block_up_to(Problem(wanted), l.config) < n);
    }
    // At 64K the entry runs one cluster, as where it was measured: on the H200 it serves.
    wanted.n = 65536;
    CHECK(lookup_config(Cache(":memory:"), target_of(h200()), wanted).config == entry->config);
  }

  TEST_CASE("f32 with 73873 bins on narrow samples at 115M, the shipped policy, an H200: the entry of narrow samples "
            "(a window beside a global histogram) serves, not the robust entry of 16-bit shared counters") {
    // On an H200 the robust entry ran it in 189.5 us, the narrow entry in 132.1 (bench/results/2026-12-07j-data/
    // rule-ab-h200-1.log). Below 1M samples the rule does not apply: there the robust answer stays.
    HistogramProblem wanted = HistogramProblem::with_defaults(SampleType::f32, 73873, -4);
    wanted.upper = -3.25;
    wanted.distribution = "narrow";
    wanted.n = 115281000;
    const Lookup l = lookup_config(Cache(":memory:"), target_of(h200()), wanted);
    CHECK(l.source == ConfigSource::policy);
    const HistogramConfig* c = l.config.as<HistogramConfig>();
    REQUIRE(c);
    CHECK(c->counter_bits == 32);
    CHECK(c->privatization == Privatization::global);
    CHECK(c->window > 0);
    CHECK(l.distance.find("dist=narrow") != std::string::npos);
    // The same problem on uniform samples: no entry of its distribution to prefer, the robust entry's 16-bit counters.
    wanted.distribution = "uniform";
    const Lookup uniform = lookup_config(Cache(":memory:"), target_of(h200()), wanted);
    const HistogramConfig* u = uniform.config.as<HistogramConfig>();
    REQUIRE(u);
    CHECK(u->counter_bits == 16);
  }

  TEST_CASE("bf16 with sparse bins on runs, the shipped policy, an H100: the windowed entry runs as copies from the n "
            "whose input passes twice the copies' bytes, the window below it; a tuned size of the problem itself and "
            "Requirement::tuned keep what was measured") {
    // The 16M f32/262144 entry (win=4096) served bf16 with 273541 bins over [-100, -92) (16 values) on runs at 264M in
    // 1264.7 us, copies (R = 8) in 453-486 us, CUB 857-908; 243491 bins over [0, 1) at 7.2M ran 39.7 us windowed and
    // 77.1 as 16 copies (15.6 MB of copies for 14.4 MB of input; bench/results/2026-12-07d-summary.md).
    auto bf16 = [](int bins, double lower, double upper, std::uint64_t n) {
      HistogramProblem p = HistogramProblem::with_defaults(SampleType::bf16, bins, lower);
      p.upper = upper;
      p.n = n;
      p.distribution = "runs";
      return p;
    };
    auto window = [](const Config& c) { return c.as<HistogramConfig>()->window; };
    auto copies = [](const Config& c) {  // R of chunked copies, 0 for anything else
      return c.as<HistogramConfig>()->chunk == 256 ? c.as<HistogramConfig>()->replicas : 0;
    };
    const Cache none(":memory:");
    Lookup l = lookup_config(none, target_of(h100()), bf16(273541, -100, -92, 263973000));
    CHECK(copies(l.config) == 8);
    CHECK(window(l.config) == 0);
    // 8 copies of 273664 counters and 256 bytes of control words: 8757504 bytes, as many 2-byte samples.
    const SizeLookup t = untuned_sizes(target_of(h100()), bf16(273541, -100, -92, 263973000));
    const auto holding = [&](std::uint64_t n) {
      return *std::find_if(t.sizes.begin(), t.sizes.end(), [&](const SizeRange& r) { return r.contains(n); });
    };
    CHECK(copies(holding(8757504).config) == 8);
    CHECK(holding(8757504).why.find("in place of a window") != std::string::npos);
    CHECK(copies(holding(8757503).config) == 0);
    CHECK(window(holding(8757503).config) == 4096);  // the same entry, below the rule's n
    // 16 copies of 243712 counters (15597824 bytes and 256): the window serves 7.2M, copies 16M.
    CHECK(window(lookup_config(none, target_of(h100()), bf16(243491, 0, 1, 7202000)).config) == 4096);
    CHECK(copies(lookup_config(none, target_of(h100()), bf16(243491, 0, 1, 16000000)).config) == 16);
    // Narrow samples keep the window at every size.
    HistogramProblem narrow = bf16(273541, -100, -92, 263973000);
    narrow.distribution = "narrow";
    CHECK(copies(lookup_config(none, target_of(h100()), narrow).config) == 0);

    // The problem tuned itself at 16M with a window: its own measurement serves, at 16M and by size around it.
    TempPath file;
    Cache cache(file.str());
    const std::string windowed = "priv=global,R=1,cbits=32,block=1024,vec=16,loads=1,agg=warp,part=interleaved,"
                                 "merge=atomic,grid=0,win=4096";
    record_current(cache, h100(), Problem(bf16(273541, -100, -92, 16777216)), *Config::parse("histogram", windowed));
    l = lookup_config(cache, target_of(h100()), bf16(273541, -100, -92, 33554432));
    CHECK(l.source == ConfigSource::nearest_size);
    CHECK(window(l.config) == 4096);
    // Requirement::tuned runs what was measured: the policy's window, where nothing else is tuned.
    l = lookup_config(none, target_of(h100()), bf16(273541, -100, -92, 263973000), Requirement::tuned);
    CHECK(window(l.config) == 4096);
  }

  TEST_CASE("best prints the choice, its predicted slowdown and the runner-up") {
    TempPath file;
    {
      Cache c(file.str());
      record_current(c, h100(), problem(64 * M), config(512, 4));
    }
    auto best = [&](const std::string& n) {
      std::ostringstream out, err;
      const int code = cli::run(cli::parse_command_line({"best", "--n", n, "--device-model", h100().model_key(),
                                                         "--cache", file.str(), "--json"}),
                                out, err);
      CHECK_MESSAGE(code == 0, err.str());
      return nlohmann::json::parse(out.str());
    };
    const auto exact = best("64M");
    CHECK(exact["source"] == "exact");
    CHECK(exact["config"] == Config(config(512, 4)).key());
    CHECK(exact["predicted_slowdown"] == 1.0);  // tuned exactly, on this model, on the problem's distribution
    REQUIRE(exact["runner_up"].is_string());
    CHECK(exact["runner_up"].get<std::string>().rfind("policy ", 0) == 0);  // the shipped policy's closest entry
    const auto near = best("32M");
    CHECK(near["source"] == "nearest_size");
    CHECK(near["predicted_slowdown"].get<double>() > 1.0);  // one doubling below the tuned size
    CHECK(near["runner_up"].is_string());
  }
}
