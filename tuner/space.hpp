// The histogram search space: every configuration the tuner considers, and the device limits that prune it.
#pragma once

#include <string>
#include <vector>

#include "autotune/config.hpp"
#include "autotune/device.hpp"

namespace autotune {

/// The values each parameter takes. Exposed so tests and docs state the space without repeating it.
struct HistogramSpaceAxes {
  std::vector<Privatization> privatization{Privatization::global, Privatization::shared};
  std::vector<int> block{128, 256, 512, 1024};
  std::vector<int> items_per_thread{1, 4, 16};
  std::vector<bool> aggregation{false, true};
  std::vector<Partitioning> partitioning{Partitioning::interleaved, Partitioning::contiguous};
};

/// Every configuration of the axes, in a fixed order (the product of the axes, last axis fastest).
std::vector<HistogramConfig> histogram_space(const HistogramSpaceAxes& axes = {});

/// Why `config` cannot run for `problem` on `device`, or an empty string when it can.
std::string histogram_constraint_violation(const HistogramProblem& problem, const HistogramConfig& config,
                                           const DeviceInfo& device);

}  // namespace autotune
