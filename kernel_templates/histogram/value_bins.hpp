// Value counting (Binning::values) on the host: which u8 problems gain from counting values at all. Internal to the
// histogram family; each block maps the byte values to their bins itself (histogram.cu's value_counter).
#pragma once

#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"

namespace autotune::histogram_detail {

/// Whether every active channel's bins are the byte values themselves (u8, 256 bins over [0, 256)): then value
/// counting is the direct kernel plus a useless map at the end of each block. Never for i8: its whole range
/// [-128, 128) in 256 bins maps byte v to bin v ^ 0x80, which the direct kernel pays per sample (a sign flip of each
/// word loaded: histogram.cu's to_keys) and value counting pays once per block, in its map.
bool values_are_bins(const HistogramProblem& problem);

/// Whether the direct kernel's bin of some active channel's samples needs an integer division (u8): a range whose
/// width and bins are not a power of two apart (37 bins over [10, 250)). (Where they are, the template's constants
/// fold the division into a shift: u8 with 32 bins over [0, 256) is bin = s >> 3.)
bool direct_bin_divides(const HistogramProblem& problem);

/// Whether every active channel's range holds every value of the 8-bit type ([0, 256) for u8, [-128, 128) for i8,
/// or wider): then no sample of the direct kernel is tested against the range. u8 with 100 bins over [0, 200) is not:
/// a shift, but a fifth of uniform bytes branch off it.
bool covers_all_values(const HistogramProblem& problem);

}  // namespace autotune::histogram_detail
