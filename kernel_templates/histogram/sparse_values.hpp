// Sparse bins on the host: which histogram problems can hit only few of their bins, because a 16-bit float sample
// type holds few values in their range. Internal to the histogram family (its adapt_config's copies rule).
#pragma once

#include "autotune/histogram_problem.hpp"

namespace autotune::histogram_detail {

/// The finite values of sample type `type` in (lower, upper] (bf16 and f16; to within one value at either end, and
/// 0 counted once): bf16 holds 16 over [-100, -92) and 2 over [-100, -99.25), f16 128 over [-100, -92). 0 for the
/// other types (their values are not counted: they have as many as the bins, or more, in every range the key allows).
double float16_values(SampleType type, double lower, double upper);

/// Whether every active channel of `problem` has more than 8 bins per value its 16-bit float type holds in the
/// channel's range (float16_values): most of its bins are never hit, and the samples fall on few of them.
bool sparse_bins(const HistogramProblem& problem);

}  // namespace autotune::histogram_detail
