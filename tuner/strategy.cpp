#include "tuner/strategy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "autotune/error.hpp"

namespace autotune {

namespace {

struct NamedStrategy {
  const char* name;
  std::unique_ptr<Strategy> (*make)();
};

// The strategies TuneOptions::strategy names, in the order tune_strategies() lists them. The crossover is not one
// of them: a run of TuneOptions::candidates gets it.
constexpr std::array<NamedStrategy, 3> kStrategies{{{"exhaustive", make_exhaustive_strategy},
                                                     {"random", make_random_strategy},
                                                     {"halving", make_halving_strategy}}};

}  // namespace

std::vector<std::size_t> Strategy::select(const std::vector<Config>& configs, const std::vector<bool>& runnable,
                                          const Config& /*fallback*/, const TuneOptions& /*options*/) const {
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < configs.size(); ++i)
    if (runnable[i]) all.push_back(i);
  return all;
}

const std::vector<std::string>& tune_strategies() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const NamedStrategy& s : kStrategies) v.emplace_back(s.name);
    return v;
  }();
  return names;
}

std::unique_ptr<Strategy> make_strategy(const TuneOptions& options) {
  if (!options.candidates.empty()) return make_crossover_strategy();
  for (const NamedStrategy& s : kStrategies)
    if (options.strategy == s.name) return s.make();
  throw UsageError(fmt::format("unknown strategy '{}' (known: {})", options.strategy, fmt::join(tune_strategies(), ", ")));
}

}  // namespace autotune
