// Tuning strategies as objects: what a run measures first, and how. TuneRun (tuner.cpp) asks its strategy and never
// tests a strategy's name. Each strategy lives in its own file under tuner/strategies/; strategy.cpp is the one list
// of them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/problem.hpp"
#include "autotune/tuner.hpp"

namespace autotune {

class Strategy {
 public:
  virtual ~Strategy() = default;

  /// The name TuneOptions::strategy gives (kCrossoverStrategy for a run of TuneOptions::candidates); recorded with
  /// the run, so that a resumed run continues only a run of the same strategy.
  virtual std::string_view name() const = 0;

  /// What the run measures, as indices into `configs` in space order: by default every configuration the device can
  /// run (`runnable[i]`). `fallback` is the family's built-in default, which a subset must keep (the speedup figure
  /// is against it).
  virtual std::vector<std::size_t> select(const std::vector<Config>& configs, const std::vector<bool>& runnable,
                                          const Config& fallback, const TuneOptions& options) const;

  /// True when a variant's first measurement is a short one and only the fastest of those are measured again under
  /// the full stopping rule (successive halving); the finalists are then chosen among the fully measured ones.
  virtual bool measures_in_two_rounds() const { return false; }

  /// True when TuneOptions::budget_s, once spent, leaves the rest of the selection unmeasured (the fallback is still
  /// measured).
  virtual bool stops_at_time_budget() const { return false; }
};

/// The strategy of a run of `options`: the crossover for TuneOptions::candidates, else the one named by
/// TuneOptions::strategy. Throws UsageError naming the known strategies for any other name.
std::unique_ptr<Strategy> make_strategy(const TuneOptions& options);

// One factory per strategy (tuner/strategies/NAME.cpp).
std::unique_ptr<Strategy> make_exhaustive_strategy();
std::unique_ptr<Strategy> make_random_strategy();
std::unique_ptr<Strategy> make_halving_strategy();
std::unique_ptr<Strategy> make_crossover_strategy();

}  // namespace autotune
