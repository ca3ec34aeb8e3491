// The one list of the built-in kernel families (core/family.hpp). Adding a family: its folder under
// kernel_templates/, one line here, one line in CMakeLists.txt (autotune_family).
#include "core/family.hpp"
#include "kernel_templates/argreduce/family.hpp"
#include "kernel_templates/histogram/family.hpp"
#include "kernel_templates/histogram_range/family.hpp"
#include "kernel_templates/reduce/family.hpp"
#include "kernel_templates/segreduce/family.hpp"

namespace autotune {

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
