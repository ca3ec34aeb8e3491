// Reading option values as typed on a command line (the CLI's own options, and KernelFamily::make_problem): whole
// numbers only, errors that name the option. Internal to the library.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "autotune/error.hpp"

namespace autotune::option_text {

/// A decimal integer filling the whole text, else UsageError naming --flag.
inline long long to_integer(const std::string& flag, const std::string& text) {
  try {
    std::size_t pos = 0;
    const long long v = std::stoll(text, &pos);
    if (pos == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--{}: '{}' is not an integer", flag, text));
}

/// A number filling the whole text, else UsageError naming --flag.
inline double to_double(const std::string& flag, const std::string& text) {
  try {
    std::size_t pos = 0;
    const double v = std::stod(text, &pos);
    if (pos == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--{}: '{}' is not a number", flag, text));
}

/// The comma-separated items of a list value ("256,64,17"), empty items kept (the caller's parser refuses them); a
/// value without a comma is one item.
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

}  // namespace autotune::option_text
