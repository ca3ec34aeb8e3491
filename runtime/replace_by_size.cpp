#include "runtime/replace_by_size.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/family.hpp"

namespace autotune {

void replace_by_size(std::vector<SizeRange>& sizes, const Problem& problem, const DeviceInfo* device) {
  const KernelFamily& family = problem.family();
  std::vector<SizeRange> out;
  for (const SizeRange& r : sizes) {
    const bool own = r.source == ConfigSource::nearest_size ||
                     (r.source == ConfigSource::policy && r.tuned_shape_key == problem.shape_key());
    const auto replacement =
        own ? std::nullopt : family.replaced_from(problem, r.config, device);
    if (!replacement || replacement->n_from > r.n_to) {
      out.push_back(r);
      continue;
    }
    if (replacement->n_from > r.n_from) {
      SizeRange below = r;
      below.n_to = replacement->n_from - 1;
      out.push_back(std::move(below));
    }
    SizeRange from = r;
    from.n_from = std::max(r.n_from, replacement->n_from);
    from.config = replacement->config;
    from.why += "; " + replacement->why;
    out.push_back(std::move(from));
  }
  sizes = std::move(out);
}

}  // namespace autotune
