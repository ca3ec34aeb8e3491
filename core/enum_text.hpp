// An enum's names declared once: a constexpr table of {value, name} records, from which to_string(), the parser of
// the name and the list of values all read (issue #28: the names are stored in caches and keys, so printing and
// parsing must never disagree, and a new value is one entry). Internal to the library.
//
//   inline constexpr enum_text::Name<Finish> kFinishNames[] = {
//       {Finish::atomic, "atomic"}, {Finish::last_block, "last_block"}, {Finish::two_pass, "two_pass"}};
//   inline constexpr auto kFinishes = enum_text::values(kFinishNames);
//   std::string_view to_string(Finish f) { return enum_text::name_of(kFinishNames, f); }
//
// A table is an array of any records with members `value` and `name`: a type's table of properties that holds its
// name serves as it is.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "autotune/error.hpp"

namespace autotune::enum_text {

/// One value of an enum E and its name.
template <class E>
struct Name {
  E value;
  std::string_view name;
};

/// The enum of a table's records.
template <class R>
using value_type = std::remove_cvref_t<decltype(R::value)>;

/// The name of `e`; "?" for a value the table lacks.
template <class R, std::size_t N>
constexpr std::string_view name_of(const R (&table)[N], value_type<R> e) {
  for (const R& r : table)
    if (r.value == e) return r.name;
  return "?";
}

/// The value named `name` (exactly, case included); nullopt for any other text.
template <class R, std::size_t N>
constexpr std::optional<value_type<R>> parse(const R (&table)[N], std::string_view name) {
  for (const R& r : table)
    if (r.name == name) return r.value;
  return std::nullopt;
}

/// Every name, in the table's order, joined by ", ": the list a message gives of what a parser takes.
template <class R, std::size_t N>
std::string names(const R (&table)[N]) {
  std::string out;
  for (const R& r : table) {
    if (!out.empty()) out += ", ";
    out += r.name;
  }
  return out;
}

/// Every value, in the table's order.
template <class R, std::size_t N>
constexpr std::array<value_type<R>, N> values(const R (&table)[N]) {
  std::array<value_type<R>, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = table[i].value;
  return out;
}

/// Throws UsageError naming `distribution` and the known ones unless it is one of `known` (a family's
/// distributions(), which its problem's validate() checks).
inline void require_distribution(const std::string& distribution, const std::vector<std::string>& known) {
  if (std::find(known.begin(), known.end(), distribution) == known.end())
    throw UsageError(fmt::format("unknown distribution '{}' (known: {})", distribution, fmt::join(known, ", ")));
}

}  // namespace autotune::enum_text
