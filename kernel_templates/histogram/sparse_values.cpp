#include "kernel_templates/histogram/sparse_values.hpp"

#include <algorithm>
#include <cmath>

namespace autotune::histogram_detail {
namespace {

// A binary float format: its exponent and mantissa bits (bf16: 8 and 7; f16: 5 and 10).
struct Format {
  int exponent_bits;
  int mantissa_bits;
};

// The positive finite values of format `f` that are not above y >= 0: the bit pattern of the largest one, as the
// patterns of non-negative values count up in value order (0 is pattern 0, the subnormals follow, then each binade).
double at_most(Format f, double y) {
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const double per_binade = std::ldexp(1.0, f.mantissa_bits);
  const double largest = ((std::ldexp(1.0, f.exponent_bits) - 1.0) * per_binade) - 1.0;  // the largest finite's
  if (!(y >= 0)) return 0.0;
  if (y < std::ldexp(1.0, 1 - bias)) return std::floor(y / std::ldexp(1.0, 1 - bias - f.mantissa_bits));
  int e = 0;
  const double m = std::frexp(y, &e);  // y = m * 2^e, m in [0.5, 1)
  if (e - 1 > bias) return largest;
  return std::min(largest, (e - 1 + bias) * per_binade + std::floor((2.0 * m - 1.0) * per_binade));
}

// The signed count of values of format `f` from 0 to x: at_most(x) above 0, -at_most(-x) below.
double signed_count(Format f, double x) { return x >= 0 ? at_most(f, x) : -at_most(f, -x); }

}  // namespace

double float16_values(SampleType type, double lower, double upper) {
  if (type != SampleType::bf16 && type != SampleType::f16) return 0.0;
  const Format f = type == SampleType::bf16 ? Format{8, 7} : Format{5, 10};
  return std::max(0.0, signed_count(f, upper) - signed_count(f, lower));
}

bool sparse_bins(const HistogramProblem& problem) {
  if (problem.type != SampleType::bf16 && problem.type != SampleType::f16) return false;
  for (int c = 0; c < problem.active; ++c) {
    const HistogramChannel ch = problem.channel(c);
    if (!(static_cast<double>(ch.bins) > 8.0 * float16_values(problem.type, ch.lower, ch.upper))) return false;
  }
  return true;
}

}  // namespace autotune::histogram_detail
