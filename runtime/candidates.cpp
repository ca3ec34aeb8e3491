#include "runtime/candidates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "core/family.hpp"
#include "runtime/nearest.hpp"
#include "runtime/policy.hpp"
#include "runtime/streaming.hpp"

namespace autotune {

std::vector<Problem> distribution_candidates(const Problem& problem) {
  std::vector<Problem> candidates{problem};
  if (problem.family().robust_across_distributions() && problem.distribution() != kRobustDistribution)
    candidates.push_back(problem.with_distribution(kRobustDistribution));
  if (problem.distribution() != kDefaultDistribution) candidates.push_back(problem.with_distribution(kDefaultDistribution));
  return candidates;
}

std::string distribution_note(const Problem& problem, const Problem& used) {
  if (used.distribution() == problem.distribution()) return {};
  return fmt::format("measured on dist={}, not {}", used.distribution(), problem.distribution());
}

namespace {

DistributionMatch match(const Problem& problem, const Problem& used) {
  if (used.distribution() == problem.distribution()) return DistributionMatch::same;
  return used.distribution() == kRobustDistribution ? DistributionMatch::robust : DistributionMatch::other;
}

EvidenceSize size_of_winner(Winner w, std::string change = {}) {
  const std::uint64_t n = w.problem.n();
  Config config = w.config;
  std::string key = w.problem.key();
  return EvidenceSize{n, std::move(config), std::move(w), std::move(change), std::move(key), {}, {}, 0, std::nullopt};
}

// EvidenceSize::measured of every size of `e` (the problem's own shape on this model): each tuned size's run read
// once, its correct variants' times over the fastest. Runs imported without a trusted signature are skipped: their
// times were never seen on this machine (split_untrusted serves their winners apart). So is a run whose measurements
// do not read back (a row changed by hand): its winner serves as before, priced by the curves.
void add_measured(const Cache& cache, Evidence& e) {
  for (const EvidenceSize& at : e.sizes) {
    if (!at.winner || !at.winner->trusted() || at.winner->run_id == 0) continue;
    std::vector<Measurement> measured;
    try {
      measured = cache.measurements(at.winner->run_id);
    } catch (const Error&) {
      continue;
    }
    std::map<std::string, double> times;
    double fastest = 0.0;
    for (const Measurement& m : measured) {
      if (m.status != MeasurementStatus::ok || !(m.median_ms > 0)) continue;
      times[m.config.key()] = m.median_ms;
      if (fastest == 0.0 || m.median_ms < fastest) fastest = m.median_ms;
    }
    for (EvidenceSize& s : e.sizes)
      if (const auto t = times.find(s.config.key()); t != times.end())
        s.measured.push_back(MeasuredAt{at.n, t->second / fastest, fastest});
  }
}

// The problem's own shape on this model, one piece per distribution that has tuned sizes.
void own_shape(const Cache& cache, const LookupTarget& t, const Problem& problem, const CodeIdentity& here,
               Gathered& g) {
  for (const Problem& p : distribution_candidates(problem)) {
    std::vector<Winner> winners = cache.shape_winners(t.model_key, p, here);
    if (winners.empty()) continue;
    Evidence e;
    e.kind = ConfigSource::nearest_size;
    e.shape = p.shape_key();
    e.distribution = match(problem, p);
    e.model_key = t.model_key;
    e.note = distribution_note(problem, p);
    for (Winner& w : winners) {
      e.sizes.push_back(size_of_winner(std::move(w)));
      e.sizes.back().one_block_up_to = problem.family().one_block_up_to(problem, e.sizes.back().config);
    }
    add_measured(cache, e);
    g.evidence.push_back(std::move(e));
  }
}

// Every other shape of the family tuned on this model whose winners this problem can run (a winner it cannot run as
// tuned is made runnable, adapt_config; its cubin is then not reused).
void similar_shapes(const Cache& cache, const LookupTarget& t, const Problem& problem, const CodeIdentity& here,
                    Gathered& g) {
  const KernelFamily& family = problem.family();
  const DeviceInfo* device = t.device ? &*t.device : nullptr;
  std::vector<std::string> own;
  for (const Problem& p : distribution_candidates(problem)) own.push_back(p.shape_key());
  std::map<std::string, Evidence> shapes;  // by shape key: a fixed order
  for (Winner& w : cache.family_winners(t.model_key, problem.family_name(), here)) {
    const std::string key = w.problem.shape_key();
    if (std::find(own.begin(), own.end(), key) != own.end()) continue;
    const auto d = family.shape_distance(problem, w.problem);
    if (!d) continue;
    auto adapted = family.adapt_config(problem.with_n(w.problem.n()), w.config, device);  // at the winner's size
    if (!adapted) continue;
    if (!adapted->change.empty()) {
      w.config = adapted->config;
      w.cubin.clear();
      w.cubin_unread = false;
    }
    Evidence& e = shapes[key];
    e.kind = ConfigSource::similar_problem;
    e.shape = key;
    e.shape_distance = *d;
    e.model_key = t.model_key;
    e.sizes.push_back(size_of_winner(std::move(w), adapted->change));
  }
  for (auto& [key, e] : shapes) {
    std::stable_sort(e.sizes.begin(), e.sizes.end(), [](const auto& a, const auto& b) { return a.n < b.n; });
    g.evidence.push_back(std::move(e));
  }
}

// The problem (else its nearest tuned size) on the closest other model of the architecture. Another model's runs are
// checked against this build's kernel template only: their NVRTC and driver are those of other machines, and a cubin
// for the same architecture loads here whatever NVRTC built it.
void similar_device(const Cache& cache, const LookupTarget& t, const Problem& problem, const CodeIdentity& here,
                    Gathered& g) {
  if (t.arch.empty()) return;
  CodeIdentity template_only = here;
  template_only.nvrtc_version = 0;
  template_only.driver_version = 0;
  for (const Problem& p : distribution_candidates(problem)) {
    auto w = closest_model(cache.other_model_winners(t.model_key, t.arch, p, template_only), t.sm_count, p.n());
    if (!w) continue;
    if (t.device && !problem.family().violation(problem, w->config, &*t.device).empty())
      continue;  // tuned on a GPU with other limits: this one cannot run it
    Evidence e;
    e.kind = ConfigSource::similar_device;
    e.shape = p.shape_key();
    e.distribution = match(problem, p);
    e.other_model = true;
    e.model_key = w->model_key;
    e.note = distribution_note(problem, p);
    e.sizes.push_back(size_of_winner(std::move(*w)));
    g.evidence.push_back(std::move(e));
  }
}

// Winners imported from another machine and not signed by a trusted key (Winner::trusted) are data whose timing this
// machine never saw: each such size becomes evidence of its own, priced and labelled as another GPU's measurement
// (similar_device, other_model), so it ranks below the same evidence measured here and is never exact.
void split_untrusted(Gathered& g, std::size_t from) {
  std::vector<Evidence> imported;
  for (std::size_t i = from; i < g.evidence.size(); ++i) {
    Evidence& e = g.evidence[i];
    std::vector<EvidenceSize> kept;
    for (EvidenceSize& s : e.sizes) {
      if (!s.winner || s.winner->trusted()) {
        kept.push_back(std::move(s));
        continue;
      }
      Evidence x = e;
      x.kind = e.kind == ConfigSource::similar_problem ? ConfigSource::similar_problem : ConfigSource::similar_device;
      x.other_model = true;
      x.note = e.note.empty() ? std::string(kImportedNote) : std::string(kImportedNote) + "; " + e.note;
      x.sizes = {std::move(s)};
      imported.push_back(std::move(x));
    }
    e.sizes = std::move(kept);
  }
  g.evidence.erase(std::remove_if(g.evidence.begin() + static_cast<std::ptrdiff_t>(from), g.evidence.end(),
                                  [](const Evidence& e) { return e.sizes.empty(); }),
                   g.evidence.end());
  for (Evidence& e : imported) g.evidence.push_back(std::move(e));
}

// The GPU name of a model key ("NVIDIA H200|sm_90|132SM|143771MiB" -> "NVIDIA H200").
std::string model_name(const std::string& model_key) { return model_key.substr(0, model_key.find('|')); }

void policy_evidence(const LookupTarget& t, const Problem& problem, Gathered& g) {
  const Policy& policy = family_policy(problem.family_name());
  for (PolicyChoice& c : policy_shapes(policy, problem, t.device ? &*t.device : nullptr, model_name(t.model_key))) {
    Evidence e;
    e.kind = ConfigSource::policy;
    e.shape = c.shape.shape_key();
    e.shape_distance = c.distance;
    e.policy_of_distribution = c.of_distribution;
    // A policy is fitted to serve any distribution (a histogram's entries are robust across them): its own cost is
    // priced apart (runtime/rank.hpp, policy_own).
    e.other_model = policy.gpu.empty() || policy.gpu != model_name(t.model_key);
    e.note = policy.provenance;
    for (std::size_t i = 0; i < c.sizes.size(); ++i) {
      e.sizes.push_back(EvidenceSize{c.sizes[i].problem.n(), c.sizes[i].config, std::nullopt, c.changes[i],
                                     c.sizes[i].problem.key(), c.sizes[i].gpu, {}, 0, std::nullopt});
      // An entry measured on another GPU than the policy's (updated on an H100, say) is that GPU's evidence.
      if (!c.sizes[i].gpu.empty()) e.sizes.back().other_model = c.sizes[i].gpu != model_name(t.model_key);
      e.sizes.back().one_block_up_to = problem.family().one_block_up_to(problem, c.sizes[i].config);
    }
    g.evidence.push_back(std::move(e));
  }
}

}  // namespace

Gathered gather_candidates(const Cache* cache, const LookupTarget& given, const Problem& problem) {
  // Without the device itself (`autotune best --device-model`), the model's devices row if the cache holds one: its
  // limits (shared memory, threads per block, clusters) then rule out what the API's lookup on that GPU rules out,
  // and its L2 places the evict-first bands.
  LookupTarget target = given;
  if (!target.device && cache) target.device = cache->device(target.model_key);
  Gathered g;
  g.gpu = model_name(target.model_key);
  g.device = target.device;
  if (target.device) g.l2_bytes = target.device->l2_bytes;
  // The rule changes configurations, which then need NVRTC (no stored cubin is of them): without NVRTC, a handle
  // runs what was measured, whose cubins a cache can ship. AUTOTUNE_LOADS_AS_MEASURED=1 turns it off too.
  g.compiles = nvrtc_version() != 0;
  if (!g.compiles || !evict_first_rule_enabled()) g.l2_bytes = 0;
  if (cache) {
    // Results measured with other code (the problem's family template, NVRTC, driver) are never served. They are
    // skipped in the queries, not marked: a lookup never writes (only `autotune tune` marks, `autotune gc` deletes).
    const CodeIdentity here = current_identity(problem.family_name(), target.driver_version);
    g.stale_skipped = cache->count_unserved_winners(target.model_key, problem, here);
    g.unbacked_skipped = cache->count_unbacked_winners(target.model_key, problem);
    own_shape(*cache, target, problem, here, g);
    similar_shapes(*cache, target, problem, here, g);
    similar_device(*cache, target, problem, here, g);
    split_untrusted(g, 0);
  }
  policy_evidence(target, problem, g);
  Evidence fallback;
  fallback.kind = ConfigSource::fallback;
  fallback.sizes.push_back(EvidenceSize{0, Config::fallback(problem), std::nullopt, {}, {}, {}, {}, 0, std::nullopt});
  g.evidence.push_back(std::move(fallback));
  return g;
}

}  // namespace autotune
