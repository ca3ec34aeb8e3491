#include "autotune/histogram.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "runtime/cuda.hpp"
#include "runtime/histogram_kernel.hpp"
#include "runtime/jit.hpp"

namespace autotune {

std::string_view to_string(ConfigSource s) {
  switch (s) {
    case ConfigSource::exact: return "exact";
    case ConfigSource::nearest_size: return "nearest_size";
    case ConfigSource::fallback: return "fallback";
  }
  return "?";
}

struct Histogram::Impl {
  HistogramProblem problem;
  Resolution resolution;
  std::optional<HistogramKernel> kernel;
};

namespace {

// Looks the problem up in the cache, best match first. A missing cache file is not an error: the lookup misses.
// Runs measured with another template, NVRTC or driver are marked stale first, so they are never served.
std::optional<Winner> lookup(const std::string& path, const DeviceInfo& device, const HistogramProblem& problem,
                             ConfigSource& source, std::string& note) {
  if (path != ":memory:" && !std::filesystem::exists(path)) return std::nullopt;
  Cache cache(path);
  const std::string model_key = device.model_key();
  try {
    if (const std::size_t marked = cache.mark_stale(current_identity(device.driver_version), model_key))
      note = fmt::format(" ({} run{} measured with other code marked stale)", marked, marked == 1 ? "" : "s");
  } catch (const CacheError& e) {
    // A read-only cache cannot be marked; serve nothing from it rather than a result that may be stale.
    note = fmt::format(" (cache not used: {})", e.what());
    return std::nullopt;
  }
  if (auto w = cache.find_winner(model_key, problem)) {
    source = ConfigSource::exact;
    return w;
  }
  if (auto w = cache.find_nearest_winner(model_key, problem)) {
    source = ConfigSource::nearest_size;
    return w;
  }
  return std::nullopt;
}

}  // namespace

Histogram::Histogram(const HistogramProblem& problem, const Options& options) : impl_(std::make_unique<Impl>()) {
  problem.validate();
  impl_->problem = problem;
  int ordinal = options.device;
  if (ordinal < 0) {
    device_count();  // throws NoDeviceError with the driver's reason
    AUTOTUNE_CUDA(cudaGetDevice(&ordinal));
  }
  const DeviceInfo device = query_device(ordinal);
  Resolution& r = impl_->resolution;
  r.model_key = device.model_key();
  r.cache_path = options.cache_path.empty() ? Cache::default_path() : options.cache_path;

  std::string note;
  const std::optional<Winner> winner = lookup(r.cache_path, device, problem, r.source, note);
  std::vector<char> cubin;
  if (winner) {
    r.config = winner->config;
    r.tuned_n = winner->problem.n;
    if (winner->arch == device.arch()) cubin = winner->cubin;
  } else {
    r.source = ConfigSource::fallback;
    r.config = HistogramConfig::fallback(problem);
  }
  if (cubin.empty()) {
    jit::CompileResult c = jit::compile(kernel_source(problem, r.config), "histogram.cu", device.arch());
    if (!c.ok) throw Error(fmt::format("NVRTC failed to compile {} for {}:\n{}", r.config.key(), device.arch(), c.log));
    cubin = std::move(c.cubin);
    r.compiled = true;
  }

  // Load on the caller's device without changing the thread's current device for good.
  int previous = 0;
  AUTOTUNE_CUDA(cudaGetDevice(&previous));
  if (previous != ordinal) AUTOTUNE_CUDA(cudaSetDevice(ordinal));
  try {
    impl_->kernel.emplace(problem, r.config, device, cubin);
  } catch (...) {
    if (previous != ordinal) cudaSetDevice(previous);
    throw;
  }
  if (previous != ordinal) AUTOTUNE_CUDA(cudaSetDevice(previous));

  switch (r.source) {
    case ConfigSource::exact:
      r.message = fmt::format("autotune: {} on {}: tuned configuration {} from {}", problem.key(), device.name,
                              r.config.key(), r.cache_path);
      break;
    case ConfigSource::nearest_size:
      r.message = fmt::format("autotune: {} on {}: configuration {} tuned for n={} (nearest tuned size) from {}",
                              problem.key(), device.name, r.config.key(), r.tuned_n, r.cache_path);
      break;
    case ConfigSource::fallback:
      r.message = fmt::format("autotune: {} on {}: not tuned in {}; using the built-in default {} (run `autotune tune`)",
                              problem.key(), device.name, r.cache_path, r.config.key());
      break;
  }
  r.message += note;
  if (r.compiled) r.message += " [compiled with NVRTC]";
}

Histogram::~Histogram() = default;
Histogram::Histogram(Histogram&&) noexcept = default;
Histogram& Histogram::operator=(Histogram&&) noexcept = default;

namespace {

void check_call(const HistogramProblem& p, const void* samples, std::uint64_t n, const void* counts, int bits) {
  if (counts == nullptr) throw UsageError("autotune::Histogram: the counts pointer is null");
  if (samples == nullptr && n > 0) throw UsageError("autotune::Histogram: the samples pointer is null");
  if (bits != p.counter_bits)
    throw UsageError(fmt::format("autotune::Histogram: {}-bit counters passed to a problem with {}-bit counters", bits,
                                 p.counter_bits));
  if (reinterpret_cast<std::uintptr_t>(samples) % size_of(p.type) != 0)
    throw UsageError(fmt::format("autotune::Histogram: the samples pointer is not aligned to {} bytes", size_of(p.type)));
}

}  // namespace

void Histogram::operator()(const void* d_samples, std::uint64_t n, unsigned int* d_counts, cudaStream_t stream) const {
  check_call(impl_->problem, d_samples, n, d_counts, 32);
  impl_->kernel->run(d_samples, n, d_counts, stream);
}

void Histogram::operator()(const void* d_samples, std::uint64_t n, unsigned long long* d_counts,
                           cudaStream_t stream) const {
  check_call(impl_->problem, d_samples, n, d_counts, 64);
  impl_->kernel->run(d_samples, n, d_counts, stream);
}

const HistogramProblem& Histogram::problem() const { return impl_->problem; }
const Resolution& Histogram::resolution() const { return impl_->resolution; }

}  // namespace autotune
