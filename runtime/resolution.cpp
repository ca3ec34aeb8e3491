#include "autotune/resolution.hpp"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "core/enum_text.hpp"
#include "core/family.hpp"
#include "core/integrity.hpp"

namespace autotune {

namespace {

constexpr enum_text::Name<ConfigSource> kSourceNames[] = {{ConfigSource::exact, "exact"},
                                                          {ConfigSource::nearest_size, "nearest_size"},
                                                          {ConfigSource::similar_problem, "similar_problem"},
                                                          {ConfigSource::similar_device, "similar_device"},
                                                          {ConfigSource::policy, "policy"},
                                                          {ConfigSource::fallback, "fallback"}};
constexpr enum_text::Name<Requirement> kRequirementNames[] = {
    {Requirement::any, "any"}, {Requirement::tuned, "tuned"}, {Requirement::exact, "exact"}};

}  // namespace

std::string_view to_string(ConfigSource s) { return enum_text::name_of(kSourceNames, s); }
std::string_view to_string(Requirement r) { return enum_text::name_of(kRequirementNames, r); }

std::optional<Requirement> parse_requirement(std::string_view text) {
  return enum_text::parse(kRequirementNames, text);
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

Lookup lookup_config(const Cache& cache, const LookupTarget& target, const Problem& problem, Requirement required) {
  return lookup_sizes(cache, target, problem, required).at_hint;
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
