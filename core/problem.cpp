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

std::string tuning_source(const Problem& problem, const Config& config) {
  if (config.family_name() != problem.family_name()) family_mismatch(config, problem);
  return problem.family().tuning_source(problem, config);
}

// --- sizes --------------------------------------------------------------------------------------------------------

std::uint64_t parse_size(std::string_view text) {
  const std::string s(text);
  const std::string bad = fmt::format("'{}' is not a size (digits, an optional decimal fraction and an optional K, M or "
                                      "G suffix, e.g. 1000, 64K, 1.5M, 1G)", s);
  if (s.empty()) throw UsageError("empty size (e.g. 1000, 64K, 64M, 1G)");
  // Only what the documentation shows: DIGITS[.DIGITS][K|M|G]. No sign, space, hex, exponent, inf or nan, which
  // std::stod would accept.
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  const std::size_t whole_digits = digits();
  std::size_t fraction_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction_digits = digits();
    if (fraction_digits == 0) throw UsageError(bad);
  }
  if (whole_digits == 0) throw UsageError(bad);
  const std::string number = s.substr(0, i), suffix = s.substr(i);
  unsigned shift = 0;
  if (suffix.empty()) shift = 0;
  else if (suffix == "K" || suffix == "k") shift = 10;
  else if (suffix == "M" || suffix == "m") shift = 20;
  else if (suffix == "G" || suffix == "g") shift = 30;
  else throw UsageError(bad);
  constexpr std::uint64_t kMax = 9'000'000'000'000'000'000ull;  // far beyond any memory, and below 2^63
  if (fraction_digits == 0) {  // exact: no rounding through a double
    std::uint64_t v = 0;
    for (char c : number) {
      if (v > (kMax - static_cast<unsigned>(c - '0')) / 10) throw UsageError(fmt::format("'{}' is too large", s));
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v > (kMax >> shift)) throw UsageError(fmt::format("'{}' is too large", s));
    return v << shift;
  }
  const double total = std::stod(number) * static_cast<double>(std::uint64_t{1} << shift);
  if (!(total <= 9.0e18)) throw UsageError(fmt::format("'{}' is too large", s));
  if (total != std::floor(total)) throw UsageError(fmt::format("'{}' is not a whole number of elements", s));
  return static_cast<std::uint64_t>(total);
}

}  // namespace autotune
