// A held-out grid for shape_bench (--held-out N): problems drawn at random from a seed, none chosen by hand, so that
// the lookup is judged on shapes nobody looked at before measuring them (issue #26: "untuned problems will be measured
// on a grid you do not see"). The draws, per problem:
//   - a histogram (3 in 5) or a reduction;
//   - histogram: a sample type (u8 and f32 three times as likely as each other type); bins log-uniform (2..256 for
//     8-bit samples, 16..65536 for 16-bit, 16..1M for the rest); a range that is the type's whole range half of the
//     time for 8- and 16-bit samples, else an odd interval around the bins; a distribution among uniform, narrow,
//     runs and image;
//   - reduction: sum, min or max (4 in 5) or absmax, sumsq, sumabs; an element type among the ten;
//   - n log-uniform from 64K (8K one time in 7) to 256M elements, at least 16 samples per bin, at most 1 GiB of
//     input, not a power of two (a multiple of 1000).
// Each problem is validated; one the family refuses is drawn again. Same seed, same grid: the draws are SplitMix64's
// (core/splitmix.hpp) and libm's exp and log of them, so a C library whose exp or log rounds otherwise could move a
// size or a bin count by one at a boundary; `shape_bench --held-out N --list` prints the grid a machine draws.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "core/splitmix.hpp"

namespace autotune::bench {

namespace held_out_detail {

inline std::uint64_t log_uniform(SplitMix64& r, double lo, double hi) {
  return static_cast<std::uint64_t>(std::exp(std::log(lo) + r.unit() * (std::log(hi) - std::log(lo))));
}

template <class T>
const T& pick(SplitMix64& r, const std::vector<T>& from) {
  return from[r.next() % from.size()];
}

// n elements of `bytes` each, log-uniform from `least` (at least 8K) to 256M, at most 1 GiB, rounded to a multiple
// of 1000 (never a power of two).
inline std::uint64_t draw_n(SplitMix64& r, std::size_t bytes, double least) {
  const double most = std::min(256.0 * (1 << 20), static_cast<double>(1ull << 30) / static_cast<double>(bytes));
  return std::max<std::uint64_t>(1000, log_uniform(r, std::clamp(least, 8192.0, most / 2), most) / 1000 * 1000);
}

// The least n of a draw: 64K (the sizes) 6 times in 7, else 8K (launch-bound calls).
inline double least_n(SplitMix64& r) { return r.next() % 7 == 0 ? 8192.0 : 65536.0; }

inline HistogramProblem draw_histogram(SplitMix64& r) {
  using enum SampleType;
  const SampleType type = pick(r, std::vector<SampleType>{u8, u8, u8, f32, f32, f32, u16, i8, i16, i32, u32, f64,
                                                          f16, bf16});
  const std::size_t size = size_of(type);
  const bool small_type = size == 1 || type == u16 || type == i16;
  const int bins = static_cast<int>(size == 1 ? log_uniform(r, 2, 257)
                                  : small_type ? log_uniform(r, 16, 65537)
                                               : log_uniform(r, 16, (1 << 20) + 1));
  HistogramProblem p = HistogramProblem::with_defaults(type, bins);
  if (small_type && r.next() % 2 == 0) {
    p = HistogramProblem::with_defaults(type, bins, type == i8 ? -128.0 : type == i16 ? -32768.0 : 0.0);
  } else if (small_type || type == i32 || type == u32) {
    // An integer interval of at least `bins` values inside the type's: [lo, lo + bins * k + extra).
    const double whole = size == 1 ? 256.0 : 65536.0, low = type == i8 ? -128.0 : type == i16 ? -32768.0 : 0.0;
    const double width = small_type ? std::floor(bins + r.unit() * (whole - bins)) : std::floor(bins * (1 + 3 * r.unit()));
    const double lower = small_type ? low + std::floor(r.unit() * (whole - width)) : std::floor(r.unit() * 1000);
    p = HistogramProblem::with_defaults(type, bins, lower);
    p.upper = lower + std::max<double>(width, bins);
  } else {
    const double lower = pick(r, std::vector<double>{0.0, 0.0, -1.0, -4.0, 0.02, -100.0});
    p = HistogramProblem::with_defaults(type, bins, lower);
    p.upper = lower + pick(r, std::vector<double>{1.0, 2.0, 0.75, 8.0, 300.0});
  }
  // At least 16 samples per bin: a histogram of more bins than samples is nobody's workload.
  p.n = draw_n(r, size, std::max(least_n(r), 16.0 * bins));
  p.distribution = pick(r, std::vector<std::string>{"uniform", "narrow", "runs", "image"});
  return p;
}

inline ReduceProblem draw_reduction(SplitMix64& r) {
  using enum ReduceOp;
  using enum ValueType;
  ReduceProblem p;
  p.op = r.next() % 5 != 0 ? pick(r, std::vector<ReduceOp>{sum, min, max}) : pick(r, std::vector<ReduceOp>{absmax, sumsq, sumabs});
  p.type = pick(r, std::vector<ValueType>{i32, u32, i64, u64, f32, f64, f16, bf16, i8, i16});
  p.n = draw_n(r, size_of(p.type), least_n(r));
  return p;
}

}  // namespace held_out_detail

/// `count` problems drawn from `seed` (the comment at the top): histograms and reductions, each valid.
inline std::vector<Problem> held_out_problems(std::size_t count, std::uint64_t seed) {
  SplitMix64 r{seed};
  std::vector<Problem> out;
  for (int refused = 0; out.size() < count;) {
    try {
      if (r.next() % 5 < 3) {
        const HistogramProblem p = held_out_detail::draw_histogram(r);
        p.validate();
        out.push_back(p);
      } else {
        const ReduceProblem p = held_out_detail::draw_reduction(r);
        p.validate();
        out.push_back(p);
      }
    } catch (const UsageError&) {
      if (++refused > 1000) throw Error("held_out_problems: the families refuse most draws; the generator is wrong");
    }
  }
  return out;
}

}  // namespace autotune::bench
