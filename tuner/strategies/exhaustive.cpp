// Exhaustive: every configuration the device can run, each measured once under the full stopping rule.
#include "tuner/strategy.hpp"

namespace autotune {

namespace {

class Exhaustive final : public Strategy {
 public:
  std::string_view name() const override { return "exhaustive"; }
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive_strategy() { return std::make_unique<Exhaustive>(); }

}  // namespace autotune
