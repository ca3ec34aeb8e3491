// What every lookup must give a handle: a size table that covers every n once, in order, each range's configuration
// one the family accepts for the problem and, given a device, one that device can run. Checked by the CPU suite
// (tests/cpu/test_size_table.cpp: a grid of untuned problems of every family on an H200) and by the fuzz targets
// that look problems up (tests/fuzz/fuzz_import.cpp: the winners of an accepted document; fuzz_problem_key: every
// problem a key parses to).
#pragma once

#include <cstdint>
#include <string>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"
#include "core/family.hpp"

namespace autotune::test {

/// Why `table` (for `problem`, on `device` when it is given) is not a table a handle can run, or "" when it is:
/// ranges from n = 0 to the largest n, each starting where the last one ended, each configuration free of the
/// family's violations for the problem (and the device's limits).
inline std::string size_table_fault(const SizeLookup& table, const Problem& problem, const DeviceInfo* device) {
  if (table.sizes.empty()) return "an empty size table";
  std::uint64_t next = 0;
  for (std::size_t i = 0; i < table.sizes.size(); ++i) {
    const SizeRange& r = table.sizes[i];
    const bool last = i + 1 == table.sizes.size();
    if (r.n_from != next || r.n_to < r.n_from || (!last && r.n_to == ~std::uint64_t{0}))
      return "range " + std::to_string(i) + " (" + r.describe() + ") is out of order";
    if (const std::string why = problem.family().violation(problem, r.config, device); !why.empty())
      return "range " + std::to_string(i) + " (" + r.describe() + ") runs an invalid configuration: " + why;
    next = r.n_to + 1;
  }
  if (table.sizes.back().n_to != ~std::uint64_t{0}) return "the table ends before the largest n";
  return {};
}

}  // namespace autotune::test
