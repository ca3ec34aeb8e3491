#include "runtime/policy.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include "autotune/error.hpp"
#include "core/family.hpp"

namespace autotune {

Policy parse_policy(std::string_view family, std::string_view text) {
  Policy p;
  if (text.empty()) return p;
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto fail = [&](const std::string& what) {
    return Error(fmt::format("the policy of family {} is malformed: {}", family, what));
  };
  if (doc.is_discarded() || !doc.is_object()) throw fail("not a JSON object");
  if (doc.value("format", 0) != 1) throw fail("format is not 1");
  if (doc.value("family", std::string()) != family) throw fail("it names another family");
  const auto entries = doc.find("entries");
  if (entries == doc.end() || !entries->is_array()) throw fail("no entries array");
  if (const auto prov = doc.find("provenance"); prov != doc.end() && prov->is_object()) {
    p.provenance = fmt::format("{}, {}, `{}`", prov->value("gpu", std::string("?")), prov->value("date", std::string("?")),
                               prov->value("command", std::string("?")));
    if (const std::string data = prov->value("data", std::string()); !data.empty()) p.provenance += ", data " + data;
  }
  for (const nlohmann::json& e : *entries) {
    if (!e.is_object() || !e.contains("problem") || !e.contains("config") || !e["problem"].is_string() ||
        !e["config"].is_string())
      throw fail("an entry without problem and config strings");
    const std::string pk = e["problem"].get<std::string>(), ck = e["config"].get<std::string>();
    auto problem = Problem::parse(pk);
    if (!problem || problem->family_name() != family) throw fail(fmt::format("'{}' is not a problem of it", pk));
    auto config = Config::parse(family, ck);
    if (!config) throw fail(fmt::format("'{}' is not a configuration of it", ck));
    if (const std::string why = problem->family().violation(*problem, *config, nullptr); !why.empty())
      throw fail(fmt::format("{} cannot run {}: {}", ck, pk, why));
    PolicyEntry entry{*problem, *config, 0.0, 1.0};
    if (e.contains("time_ms") && e["time_ms"].is_number()) entry.time_ms = e["time_ms"].get<double>();
    if (e.contains("worst_slowdown") && e["worst_slowdown"].is_number())
      entry.worst_slowdown = e["worst_slowdown"].get<double>();
    p.entries.push_back(std::move(entry));
  }
  return p;
}

const Policy& family_policy(std::string_view family) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const Policy>, std::less<>> parsed;
  std::lock_guard lock(mutex);
  if (auto it = parsed.find(family); it != parsed.end()) return *it->second;
  const KernelFamily& f = family_named(family);
  auto policy = std::make_unique<const Policy>(parse_policy(family, f.policy_data()));
  return *parsed.emplace(std::string(family), std::move(policy)).first->second;
}

std::optional<PolicyChoice> policy_choice(const Policy& policy, const Problem& problem, const DeviceInfo* device) {
  const KernelFamily& family = problem.family();
  // The entries this problem can use, with their shape distance; the closest shape (then the nearest size) wins.
  struct Candidate {
    const PolicyEntry* entry;
    double distance;
    KernelFamily::Adapted adapted;  // the entry's configuration, made valid for this problem (adapt_config)
  };
  auto n_ratio = [&](std::uint64_t t) {
    const double a = static_cast<double>(t) + 1, b = static_cast<double>(problem.n()) + 1;
    return a > b ? a / b : b / a;
  };
  std::vector<Candidate> usable;
  for (const PolicyEntry& e : policy.entries) {
    if (e.problem.family_name() != problem.family_name()) continue;
    const Problem as_wanted =
        family.distribution_is_shape() ? e.problem : e.problem.with_distribution(problem.distribution());
    const auto d = family.policy_distance(problem, as_wanted);
    if (!d) continue;
    auto adapted = family.adapt_config(problem, e.config, device);
    if (!adapted) continue;
    usable.push_back({&e, *d, std::move(*adapted)});
  }
  if (usable.empty()) return std::nullopt;
  const Candidate* best = &usable.front();
  for (const Candidate& c : usable)
    if (c.distance < best->distance ||
        (c.distance == best->distance && n_ratio(c.entry->problem.n()) < n_ratio(best->entry->problem.n())))
      best = &c;
  const std::string shape = best->entry->problem.shape_key();
  PolicyChoice out;
  std::vector<std::pair<PolicyEntry, std::string>> chosen;
  for (const Candidate& c : usable)
    if (c.entry->problem.shape_key() == shape) {
      PolicyEntry e = *c.entry;
      e.config = c.adapted.config;
      chosen.emplace_back(std::move(e), c.adapted.change);
    }
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](const auto& a, const auto& b) { return a.first.problem.n() < b.first.problem.n(); });
  for (auto& [e, change] : chosen) {
    out.sizes.push_back(e);
    out.changes.push_back(change);
  }
  // The nearest size by ratio, a tie to the larger (the nearest-size lookup's rule).
  std::size_t at = 0;
  for (std::size_t i = 0; i < out.sizes.size(); ++i)
    if (n_ratio(out.sizes[i].problem.n()) <= n_ratio(out.sizes[at].problem.n())) at = i;
  out.config = out.sizes[at].config;
  out.shape = out.sizes[at].problem;
  out.why = fmt::format("policy fitted for {}{}{}", out.shape.key(),
                        out.changes[at].empty() ? "" : " (adapted: " + out.changes[at] + ")",
                        policy.provenance.empty() ? "" : " on " + policy.provenance);
  return out;
}

std::optional<PolicyChoice> policy_choice(const Problem& problem, const DeviceInfo* device) {
  return policy_choice(family_policy(problem.family_name()), problem, device);
}

}  // namespace autotune
