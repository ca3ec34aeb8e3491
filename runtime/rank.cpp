#include "runtime/rank.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <mutex>

#include "autotune/error.hpp"
#include "core/family.hpp"
#include "embedded.hpp"

namespace autotune {

double CostCurve::at(double distance, double origin) const {
  double prev_at = 0.0, prev = origin;
  for (const auto& [x, y] : points) {
    if (distance <= x) return x <= prev_at ? y : prev + (y - prev) * (distance - prev_at) / (x - prev_at);
    prev_at = x;
    prev = y;
  }
  return prev;
}

const FamilyCosts& TransferCosts::of(std::string_view family) const {
  if (auto it = families.find(family); it != families.end()) return it->second;
  if (auto it = families.find(default_family); it != families.end()) return it->second;
  throw Error(fmt::format("the transfer costs hold neither family {} nor a default family", family));
}

namespace {

using Json = nlohmann::json;

Error malformed(const std::string& what) { return Error("the transfer costs are malformed: " + what); }

// A measured point's prediction (scripts/fit_transfer_costs.py: the 90th percentile of its slowdowns, made
// non-decreasing along its curve).
double predicted(const Json& point, const std::string& where) {
  if (!point.is_object() || !point.contains("predicted") || !point["predicted"].is_number() ||
      !(point["predicted"].get<double>() > 0))
    throw malformed(where + " has no positive 'predicted'");
  return point["predicted"].get<double>();
}

CostCurve curve(const Json& points, const std::string& where) {
  if (!points.is_array()) throw malformed(where + " is not an array");
  CostCurve c;
  for (const Json& p : points) {
    if (!p.is_object() || !p.contains("at") || !p["at"].is_number() || p["at"].get<double>() < 0)
      throw malformed(where + " has a point without a non-negative distance 'at'");
    const double at = p["at"].get<double>();
    if (!c.points.empty() && at <= c.points.back().first) throw malformed(where + "'s points are not ascending");
    c.points.emplace_back(at, predicted(p, where));
  }
  return c;
}

// A family's entries over `base` (the default family's, or nothing): what the document holds replaces them.
FamilyCosts family_costs(const Json& f, const std::string& name, FamilyCosts base) {
  if (!f.is_object()) throw malformed("family " + name + " is not an object");
  auto sub = [&](const char* group, const char* key, CostCurve& into) {
    if (const auto g = f.find(group); g != f.end() && g->is_object())
      if (const auto c = g->find(key); c != g->end()) into = curve(*c, name + "." + group + "." + key);
  };
  sub("size", "from_larger", base.from_larger);
  sub("size", "from_smaller", base.from_smaller);
  sub("size", "large_from_larger", base.large_from_larger);
  sub("size", "large_from_smaller", base.large_from_smaller);
  if (const auto g = f.find("size"); g != f.end() && g->is_object() && g->contains("large_from")) {
    if (!(*g)["large_from"].is_number_unsigned()) throw malformed(name + ".size.large_from is not a size");
    base.large_from = (*g)["large_from"].get<std::uint64_t>();
  }
  sub("shape", "similar_problem", base.similar_problem);
  sub("shape", "policy", base.policy);
  for (auto [key, into] : {std::pair<const char*, double*>{"policy_own", &base.policy_own},
                           {"other_dist", &base.other_dist}, {"fallback", &base.fallback}})
    if (const auto v = f.find(key); v != f.end() && v->is_object() && v->value("count", 0) > 0)
      *into = predicted(*v, name + "." + key);
  return base;
}

}  // namespace

TransferCosts parse_transfer_costs(std::string_view text) {
  const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) throw malformed("not a JSON object");
  if (doc.value("format", 0) != 1) throw malformed("format is not 1");
  TransferCosts t;
  t.default_family = doc.value("default_family", std::string());
  const auto families = doc.find("families");
  if (families == doc.end() || !families->is_object() || !families->contains(t.default_family))
    throw malformed("no families object holding the default family '" + t.default_family + "'");
  const FamilyCosts base = family_costs((*families)[t.default_family], t.default_family, {});
  for (const auto& [name, f] : families->items()) t.families.emplace(name, family_costs(f, name, base));
  if (const auto m = doc.find("other_model"); m != doc.end() && m->is_object()) {
    t.other_model = m->value("factor", 1.0);
    if (!(t.other_model >= 1.0)) throw malformed("other_model.factor is below 1");
  }
  if (const auto c = doc.find("concentrated"); c != doc.end() && c->is_object()) {
    const auto factor = c->find("factor"), from = c->find("from");
    if (factor == c->end() || !factor->is_number() || !(factor->get<double>() >= 1.0))
      throw malformed("concentrated.factor is not a number of at least 1");
    if (from == c->end() || !from->is_number_unsigned()) throw malformed("concentrated.from is not a size");
    t.concentrated = factor->get<double>();
    t.concentrated_from = from->get<std::uint64_t>();
  }
  if (const auto p = doc.find("provenance"); p != doc.end() && p->is_object()) t.gpu = p->value("gpu", std::string());
  if (const auto p = doc.find("provenance"); p != doc.end() && p->is_object())
    t.provenance = fmt::format("{}, {}, `{}`, data {}", p->value("gpu", std::string("?")),
                               p->value("date", std::string("?")), p->value("command", std::string("?")),
                               p->value("data", std::string("?")));
  return t;
}

const TransferCosts& shipped_transfer_costs() {
  static std::once_flag once;
  static std::unique_ptr<const TransferCosts> parsed;
  std::call_once(once, [] { parsed = std::make_unique<const TransferCosts>(parse_transfer_costs(embedded::transfer_costs_json)); });
  return *parsed;
}

double provenance_penalty(const Winner&) {
  // Every winner counts as measured on this machine today. Once a winner records whether it was imported without
  // verification, such a winner returns a factor > 1 here, so that it ranks below the same evidence measured locally.
  return 1.0;
}

namespace {

// The size curves' prediction for a winner tuned at `from` serving `n` (1 at its own n).
double size_curve(const FamilyCosts& c, std::uint64_t from, std::uint64_t n) {
  if (from == n) return 1.0;
  const double z = std::log2((static_cast<double>(from) + 1) / (static_cast<double>(n) + 1));
  const bool large = c.large_from > 0 && std::min(from, n) >= c.large_from;
  const CostCurve& both_large = z > 0 ? c.large_from_larger : c.large_from_smaller;
  return (large && !both_large.points.empty() ? both_large : z > 0 ? c.from_larger : c.from_smaller).at(std::abs(z));
}

// The fastest time at tuned size m of `e` (MeasuredAt::fastest_ms of any configuration timed there), 0 when unknown.
double fastest_at(const Evidence& e, std::uint64_t m) {
  for (const EvidenceSize& s : e.sizes)
    for (const MeasuredAt& t : s.measured)
      if (t.n == m && t.fastest_ms > 0) return t.fastest_ms;
  return 0.0;
}

// The tuned sizes of `e` next to an untuned n on either side (e.sizes ascend), as indices; nullopt where n is tuned
// or outside them.
std::optional<std::pair<std::size_t, std::size_t>> around(const Evidence& e, std::uint64_t n) {
  const auto above = std::upper_bound(e.sizes.begin(), e.sizes.end(), n,
                                      [](std::uint64_t v, const EvidenceSize& x) { return v < x.n; });
  if (above == e.sizes.begin() || above == e.sizes.end() || std::prev(above)->n == n) return std::nullopt;
  const auto hi = static_cast<std::size_t>(above - e.sizes.begin());
  return std::pair{hi - 1, hi};
}

// Whether size `s`'s configuration runs m and n on the same side of its one-block path.
bool same_path(const EvidenceSize& s, std::uint64_t m, std::uint64_t n) {
  return (m <= s.one_block_up_to) == (n <= s.one_block_up_to);
}

// a at fraction f of the way to b, geometrically.
double geometric(double a, double b, double f) { return std::pow(a, 1 - f) * std::pow(b, f); }

// The fraction of the way from lo to n to hi in log2(n+1).
double fraction(std::uint64_t lo, std::uint64_t n, std::uint64_t hi) {
  const double x = std::log2(static_cast<double>(n) + 1), x0 = std::log2(static_cast<double>(lo) + 1),
               x1 = std::log2(static_cast<double>(hi) + 1);
  return (x - x0) / (x1 - x0);
}

// The fastest times at the tuned sizes around n, interpolated: a floor for n's fastest time, unless the configuration
// that was fastest at one end (that size's winner) runs n on the other side of its one-block path.
std::optional<double> fastest_between(const Evidence& e, std::uint64_t n) {
  const auto ends = around(e, n);
  if (!ends) return std::nullopt;
  const EvidenceSize &lo = e.sizes[ends->first], &hi = e.sizes[ends->second];
  const double a = fastest_at(e, lo.n), b = fastest_at(e, hi.n);
  if (!(a > 0) || !(b > 0) || !same_path(lo, lo.n, n) || !same_path(hi, hi.n, n)) return std::nullopt;
  return geometric(a, b, fraction(lo.n, n, hi.n));
}

}  // namespace

namespace {

// Whether size `s` of evidence `ev` is what TransferCosts::concentrated prices: a robust policy entry measured at a
// size of at least concentrated_from.
bool robust_policy_from(const TransferCosts& costs, const Evidence& ev, const EvidenceSize& s) {
  return ev.kind == ConfigSource::policy && !ev.policy_of_distribution && s.n >= costs.concentrated_from;
}

}  // namespace

std::optional<double> time_between(const Evidence& e, const EvidenceSize& s, std::uint64_t n) {
  if (e.kind != ConfigSource::nearest_size || s.measured.empty()) return std::nullopt;
  const auto ends = around(e, n);
  if (!ends) return std::nullopt;
  const std::uint64_t lo = e.sizes[ends->first].n, hi = e.sizes[ends->second].n;
  auto time_at = [&](std::uint64_t m) -> std::optional<double> {
    for (const MeasuredAt& t : s.measured)
      if (t.n == m && t.fastest_ms > 0) return t.slowdown * t.fastest_ms;
    return std::nullopt;
  };
  const auto a = time_at(lo), b = time_at(hi);
  // An end on the other side of the configuration's one-block path from n says nothing of n: the time at the end on
  // n's side, flat. Else both ends' times (one of them at another size than its own: news the curves lack).
  if (!same_path(s, lo, n)) return b;
  if (!same_path(s, hi, n)) return a;
  if (!a || !b) return std::nullopt;
  return geometric(*a, *b, fraction(lo, n, hi));
}

std::optional<double> measured_between(const Evidence& e, const EvidenceSize& s, std::uint64_t n) {
  const auto mine = time_between(e, s, n);
  if (!mine) return std::nullopt;
  double fastest = *mine;
  for (const EvidenceSize& other : e.sizes)
    if (const auto t = time_between(e, other, n); t && *t < fastest) fastest = *t;
  if (const auto floor = fastest_between(e, n); floor && *floor < fastest) fastest = *floor;
  return *mine / fastest;
}

Ranked price(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& evidence,
             std::size_t e, std::size_t size, std::uint64_t n, std::optional<bool> concentrated) {
  const FamilyCosts& c = costs.of(family);
  const Evidence& ev = evidence[e];
  const EvidenceSize& s = ev.sizes[size];
  Ranked r{e, size, 1.0, 0.0, ev.kind};
  if (ev.kind == ConfigSource::fallback) {
    r.predicted = c.fallback * (ev.other_model ? costs.other_model : 1.0);
    return r;
  }
  const double z = std::log2((static_cast<double>(s.n) + 1) / (static_cast<double>(n) + 1));
  r.doublings = std::abs(z);
  if (const auto between = measured_between(ev, s, n)) {
    r.predicted = *between;
    r.measured_between = true;
  }
  else if (s.n != n) r.predicted = size_curve(c, s.n, n);
  else if (ev.kind == ConfigSource::nearest_size) r.source = ConfigSource::exact;
  if (ev.kind == ConfigSource::similar_problem) r.predicted *= c.similar_problem.at(ev.shape_distance);
  if (ev.kind == ConfigSource::policy)
    r.predicted *= c.policy.at(ev.shape_distance, ev.policy_of_distribution ? 1.0 : c.policy_own);
  if (ev.distribution == DistributionMatch::robust) r.predicted *= c.policy_own;
  if (ev.distribution == DistributionMatch::other) r.predicted *= c.other_dist;
  if (robust_policy_from(costs, ev, s) &&
      (concentrated ? *concentrated : concentrated_at(costs, family, evidence, n)))  // not value_or: it recurses
    r.predicted *= costs.concentrated;
  if (ev.other_model) r.predicted *= costs.other_model;
  if (s.winner) r.predicted *= provenance_penalty(*s.winner);
  return r;
}

bool ranks_before(const Ranked& a, const Ranked& b, const std::vector<Evidence>& evidence) {
  if (a.predicted != b.predicted) return a.predicted < b.predicted;
  const Evidence &ea = evidence[a.evidence], &eb = evidence[b.evidence];
  const bool here_a = !ea.sizes[a.size].other_model.value_or(ea.other_model),
             here_b = !eb.sizes[b.size].other_model.value_or(eb.other_model);
  if (here_a != here_b) return here_a;
  if (ea.shape_distance != eb.shape_distance) return ea.shape_distance < eb.shape_distance;
  if (a.doublings != b.doublings) return a.doublings < b.doublings;
  if (a.source != b.source) return static_cast<int>(a.source) < static_cast<int>(b.source);
  if (ea.policy_of_distribution != eb.policy_of_distribution) return ea.policy_of_distribution;
  if (ea.shape != eb.shape) return ea.shape < eb.shape;
  const EvidenceSize &sa = ea.sizes[a.size], &sb = eb.sizes[b.size];
  if (sa.n != sb.n) return sa.n > sb.n;  // the larger, as nearest_size (runtime/nearest.hpp) breaks a tie
  return sa.config.key() < sb.config.key();
}

namespace {

// The best size of evidence `e` for `n`. Of a policy, among the entries whose configuration runs n on the side of its
// one-block path it ran its own n on, when there is one: a winner of one block carried to an n it reads in several
// (or the other way round) runs another code path than was timed (H100: the policy's sumsq/bf16 winner of 64K, one
// block there, at 135K 8.2 us where the entry it replaced ran 6.7, bench/results/2026-12-06g-summary.md). The
// problem's own tuned sizes price that with the times their tunings measured (measured_between).
Ranked best_size(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& evidence,
                 std::size_t e, std::uint64_t n, bool concentrated) {
  const std::vector<EvidenceSize>& sizes = evidence[e].sizes;
  auto on_path = [&](const EvidenceSize& s) { return same_path(s, s.n, n); };
  const bool any_on_path =
      evidence[e].kind == ConfigSource::policy && std::any_of(sizes.begin(), sizes.end(), on_path);
  std::optional<Ranked> best;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    if (any_on_path && !on_path(sizes[s])) continue;
    if (const Ranked r = price(costs, family, evidence, e, s, n, concentrated); !best || ranks_before(r, *best, evidence))
      best = r;
  }
  return *best;
}

// best_at with TransferCosts::concentrated applied (or not).
std::optional<Ranked> best_with(const TransferCosts& costs, std::string_view family,
                                const std::vector<Evidence>& evidence, std::uint64_t n, bool concentrated) {
  std::optional<Ranked> best;
  for (std::size_t e = 0; e < evidence.size(); ++e) {
    if (evidence[e].sizes.empty()) continue;
    const Ranked r = best_size(costs, family, evidence, e, n, concentrated);
    if (!best || ranks_before(r, *best, evidence)) best = r;  // the first of equals, as rank_at's stable sort
  }
  return best;
}

}  // namespace

bool concentrated_at(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& evidence,
                     std::uint64_t n) {
  if (!(costs.concentrated > 1.0) || n < costs.concentrated_from ||
      std::none_of(evidence.begin(), evidence.end(), [](const Evidence& x) {
        return x.kind == ConfigSource::policy && x.policy_of_distribution;
      }))
    return false;
  const std::optional<Ranked> plain = best_with(costs, family, evidence, n, false);
  if (!plain) return false;
  const Evidence& ev = evidence[plain->evidence];
  const EvidenceSize& s = ev.sizes[plain->size];
  return robust_policy_from(costs, ev, s) && !s.config.empty() && s.config.family().slow_on_concentrated(s.config);
}

std::vector<Ranked> rank_at(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& evidence,
                            std::uint64_t n) {
  const bool concentrated = concentrated_at(costs, family, evidence, n);
  std::vector<Ranked> out;
  for (std::size_t e = 0; e < evidence.size(); ++e)
    if (!evidence[e].sizes.empty()) out.push_back(best_size(costs, family, evidence, e, n, concentrated));
  std::stable_sort(out.begin(), out.end(),
                   [&](const Ranked& a, const Ranked& b) { return ranks_before(a, b, evidence); });
  return out;
}

std::optional<Ranked> best_at(const TransferCosts& costs, std::string_view family,
                              const std::vector<Evidence>& evidence, std::uint64_t n) {
  return best_with(costs, family, evidence, n, concentrated_at(costs, family, evidence, n));
}

}  // namespace autotune
