// Problem and Config (include/autotune/problem.hpp): what is the same for every family, and what each family's
// registered KernelFamily (core/family.hpp) answers.
#include "autotune/problem.hpp"

#include <fmt/format.h>

#include <cmath>

#include "autotune/error.hpp"
#include "core/family.hpp"
#include "core/key_text.hpp"

namespace autotune {

namespace {
[[noreturn]] void family_mismatch(const Config& c, const Problem& p) {
  throw UsageError(fmt::format("configuration {} ({}) does not belong to problem {} ({})", c.key(), c.family_name(),
                               p.key(), p.family_name()));
}
}  // namespace

// --- Problem ------------------------------------------------------------------------------------------------------

const KernelFamily& Problem::family() const {
  if (!model_) throw UsageError("an empty problem has no family");
  return family_named(model_->family_name());
}

void Problem::validate() const {
  if (!model_) throw UsageError("the problem is empty");
  model_->validate();
}

const std::string& Problem::distribution() const {
  static const std::string none;
  return model_ ? model_->distribution() : none;
}

std::optional<Problem> Problem::parse(std::string_view key) {
  const auto parts = key_text::problem_parts(key);
  const KernelFamily* family = find_family(parts[0]);
  if (!family) return std::nullopt;
  // The key is canonical: anything that does not print back to the same text is not a key.
  try {
    auto p = family->parse_problem(key);
    if (p && p->key() == key) {
      p->validate();
      return p;
    }
  } catch (const UsageError&) {
  }
  return std::nullopt;
}

// --- Config -------------------------------------------------------------------------------------------------------

const KernelFamily& Config::family() const {
  if (!model_) throw UsageError("an empty configuration has no family");
  return family_named(model_->family_name());
}

int Config::launches() const { return family().launches(*this); }

std::size_t Config::shared_bytes(const Problem& problem) const {
  if (family_name() != problem.family_name()) family_mismatch(*this, problem);
  return family().shared_bytes(problem, *this);
}

std::optional<Config> Config::parse(std::string_view family, std::string_view key) {
  const KernelFamily* f = find_family(family);
  return f ? f->parse_config(key) : std::nullopt;
}

Config Config::fallback(const Problem& problem) { return problem.family().fallback(problem); }

std::string kernel_source(const Problem& problem, const Config& config) {
  if (config.family_name() != problem.family_name()) family_mismatch(config, problem);
  return problem.family().kernel_source(problem, config);
}

// --- sizes --------------------------------------------------------------------------------------------------------

std::uint64_t parse_size(std::string_view text) {
  const std::string s(text);
  if (s.empty()) throw UsageError("empty size");
  std::size_t pos = 0;
  double value = 0;
  try {
    value = std::stod(s, &pos);
  } catch (const std::exception&) {
    throw UsageError(fmt::format("'{}' is not a size (examples: 1000, 64K, 64M, 1G)", s));
  }
  std::string suffix = s.substr(pos);
  double scale = 1;
  if (suffix == "" ) scale = 1;
  else if (suffix == "K" || suffix == "k") scale = 1024.0;
  else if (suffix == "M" || suffix == "m") scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "g") scale = 1024.0 * 1024 * 1024;
  else throw UsageError(fmt::format("'{}' is not a size (examples: 1000, 64K, 64M, 1G)", s));
  const double total = value * scale;
  if (!(total >= 0) || total > 9.0e18 || total != std::floor(total))
    throw UsageError(fmt::format("'{}' is not a whole non-negative number of elements", s));
  return static_cast<std::uint64_t>(total);
}

}  // namespace autotune
