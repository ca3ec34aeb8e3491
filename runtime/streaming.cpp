#include "runtime/streaming.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

#include "core/family.hpp"

namespace autotune {

namespace {

constexpr std::uint64_t kNever = ~std::uint64_t(0);  // no such n

// The band edges in bytes: helps from L2 / 4 to 4 L2 inclusive, hurts from 8 L2.
struct Edges {
  std::uint64_t helps_from, helps_to, hurts_from;
};
Edges edges(std::uint64_t l2) { return {l2 / 4, 4 * l2, 8 * l2}; }

// The first n at which `problem` reads at least `bytes` (bytes() grows with n), kNever when none below 2^56 does.
std::uint64_t first_n_reading(const Problem& problem, std::uint64_t bytes) {
  std::uint64_t lo = 0, hi = std::uint64_t(1) << 56;
  if (problem.with_n(hi).bytes() < bytes) return kNever;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (problem.with_n(mid).bytes() >= bytes) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

std::string mib(std::uint64_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

}  // namespace

bool evict_first_rule_enabled() {
  const char* off = std::getenv("AUTOTUNE_LOADS_AS_MEASURED");
  return off == nullptr || std::string_view(off) != "1";
}

StreamBand stream_band(std::uint64_t input_bytes, std::uint64_t l2_bytes) {
  if (l2_bytes == 0) return StreamBand::neutral;
  const Edges e = edges(l2_bytes);
  if (input_bytes >= e.hurts_from) return StreamBand::hurts;
  if (input_bytes >= e.helps_from && input_bytes <= e.helps_to) return StreamBand::helps;
  return StreamBand::neutral;
}

std::string stream_note(StreamBand band, std::uint64_t l2_bytes) {
  const Edges e = edges(l2_bytes);
  switch (band) {
    case StreamBand::helps:
      return fmt::format("ld=cs: evict-first loads for inputs of {} to {}", mib(e.helps_from), mib(e.helps_to));
    case StreamBand::hurts: return fmt::format("plain loads for inputs from {}", mib(e.hurts_from));
    case StreamBand::neutral: break;
  }
  return {};
}

void stream_by_size(std::vector<SizeRange>& sizes, const Problem& problem, std::uint64_t l2_bytes,
                    const DeviceInfo* device) {
  if (l2_bytes == 0) return;
  const Edges e = edges(l2_bytes);
  // The n where the band changes: the helps band is [cuts[0], cuts[1]), the hurts band [cuts[2], max].
  const std::array<std::uint64_t, 3> cuts{first_n_reading(problem, e.helps_from),
                                          first_n_reading(problem, e.helps_to + 1),
                                          first_n_reading(problem, e.hurts_from)};
  auto band_of_n = [&](std::uint64_t n) {
    return stream_band(problem.with_n(std::min(n, std::uint64_t(1) << 56)).bytes(), l2_bytes);
  };
  const KernelFamily& family = problem.family();
  std::vector<SizeRange> out;
  for (const SizeRange& r : sizes) {
    // The range in pieces of one band each; a size of the problem's own tuning in a band is a piece of its own.
    std::vector<std::uint64_t> starts{r.n_from};
    auto cut = [&](std::uint64_t c) {
      if (c != kNever && c > r.n_from && c <= r.n_to) starts.push_back(c);
    };
    for (std::uint64_t c : cuts) cut(c);
    // Measured on the problem itself: its own tuned sizes, or a policy entry of its own shape; not another shape's
    // evidence (a similar problem, another shape's policy entry: perhaps another type, another byte count at the same
    // n) nor another GPU model's (another L2).
    const bool own = r.source == ConfigSource::nearest_size ||
                     (r.source == ConfigSource::policy && r.tuned_shape_key == problem.shape_key());
    for (std::uint64_t m : r.tuned_n)
      if (own && band_of_n(m) != StreamBand::neutral) {
        cut(m);
        if (m != kNever) cut(m + 1);
      }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    for (std::size_t i = 0; i < starts.size(); ++i) {
      SizeRange piece = r;
      piece.n_from = starts[i];
      piece.n_to = i + 1 < starts.size() ? starts[i + 1] - 1 : r.n_to;
      const StreamBand band = band_of_n(piece.n_from);
      const bool measured_here = own && piece.n_from == piece.n_to &&
                                 std::find(r.tuned_n.begin(), r.tuned_n.end(), piece.n_from) != r.tuned_n.end();
      if (band != StreamBand::neutral && !measured_here) {
        const bool evict_first = band == StreamBand::helps;
        if (auto c = family.with_evict_first(problem, r.config, evict_first, device); c && !(*c == r.config)) {
          piece.config = *c;
          piece.why += "; " + stream_note(band, l2_bytes);
        }
      }
      // Consecutive pieces that still run the same configuration stay one range.
      if (!out.empty() && out.back().n_to + 1 == piece.n_from && out.back().config == piece.config &&
          out.back().why == piece.why && out.back().source == piece.source && out.back().tuned_n == piece.tuned_n)
        out.back().n_to = piece.n_to;
      else
        out.push_back(std::move(piece));
    }
  }
  sizes = std::move(out);
}

}  // namespace autotune
