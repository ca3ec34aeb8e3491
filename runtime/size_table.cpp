#include "runtime/size_table.hpp"

#include <fmt/format.h>

#include <limits>

#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "core/family.hpp"
#include "runtime/policy.hpp"

namespace autotune {

namespace {

__extension__ typedef unsigned __int128 u128;

// "n=4096", "n=4096 and n=65536", "n=4096, n=65536 and n=1048576".
std::string list_sizes(const std::vector<std::uint64_t>& sizes) {
  std::string out;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    out += fmt::format("{}n={}", i == 0 ? "" : i + 1 == sizes.size() ? " and " : ", ", sizes[i]);
  return out;
}

}  // namespace

std::uint64_t size_switch_point(std::uint64_t a, std::uint64_t b) {
  if (a >= b) throw UsageError(fmt::format("size_switch_point: {} is not below {}", a, b));
  // a + 1 <= 2^64 - 1 and b + 1 <= 2^64, so the product stays below 2^128.
  const u128 product = (u128(a) + 1) * (u128(b) + 1);
  auto at_or_past = [&](std::uint64_t m) {
    const u128 x = u128(m) + 1;
    return x >> 64 ? true : x * x >= product;  // x = 2^64 only for m = 2^64 - 1, which is past any product
  };
  // (a+1)^2 < product <= (b+1)^2: the answer lies in (a, b].
  std::uint64_t lo = a + 1, hi = b;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (at_or_past(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

std::vector<SizeRange> build_size_table(std::vector<TunedSize> tuned, const Lookup& untuned) {
  std::vector<SizeRange> out;
  if (tuned.empty()) {
    SizeRange r;
    r.config = untuned.config;
    r.source = untuned.source;
    if (untuned.winner) {
      r.tuned_n = {untuned.winner->problem.n()};
      r.tuned_model_key = untuned.winner->model_key;
    }
    r.why = untuned.source == ConfigSource::fallback ? "built-in default" : untuned.distance;
    out.push_back(std::move(r));
    return out;
  }
  std::stable_sort(tuned.begin(), tuned.end(), [](const TunedSize& a, const TunedSize& b) { return a.n < b.n; });
  tuned.erase(std::unique(tuned.begin(), tuned.end(), [](const TunedSize& a, const TunedSize& b) { return a.n == b.n; }),
              tuned.end());
  for (std::size_t i = 0; i < tuned.size(); ++i) {
    const std::uint64_t from = i == 0 ? 0 : size_switch_point(tuned[i - 1].n, tuned[i].n);
    const std::uint64_t to = i + 1 == tuned.size() ? std::numeric_limits<std::uint64_t>::max()
                                                   : size_switch_point(tuned[i].n, tuned[i + 1].n) - 1;
    if (!out.empty() && out.back().config == tuned[i].config) {  // the same configuration: one range
      out.back().n_to = to;
      out.back().tuned_n.push_back(tuned[i].n);
      continue;
    }
    SizeRange r;
    r.n_from = from;
    r.n_to = to;
    r.config = tuned[i].config;
    r.source = ConfigSource::nearest_size;
    r.tuned_n = {tuned[i].n};
    r.tuned_model_key = tuned[i].model_key;
    r.why = tuned[i].note;  // completed below, once the range's sizes are known
    out.push_back(std::move(r));
  }
  for (SizeRange& r : out) r.why = "tuned for " + list_sizes(r.tuned_n) + (r.why.empty() ? "" : "; " + r.why);
  return out;
}

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

ConfigSource SizeRange::source_at(std::uint64_t n) const {
  if (source == ConfigSource::nearest_size && std::binary_search(tuned_n.begin(), tuned_n.end(), n))
    return ConfigSource::exact;
  return source;
}

std::string SizeRange::describe() const {
  const std::string to =
      n_to == std::numeric_limits<std::uint64_t>::max() ? std::string("max") : std::to_string(n_to);
  return fmt::format("n={}..{}: {} ({}: {})", n_from, to, config.key(), to_string(source), why);
}

std::string Resolution::sizes_summary() const {
  std::string out;
  for (const SizeRange& r : sizes) out += r.describe() + "\n";
  return out;
}

namespace {
// A table from the policy's chosen shape: one range per size it holds, served as ConfigSource::policy; the answer for
// the hint is the table's at problem.n, so that the two agree by construction.
void policy_table(const LookupTarget& target, const Problem& problem, SizeLookup& s) {
  const auto choice = policy_choice(problem, target.device ? &*target.device : nullptr);
  if (!choice) return;
  std::vector<TunedSize> sizes;
  for (std::size_t i = 0; i < choice->sizes.size(); ++i)
    sizes.push_back({choice->sizes[i].problem.n(), choice->sizes[i].config, {},
                     choice->changes[i].empty() ? std::string() : "adapted: " + choice->changes[i]});
  s.sizes = build_size_table(std::move(sizes), s.at_hint);
  for (SizeRange& r : s.sizes) {
    r.source = ConfigSource::policy;
    r.tuned_model_key.clear();
    r.why = fmt::format("policy: {} of {}", r.why, choice->shape.shape_key());
  }
  for (const SizeRange& r : s.sizes)
    if (r.contains(problem.n())) s.at_hint.config = r.config;
}
}  // namespace

SizeLookup untuned_sizes(const LookupTarget& target, const Problem& problem) {
  SizeLookup s;
  s.at_hint = untuned_lookup(target, problem);
  if (s.at_hint.source == ConfigSource::policy) policy_table(target, problem, s);
  if (s.sizes.empty()) s.sizes = build_size_table({}, s.at_hint);
  return s;
}

SizeLookup lookup_sizes(const Cache& cache, const LookupTarget& target, const Problem& problem) {
  SizeLookup s;
  s.at_hint = lookup_config(cache, target, problem);
  const CodeIdentity here = current_identity(problem.family_name(), target.driver_version);
  std::vector<TunedSize> tuned;
  // The first distribution with any tuned size on this model: the one lookup_config serves every n from.
  for (const Problem& p : distribution_candidates(problem)) {
    s.winners = cache.shape_winners(target.model_key, p, here);
    if (s.winners.empty()) continue;
    const std::string note = distribution_note(problem, p);
    for (const Winner& w : s.winners) tuned.push_back({w.problem.n(), w.config, w.model_key, note});
    break;
  }
  if (tuned.empty() && s.at_hint.winner) s.winners = {*s.at_hint.winner};
  if (tuned.empty() && s.at_hint.source == ConfigSource::policy) policy_table(target, problem, s);
  const bool from_tuned = !tuned.empty();
  if (s.sizes.empty()) s.sizes = build_size_table(std::move(tuned), s.at_hint);
  // A range served from an imported winner (not signed by a trusted key) is never nearest_size, so never exact.
  for (SizeRange& r : s.sizes)
    for (std::size_t i = 0; from_tuned && i < s.winners.size(); ++i)
      if (!s.winners[i].trusted() && r.source == ConfigSource::nearest_size &&
          std::binary_search(r.tuned_n.begin(), r.tuned_n.end(), s.winners[i].problem.n())) {
        r.source = ConfigSource::similar_device;
        r.why += "; " + std::string(kImportedNote);
      }
  return s;
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
