// The lookup's replacement rule (include/autotune/resolution.hpp): where the family knows that a configuration's kind
// of kernel loses to another from some n on (KernelFamily::replaced_from), a handle's size table runs the other from
// there. Measured in the family that has such a rule (kernel_templates/histogram/family.cpp, replaced_from: windowed
// global histograms of 16-bit floats whose bins are sparse run as copies).
#pragma once

#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// Applies the rule to `sizes`, a handle's size table for `problem` (ranges ascending and contiguous): a range whose
/// configuration the family replaces from n_from on is cut there, the part from n_from running the replacement, its
/// `why` saying so; but not a range measured on the problem itself (its own tuned sizes, or a policy entry of its own
/// shape: SizeRange::tuned_shape_key), which runs what was measured. The lookup applies it under Requirement::any
/// only.
void replace_by_size(std::vector<SizeRange>& sizes, const Problem& problem, const DeviceInfo* device);

}  // namespace autotune
