// Random: a seeded draw of TuneOptions::budget configurations (default: a quarter of the runnable space, at least
// 8), always with the built-in default; TuneOptions::budget_s, once spent, leaves the rest of the draw unmeasured.
#include <algorithm>
#include <random>

#include "tuner/strategy.hpp"

namespace autotune {

namespace {

class Random final : public Strategy {
 public:
  std::string_view name() const override { return "random"; }
  bool stops_at_time_budget() const override { return true; }

  std::vector<std::size_t> select(const std::vector<Config>& configs, const std::vector<bool>& runnable,
                                  const Config& fallback, const TuneOptions& o) const override {
    std::vector<std::size_t> all = Strategy::select(configs, runnable, fallback, o);
    const std::size_t budget =
        o.budget > 0 ? static_cast<std::size_t>(o.budget) : std::max<std::size_t>(8, all.size() / 4);
    if (budget >= all.size()) return all;
    // A seeded shuffle: the same seed draws the same subset, so a random run can be resumed and repeated.
    std::vector<std::size_t> shuffled = all;
    std::mt19937_64 rng(o.seed);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    shuffled.resize(budget);
    const auto fb = std::find_if(all.begin(), all.end(), [&](std::size_t i) { return configs[i] == fallback; });
    if (fb != all.end() && std::find(shuffled.begin(), shuffled.end(), *fb) == shuffled.end()) shuffled.back() = *fb;
    std::sort(shuffled.begin(), shuffled.end());
    return shuffled;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_random_strategy() { return std::make_unique<Random>(); }

}  // namespace autotune
