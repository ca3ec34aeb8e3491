#include "tuner/robust.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "autotune/tuner.hpp"
#include "core/family.hpp"
#include "core/jit.hpp"
#include "tuner/origin.hpp"

namespace autotune {

std::optional<RobustChoice> pick_robust(const std::vector<std::vector<double>>& times,
                                        const std::vector<std::string>& keys) {
  if (times.empty()) return std::nullopt;
  const std::size_t n = keys.size();
  auto ok = [](double t) { return std::isfinite(t) && t > 0; };
  std::vector<double> fastest(times.size(), std::numeric_limits<double>::infinity());
  for (std::size_t d = 0; d < times.size(); ++d)
    for (std::size_t i = 0; i < n && i < times[d].size(); ++i)
      if (ok(times[d][i])) fastest[d] = std::min(fastest[d], times[d][i]);
  struct Row {
    std::size_t index;
    double worst, total;
  };
  std::vector<Row> rows;
  for (std::size_t i = 0; i < n; ++i) {
    Row r{i, 0.0, 0.0};
    bool everywhere = true;
    for (std::size_t d = 0; d < times.size() && everywhere; ++d) {
      everywhere = i < times[d].size() && ok(times[d][i]);
      if (!everywhere) break;
      r.worst = std::max(r.worst, times[d][i] / fastest[d]);
      r.total += times[d][i];
    }
    if (everywhere) rows.push_back(r);
  }
  if (rows.empty()) return std::nullopt;
  double least = rows.front().worst;
  for (const Row& r : rows) least = std::min(least, r.worst);
  const Row* best = nullptr;
  for (const Row& r : rows) {
    if (r.worst > least * 1.005) continue;
    if (!best || r.total < best->total || (r.total == best->total && keys[r.index] < keys[best->index])) best = &r;
  }
  RobustChoice c;
  c.index = best->index;
  c.worst_slowdown = best->worst;
  for (std::size_t d = 0; d < times.size(); ++d) c.slowdowns.push_back(times[d][best->index] / fastest[d]);
  return c;
}


RobustRecord record_robust_winner(Cache& cache, const DeviceInfo& device, const Problem& base,
                                  const std::vector<std::string>& distributions) {
  if (!base.family().robust_across_distributions())
    throw UsageError(fmt::format("the {} family keeps no robust winner across distributions", base.family_name()));
  if (distributions.size() < 2)
    throw UsageError("a robust winner needs at least two distributions (e.g. uniform,constant,runs)");
  RobustRecord out;
  out.problem = base.with_distribution(kRobustDistribution);
  out.distributions = distributions;
  // Per distribution: every correct configuration's time in the run of its fresh winner.
  std::vector<std::map<std::string, double>> per_dist;
  std::map<std::string, Config> configs;
  for (const std::string& d : distributions) {
    const Problem p = base.with_distribution(d);
    const auto w = cache.find_winner(device.model_key(), p);
    if (!w) throw Error(fmt::format("{} has no fresh winner on {}: tune it first", p.key(), device.name));
    out.per_distribution_winners.push_back(w->config);
    std::map<std::string, double> times;
    for (const Measurement& m : cache.measurements(w->run_id))
      if (m.status == MeasurementStatus::ok) {
        times[m.config.key()] = m.median_ms;
        configs.emplace(m.config.key(), m.config);
      }
    per_dist.push_back(std::move(times));
  }
  std::vector<std::string> keys;
  for (const auto& [k, c] : configs) keys.push_back(k);
  std::vector<std::vector<double>> times(per_dist.size(), std::vector<double>(keys.size(), 0.0));
  for (std::size_t d = 0; d < per_dist.size(); ++d)
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (const auto it = per_dist[d].find(keys[i]); it != per_dist[d].end()) times[d][i] = it->second;
  const auto choice = pick_robust(times, keys);
  if (!choice) throw Error(fmt::format("no configuration of {} was measured correct on every distribution", base.key()));
  out.config = configs.at(keys[choice->index]);
  out.worst_slowdown = choice->worst_slowdown;
  out.slowdowns = choice->slowdowns;

  RunInfo info;
  info.strategy = "robust";
  info.tool_version = version();
  info.code = current_identity(base.family_name(), device.driver_version);
  info.settings_json = nlohmann::json{{"distributions", distributions}, {"criterion", "least worst-case slowdown"}}.dump();
  out.run_id = cache.begin_run(device, out.problem, info);
  const double bytes = static_cast<double>(base.bytes());
  Measurement best;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    double worst = 0.0;
    bool everywhere = true;
    for (const auto& t : times) everywhere = everywhere && t[i] > 0, worst = std::max(worst, t[i]);
    if (!everywhere) continue;
    Measurement m;
    m.config = configs.at(keys[i]);
    m.median_ms = worst;  // the time it can be counted on for, whatever the input
    m.samples = 1;
    m.gbps = bytes / (worst * 1e-3) / 1e9;
    cache.add_measurement(out.run_id, m);
    if (i == choice->index) best = m;
  }
  out.worst_ms = best.median_ms;
  const jit::CompileResult c = jit::compile(kernel_source(base, out.config), "robust.cu", device.arch());
  if (c.ok) cache.finish_run(out.run_id, best, c.cubin, cubin_origin(base, out.config, device.arch()));
  else cache.finish_run(out.run_id, best, {});
  return out;
}

}  // namespace autotune
