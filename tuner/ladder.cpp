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
    auto winner = [&](const Problem& p) { return cache.find_winner(model, p, code); };
    std::vector<bool> tuned_now(ladder.size(), false);
    for (std::size_t i = 0; i < ladder.size(); ++i) {
      const Problem& p = ladder[i];
      ++number;
      std::optional<Winner> done;
      if (settings.skip_finished) done = winner(p);
      if (done) {
        ++summary.skipped_finished;
        if (events.finished) events.finished(p, *done);
      } else {
        LadderStep step{p, {}, std::nullopt, std::nullopt, number, sizes, sizes - number};
        switch (events.run(step)) {
          case StepOutcome::tuned: ++summary.tuned; tuned_now[i] = true; break;
          case StepOutcome::no_memory: ++summary.no_memory; break;
          case StepOutcome::failed: ++summary.failed; break;
        }
      }
      if (i == 0) continue;
      // The crossover between this size and the one below, once both are tuned.
      const Problem& below = ladder[i - 1];
      const auto wa = winner(below), wb = winner(p);
      if (!wa || !wb) continue;  // one of them failed or did not fit
      const auto m = crossover_size(below.n(), p.n());
      std::optional<Config> at_m;
      if (m)
        if (const auto w = winner(p.with_n(*m))) at_m = w->config;
      std::vector<Config> bridges;
      if (!(wa->config == wb->config))
        bridges = bridge_candidates(cache.measurements(wa->run_id), cache.measurements(wb->run_id), wa->config,
                                    wb->config, kCrossoverBridges);
      const CrossoverDecision d = crossover_decision(wa->config, wb->config, below.n(), p.n(), at_m,
                                                     tuned_now[i - 1] || tuned_now[i], bridges);
      if (d != CrossoverDecision::measure) {
        ++summary.crossovers_skipped;
        if (events.crossover_skipped) events.crossover_skipped(below, p, d);
        continue;
      }
      std::vector<Config> candidates{wa->config, wb->config};
      candidates.insert(candidates.end(), bridges.begin(), bridges.end());
      LadderStep step{p.with_n(*m), std::move(candidates), below, p, number, sizes, sizes - number};
      switch (events.run(step)) {
        case StepOutcome::tuned: ++summary.crossovers; break;
        case StepOutcome::no_memory: ++summary.no_memory; break;
        case StepOutcome::failed: ++summary.failed; break;
      }
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
