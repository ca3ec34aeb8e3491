// What the families' preamble generators (kernel_templates/*/source.cpp) share: a host enum crosses into a kernel
// template as an enum of the same name, enumerators and values, written from the host enum's own values and
// to_string(). The template compares by name (`kMerge == Merge::last_block`); the integer mapping exists only on
// the host. And a variant's source is put together in one way: preamble, shared device code, template.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>

#include "embedded.hpp"

namespace autotune::preamble {

/// "enum class Merge { atomic = 0, last_block = 1, self_zero = 2 };\n" from every value of the host enum (`values`,
/// the same list its key parser uses: an array, or the std::array of its name table) and its to_string().
template <class Values>
std::string enum_definition(std::string_view name, const Values& values) {
  std::string text = fmt::format("enum class {} {{", name);
  for (std::size_t i = 0; i < std::size(values); ++i)
    text += fmt::format("{} {} = {}", i == 0 ? "" : ",", to_string(values[i]), static_cast<int>(values[i]));
  return text + " };\n";
}

/// "constexpr Merge kMerge = Merge::last_block;\n"
template <class E>
std::string enum_constant(std::string_view type, std::string_view name, E value) {
  return fmt::format("constexpr {} {} = {}::{};\n", type, name, type, to_string(value));
}

/// A file a template includes (`#include "region_map.cuh"`, on a line of its own), embedded beside it.
struct Fragment {
  std::string_view name;
  std::string_view text;
};

/// The complete source of a variant: `preamble`, the device code every template shares (kernel_templates/common.cuh),
/// then the template, each of its `fragments` (in the order it includes them) in place of its #include. One
/// self-contained text, so that what is compiled is what the compile cache hashes and what a person can save and
/// compile; #line directives make NVRTC name the part (common.cuh, histogram.cu, region_map.cuh) and its own line
/// numbers in errors. A fragment the template does not include is a build defect: std::logic_error.
inline std::string variant_source(std::string preamble, std::string_view template_name, std::string_view template_text,
                                  std::initializer_list<Fragment> fragments = {}) {
  preamble += "#line 1 \"common.cuh\"\n";
  preamble += embedded::common_cuh;
  preamble += fmt::format("#line 1 \"{}\"\n", template_name);
  std::size_t line = 1;  // of the first line of `rest`
  std::string_view rest = template_text;
  for (const Fragment& f : fragments) {
    const std::string directive = fmt::format("#include \"{}\"\n", f.name);
    const std::size_t at = rest.find(directive);
    if (at == std::string_view::npos || (at > 0 && rest[at - 1] != '\n'))
      throw std::logic_error(fmt::format("{} does not include {} on a line of its own", template_name, f.name));
    preamble += rest.substr(0, at);
    line += static_cast<std::size_t>(std::count(rest.begin(), rest.begin() + at, '\n')) + 1;
    preamble += fmt::format("#line 1 \"{}\"\n", f.name);
    preamble += f.text;
    if (!f.text.empty() && f.text.back() != '\n') preamble += '\n';
    preamble += fmt::format("#line {} \"{}\"\n", line, template_name);
    rest.remove_prefix(at + directive.size());
  }
  preamble += rest;
  return preamble;
}

}  // namespace autotune::preamble
