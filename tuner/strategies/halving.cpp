// Successive halving: every runnable configuration gets a short measurement (at most three samples); the fastest
// quarter of those (at least twice the finalists) are measured again under the full rule, and only fully measured
// variants reach the final round.
#include "tuner/strategy.hpp"

namespace autotune {

namespace {

class Halving final : public Strategy {
 public:
  std::string_view name() const override { return "halving"; }
  bool measures_in_two_rounds() const override { return true; }
};

}  // namespace

std::unique_ptr<Strategy> make_halving_strategy() { return std::make_unique<Halving>(); }

}  // namespace autotune
