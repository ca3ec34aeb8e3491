// A configuration's key declared once: a table of its fields (name, member, what a value may be, whether the key
// leaves it out at a default), from which one generic implementation prints the canonical key and parses it back
// (issue #28: adding a configuration field is one table entry, not a change to key() and parse() by hand). Internal
// to the library; each family's config.cpp holds its table.
//
//   constexpr auto kFields = std::tuple{
//       config_fields::choice("red", &ReduceConfig::block_reduce, reduce_detail::kBlockReduces),
//       config_fields::number("block", &ReduceConfig::block, 1),
//       config_fields::number("grid", &ReduceConfig::grid_blocks, -1)};
//   std::string ReduceConfig::key() const { return config_fields::key(*this, kFields); }
//   std::optional<ReduceConfig> ReduceConfig::parse(std::string_view k) { return config_fields::parse<ReduceConfig>(k, kFields); }
//
// The key is "name=value" items joined by ',' in the table's order; a field declared with omitted_at(v) is left out
// when it holds v, and a flag (a bool) is "name=<its one spelling>" when set and left out when clear. parse() is the
// exact inverse: every field without a default present, no unknown or repeated name, numbers decimal and at least
// their minimum, enums one of their values by to_string(), flags their spelling, and a defaulted field never spelled
// at its default (one key per configuration).
//
// An entry also declares the field's constant in a variant's preamble, so that adding a field is one entry and its
// use in the template: config_fields::number("block", &ReduceConfig::block, 1).constant("kBlock") is
// "constexpr int kBlock = 256;\n", a choice's .constant("kFinish", "Finish") also the template's enum Finish
// (kernel_templates/preamble.hpp, config_preamble).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/key_text.hpp"

namespace autotune::config_fields {

/// One field of a configuration C holding a T: an int (a number), an enum with to_string (a choice) or a bool (a
/// flag).
template <class C, class T>
struct Field {
  std::string_view name;
  T C::*member;
  int min = 0;                          ///< numbers: the smallest value a key may hold
  std::span<const T> values = {};       ///< choices: every value, as the family's enums.hpp lists them
  std::optional<T> omitted = {};        ///< left out of the key at this value, and its value when a key lacks it
  std::string_view set = {};            ///< flags: the value's text when true
  std::string_view constant_name = {};  ///< the field's constant in a variant's preamble ("kBlock"), or none
  std::string_view constant_type = {};  ///< a choice's enum in the template; a number's "unsigned" (else int)
  int constant_part = 0;                ///< the part of the preamble it is written in (0: the main one)

  /// The same field with member `m` set to `v`.
  template <class M>
  constexpr Field with(M Field::*m, M v) const {
    Field f = *this;
    f.*m = v;
    return f;
  }

  /// The same field, left out of keys when it holds `v` (and `v` when a key lacks it).
  constexpr Field omitted_at(T v) const { return with(&Field::omitted, std::optional<T>(v)); }

  /// The same field, declared to the kernel template as the constant `name` of type `type` (a choice: the name of
  /// its enum there; a number: "unsigned" or, when left empty, int; a flag: bool). preamble::config_preamble writes
  /// the line.
  constexpr Field constant(std::string_view name, std::string_view type = {}) const {
    return with(&Field::constant_name, name).with(&Field::constant_type, type);
  }

  /// The same field, its constant written in part `p` of the preamble (where source.cpp places it) instead of the
  /// main part 0.
  constexpr Field in_part(int p) const { return with(&Field::constant_part, p); }
};

/// A number field: a decimal int of at least `min`.
template <class C>
constexpr Field<C, int> number(std::string_view name, int C::*member, int min) {
  return Field<C, int>{name, member, min, {}, {}};
}

/// A choice field: one of `values` (the enum's list, or the part of it a family takes), printed and parsed by
/// to_string().
template <class C, class E>
constexpr Field<C, E> choice(std::string_view name, E C::*member, std::type_identity_t<std::span<const E>> values) {
  return Field<C, E>{name, member, 0, values, {}};
}

/// A flag: "name=`set`" when true, left out when false (so keys from before the flag existed keep their meaning).
template <class C>
constexpr Field<C, bool> flag(std::string_view name, bool C::*member, std::string_view set) {
  return Field<C, bool>{name, member, 0, {}, false, set};
}

namespace detail {

template <class C, class T>
std::string text_of(const Field<C, T>& f, const T& v) {
  if constexpr (std::is_same_v<T, bool>) return std::string(f.set);  // a flag is printed only when set
  else if constexpr (std::is_enum_v<T>) return std::string(to_string(v));
  else return fmt::format("{}", v);
}

template <class C, class T>
std::optional<T> value_of(const Field<C, T>& f, std::string_view text) {
  if constexpr (std::is_same_v<T, bool>) {
    return text == f.set ? std::optional<bool>(true) : std::nullopt;
  } else if constexpr (std::is_enum_v<T>) {
    for (const T& e : f.values)
      if (to_string(e) == text) return e;
    return std::nullopt;
  } else {
    const auto v = key_text::to_int(text);
    return v && *v >= f.min ? v : std::nullopt;
  }
}

template <class C, class T>
void append(std::string& out, const C& c, const Field<C, T>& f) {
  const T& v = c.*(f.member);
  if (f.omitted && v == *f.omitted) return;
  if (!out.empty()) out += ',';
  out += f.name;
  out += '=';
  out += text_of(f, v);
}

template <class C, class T>
bool read(key_text::Fields& fields, C& c, const Field<C, T>& f) {
  const auto text = key_text::take(fields, f.name);
  if (!text) {
    if (!f.omitted) return false;  // a field every key holds
    c.*(f.member) = *f.omitted;
    return true;
  }
  const std::optional<T> v = value_of(f, *text);
  if (!v || (f.omitted && *v == *f.omitted)) return false;  // a default is never spelled out
  c.*(f.member) = *v;
  return true;
}

}  // namespace detail

/// The canonical key of `c`.
template <class C, class... T>
std::string key(const C& c, const std::tuple<Field<C, T>...>& fields) {
  std::string out;
  std::apply([&](const auto&... f) { (detail::append(out, c, f), ...); }, fields);
  return out;
}

/// The configuration whose key is `text` (members outside the table keep C's defaults); nullopt for anything that
/// key() does not print.
template <class C, class... T>
std::optional<C> parse(std::string_view text, const std::tuple<Field<C, T>...>& fields) {
  auto f = key_text::split(text);
  if (!f) return std::nullopt;
  C c;
  const bool ok = std::apply([&](const auto&... field) { return (detail::read(*f, c, field) && ...); }, fields);
  if (!ok || !f->empty()) return std::nullopt;
  if (key(c, fields) != text) return std::nullopt;  // the canonical spelling only: the table's order, no leading zeros
  return c;
}

/// The names of the table's fields, in key order.
template <class C, class... T>
std::vector<std::string_view> names(const std::tuple<Field<C, T>...>& fields) {
  return std::apply([](const auto&... f) { return std::vector<std::string_view>{f.name...}; }, fields);
}

}  // namespace autotune::config_fields
