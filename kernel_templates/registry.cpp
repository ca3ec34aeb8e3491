// The one list of the built-in kernel families (core/family.hpp). Adding a family: its folder under
// kernel_templates/, its make_ function declared and called here, one line in CMakeLists.txt (autotune_family).
#include <memory>

#include "core/family.hpp"

namespace autotune {

// Each defined at the end of its folder's family.cpp.
std::unique_ptr<KernelFamily> make_histogram_family();
std::unique_ptr<KernelFamily> make_reduce_family();
std::unique_ptr<KernelFamily> make_argreduce_family();
std::unique_ptr<KernelFamily> make_histogram_range_family();
std::unique_ptr<KernelFamily> make_segreduce_family();

std::vector<std::unique_ptr<KernelFamily>> built_in_families() {
  std::vector<std::unique_ptr<KernelFamily>> out;
  out.push_back(make_histogram_family());
  out.push_back(make_reduce_family());
  out.push_back(make_argreduce_family());
  out.push_back(make_histogram_range_family());
  out.push_back(make_segreduce_family());
  return out;
}

}  // namespace autotune
