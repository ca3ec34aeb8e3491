// The range-histogram family's entry for the registry (kernel_templates/registry.cpp).
#pragma once

#include <memory>

#include "core/family.hpp"

namespace autotune {

std::unique_ptr<KernelFamily> make_histogram_range_family();

}  // namespace autotune
