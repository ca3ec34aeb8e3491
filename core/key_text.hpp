// Reading canonical keys: configurations ("name=value,name=value") and problems ("family/part/name=value/..."), one
// implementation for every family. Internal to the library.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// A decimal unsigned 64-bit integer filling the whole text.
inline std::optional<std::uint64_t> to_u64(std::string_view s) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// A number in strtod's syntax filling the whole text.
inline std::optional<double> to_double(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

/// The '/'-separated parts of a problem key.
inline std::vector<std::string_view> problem_parts(std::string_view key) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto slash = key.find('/', start);
    parts.push_back(key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return parts;
}

/// The "name=value" parts of a problem key from index `from` on; nullopt when a part has no '=' or repeats a name.
inline std::optional<Fields> named_parts(const std::vector<std::string_view>& parts, std::size_t from) {
  Fields out;
  for (std::size_t i = from; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    if (!out.emplace(std::string(parts[i].substr(0, eq)), std::string(parts[i].substr(eq + 1))).second)
      return std::nullopt;
  }
  return out;
}

/// Removes and returns the field `name`, if present.
inline std::optional<std::string> take(Fields& fields, std::string_view name) {
  const auto it = fields.find(name);
  if (it == fields.end()) return std::nullopt;
  std::string v = std::move(it->second);
  fields.erase(it);
  return v;
}

}  // namespace autotune::key_text
