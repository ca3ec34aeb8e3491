// A problem's parameters by name, read from its canonical key by one rule for every family: what the cache stores
// in its problem_parameters table (cache/schema.sql) and what export documents carry beside each key.
//
// A key is "FAMILY/POSITIONAL.../NAME=VALUE/...": the parts after the family's name that have no '=' come first and
// are named by the family (KernelFamily::key_part_names(): "reduce/sum/f32/..." has op=sum, type=f32); each
// "NAME=VALUE" part is a parameter of that name. n and dist are not parameters: the problems table has them as
// columns. Internal to the library; thread-safe (pure functions).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace autotune {

class Problem;

/// One parameter of a problem key.
struct KeyParameter {
  std::string name;   ///< "bins", or the family's name for a positional part ("type")
  std::string value;  ///< the key's text, unchanged: "256", "[0,256)", "f32"

  friend bool operator==(const KeyParameter&, const KeyParameter&) = default;
};

/// The parameters of `key`, in key order, its positional parts named by `part_names`. Throws UsageError saying why
/// for a key that has no family part, an empty part, more or fewer positional parts than names, a positional part
/// after a named one, a name that is not lower-case letters, digits and '_' (starting with a letter), or a name
/// that repeats (a part's name, or one of `part_names`).
std::vector<KeyParameter> key_parameters(std::string_view key, const std::vector<std::string>& part_names);

/// The parameters of a problem's key, positional parts named by its family.
std::vector<KeyParameter> key_parameters(const Problem& problem);

}  // namespace autotune
