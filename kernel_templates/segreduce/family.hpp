// The segmented reduction family's entry for the registry (kernel_templates/registry.cpp).
#pragma once

#include <memory>

#include "core/family.hpp"

namespace autotune {

std::unique_ptr<KernelFamily> make_segreduce_family();

}  // namespace autotune
