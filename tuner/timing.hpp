// Statistics of timing samples: plain numbers, so they are unit-tested without a GPU.
#pragma once

#include <vector>

namespace autotune {

struct SampleStats {
  int count = 0;
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  double spread = 0.0;  ///< (max - min) / median: the relative range of the samples
};

/// Median (mean of the middle two for an even count), min, max and relative spread. Empty input gives all zeros.
SampleStats summarize(std::vector<double> samples);

}  // namespace autotune
