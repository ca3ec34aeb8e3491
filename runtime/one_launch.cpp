#include "runtime/one_launch.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/family.hpp"

namespace autotune {

bool self_zero_as_atomic_enabled() {
  const char* on = std::getenv("AUTOTUNE_SELF_ZERO_AS_ATOMIC");
  return on != nullptr && std::string_view(on) == "1";
}

void self_zero_as_atomic(std::vector<SizeRange>& sizes, const Problem& problem, const DeviceInfo* device) {
  if (!self_zero_as_atomic_enabled() || device == nullptr || device->cc_major < 9) return;
  const KernelFamily& family = problem.family();
  if (family.name() != "histogram") return;
  constexpr std::string_view kOneLaunch = "merge=self_zero";
  for (SizeRange& r : sizes) {
    std::string key = r.config.key();
    const auto at = key.find(kOneLaunch);
    if (at == std::string::npos || key.find("cluster=") != std::string::npos) continue;
    const bool measured_here = r.source == ConfigSource::nearest_size && r.n_from == r.n_to &&
                               std::find(r.tuned_n.begin(), r.tuned_n.end(), r.n_from) != r.tuned_n.end();
    if (measured_here) continue;
    key.replace(at, kOneLaunch.size(), "merge=atomic");
    const std::optional<Config> atomic = family.parse_config(key);
    if (!atomic || !family.violation(problem, *atomic, device).empty()) continue;
    r.config = *atomic;
    r.why += "; merge=atomic: the output zeroed by a kernel the count overlaps (AUTOTUNE_SELF_ZERO_AS_ATOMIC=1)";
  }
}

}  // namespace autotune
