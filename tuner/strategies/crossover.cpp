// Crossover: the candidates a size ladder names (TuneOptions::candidates, the winners of the neighbouring tuned
// sizes), each measured under the full stopping rule at a size between them.
#include "tuner/strategy.hpp"

namespace autotune {

namespace {

class Crossover final : public Strategy {
 public:
  std::string_view name() const override { return kCrossoverStrategy; }
};

}  // namespace

std::unique_ptr<Strategy> make_crossover_strategy() { return std::make_unique<Crossover>(); }

}  // namespace autotune
