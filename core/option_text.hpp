// Reading option values as typed on a command line (the CLI's own options, and KernelFamily::make_problem): whole
// numbers only, errors that name the option. Internal to the library.
#pragma once

#include <fmt/format.h>

#include <string>

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

}  // namespace autotune::option_text
