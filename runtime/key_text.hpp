// Reading the canonical "name=value,name=value" keys of configurations (HistogramConfig::parse, ReduceConfig::parse):
// one implementation for every family. Internal to the library.
#pragma once

#include <charconv>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace autotune::key_text {

using Fields = std::map<std::string, std::string, std::less<>>;

/// The fields of a key; nullopt for an item without '=' or a repeated name.
inline std::optional<Fields> split(std::string_view key) {
  Fields fields;
  while (!key.empty()) {
    const auto comma = key.find(',');
    const auto item = key.substr(0, comma);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    if (!fields.emplace(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1))).second) return std::nullopt;
    key = comma == std::string_view::npos ? std::string_view{} : key.substr(comma + 1);
  }
  return fields;
}

/// A decimal int filling the whole text.
inline std::optional<int> to_int(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// The value of `values` whose to_string() is `s`.
template <class E, std::size_t N>
std::optional<E> to_enum(std::string_view s, const E (&values)[N]) {
  for (E v : values)
    if (to_string(v) == s) return v;
  return std::nullopt;
}

}  // namespace autotune::key_text
