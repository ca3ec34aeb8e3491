#include "tuner/reference.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "autotune/error.hpp"

namespace autotune {

namespace {

// splitmix64: small, fast and reproducible on every platform (std distributions are not).
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

template <class T>
void fill(const HistogramProblem& p, std::uint64_t n, std::uint64_t seed, T* out) {
  SplitMix64 rng{seed};
  auto draw = [&]() -> T {
    if constexpr (std::is_floating_point_v<T>) {
      T v = static_cast<T>(p.lower + rng.unit() * (p.upper - p.lower));
      return v < static_cast<T>(p.upper) ? v : static_cast<T>(p.lower);
    } else {
      const auto lo = static_cast<long long>(p.lower);
      const auto width = static_cast<std::uint64_t>(static_cast<long long>(p.upper) - lo);
      return static_cast<T>(lo + static_cast<long long>(rng.next() % width));
    }
  };
  if (p.distribution == "uniform") {
    for (std::uint64_t i = 0; i < n; ++i) out[i] = draw();
  } else if (p.distribution == "constant") {
    const T v = draw();
    for (std::uint64_t i = 0; i < n; ++i) out[i] = v;
  } else if (p.distribution == "runs") {
    constexpr std::uint64_t kRun = 1000;
    T v{};
    for (std::uint64_t i = 0; i < n; ++i) {
      if (i % kRun == 0) v = draw();
      out[i] = v;
    }
  } else {
    throw UsageError(fmt::format("unknown distribution '{}'", p.distribution));
  }
}

template <class T>
void count(const HistogramProblem& p, const T* s, std::uint64_t n, std::vector<std::uint32_t>& h) {
  if constexpr (std::is_floating_point_v<T>) {
    const float lo = static_cast<float>(p.lower), hi = static_cast<float>(p.upper);
    const float scale = static_cast<float>(p.bins / (p.upper - p.lower));
    for (std::uint64_t i = 0; i < n; ++i) {
      const float f = s[i];
      if (std::isnan(f) || f < lo || f >= hi) continue;
      int b = static_cast<int>((f - lo) * scale);
      if (b >= p.bins) b = p.bins - 1;
      ++h[static_cast<std::size_t>(b)];
    }
  } else {
    const auto lo = static_cast<long long>(p.lower), hi = static_cast<long long>(p.upper);
    const auto width = static_cast<unsigned __int128>(hi - lo);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto v = static_cast<long long>(s[i]);
      if (v < lo || v >= hi) continue;
      const auto b = static_cast<unsigned __int128>(v - lo) * static_cast<unsigned>(p.bins) / width;
      ++h[static_cast<std::size_t>(b)];
    }
  }
}

template <class F>
decltype(auto) dispatch(SampleType t, F&& f) {
  switch (t) {
    case SampleType::u8: return f(std::uint8_t{});
    case SampleType::u16: return f(std::uint16_t{});
    case SampleType::i32: return f(std::int32_t{});
    case SampleType::u32: return f(std::uint32_t{});
    case SampleType::f32: return f(float{});
  }
  throw UsageError("unknown sample type");
}

}  // namespace

std::vector<unsigned char> generate_samples(const HistogramProblem& problem, std::uint64_t n, std::uint64_t seed) {
  std::vector<unsigned char> bytes(n * size_of(problem.type));
  dispatch(problem.type, [&](auto tag) {
    using T = decltype(tag);
    fill<T>(problem, n, seed, reinterpret_cast<T*>(bytes.data()));
  });
  return bytes;
}

std::vector<std::uint32_t> reference_histogram(const HistogramProblem& problem, const void* samples, std::uint64_t n) {
  std::vector<std::uint32_t> h(static_cast<std::size_t>(problem.bins), 0);
  dispatch(problem.type, [&](auto tag) {
    using T = decltype(tag);
    count<T>(problem, static_cast<const T*>(samples), n, h);
  });
  return h;
}

std::string compare_histograms(const std::vector<std::uint32_t>& expected, const std::vector<std::uint32_t>& got) {
  if (expected.size() != got.size())
    return fmt::format("expected {} bins, got {}", expected.size(), got.size());
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (expected[i] != got[i] && wrong++ == 0) first = i;
  if (wrong == 0) return {};
  return fmt::format("{} of {} bins differ; first: bin {} expected {} got {}", wrong, expected.size(), first,
                     expected[first], got[first]);
}

}  // namespace autotune
