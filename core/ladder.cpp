#include "core/ladder.hpp"

#include <fmt/format.h>

#include <cmath>

#include "autotune/error.hpp"

namespace autotune {

std::vector<std::uint64_t> size_ladder(std::uint64_t lo, std::uint64_t hi, std::uint64_t factor) {
  if (lo == 0 || hi == 0) throw UsageError("a ladder's sizes must be positive (0 is not a size to tune)");
  if (lo > hi) throw UsageError(fmt::format("the ladder {}..{} is empty: its low end is above its high end",
                                            format_size(lo), format_size(hi)));
  if (factor < 2) throw UsageError(fmt::format("a ladder's factor must be at least 2, not {}", factor));
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = lo;; s *= factor) {
    out.push_back(s);
    if (out.size() > kMaxLadderSizes) break;
    if (s > hi / factor) break;  // the next step passes hi (or would overflow)
  }
  if (out.back() != hi) out.push_back(hi);
  if (out.size() > kMaxLadderSizes)
    throw UsageError(fmt::format("the ladder {}..{}:x{} has more than {} sizes: use a larger factor or a shorter "
                                 "range", format_size(lo), format_size(hi), factor, kMaxLadderSizes));
  return out;
}

std::vector<std::uint64_t> default_ladder() { return size_ladder(64ull << 10, 256ull << 20, 4); }

std::optional<std::uint64_t> crossover_size(std::uint64_t a, std::uint64_t b) {
  if (a == 0 || b <= a) return std::nullopt;
  const double g = std::sqrt(static_cast<double>(a)) * std::sqrt(static_cast<double>(b));
  std::uint64_t granule = 4096;
  while (granule > 1 && static_cast<double>(granule) * 16.0 > g) granule /= 2;
  const std::uint64_t m = static_cast<std::uint64_t>(std::llround(g / static_cast<double>(granule))) * granule;
  if (m <= a || m >= b) return std::nullopt;
  return m;
}

std::string format_size(std::uint64_t n, bool giga) {
  if (n == 0) return "0";
  if (giga && n % (1ull << 30) == 0) return fmt::format("{}G", n >> 30);
  if (n % (1ull << 20) == 0) return fmt::format("{}M", n >> 20);
  if (n % (1ull << 10) == 0) return fmt::format("{}K", n >> 10);
  return std::to_string(n);
}

}  // namespace autotune
