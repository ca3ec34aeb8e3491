#include <fmt/format.h>

#include <vector>

#include "autotune/argreduce.hpp"
#include "autotune/error.hpp"
#include "core/cuda.hpp"
#include "kernel_templates/argreduce/launcher.hpp"
#include "runtime/resolve.hpp"
#include "runtime/size_table.hpp"

namespace autotune {

struct ArgReduce::Impl {
  ArgReduceProblem problem;
  Resolution resolution;
  // The size table as a call reads it (as Reduce::Impl): each range's first n and its kernel's index; one loaded
  // kernel per distinct configuration. Read-only after construction.
  std::vector<std::uint64_t> starts;
  std::vector<std::size_t> range_kernel;
  std::vector<std::unique_ptr<ArgReduceKernel>> kernels;
  std::vector<Config> configs;

  std::size_t range_of(std::uint64_t n) const { return size_range_index(starts.data(), starts.size(), n); }
  const ArgReduceKernel& kernel_for(std::uint64_t n) const { return *kernels[range_kernel[range_of(n)]]; }
};

ArgReduce::ArgReduce(const ArgReduceProblem& problem, const Options& options) : impl_(std::make_unique<Impl>()) {
  problem.validate();
  impl_->problem = problem;
  Resolved r = resolve(impl_->problem, options.device, options.cache_path, options.require);
  impl_->resolution = std::move(r.resolution);
  for (const SizeRange& range : impl_->resolution.sizes) impl_->starts.push_back(range.n_from);
  impl_->range_kernel = std::move(r.range_kernel);
  with_device(r.ordinal, [&] {
    for (const ResolvedKernel& k : r.kernels) {
      impl_->kernels.push_back(
          std::make_unique<ArgReduceKernel>(impl_->problem, *k.config.as<ArgReduceConfig>(), r.device, k.cubin));
      impl_->configs.emplace_back(impl_->kernels.back()->config());
    }
  });
}

ArgReduce::~ArgReduce() = default;
ArgReduce::ArgReduce(ArgReduce&&) noexcept = default;
ArgReduce& ArgReduce::operator=(ArgReduce&&) noexcept = default;

void ArgReduce::check_type(ValueType t) const {
  if (t != impl_->problem.type)
    throw UsageError(fmt::format("autotune::ArgReduce: {} input passed to {}, whose input is {}", to_string(t),
                                 impl_->problem.key(), to_string(impl_->problem.type)));
}

void ArgReduce::run(const void* d_in, std::uint64_t n, void* d_out, cudaStream_t stream) const {
  const ArgReduceProblem& p = impl_->problem;
  if (d_out == nullptr) throw UsageError("autotune::ArgReduce: the output pointer is null");
  if (d_in == nullptr && n > 0) throw UsageError("autotune::ArgReduce: the input pointer is null");
  if (reinterpret_cast<std::uintptr_t>(d_in) % size_of(p.type) != 0)
    throw UsageError(fmt::format("autotune::ArgReduce: the input pointer is not aligned to {} bytes", size_of(p.type)));
  if (reinterpret_cast<std::uintptr_t>(d_out) % 8 != 0)
    throw UsageError("autotune::ArgReduce: the output pointer is not aligned to 8 bytes");
  impl_->kernel_for(n).run(d_in, n, d_out, stream);
}

void ArgReduce::copy_to_host(void* host, const void* device, std::size_t bytes, cudaStream_t stream) {
  AUTOTUNE_CUDA(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream));
  AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
}

const ArgReduceProblem& ArgReduce::problem() const { return impl_->problem; }
const Resolution& ArgReduce::resolution() const { return impl_->resolution; }
const Config& ArgReduce::config_for(std::uint64_t n) const {
  return impl_->configs[impl_->range_kernel[impl_->range_of(n)]];
}
const SizeRange& ArgReduce::range_for(std::uint64_t n) const { return impl_->resolution.sizes[impl_->range_of(n)]; }

}  // namespace autotune
