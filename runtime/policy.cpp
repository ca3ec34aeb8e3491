#include "runtime/policy.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
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
    p.gpu = prov->value("gpu", std::string());
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
    PolicyEntry entry{*problem, *config, 0.0, 1.0, {}};
    if (e.contains("time_ms") && e["time_ms"].is_number()) entry.time_ms = e["time_ms"].get<double>();
    if (e.contains("worst_slowdown") && e["worst_slowdown"].is_number())
      entry.worst_slowdown = e["worst_slowdown"].get<double>();
    if (e.contains("gpu") && e["gpu"].is_string()) entry.gpu = e["gpu"].get<std::string>();
    if (entry.gpu == p.gpu) entry.gpu.clear();  // the policy's own GPU, said twice
    p.entries.push_back(std::move(entry));
  }
  // A problem may hold one entry per GPU model it was measured on (policy_shapes serves the target's own), never two
  // of one: which of them serves would be the file's order.
  std::map<std::pair<std::string, std::string>, int> seen;
  for (const PolicyEntry& e : p.entries)
    if (++seen[{e.problem.key(), e.gpu}] == 2)
      throw fail(fmt::format("two entries of {} measured on {}", e.problem.key(),
                             e.gpu.empty() ? (p.gpu.empty() ? std::string("the policy's GPU") : p.gpu) : e.gpu));
  return p;
}

std::string policy_override_path(std::string_view family) {
  const char* dir = std::getenv("AUTOTUNE_POLICY_DIR");
  if (dir == nullptr || *dir == '\0') return {};
  const std::filesystem::path path = std::filesystem::path(dir) / fmt::format("{}.json", family);
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? path.string() : std::string();
}

namespace {

// The text of the policy file at `path`; Error naming it when it cannot be read.
std::string read_policy_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in.good() && !in.eof())
    throw Error(fmt::format("the policy file {} (AUTOTUNE_POLICY_DIR) cannot be read", path));
  if (text.empty()) throw Error(fmt::format("the policy file {} (AUTOTUNE_POLICY_DIR) is empty", path));
  return text;
}

}  // namespace

const Policy& family_policy(std::string_view family) {
  static std::mutex mutex;
  // By family, then the file it was read from ("" for the embedded policy): each parsed once per process.
  static std::map<std::string, std::unique_ptr<const Policy>, std::less<>> parsed;
  const std::string path = policy_override_path(family);
  const std::string key = fmt::format("{}\n{}", family, path);
  std::lock_guard lock(mutex);
  if (auto it = parsed.find(key); it != parsed.end()) return *it->second;
  std::unique_ptr<Policy> policy;
  if (path.empty()) {
    policy = std::make_unique<Policy>(parse_policy(family, family_named(family).policy_data()));
  } else {
    const std::string text = read_policy_file(path);
    try {
      policy = std::make_unique<Policy>(parse_policy(family, text));
    } catch (const Error& e) {
      throw Error(fmt::format("{} (read from {}, which AUTOTUNE_POLICY_DIR names)", e.what(), path));
    }
    policy->provenance += fmt::format(", read from {}", path);
  }
  return *parsed.emplace(key, std::move(policy)).first->second;
}

namespace {

double n_ratio(std::uint64_t tuned, std::uint64_t wanted) {
  const double a = static_cast<double>(tuned) + 1, b = static_cast<double>(wanted) + 1;
  return a > b ? a / b : b / a;
}

// One shape's usable entries (ascending n, each with what adapt_config changed) as a PolicyChoice for `problem`.
PolicyChoice shape_choice(const Policy& policy, const Problem& problem, double distance,
                          std::vector<std::pair<PolicyEntry, std::string>> chosen) {
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](const auto& a, const auto& b) { return a.first.problem.n() < b.first.problem.n(); });
  PolicyChoice out;
  out.distance = distance;
  for (auto& [e, change] : chosen) {
    out.sizes.push_back(e);
    out.changes.push_back(change);
  }
  // The nearest size by ratio, a tie to the larger (the nearest-size lookup's rule).
  std::size_t at = 0;
  for (std::size_t i = 0; i < out.sizes.size(); ++i)
    if (n_ratio(out.sizes[i].problem.n(), problem.n()) <= n_ratio(out.sizes[at].problem.n(), problem.n())) at = i;
  out.config = out.sizes[at].config;
  out.shape = out.sizes[at].problem;
  out.why = fmt::format("policy fitted for {}{}{}{}", out.shape.key(),
                        out.changes[at].empty() ? "" : " (adapted: " + out.changes[at] + ")",
                        out.sizes[at].gpu.empty() ? "" : " (measured on " + out.sizes[at].gpu + ")",
                        policy.provenance.empty() ? "" : " on " + policy.provenance);
  return out;
}

// Which of a problem's entries serves on the GPU named `gpu`: the one measured on it, else the policy's own GPU's,
// else the first in the file. An entry per problem key (the index into policy.entries).
std::map<std::string, std::size_t> entry_per_problem(const Policy& policy, std::string_view gpu) {
  auto rank = [&](const PolicyEntry& e) {
    if (!gpu.empty() && (e.gpu.empty() ? policy.gpu : e.gpu) == gpu) return 0;
    return e.gpu.empty() ? 1 : 2;
  };
  std::map<std::string, std::size_t> out;
  for (std::size_t i = 0; i < policy.entries.size(); ++i) {
    const auto [it, added] = out.emplace(policy.entries[i].problem.key(), i);
    if (!added && rank(policy.entries[i]) < rank(policy.entries[it->second])) it->second = i;
  }
  return out;
}

}  // namespace

std::vector<PolicyChoice> policy_shapes(const Policy& policy, const Problem& problem, const DeviceInfo* device) {
  return policy_shapes(policy, problem, device, {});
}

std::vector<PolicyChoice> policy_shapes(const Policy& policy, const Problem& problem, const DeviceInfo* device,
                                        std::string_view gpu) {
  const KernelFamily& family = problem.family();
  const std::map<std::string, std::size_t> serving =
      entry_per_problem(policy, gpu.empty() && device ? std::string_view(device->name) : gpu);
  // The entries this problem can use, by shape, with their distance.
  struct Shape {
    double distance = 0.0;
    bool of_distribution = false;
    std::vector<std::pair<PolicyEntry, std::string>> entries;
  };
  std::map<std::string, Shape> shapes;
  for (std::size_t i = 0; i < policy.entries.size(); ++i) {
    const PolicyEntry& e = policy.entries[i];
    if (e.problem.family_name() != problem.family_name() || serving.at(e.problem.key()) != i) continue;
    // Where the distribution is not part of the shape, an entry of the default distribution is fitted to serve any
    // (a histogram's is robust across them); one of another distribution serves that distribution only.
    const bool of_distribution =
        !family.distribution_is_shape() && e.problem.distribution() != kDefaultDistribution;
    if (of_distribution && e.problem.distribution() != problem.distribution()) continue;
    const Problem as_wanted =
        family.distribution_is_shape() ? e.problem : e.problem.with_distribution(problem.distribution());
    const auto d = family.policy_distance(problem, as_wanted);
    if (!d) continue;
    auto adapted = family.adapt_config(problem.with_n(e.problem.n()), e.config, device);  // at the entry's size
    if (!adapted) continue;
    Shape& s = shapes[e.problem.shape_key()];
    s.distance = *d;
    s.of_distribution = of_distribution;
    PolicyEntry entry = e;
    entry.config = adapted->config;
    s.entries.emplace_back(std::move(entry), adapted->change);
  }
  std::vector<PolicyChoice> out;
  for (auto& [key, s] : shapes) {
    out.push_back(shape_choice(policy, problem, s.distance, std::move(s.entries)));
    out.back().of_distribution = s.of_distribution;
  }
  // Closest shape first; at equal distance the problem's own distribution's entries, then the nearer size (by
  // ratio); then the shape key (the map's order).
  std::stable_sort(out.begin(), out.end(), [&](const PolicyChoice& a, const PolicyChoice& b) {
    if (a.distance != b.distance) return a.distance < b.distance;
    if (a.of_distribution != b.of_distribution) return a.of_distribution;
    return n_ratio(a.shape.n(), problem.n()) < n_ratio(b.shape.n(), problem.n());
  });
  return out;
}

std::optional<PolicyChoice> policy_choice(const Policy& policy, const Problem& problem, const DeviceInfo* device) {
  std::vector<PolicyChoice> shapes = policy_shapes(policy, problem, device);
  if (shapes.empty()) return std::nullopt;
  return std::move(shapes.front());
}

std::optional<PolicyChoice> policy_choice(const Problem& problem, const DeviceInfo* device) {
  return policy_choice(family_policy(problem.family_name()), problem, device);
}

}  // namespace autotune
