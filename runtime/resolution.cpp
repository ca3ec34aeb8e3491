#include "autotune/resolution.hpp"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "autotune/identity.hpp"
#include "core/family.hpp"
#include "core/integrity.hpp"
#include "runtime/policy.hpp"
#include "runtime/size_table.hpp"

namespace autotune {

std::string_view to_string(ConfigSource s) {
  switch (s) {
    case ConfigSource::exact: return "exact";
    case ConfigSource::nearest_size: return "nearest_size";
    case ConfigSource::similar_problem: return "similar_problem";
    case ConfigSource::similar_device: return "similar_device";
    case ConfigSource::policy: return "policy";
    case ConfigSource::fallback: return "fallback";
  }
  return "?";
}

std::string_view to_string(Requirement r) {
  switch (r) {
    case Requirement::any: return "any";
    case Requirement::tuned: return "tuned";
    case Requirement::exact: return "exact";
  }
  return "?";
}

std::optional<Requirement> parse_requirement(std::string_view text) {
  for (Requirement r : {Requirement::any, Requirement::tuned, Requirement::exact})
    if (to_string(r) == text) return r;
  return std::nullopt;
}

bool meets(ConfigSource source, Requirement required) {
  switch (required) {
    case Requirement::any: return true;
    case Requirement::tuned: return source != ConfigSource::fallback && source != ConfigSource::policy;
    case Requirement::exact: return source == ConfigSource::exact;
  }
  return false;
}

std::string tune_command(const Problem& problem, const std::string& cache_path) {
  const std::string options = problem.family().command_options(problem);
  std::string dist;
  if (problem.distribution() != kDefaultDistribution) dist = " --dist " + problem.distribution();
  return fmt::format("autotune tune --kernel {}{}{} --n {}{} --cache {}", problem.family_name(),
                     options.empty() ? "" : " ", options, problem.n(), dist, cache_path);
}

LookupTarget LookupTarget::from_model_key(const std::string& model_key) {
  LookupTarget t;
  t.model_key = model_key;
  // "NVIDIA H100 80GB HBM3|sm_90|132SM|81090MiB": the name may not contain '|' (DeviceInfo::model_key), so the
  // fields are the last three.
  std::vector<std::string_view> parts;
  std::string_view rest(model_key);
  for (std::size_t bar; (bar = rest.find('|')) != std::string_view::npos; rest.remove_prefix(bar + 1))
    parts.push_back(rest.substr(0, bar));
  parts.push_back(rest);
  if (parts.size() >= 4) {
    const std::string_view arch = parts[parts.size() - 3], sms = parts[parts.size() - 2];
    if (arch.starts_with("sm_")) t.arch = std::string(arch);
    int n = 0;
    if (sms.ends_with("SM") && std::from_chars(sms.data(), sms.data() + sms.size() - 2, n).ec == std::errc()) t.sm_count = n;
  }
  return t;
}

Lookup untuned_lookup(const LookupTarget& target, const Problem& problem) {
  Lookup l;
  if (const auto choice = policy_choice(problem, target.device ? &*target.device : nullptr)) {
    l.source = ConfigSource::policy;
    l.config = choice->config;
    l.distance = choice->why;
  } else {
    l.config = Config::fallback(problem);
  }
  return l;
}

Lookup lookup_config(const Cache& cache, const LookupTarget& target, const Problem& problem) {
  LookupTarget t = target;
  if (t.arch.empty() || t.sm_count == 0) {
    const LookupTarget parsed = LookupTarget::from_model_key(t.model_key);
    if (t.arch.empty()) t.arch = parsed.arch;
    if (t.sm_count == 0) t.sm_count = parsed.sm_count;
  }
  Lookup l;
  // Results measured with other code (the problem's family template, NVRTC, driver) are never served. They are
  // skipped in the queries, not marked: a lookup never writes (only `autotune tune` marks, `autotune gc` deletes).
  const CodeIdentity here = current_identity(problem.family_name(), t.driver_version);
  l.stale_skipped = cache.count_unserved_winners(t.model_key, problem, here);
  l.unbacked_skipped = cache.count_unbacked_winners(t.model_key, problem);
  // The problem's distribution is a hint: a winner measured on it first, then one measured on the tuner's default
  // input ("uniform"), which every `autotune tune` of the problem records.
  const std::vector<Problem> candidates = distribution_candidates(problem);
  auto note_distribution = [&](const Problem& used) { return distribution_note(problem, used); };
  auto join = [](std::string a, const std::string& b) { return b.empty() ? a : a.empty() ? b : a + "; " + b; };
  for (const Problem& p : candidates) {
    if ((l.winner = cache.find_winner(t.model_key, p, here))) {
      l.source = ConfigSource::exact;
      l.distance = note_distribution(p);
      break;
    }
    if ((l.winner = cache.find_nearest_winner(t.model_key, p, here))) {
      l.source = ConfigSource::nearest_size;
      l.distance = join(fmt::format("tuned for n={}", l.winner->problem.n()), note_distribution(p));
      break;
    }
  }
  if (!l.winner) {
    // The closest shape of the family tuned on this model, whose winner this problem can run.
    const KernelFamily& family = problem.family();
    std::optional<double> best_distance;
    std::string best_change;
    for (Winner& w : cache.family_winners(t.model_key, problem.family_name(), here)) {
      const auto d = family.shape_distance(problem, w.problem);
      if (!d) continue;
      const DeviceInfo* device = t.device ? &*t.device : nullptr;
      // A winner this problem cannot run as tuned is made runnable (adapt_config), its cubin then not reused.
      auto adapted = family.adapt_config(problem, w.config, device);
      if (!adapted) continue;
      // Closer shape first; at equal shape distance, the nearer n (by ratio).
      auto n_ratio = [&](const Winner& x) {
        const double a = static_cast<double>(x.problem.n()) + 1, b = static_cast<double>(problem.n()) + 1;
        return a > b ? a / b : b / a;
      };
      if (!best_distance || *d < *best_distance || (*d == *best_distance && n_ratio(w) < n_ratio(*l.winner))) {
        best_distance = d;
        best_change = adapted->change;
        if (!adapted->change.empty()) {
          w.config = adapted->config;
          w.cubin.clear();
        }
        l.winner = std::move(w);
      }
    }
    if (l.winner) {
      l.source = ConfigSource::similar_problem;
      l.distance = fmt::format("tuned for {}{}", l.winner->problem.key(),
                               best_change.empty() ? "" : " (adapted: " + best_change + ")");
    }
  }
  if (!l.winner && !t.arch.empty()) {
    // Another model's runs are checked against this build's kernel template only: their NVRTC and driver are
    // those of other machines, and a cubin for the same architecture loads here whatever NVRTC built it.
    CodeIdentity template_only = here;
    template_only.nvrtc_version = 0;
    template_only.driver_version = 0;
    for (const Problem& p : candidates) {
      l.winner = cache.find_similar_winner(t.model_key, t.arch, t.sm_count, p, template_only);
      if (l.winner && t.device && !problem.family().violation(problem, l.winner->config, &*t.device).empty())
        l.winner.reset();  // tuned on a GPU with other limits: this one cannot run it
      if (l.winner) {
        l.source = ConfigSource::similar_device;
        l.distance = join(fmt::format("tuned on {} ({} SMs){}", l.winner->device_name, l.winner->sm_count,
                                      l.winner->problem.n() == problem.n()
                                          ? ""
                                          : fmt::format(" for n={}", l.winner->problem.n())),
                          note_distribution(p));
        break;
      }
    }
  }
  if (l.winner) {
    // Evidence imported from another machine and not signed by a trusted key (Winner::trusted) is never exact: it
    // is served as another GPU's measurement would be, and strict mode (require=exact) refuses it.
    if (!l.winner->trusted() && l.source != ConfigSource::similar_device) {
      l.source = ConfigSource::similar_device;
      l.distance = join(std::string(kImportedNote), l.distance);
    }
    l.config = l.winner->config;
    return l;
  }
  Lookup untuned = untuned_lookup(t, problem);
  untuned.stale_skipped = l.stale_skipped;
  untuned.unbacked_skipped = l.unbacked_skipped;
  return untuned;
}

std::string cubin_unusable(const Winner& w, const std::string& arch, const std::string& source) {
  if (w.cubin.empty()) return "no cubin stored";
  if (w.arch != arch) return fmt::format("the stored cubin is for {}, not {}", w.arch, arch);
  if (!integrity::is_elf(w.cubin)) return "the stored cubin is not an ELF image";
  if (w.cubin_sha256.empty()) return "the stored cubin has no recorded SHA-256";
  if (integrity::sha256_hex(w.cubin) != w.cubin_sha256) return "the stored cubin does not match its recorded SHA-256";
  if (w.source_sha256 != integrity::sha256_hex(source))
    return "the stored cubin was compiled from another source than this build's";
  return {};
}

}  // namespace autotune
