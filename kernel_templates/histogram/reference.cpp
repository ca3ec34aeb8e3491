#include "kernel_templates/histogram/reference.hpp"

#include <cmath>

#include "kernel_templates/histogram_samples.hpp"

namespace autotune {

namespace {

using histogram_samples::binned;
using histogram_samples::binned_t;
using histogram_samples::dispatch;
using histogram_samples::kFloatLike;

// The bin of one sample or -1, as CUB's ScaleTransform computes it (cub/device/dispatch/dispatch_histogram.cuh), with
// the level types of bench/cub_baseline.cu (int or long long for integers, the sample type for floats, float for
// the halves: CUB's common type of a half sample and a float level is float).
template <class T>
struct Binner {
  using F = binned_t<T>;  // the arithmetic of float-like samples
  explicit Binner(const HistogramProblem& p) : Binner(p.channel(0)) {}
  explicit Binner(const HistogramChannel& p) : bins(p.bins) {
    if constexpr (kFloatLike<T>) {
      // Bounds rounded to F, then the scale in F arithmetic: bins / (upper - lower), each operation rounded to F.
      lo = static_cast<F>(p.lower);
      hi = static_cast<F>(p.upper);
      const F width = hi - lo;
      scale = static_cast<F>(p.bins) / width;
    } else {
      ilo = static_cast<long long>(p.lower);
      ihi = static_cast<long long>(p.upper);
      width = static_cast<unsigned __int128>(ihi - ilo);
    }
  }
  int operator()(T sample) const {
    if constexpr (kFloatLike<T>) {
      const F s = binned(sample);
      if (std::isnan(s) || s < lo || s >= hi) return -1;
      const F offset = s - lo;
      const F scaled = offset * scale;
      const int b = static_cast<int>(scaled);
      return b < bins ? b : -1;  // rounded up to bins: CUB's shared path counts it nowhere
    } else {
      const auto v = static_cast<long long>(sample);
      if (v < ilo || v >= ihi) return -1;
      return static_cast<int>(static_cast<unsigned __int128>(v - ilo) * static_cast<unsigned>(bins) / width);
    }
  }
  int bins;
  F lo{}, hi{}, scale{};
  long long ilo = 0, ihi = 0;
  unsigned __int128 width = 1;
};

}  // namespace

std::vector<std::uint64_t> reference_histogram(const HistogramProblem& problem, const void* samples, std::uint64_t n) {
  // Channel c < problem.active with its own bins and range.
  return dispatch(problem.type, [&](auto tag) {
    using T = decltype(tag);
    return histogram_samples::count_pixels<T>(problem, samples, n,
                                              [&](int c) { return Binner<T>(problem.channel(c)); });
  });
}

std::vector<int> reference_bins(const HistogramProblem& problem, const void* samples, std::uint64_t n) {
  std::vector<int> out(n);
  dispatch(problem.type, [&](auto tag) {
    using T = decltype(tag);
    const Binner<T> bin(problem);
    for (std::uint64_t i = 0; i < n; ++i) out[i] = bin(static_cast<const T*>(samples)[i]);
  });
  return out;
}

}  // namespace autotune
