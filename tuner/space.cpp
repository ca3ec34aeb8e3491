#include "tuner/space.hpp"

#include <fmt/format.h>

namespace autotune {

std::vector<HistogramConfig> histogram_space(const HistogramSpaceAxes& axes) {
  std::vector<HistogramConfig> space;
  for (auto priv : axes.privatization)
    for (int block : axes.block)
      for (int ipt : axes.items_per_thread)
        for (bool agg : axes.aggregation)
          for (auto part : axes.partitioning) {
            HistogramConfig c;
            c.privatization = priv;
            c.block = block;
            c.items_per_thread = ipt;
            c.aggregation = agg;
            c.partitioning = part;
            space.push_back(c);
          }
  return space;
}

std::string histogram_constraint_violation(const HistogramProblem& problem, const HistogramConfig& config,
                                           const DeviceInfo& device) {
  if (config.block > device.max_threads_per_block)
    return fmt::format("block of {} threads exceeds the device's {} threads per block", config.block,
                       device.max_threads_per_block);
  if (config.shared_bytes(problem) > static_cast<std::size_t>(device.shared_per_block_optin))
    return fmt::format("{} bins need {} bytes of shared memory; the device allows {} per block", problem.bins,
                       config.shared_bytes(problem), device.shared_per_block_optin);
  return {};
}

}  // namespace autotune
