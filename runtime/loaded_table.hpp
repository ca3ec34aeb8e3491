// The part every runtime handle shares: its size table as a call reads it, and the construction that fills it
// (resolve the problem, then load one kernel per distinct configuration on the handle's device). A family's
// handle Impl is a LoadedHandle<its kernel, its problem>: the table and the problem as the handle keeps it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"
#include "core/cuda.hpp"
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

/// Copies `bytes` of a handle's result from device memory to `host` on `stream` and waits for the copy.
inline void copy_result_to_host(void* host, const void* device, std::size_t bytes, cudaStream_t stream) {
  AUTOTUNE_CUDA(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream));
  AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
}

/// A handle's state: its problem and its loaded size table, filled at construction and read-only afterwards.
template <class Kernel, class FamilyProblem>
struct LoadedHandle : LoadedSizeTable<Kernel> {
  using FamilyConfig = std::remove_cvref_t<decltype(std::declval<const Kernel&>().config())>;

  /// Validates `given`, keeps it as `keep` returns it (normalized, or checked further: UsageError), and loads its
  /// size table for `options` (LoadedSizeTable::load).
  template <class Options, class Keep = std::identity>
  LoadedHandle(const FamilyProblem& given, const Options& options, Keep keep = {}) {
    given.validate();
    problem = keep(given);
    this->template load<FamilyConfig>(problem, options);
  }

  FamilyProblem problem;
};

}  // namespace autotune

/// The members every handle class defines alike over its Impl (a LoadedHandle): the destructor and the moves, where
/// Impl is complete, and problem(), resolution() and config_for(n). At namespace scope in the handle's source file.
#define AUTOTUNE_LOADED_HANDLE_MEMBERS(Handle, FamilyProblem)                                \
  Handle::~Handle() = default;                                                             \
  Handle::Handle(Handle&&) noexcept = default;                                             \
  Handle& Handle::operator=(Handle&&) noexcept = default;                                  \
  const FamilyProblem& Handle::problem() const { return impl_->problem; }                  \
  const Resolution& Handle::resolution() const { return impl_->resolution; }               \
  const Config& Handle::config_for(std::uint64_t n) const { return impl_->config_for(n); }

/// Everything a handle defines over its Impl (a LoadedHandle of its kernel and its problem): the Impl, the constructor
/// (validates the problem, keeps it as given or as the optional last argument returns it: LoadedHandle's `keep`, and
/// loads its size table) and AUTOTUNE_LOADED_HANDLE_MEMBERS. At namespace scope in the handle's source file.
#define AUTOTUNE_LOADED_HANDLE(Handle, Kernel, FamilyProblem, ...)                           \
  struct Handle::Impl : LoadedHandle<Kernel, FamilyProblem> {                                 \
    using LoadedHandle::LoadedHandle;                                                         \
  };                                                                                          \
  Handle::Handle(const FamilyProblem& problem, const Options& options)                       \
      : impl_(std::make_unique<Impl>(problem, options __VA_OPT__(, ) __VA_ARGS__)) {}         \
  AUTOTUNE_LOADED_HANDLE_MEMBERS(Handle, FamilyProblem)

/// The members of a handle that writes one result per call (Reduce, ArgReduce), beside AUTOTUNE_LOADED_HANDLE:
/// range_for(n), and copy_to_host, with which its typed calls read the result back (copy_result_to_host).
#define AUTOTUNE_RESULT_HANDLE_MEMBERS(Handle)                                                        \
  const SizeRange& Handle::range_for(std::uint64_t n) const { return impl_->range_for(n); }           \
  void Handle::copy_to_host(void* host, const void* device, std::size_t bytes, cudaStream_t stream) { \
    copy_result_to_host(host, device, bytes, stream);                                                 \
  }
