// Choosing among a cache's rows: the tuned size nearest a wanted one, and the closest other GPU model. The cache
// (include/autotune/cache.hpp) only stores and returns rows; which of them is nearest is the lookup's question.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/problem.hpp"

namespace autotune {

/// Is tuned size `a` strictly closer to the wanted size `q` than tuned size `b`, measured as |log(x + 1) - log(q + 1)|?
/// Compared exactly (ratios cross-multiplied in 128 bits), so that true ties are ties.
bool closer_size(std::uint64_t a, std::uint64_t b, std::uint64_t q);

/// The winner of `winners` whose size is closest to `n` (closer_size; a tie goes to the larger size); nullopt when
/// there is none.
std::optional<Winner> nearest_size(std::vector<Winner> winners, std::uint64_t n);

/// The fresh winner of the problem's shape on this model nearest problem.n(): nearest_size over
/// Cache::shape_winners. `code` as for Cache::find_winner.
std::optional<Winner> nearest_winner(const Cache& cache, const std::string& model_key, const Problem& problem,
                                     const CodeIdentity& code = {});

/// Of `winners` (tuned on other GPU models of one architecture), those of the model closest to one of `sm_count`
/// SMs (the nearest SM count, then the larger memory, then the model key: a fixed order), and of those the size
/// nearest `n` (nearest_size); nullopt when there is none.
std::optional<Winner> closest_model(std::vector<Winner> winners, int sm_count, std::uint64_t n);

}  // namespace autotune
