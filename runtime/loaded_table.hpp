// The part every runtime handle shares: its size table as a call reads it, and the construction that fills it
// (resolve the problem, then load one kernel per distinct configuration on the handle's device). A family's
// handle Impl derives from LoadedSizeTable<its kernel> and adds its problem.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"
#include "runtime/resolve.hpp"
#include "runtime/size_table.hpp"

namespace autotune {

/// Filled by load() at construction, read-only afterwards: a call searches `starts` without a lock or an allocation.
template <class Kernel>
struct LoadedSizeTable {
  Resolution resolution;                       ///< resolution.sizes: the size table, with where each range came from
  std::vector<std::uint64_t> starts;           ///< each range's first n, ascending
  std::vector<std::size_t> range_kernel;       ///< each range's index in kernels
  std::vector<std::unique_ptr<Kernel>> kernels;  ///< one loaded kernel per distinct configuration
  std::vector<Config> configs;                 ///< kernels' configurations as loaded, type-erased for config_for

  /// Resolves `problem` (resolve(): cache, similar problem, policy) for `options.device`, `options.cache_path` and
  /// `options.require`, and loads each distinct configuration (of type FamilyConfig) as a Kernel on that device,
  /// without changing the calling thread's current device for good.
  template <class FamilyConfig, class FamilyProblem, class Options>
  void load(const FamilyProblem& problem, const Options& options) {
    Resolved r = resolve(problem, options.device, options.cache_path, options.require);
    resolution = std::move(r.resolution);
    for (const SizeRange& range : resolution.sizes) starts.push_back(range.n_from);
    range_kernel = std::move(r.range_kernel);
    with_device(r.ordinal, [&] {
      for (const ResolvedKernel& k : r.kernels) {
        kernels.push_back(std::make_unique<Kernel>(problem, *k.config.as<FamilyConfig>(), r.device, k.cubin));
        configs.emplace_back(kernels.back()->config());  // what is loaded, not what was asked for
      }
    });
  }

  std::size_t range_of(std::uint64_t n) const { return size_range_index(starts.data(), starts.size(), n); }
  const Kernel& kernel_for(std::uint64_t n) const { return *kernels[range_kernel[range_of(n)]]; }
  const Config& config_for(std::uint64_t n) const { return configs[range_kernel[range_of(n)]]; }
  const SizeRange& range_for(std::uint64_t n) const { return resolution.sizes[range_of(n)]; }
};

}  // namespace autotune
