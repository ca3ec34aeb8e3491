// A problem's parameters from its canonical key (core/key_parameters.hpp).
#include "core/key_parameters.hpp"

#include <fmt/format.h>

#include <set>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "core/key_text.hpp"

namespace autotune {

namespace {

// Names are what a user types in SQL: "bins", "acc", "row_pixels".
bool is_parameter_name(std::string_view name) {
  if (name.empty() || name.front() < 'a' || name.front() > 'z') return false;
  for (const char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// The problems table's own columns: every key has them, and they are not parameters.
bool is_problem_column(std::string_view name) { return name == "n" || name == "dist"; }

}  // namespace

std::vector<KeyParameter> key_parameters(std::string_view key, const std::vector<std::string>& part_names) {
  auto refuse = [&](const std::string& why) {
    return UsageError(fmt::format("problem key '{}' has no parameters: {}", key, why));
  };
  const auto parts = key_text::problem_parts(key);
  if (parts[0].empty()) throw refuse("it names no family");
  std::vector<KeyParameter> out;
  std::set<std::string, std::less<>> names;
  auto add = [&](std::string_view name, std::string_view value) {
    if (!is_parameter_name(name)) throw refuse(fmt::format("'{}' is not a parameter name (a-z, 0-9 and _)", name));
    if (!names.emplace(name).second) throw refuse(fmt::format("the name '{}' is given twice", name));
    out.push_back({std::string(name), std::string(value)});
  };
  std::size_t positional = 0;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string_view part = parts[i];
    if (part.empty()) throw refuse(fmt::format("part {} is empty", i));
    const auto eq = part.find('=');
    if (eq == std::string_view::npos) {
      if (positional != i - 1) throw refuse(fmt::format("the part '{}' without a name follows named parts", part));
      if (positional == part_names.size())
        throw refuse(fmt::format("its family names {} part(s) before the named ones, and '{}' is one more",
                                 part_names.size(), part));
      add(part_names[positional++], part);
    } else if (!is_problem_column(part.substr(0, eq))) {
      if (eq + 1 == part.size()) throw refuse(fmt::format("the part '{}' has no value", part));
      add(part.substr(0, eq), part.substr(eq + 1));
    }
  }
  if (positional != part_names.size())
    throw refuse(fmt::format("its family names {} part(s) before the named ones, and it has {}", part_names.size(),
                             positional));
  return out;
}

std::vector<KeyParameter> key_parameters(const Problem& problem) {
  return key_parameters(problem.key(), problem.family().key_part_names());
}

}  // namespace autotune
