// The one random number generator of the families' input generators (each kernel_templates/NAME/reference.cpp):
// splitmix64, small, fast and reproducible on every platform (std distributions are not), so a seed names the same
// input everywhere. Internal to the library.
#pragma once

#include <cstdint>

namespace autotune {

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

}  // namespace autotune
