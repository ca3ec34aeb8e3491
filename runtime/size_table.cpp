#include "runtime/size_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "autotune/error.hpp"
#include "core/config_adapt.hpp"
#include "core/family.hpp"
#include "runtime/grid_by_size.hpp"
#include "runtime/one_launch.hpp"
#include "runtime/replace_by_size.hpp"
#include "runtime/streaming.hpp"

namespace autotune {

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// "n=4096", "n=4096 and n=65536", "n=4096, n=65536 and n=1048576".
std::string list_sizes(const std::vector<std::uint64_t>& sizes) {
  std::string out;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    out += fmt::format("{}n={}", i == 0 ? "" : i + 1 == sizes.size() ? " and " : ", ", sizes[i]);
  return out;
}

std::string join(std::string a, const std::string& b) { return b.empty() ? a : a.empty() ? b : a + "; " + b; }

// The sizes where the ranking can change: where a candidate's prediction bends (its tuned sizes, the distances of
// the cost curves' points around them), every power of two, and the hint. Between two of them every prediction is
// linear in log2(n+1), and the best of linear functions that is best at both ends is best in between.
std::vector<std::uint64_t> grid(const std::vector<Evidence>& evidence, const FamilyCosts& c, std::uint64_t hint) {
  std::vector<std::uint64_t> g{0, kMax, hint, c.large_from, c.large_from > 0 ? c.large_from - 1 : 0};
  for (int k = 1; k < 64; ++k) g.push_back((std::uint64_t(1) << k) - 1);
  auto add = [&](double n) {
    if (n >= 0 && n < 1.8e19) g.push_back(static_cast<std::uint64_t>(n));  // 1.8e19 < 2^64
  };
  for (const Evidence& e : evidence) {
    if (e.kind == ConfigSource::fallback) continue;
    for (const EvidenceSize& s : e.sizes) {
      g.push_back(s.n);
      if (s.n > 0) g.push_back(s.n - 1);
      if (s.n < kMax) g.push_back(s.n + 1);
      for (const CostCurve* curve : {&c.from_larger, &c.from_smaller, &c.large_from_larger, &c.large_from_smaller})
        for (const auto& [x, y] : curve->points) {
          add((static_cast<double>(s.n) + 1) * std::exp2(x) - 1);
          add((static_cast<double>(s.n) + 1) * std::exp2(-x) - 1);
        }
    }
  }
  std::sort(g.begin(), g.end());
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

// Where each choice starts: the best-ranked candidate at every grid point, and between two grid points with
// different choices the first n of each new one (bisection).
struct Segment {
  std::uint64_t from = 0;
  Ranked choice;
};

std::vector<Segment> segments(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& ev,
                              const std::vector<std::uint64_t>& points) {
  auto best = [&](std::uint64_t n) { return best_at(costs, family, ev, n).value(); };  // ev holds the fallback at least
  std::vector<Segment> out{{0, best(0)}};
  for (std::size_t i = 1; i < points.size(); ++i) {
    const Ranked at_point = best(points[i]);
    std::uint64_t lo = points[i - 1];
    while (!(at_point == out.back().choice)) {
      std::uint64_t a = lo, b = points[i];  // the current choice is best at a, not at b
      while (b - a > 1) {
        const std::uint64_t mid = a + (b - a) / 2;
        (best(mid) == out.back().choice ? a : b) = mid;
      }
      out.push_back({b, best(b)});
      lo = b;
    }
  }
  return out;
}

// The worst prediction of a segment's choice over [from, to]: at its ends and at the grid points inside (the
// prediction is linear in between).
double worst_in(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& ev, const Ranked& c,
                std::uint64_t from, std::uint64_t to, const std::vector<std::uint64_t>& points) {
  double worst = std::max(price(costs, family, ev, c.evidence, c.size, from).predicted,
                          price(costs, family, ev, c.evidence, c.size, to).predicted);
  for (auto it = std::upper_bound(points.begin(), points.end(), from); it != points.end() && *it < to; ++it)
    worst = std::max(worst, price(costs, family, ev, c.evidence, c.size, *it).predicted);
  return worst;
}

// A range's "why" from its evidence and the sizes that serve in it.
std::string range_why(const Evidence& e, const std::vector<const EvidenceSize*>& used) {
  std::vector<std::uint64_t> ns;
  std::string keys, changes, measured_on;
  for (const EvidenceSize* s : used) {
    ns.push_back(s->n);
    keys += (keys.empty() ? "" : " and ") + s->key;
    if (!s->change.empty() && changes.find(s->change) == std::string::npos) changes = join(changes, s->change);
    if (!s->measured_on.empty() && measured_on.find(s->measured_on) == std::string::npos)
      measured_on = join(measured_on, s->measured_on);
  }
  const std::string adapted = changes.empty() ? "" : "adapted: " + changes;
  switch (e.kind) {
    case ConfigSource::exact:
    case ConfigSource::nearest_size: return join("tuned for " + list_sizes(ns), e.note);
    case ConfigSource::similar_problem: return join("tuned for " + keys, adapted);
    case ConfigSource::similar_device: {
      const Winner& w = *used.front()->winner;
      return join(fmt::format("tuned on {} ({} SMs) for {}", w.device_name, w.sm_count, list_sizes(ns)), e.note);
    }
    case ConfigSource::policy:
      return fmt::format("policy: {} of {}{}", join("tuned for " + list_sizes(ns), adapted), e.shape,
                         measured_on.empty() ? "" : ", measured on " + measured_on);
    case ConfigSource::fallback: return "built-in default";
  }
  return {};
}

// SizeRange::timed_below of a range from `from` served by size `s` of `e`.
std::uint64_t timed_below(const Evidence& e, const EvidenceSize& s, std::uint64_t from) {
  if (e.kind != ConfigSource::nearest_size) return 0;
  std::uint64_t below = 0;
  for (const EvidenceSize& t : e.sizes)
    if (t.n < from) below = t.n;  // ascending
  if (below == 0) return 0;
  const bool timed = std::any_of(s.measured.begin(), s.measured.end(), [&](const MeasuredAt& m) { return m.n == below; });
  return timed ? below : 0;
}

// The table from the segments: consecutive segments of one piece of evidence and one configuration are one range.
std::vector<SizeRange> ranges(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& ev,
                              const std::vector<Segment>& segs, const std::vector<std::uint64_t>& points) {
  std::vector<SizeRange> out;
  std::vector<std::vector<const EvidenceSize*>> used;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const Ranked& c = segs[i].choice;
    const Evidence& e = ev[c.evidence];
    const EvidenceSize& s = e.sizes[c.size];
    const std::uint64_t to = i + 1 == segs.size() ? kMax : segs[i + 1].from - 1;
    const double worst = worst_in(costs, family, ev, c, segs[i].from, to, points);
    const bool same = !out.empty() && ev[segs[i - 1].choice.evidence].shape == e.shape &&
                      segs[i - 1].choice.evidence == c.evidence && out.back().config == s.config;
    if (!same) {
      SizeRange r;
      r.n_from = segs[i].from;
      r.config = s.config;
      r.source = e.kind;
      r.tuned_model_key = e.model_key;
      r.tuned_shape_key = e.shape;
      out.push_back(std::move(r));
      used.emplace_back();
    }
    SizeRange& r = out.back();
    r.n_to = to;
    r.predicted_slowdown = std::max(same ? r.predicted_slowdown : 0.0, worst);
    if (e.kind != ConfigSource::fallback && std::find(used.back().begin(), used.back().end(), &s) == used.back().end())
      used.back().push_back(&s);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::sort(used[i].begin(), used[i].end(), [](const EvidenceSize* a, const EvidenceSize* b) { return a->n < b->n; });
    for (const EvidenceSize* s : used[i]) out[i].tuned_n.push_back(s->n);
    const Ranked& c = std::find_if(segs.begin(), segs.end(), [&](const Segment& s) { return s.from >= out[i].n_from; })->choice;
    out[i].why = range_why(ev[c.evidence], used[i]);
    if (!used[i].empty()) out[i].timed_below = timed_below(ev[c.evidence], *used[i].front(), out[i].n_from);
  }
  return out;
}

// Lookup::distance for a choice at the problem's n.
std::string choice_distance(const Evidence& e, const EvidenceSize& s, const Ranked& r, std::uint64_t n) {
  const std::string adapted = s.change.empty() ? "" : " (adapted: " + s.change + ")";
  switch (r.source) {
    case ConfigSource::exact: return e.note;
    case ConfigSource::nearest_size:
      return join(fmt::format("tuned for n={}{}", s.n, r.measured_between ? ", timed at the tuned sizes around n" : ""),
                  e.note);
    case ConfigSource::similar_problem: return "tuned for " + s.key + adapted;
    case ConfigSource::similar_device:
      return join(fmt::format("tuned on {} ({} SMs){}", s.winner->device_name, s.winner->sm_count,
                              s.n == n ? "" : fmt::format(" for n={}", s.n)),
                  e.note);
    case ConfigSource::policy:
      return "policy fitted for " + s.key + adapted +
             (s.measured_on.empty() ? "" : " (measured on " + s.measured_on + ")") +
             (e.note.empty() ? "" : " on " + e.note);
    case ConfigSource::fallback: return {};
  }
  return {};
}

// What the application's requirement keeps (rank_sizes); everything when nothing meets it.
std::vector<Evidence> required_evidence(std::vector<Evidence> ev, const Problem& problem, Requirement required) {
  auto keep = [&](auto wanted) {
    std::vector<Evidence> kept;
    for (const Evidence& e : ev)
      if (wanted(e)) kept.push_back(e);
    if (!kept.empty()) ev = std::move(kept);
  };
  if (required == Requirement::tuned)
    keep([](const Evidence& e) { return e.kind != ConfigSource::policy && e.kind != ConfigSource::fallback; });
  if (required == Requirement::exact)
    keep([&](const Evidence& e) {
      return e.kind == ConfigSource::nearest_size &&
             (problem.n() == 0 ||
              std::any_of(e.sizes.begin(), e.sizes.end(), [&](const EvidenceSize& s) { return s.n == problem.n(); }));
    });
  return ev;
}

struct Table {
  std::vector<Segment> segs;
  std::vector<SizeRange> sizes;
};

Table build(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& ev, std::uint64_t hint) {
  const std::vector<std::uint64_t> points = grid(ev, costs.of(family), hint);
  Table t;
  t.segs = segments(costs, family, ev, points);
  t.sizes = ranges(costs, family, ev, t.segs, points);
  return t;
}

}  // namespace

SizeLookup rank_sizes(Gathered gathered, const TransferCosts& costs, const Problem& problem, Requirement required) {
  std::vector<Evidence> ev = required_evidence(std::move(gathered.evidence), problem, required);
  for (Evidence& e : ev)
    if (e.kind == ConfigSource::fallback) e.other_model = !costs.gpu.empty() && costs.gpu != gathered.gpu;
  if (ev.empty()) throw Error(fmt::format("autotune: no candidate for {} (not even the built-in default)", problem.key()));
  const std::string family(problem.family_name());
  const std::uint64_t n = problem.n();
  Table t = build(costs, family, ev, n);
  SizeLookup out;
  // The hint's answer is the table's at n: the segment holding n (n is a grid point, so it is the best-ranked there).
  const auto seg = std::prev(std::upper_bound(t.segs.begin(), t.segs.end(), n,
                                              [](std::uint64_t v, const Segment& s) { return v < s.from; }));
  const Ranked chosen = price(costs, family, ev, seg->choice.evidence, seg->choice.size, n);
  const Evidence& e = ev[chosen.evidence];
  const EvidenceSize& s = e.sizes[chosen.size];
  Lookup& l = out.at_hint;
  l.source = chosen.source;
  l.config = s.config;
  l.winner = s.winner;
  l.distance = choice_distance(e, s, chosen, n);
  l.predicted_slowdown = chosen.predicted;
  l.stale_skipped = gathered.stale_skipped;
  l.unbacked_skipped = gathered.unbacked_skipped;
  for (const Ranked& r : rank_at(costs, family, ev, n)) {
    const EvidenceSize& rs = ev[r.evidence].sizes[r.size];
    if (rs.config == s.config) continue;  // the runner-up is another configuration
    l.runner_up = Alternative{r.source, rs.config, r.predicted, choice_distance(ev[r.evidence], rs, r, n)};
    break;
  }
  // The entries the table's ranges run, for their cubins.
  for (const Segment& sg : t.segs) {
    const EvidenceSize& used = ev[sg.choice.evidence].sizes[sg.choice.size];
    if (!used.winner) continue;
    if (std::none_of(out.winners.begin(), out.winners.end(), [&](const Winner& w) {
          return w.run_id == used.winner->run_id && w.model_key == used.winner->model_key && w.config == used.config;
        }))
      out.winners.push_back(*used.winner);
  }
  out.sizes = std::move(t.sizes);
  // Evict-first loads by input size (runtime/streaming.hpp), unless the application requires measured data (tuned,
  // exact): then each range runs a configuration as it was measured. The hint's answer is the range holding n.
  // Then the family's replacements from a size on (runtime/replace_by_size.hpp), and less work per block below the
  // sizes a configuration was measured at (runtime/grid_by_size.hpp).
  if (required == Requirement::any) {
    stream_by_size(out.sizes, problem, gathered.l2_bytes, gathered.device ? &*gathered.device : nullptr);
    replace_by_size(out.sizes, problem, gathered.device ? &*gathered.device : nullptr);
    self_zero_as_atomic(out.sizes, problem, gathered.device ? &*gathered.device : nullptr);
    if (gathered.compiles && gathered.device) keep_grid_by_size(out.sizes, problem, *gathered.device);
  }
  for (const SizeRange& r : out.sizes)
    if (r.contains(n) && !(r.config == l.config)) {
      // What the rules changed, in either direction ("ld=cs" added or taken away, "loads=1").
      std::vector<std::string> changed = config_adapt::changed_items(l.config.key(), r.config.key());
      for (std::string& item : config_adapt::changed_items(r.config.key(), l.config.key())) changed.push_back(item);
      auto changed_field = [&](std::string_view field) {
        return std::any_of(changed.begin(), changed.end(), [&](const std::string& c) { return c.starts_with(field); });
      };
      l.config = r.config;
      if (changed_field("ld=")) {
        const StreamBand band = stream_band(problem.bytes(), gathered.l2_bytes);
        l.distance = join(l.distance, stream_note(band, gathered.l2_bytes));
      }
      if (changed_field("merge="))
        l.distance = join(l.distance, "merge=atomic: an output of 12 KiB or more zeroed by a kernel the count overlaps");
      if (changed_field("loads="))
        l.distance = join(l.distance, "fewer loads per thread: the blocks of its measured size kept");
    }
  return out;
}

std::vector<SizeRange> build_size_table(std::vector<TunedSize> tuned, const Lookup& untuned, const TransferCosts& costs) {
  if (tuned.empty()) {
    SizeRange r;
    r.config = untuned.config;
    r.source = untuned.source;
    r.predicted_slowdown = untuned.predicted_slowdown;
    if (untuned.winner) {
      r.tuned_n = {untuned.winner->problem.n()};
      r.tuned_model_key = untuned.winner->model_key;
    }
    r.why = untuned.source == ConfigSource::fallback ? "built-in default" : untuned.distance;
    return {r};
  }
  Evidence e;
  e.kind = ConfigSource::nearest_size;
  e.model_key = tuned.front().model_key;
  e.note = tuned.front().note;
  std::stable_sort(tuned.begin(), tuned.end(), [](const TunedSize& a, const TunedSize& b) { return a.n < b.n; });
  for (const TunedSize& t : tuned)
    if (e.sizes.empty() || e.sizes.back().n != t.n)
      e.sizes.push_back(EvidenceSize{t.n, t.config, std::nullopt, {}, {}, {}, {}, 0, std::nullopt});
  return build(costs, tuned.front().config.family_name(), {e}, 0).sizes;
}

SizeLookup lookup_sizes(const Cache& cache, const LookupTarget& target, const Problem& problem, Requirement required) {
  LookupTarget t = target;
  if (t.arch.empty() || t.sm_count == 0) {
    const LookupTarget parsed = LookupTarget::from_model_key(t.model_key);
    if (t.arch.empty()) t.arch = parsed.arch;
    if (t.sm_count == 0) t.sm_count = parsed.sm_count;
  }
  SizeLookup out = rank_sizes(gather_candidates(&cache, t, problem), shipped_transfer_costs(), problem, required);
  for (Winner& w : out.winners) cache.read_cubin(w);  // the few the table runs; the ranking read none
  if (out.at_hint.winner) cache.read_cubin(*out.at_hint.winner);
  return out;
}

SizeLookup untuned_sizes(const LookupTarget& target, const Problem& problem, Requirement required) {
  return rank_sizes(gather_candidates(nullptr, target, problem), shipped_transfer_costs(), problem, required);
}

Lookup untuned_lookup(const LookupTarget& target, const Problem& problem) { return untuned_sizes(target, problem).at_hint; }

ConfigSource SizeRange::source_at(std::uint64_t n) const {
  if (source == ConfigSource::nearest_size && std::binary_search(tuned_n.begin(), tuned_n.end(), n))
    return ConfigSource::exact;
  return source;
}

std::string SizeRange::describe() const {
  const std::string to = n_to == kMax ? std::string("max") : std::to_string(n_to);
  return fmt::format("n={}..{}: {} ({}: {})", n_from, to, config.key(), to_string(source), why);
}

std::string Resolution::sizes_summary() const {
  std::string out;
  for (const SizeRange& r : sizes) out += r.describe() + "\n";
  return out;
}

std::string size_table_violation(const std::vector<SizeRange>& sizes, const Lookup& at_hint, std::uint64_t hint_n,
                                 Requirement required) {
  auto gives = [](ConfigSource source, const std::string& distance) {
    if (source == ConfigSource::fallback) return std::string("nothing (the built-in default)");
    if (source == ConfigSource::policy) return "no tuned data, only the measured default policy (" + distance + ")";
    return std::string(to_string(source)) + (distance.empty() ? "" : " (" + distance + ")");
  };
  switch (required) {
    case Requirement::any: return {};
    case Requirement::tuned:
      for (const SizeRange& r : sizes)
        if (!meets(r.source, Requirement::tuned)) return gives(r.source, r.why);
      return {};
    case Requirement::exact:
      if (hint_n > 0) return at_hint.source == ConfigSource::exact ? std::string() : gives(at_hint.source, at_hint.distance);
      for (const SizeRange& r : sizes)
        if (r.source != ConfigSource::nearest_size)
          return "no tuned size of the problem's shape on this GPU model (" + gives(r.source, r.why) + ")";
      return {};
  }
  return {};
}

}  // namespace autotune
