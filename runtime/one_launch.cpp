#include "runtime/one_launch.hpp"

#include <cstdlib>
#include <string_view>

#include "core/family.hpp"

namespace autotune {

bool self_zero_rule_enabled() {
  const char* off = std::getenv("AUTOTUNE_SELF_ZERO_AS_MEASURED");
  return off == nullptr || std::string_view(off) != "1";
}

void self_zero_as_atomic(std::vector<SizeRange>& sizes, const Problem& problem, const DeviceInfo* device) {
  if (!self_zero_rule_enabled() || device == nullptr || device->cc_major < 9) return;
  const KernelFamily& family = problem.family();
  if (family.output_bytes(problem) < kOneLaunchAsAtomicFromBytes) return;
  for (SizeRange& r : sizes) {
    if (r.source == ConfigSource::exact || r.source == ConfigSource::nearest_size) continue;
    const std::optional<Config> zeroed = family.with_overlapped_zeroing(problem, r.config, *device);
    if (!zeroed) continue;
    r.config = *zeroed;
    r.why += "; merge=atomic: an output of 12 KiB or more zeroed by a kernel the count overlaps (sm_90+)";
  }
}

}  // namespace autotune
