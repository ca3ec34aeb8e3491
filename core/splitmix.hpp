// The one random number generator of the families' input generators (each kernel_templates/NAME/reference.cpp):
// splitmix64, small, fast and reproducible on every platform (std distributions are not), so a seed names the same
// input everywhere. Internal to the library.
#pragma once

#include <cstdint>

#include "core/chunks.hpp"

namespace autotune {

struct SplitMix64 {
  /// What next() adds to the state: after k calls the state is the seed + k * kGamma.
  static constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ULL;
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += kGamma);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

/// out[i] = draw(rng, i) for i in [0, n), rng being SplitMix64{seed} after i draws: the values a loop over i sharing
/// one generator writes, for a `draw` that takes exactly one next() (or unit()) per element. Written in chunks on
/// `threads` threads (core/chunks.hpp; 0: one per core), each chunk from its own starting state, so that a tuner's
/// input of 2 GiB is made on every core with the same bytes. `draw` must be safe to call from several threads.
template <class T, class Draw>
void fill_draws(T* out, std::uint64_t n, std::uint64_t seed, Draw draw, unsigned threads = 0) {
  chunks::for_each(
      n,
      [&](std::uint64_t begin, std::uint64_t end) {
        SplitMix64 rng{seed + begin * SplitMix64::kGamma};
        for (std::uint64_t i = begin; i < end; ++i) out[i] = draw(rng, i);
      },
      threads);
}

}  // namespace autotune
