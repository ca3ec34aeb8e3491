// What the families' preamble generators (kernel_templates/*/source.cpp) share: a host enum crosses into a kernel
// template as an enum of the same name, enumerators and values, written from the host enum's own values and
// to_string(). The template compares by name (`kMerge == Merge::last_block`); the integer mapping exists only on
// the host.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace autotune::preamble {

/// "enum class Merge { atomic = 0, last_block = 1, self_zero = 2 };\n" from every value of the host enum (`values`,
/// the same list its key parser uses) and its to_string().
template <class E, std::size_t N>
std::string enum_definition(std::string_view name, const E (&values)[N]) {
  std::string text = fmt::format("enum class {} {{", name);
  for (std::size_t i = 0; i < N; ++i)
    text += fmt::format("{} {} = {}", i == 0 ? "" : ",", to_string(values[i]), static_cast<int>(values[i]));
  return text + " };\n";
}

/// "constexpr Merge kMerge = Merge::last_block;\n"
template <class E>
std::string enum_constant(std::string_view type, std::string_view name, E value) {
  return fmt::format("constexpr {} {} = {}::{};\n", type, name, type, to_string(value));
}

}  // namespace autotune::preamble
