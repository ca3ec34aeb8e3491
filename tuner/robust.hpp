// The robust winner across input distributions: one configuration for a problem whose input is not
// known in advance. Plain numbers, unit-tested on the CPU.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"

namespace autotune {

struct RobustChoice {
  std::size_t index = 0;             ///< of the chosen configuration
  double worst_slowdown = 1.0;       ///< max over distributions of its time / that distribution's fastest time
  std::vector<double> slowdowns;     ///< per distribution, for the chosen configuration
};

/// `times[d][i]`: the median time of configuration i measured on distribution d (<= 0 or NaN: not measured or not
/// correct there). `keys[i]`: its configuration key. The documented criterion: among the configurations measured
/// correct on every distribution, the one with the least worst-case slowdown max_d times[d][i] / min_j times[d][j];
/// slowdowns within 0.5 % of the least count as equal, and among those the smaller sum of times wins, then the
/// smaller key (so the choice is reproducible). nullopt when no configuration is correct everywhere.
std::optional<RobustChoice> pick_robust(const std::vector<std::vector<double>>& times,
                                        const std::vector<std::string>& keys);

struct RobustRecord {
  Problem problem;               ///< the base problem with distribution kRobustDistribution
  Config config;                 ///< the robust winner
  double worst_slowdown = 1.0;
  double worst_ms = 0.0;         ///< its slowest time over the distributions
  std::vector<std::string> distributions;
  std::vector<double> slowdowns;  ///< per distribution
  std::vector<Config> per_distribution_winners;
  std::int64_t run_id = 0;
};

/// Reads the fresh winners' runs of `base` on each of `distributions` for the device's model (tune them first),
/// picks the robust winner with pick_robust over the configurations measured correct on all of them, and records
/// it as a finished run (strategy "robust") of base with distribution kRobustDistribution: one measurement per such
/// configuration, whose time is its slowest over the distributions, and the winner with a cubin compiled by NVRTC
/// for the device. Throws UsageError for fewer than two distributions or a family without robust winners
/// (KernelFamily::robust_across_distributions), Error when a
/// distribution has no fresh winner or no configuration is correct on all.
RobustRecord record_robust_winner(Cache& cache, const DeviceInfo& device, const Problem& base,
                                  const std::vector<std::string>& distributions);

}  // namespace autotune
