#include "tuner/ladder.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "autotune/identity.hpp"
#include "core/enum_text.hpp"
#include "core/ladder.hpp"

namespace autotune {

namespace {

constexpr enum_text::Name<CrossoverDecision> kDecisionNames[] = {
    {CrossoverDecision::measure, "measure"},
    {CrossoverDecision::same_winner, "same winner"},
    {CrossoverDecision::no_size_between, "no size between"},
    {CrossoverDecision::recorded, "recorded"}};

}  // namespace

std::string_view to_string(CrossoverDecision d) { return enum_text::name_of(kDecisionNames, d); }

CrossoverDecision crossover_decision(const Config& a_winner, const Config& b_winner, std::uint64_t a, std::uint64_t b,
                                     const std::optional<Config>& at_m, bool neighbour_tuned_now,
                                     const std::vector<Config>& bridges) {
  if (a_winner == b_winner) return CrossoverDecision::same_winner;
  if (!crossover_size(a, b)) return CrossoverDecision::no_size_between;
  const bool candidate =
      at_m && (*at_m == a_winner || *at_m == b_winner || std::find(bridges.begin(), bridges.end(), *at_m) != bridges.end());
  if (!neighbour_tuned_now && candidate) return CrossoverDecision::recorded;
  return CrossoverDecision::measure;
}

std::vector<Config> bridge_candidates(const std::vector<Measurement>& below, const std::vector<Measurement>& above,
                                      const Config& below_winner, const Config& above_winner, std::size_t count) {
  // Each run's ok times by configuration key, and its fastest.
  auto times = [](const std::vector<Measurement>& run) {
    std::map<std::string, std::pair<double, const Config*>> out;
    double fastest = 0.0;
    for (const Measurement& m : run) {
      if (m.status != MeasurementStatus::ok || !(m.median_ms > 0.0)) continue;
      out.emplace(m.config.key(), std::pair{m.median_ms, &m.config});
      if (fastest == 0.0 || m.median_ms < fastest) fastest = m.median_ms;
    }
    return std::pair{out, fastest};
  };
  const auto [a, a_fastest] = times(below);
  const auto [b, b_fastest] = times(above);
  std::vector<std::pair<double, std::string>> ranked;  // (sum of log slowdowns, key): ascending, ties by key
  for (const auto& [key, at_a] : a) {
    const auto at_b = b.find(key);
    if (at_b == b.end() || *at_a.second == below_winner || *at_a.second == above_winner) continue;
    ranked.emplace_back(std::log(at_a.first / a_fastest) + std::log(at_b->second.first / b_fastest), key);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<Config> out;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i) out.push_back(*a.at(ranked[i].second).second);
  return out;
}

std::vector<std::vector<Problem>> group_ladders(const std::vector<Problem>& problems) {
  std::vector<std::vector<Problem>> out;
  std::map<std::string, std::size_t> index;
  for (const Problem& p : problems) {
    const auto [it, added] = index.try_emplace(p.shape_key(), out.size());
    if (added) out.emplace_back();
    auto& ladder = out[it->second];
    if (std::none_of(ladder.begin(), ladder.end(), [&](const Problem& q) { return q.n() == p.n(); }))
      ladder.push_back(p);
  }
  for (auto& ladder : out)
    std::stable_sort(ladder.begin(), ladder.end(), [](const Problem& x, const Problem& y) { return x.n() < y.n(); });
  return out;
}

namespace {

// One ladder's crossovers: between two adjacent sizes of the ladder, then (refine) between each of them and the
// size measured between them, and so on while two measured sizes are more than kCrossoverFinestRatio apart and
// their winners differ.
struct Crossovers {
  Cache& cache;
  const std::string& model;
  const CodeIdentity& code;
  const LadderEvents& events;
  LadderSummary& summary;
  std::size_t number = 0, sizes = 0;
  std::vector<std::uint64_t> tuned_now;  // sizes of this ladder tuned by this command, crossovers included

  std::optional<Winner> winner(const Problem& p) const { return cache.find_winner(model, p, code); }
  static double ratio(const Problem& below, const Problem& above) {
    return static_cast<double>(above.n()) / static_cast<double>(below.n());
  }
  bool tuned(std::uint64_t n) const { return std::find(tuned_now.begin(), tuned_now.end(), n) != tuned_now.end(); }

  void between(const Problem& below, const Problem& above, bool refine) {
    const auto wa = winner(below), wb = winner(above);
    if (!wa || !wb) return;  // one of them failed or did not fit
    const auto m = crossover_size(below.n(), above.n());
    std::optional<Config> at_m;
    if (m)
      if (const auto w = winner(below.with_n(*m))) at_m = w->config;
    std::vector<Config> bridges;
    if (!(wa->config == wb->config))
      bridges = bridge_candidates(cache.measurements(wa->run_id), cache.measurements(wb->run_id), wa->config,
                                  wb->config, kCrossoverBridges);
    const CrossoverDecision d = crossover_decision(wa->config, wb->config, below.n(), above.n(), at_m,
                                                   tuned(below.n()) || tuned(above.n()), bridges);
    const bool nothing_between = d == CrossoverDecision::same_winner || d == CrossoverDecision::no_size_between;
    if (d != CrossoverDecision::measure && !(refine && nothing_between)) {
      ++summary.crossovers_skipped;  // a refinement with nothing to decide is not a crossover skipped
      if (events.crossover_skipped) events.crossover_skipped(below, above, d);
    }
    if (nothing_between) return;
    if (d == CrossoverDecision::measure) {
      std::vector<Config> candidates{wa->config, wb->config};
      candidates.insert(candidates.end(), bridges.begin(), bridges.end());
      LadderStep step{below.with_n(*m), std::move(candidates), below, above, number, sizes, sizes - number};
      switch (events.run(step)) {
        case StepOutcome::tuned: ++summary.crossovers; tuned_now.push_back(*m); break;
        case StepOutcome::no_memory: ++summary.no_memory; return;
        case StepOutcome::failed: ++summary.failed; return;
      }
    }
    const Problem middle = below.with_n(*m);
    if (ratio(below, middle) > kCrossoverFinestRatio) between(below, middle, true);
    if (ratio(middle, above) > kCrossoverFinestRatio) between(middle, above, true);
  }
};

}  // namespace

LadderSummary run_ladders(const std::vector<Problem>& problems, Cache& cache, const DeviceInfo& device,
                          const LadderSettings& settings, const LadderEvents& events) {
  LadderSummary summary;
  const auto ladders = group_ladders(problems);
  std::size_t sizes = 0;
  for (const auto& l : ladders) sizes += l.size();
  std::size_t number = 0;
  const std::string model = device.model_key();
  for (const auto& ladder : ladders) {
    const CodeIdentity code = current_identity(ladder.front().family_name(), device.driver_version);
    Crossovers crossovers{cache, model, code, events, summary, 0, sizes, {}};
    for (std::size_t i = 0; i < ladder.size(); ++i) {
      const Problem& p = ladder[i];
      ++number;
      std::optional<Winner> done;
      if (settings.skip_finished) done = crossovers.winner(p);
      if (done) {
        ++summary.skipped_finished;
        if (events.finished) events.finished(p, *done);
      } else {
        LadderStep step{p, {}, std::nullopt, std::nullopt, number, sizes, sizes - number};
        switch (events.run(step)) {
          case StepOutcome::tuned: ++summary.tuned; crossovers.tuned_now.push_back(p.n()); break;
          case StepOutcome::no_memory: ++summary.no_memory; break;
          case StepOutcome::failed: ++summary.failed; break;
        }
      }
      // The crossover between this size and the one below, once both are tuned.
      crossovers.number = number;
      if (i > 0) crossovers.between(ladder[i - 1], p, false);
    }
  }
  return summary;
}

LadderReport tune_ladder(const std::vector<Problem>& problems, Cache& cache, const TuneOptions& options,
                         const LadderSettings& settings) {
  LadderReport report;
  const DeviceInfo device = query_device(options.device);
  LadderEvents events;
  events.run = [&](const LadderStep& step) {
    TuneOptions o = options;
    o.candidates = step.candidates;
    try {
      report.runs.push_back(tune(step.problem, cache, o));
    } catch (const DeviceMemoryError&) {
      report.no_memory.push_back(step.problem);
      return StepOutcome::no_memory;
    }
    return report.runs.back().winner ? StepOutcome::tuned : StepOutcome::failed;
  };
  events.finished = [&](const Problem& p, const Winner&) { report.skipped_finished.push_back(p); };
  report.summary = run_ladders(problems, cache, device, settings, events);
  return report;
}

}  // namespace autotune
