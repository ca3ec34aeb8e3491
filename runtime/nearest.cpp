#include "runtime/nearest.hpp"

#include <cstdlib>
#include <tuple>
#include <utility>

namespace autotune {

__extension__ typedef unsigned __int128 u128;

bool closer_size(std::uint64_t a, std::uint64_t b, std::uint64_t q) {
  const u128 x = u128(a) + 1, y = u128(b) + 1, z = u128(q) + 1;
  const u128 xhi = x > z ? x : z, xlo = x > z ? z : x;
  const u128 yhi = y > z ? y : z, ylo = y > z ? z : y;
  return xhi * ylo < yhi * xlo;  // xhi/xlo < yhi/ylo; each factor is at most 2^64, so no overflow in practice
}

std::optional<Winner> nearest_size(std::vector<Winner> winners, std::uint64_t n) {
  std::optional<Winner> best;
  for (Winner& w : winners) {
    const std::uint64_t wn = w.problem.n(), best_n = best ? best->problem.n() : 0;
    if (!best || closer_size(wn, best_n, n) || (!closer_size(best_n, wn, n) && wn > best_n)) best = std::move(w);
  }
  return best;
}

std::optional<Winner> nearest_winner(const Cache& cache, const std::string& model_key, const Problem& problem,
                                     const CodeIdentity& code) {
  auto w = nearest_size(cache.shape_winners(model_key, problem, code), problem.n());
  if (w) cache.read_cubin(*w);
  return w;
}

std::optional<Winner> closest_model(std::vector<Winner> winners, int sm_count, std::uint64_t n) {
  auto model_rank = [&](const Winner& w) {
    return std::make_tuple(std::abs(w.sm_count - sm_count), ~w.memory_bytes, w.model_key);
  };
  std::vector<Winner> closest;
  for (Winner& w : winners) {
    if (!closest.empty() && model_rank(w) > model_rank(closest.front())) continue;
    if (!closest.empty() && model_rank(w) < model_rank(closest.front())) closest.clear();
    closest.push_back(std::move(w));
  }
  return nearest_size(std::move(closest), n);
}

}  // namespace autotune
