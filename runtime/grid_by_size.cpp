#include "runtime/grid_by_size.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "core/config_adapt.hpp"
#include "core/family.hpp"

namespace autotune {

namespace {

// What a range measured at `measured_n` runs at n: the family's answer, else its own configuration.
Config answer(const KernelFamily& family, const Problem& problem, const Config& config, std::uint64_t measured_n,
              const DeviceInfo& device, std::uint64_t n) {
  return family.keeping_grid(problem.with_n(n), config, measured_n, device).value_or(config);
}

}  // namespace

void keep_grid_by_size(std::vector<SizeRange>& sizes, const Problem& problem, const DeviceInfo& device) {
  const KernelFamily& family = problem.family();
  std::vector<SizeRange> out;
  for (const SizeRange& r : sizes) {
    // Timed at the tuned size just below the range too (SizeRange::timed_below): as measured at both ends.
    const std::uint64_t measured =
        r.tuned_n.empty() ? 0 : r.timed_below > 0 ? std::min(r.timed_below, r.tuned_n.front()) : r.tuned_n.front();
    if (measured == 0 || r.n_from >= measured) {
      out.push_back(r);
      continue;
    }
    // Below the measured size the answer runs from fewer loads (small n) to the configuration itself; it changes at
    // a few n only: each piece is found from its top by bisection (the answers of larger n never take less work).
    std::vector<SizeRange> pieces;
    std::uint64_t top = std::min(r.n_to, measured - 1);
    if (top < r.n_to) {
      SizeRange rest = r;
      rest.n_from = top + 1;
      pieces.push_back(rest);
    }
    for (;;) {
      const Config at_top = answer(family, problem, r.config, measured, device, top);
      std::uint64_t lo = r.n_from, hi = top;  // the first n of [n_from, top] whose answer is at_top's
      while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (answer(family, problem, r.config, measured, device, mid) == at_top) hi = mid;
        else lo = mid + 1;
      }
      SizeRange piece = r;
      piece.n_from = lo, piece.n_to = top, piece.config = at_top;
      if (!(at_top == r.config))
        piece.why += fmt::format("; {}: the blocks of n={} kept", fmt::join(config_adapt::changed_items(
                                                                             r.config.key(), at_top.key()), ", "),
                                 measured);
      pieces.push_back(std::move(piece));
      if (lo == r.n_from) break;
      top = lo - 1;
    }
    std::reverse(pieces.begin(), pieces.end());
    for (SizeRange& p : pieces) {
      if (!out.empty() && out.back().n_to + 1 == p.n_from && out.back().config == p.config && out.back().why == p.why &&
          out.back().source == p.source && out.back().tuned_n == p.tuned_n)
        out.back().n_to = p.n_to;  // the range's own configuration on both sides of its measured size
      else
        out.push_back(std::move(p));
    }
  }
  sizes = std::move(out);
}

}  // namespace autotune
