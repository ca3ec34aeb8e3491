// Size ladders: the sizes one `autotune tune` command tunes a problem shape at (issue #14), and where between two
// tuned sizes the crossover of their winners is measured. Pure functions, family-agnostic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace autotune {

/// At most this many sizes in one ladder or list (a command line that asks for more is refused).
inline constexpr std::size_t kMaxLadderSizes = 32;

/// lo, lo*factor, lo*factor^2, ... up to hi, and hi itself when the steps do not land on it exactly. UsageError for
/// lo == 0, lo > hi, factor < 2 or more than kMaxLadderSizes sizes.
std::vector<std::uint64_t> size_ladder(std::uint64_t lo, std::uint64_t hi, std::uint64_t factor = 4);

/// The ladder `autotune tune` uses for a problem named without --n, and for the headline problems of the default
/// set: 64K..256M by powers of 4 (64K, 256K, 1M, 4M, 16M, 64M, 256M: 7 sizes). From where a call is a few
/// microseconds of launch overhead to well past any L2 (256M samples of 1 byte are 4x an H200's 60 MiB L2 ... and
/// 1 GiB of f32); sizes that do not fit a GPU's memory are skipped when tuned.
std::vector<std::uint64_t> default_ladder();

/// The sizes of the `standard` preset's problems (tuner/preset.hpp): 64K, 1M, 16M and 256M elements.
inline constexpr std::uint64_t kStandardSizes[] = {std::uint64_t{1} << 16, std::uint64_t{1} << 20,
                                                   std::uint64_t{1} << 24, std::uint64_t{1} << 28};

/// Where the crossover between adjacent tuned sizes a < b is measured: their geometric mean sqrt(a*b), rounded to
/// the nearest multiple of 4096 (of the largest power of two at most m/16 when m is below 64K, so that the rounding
/// moves m by at most ~3 %); nullopt when the rounded size is not strictly between a and b. For a ladder by powers
/// of 4 it is exactly the power of 2 between them (64K, 256K -> 128K).
std::optional<std::uint64_t> crossover_size(std::uint64_t a, std::uint64_t b);

/// "64K", "1M", "1536", "3G": the shortest spelling parse_size reads back to n (K, M, G only when exact). `giga`
/// false: M is the largest suffix (segment lengths' spelling in segreduce keys: "fixed:1024M").
std::string format_size(std::uint64_t n, bool giga = true);

}  // namespace autotune
