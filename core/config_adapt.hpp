// Making a configuration runnable for a problem it was not tuned for (KernelFamily::adapt_config), step by step: a
// family's adaptation changes one field after another in its own order, each change noted as its key item ("R=8"),
// until the family's validity function finds nothing against the configuration. Internal to the library.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/family.hpp"
#include "core/option_text.hpp"

namespace autotune::config_adapt {

/// The items of the configuration key `to` that the key `from` lacks ("name=value", in to's order): what an
/// adaptation from `from` to `to` changed, as far as keys spell it.
inline std::vector<std::string> changed_items(const std::string& from, const std::string& to) {
  const std::vector<std::string> was = option_text::split_list(from);
  std::vector<std::string> out;
  for (std::string& item : option_text::split_list(to))
    if (std::find(was.begin(), was.end(), item) == was.end()) out.push_back(std::move(item));
  return out;
}

/// A configuration of type C being made runnable: the configuration so far, what was changed ("R=8"), and `runs`,
/// the family's validity check for the wanted problem and device.
template <class C>
struct Steps {
  C config;
  std::vector<std::string> changes;
  std::function<bool(const C&)> runs_check;

  bool runs() const { return runs_check(config); }
  /// Sets `member` to `value`, notes `change`, and says whether the configuration runs now.
  template <class T>
  bool set(T C::*member, T value, std::string change) {
    config.*member = value;
    changes.push_back(std::move(change));
    return runs();
  }
  /// The configuration as it is, with its changes joined by ", ".
  KernelFamily::Adapted done() const { return {Config(config), fmt::format("{}", fmt::join(changes, ", "))}; }
};

}  // namespace autotune::config_adapt
