// A test-only kernel family: fill n 32-bit words with a value. It exists to prove that a family plugs in through the
// registry alone (core/family.hpp): nothing outside this folder names it, and the CLI, the cache, `best`, `show`
// and the tuner work with it once register_fill_family() has run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace autotune::test {

/// "fill/u32/value=7/n=1024/dist=uniform": writes `value` to n words.
struct FillProblem {
  static constexpr std::string_view kFamily = "fill";
  std::uint32_t value = 0;
  std::uint64_t n = 0;
  std::string distribution = "uniform";

  bool operator==(const FillProblem&) const = default;
  std::string key() const;
  std::string shape_key() const;
  std::uint64_t bytes() const { return n * 4; }  // bytes written: a fill reads nothing
  void validate() const;
};

/// "block=256,items=4": threads per block and words per thread per iteration of a grid-stride loop.
struct FillConfig {
  static constexpr std::string_view kFamily = "fill";
  int block = 256;
  int items = 1;

  bool operator==(const FillConfig&) const = default;
  std::string key() const;
};

/// Registers the family once per process (later calls do nothing).
void register_fill_family();

}  // namespace autotune::test
