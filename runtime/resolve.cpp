#include "runtime/resolve.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "core/jit.hpp"
#include "runtime/size_table.hpp"

namespace autotune {

Requirement effective_requirement(std::optional<Requirement> given) {
  if (given) return *given;
  const char* env = std::getenv("AUTOTUNE_REQUIRE");
  if (env == nullptr || *env == '\0') return Requirement::any;
  const auto r = parse_requirement(env);
  if (!r) throw UsageError(fmt::format("AUTOTUNE_REQUIRE='{}' is not any, tuned or exact", env));
  return *r;
}

namespace {

// Compiles the kernels of `out` that have no usable cubin. The hint's kernel must compile (its NVRTC error is
// thrown); another range whose kernel cannot be compiled (no NVRTC on this machine, as with a shipped cache of
// cubins, or a compile error) runs the hint's kernel instead, which is correct at every n, and the note says so.
void compile_missing(Resolved& out, std::vector<SizeRange>& sizes, const std::vector<std::string>& sources,
                     const Problem& problem, const DeviceInfo& d, std::string& note) {
  const std::string name = std::string(problem.family_name()) + ".cu";
  std::vector<std::size_t> order{out.hint_kernel};  // the hint first: its failure is the handle's
  for (std::size_t k = 0; k < out.kernels.size(); ++k)
    if (k != out.hint_kernel) order.push_back(k);
  std::vector<bool> usable(out.kernels.size(), true);
  for (std::size_t k : order) {
    ResolvedKernel& kernel = out.kernels[k];
    if (!kernel.cubin.empty()) continue;
    std::string failure;
    try {
      jit::CompileResult c = jit::compile(sources[k], name, d.arch());
      if (c.ok) {
        kernel.cubin = std::move(c.cubin);
        kernel.compiled = true;
        continue;
      }
      failure = fmt::format("NVRTC failed to compile {} for {}:\n{}", kernel.config.key(), d.arch(), c.log);
    } catch (const Error& e) {
      failure = e.what();
    }
    if (k == out.hint_kernel) throw Error(failure);
    usable[k] = false;
    note += fmt::format(" ({} not compiled: {}; its sizes run {})", kernel.config.key(),
                        failure.substr(0, failure.find('\n')), out.at_hint().config.key());
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (usable[out.range_kernel[i]]) continue;
    out.range_kernel[i] = out.hint_kernel;
    sizes[i].config = out.at_hint().config;
    sizes[i].why += "; not compiled here: runs the configuration of the hint's range";
  }
}

}  // namespace

Resolved resolve(const Problem& problem, int device, const std::string& cache_path, std::optional<Requirement> require) {
  problem.validate();
  const Requirement required = effective_requirement(require);
  Resolved out;
  out.ordinal = device;
  if (out.ordinal < 0) {
    device_count();  // throws NoDeviceError with the driver's reason
    AUTOTUNE_CUDA(cudaGetDevice(&out.ordinal));
  }
  out.device = query_device(out.ordinal);
  const DeviceInfo& d = out.device;
  Resolution& r = out.resolution;
  r.model_key = d.model_key();
  r.cache_path = cache_path.empty() ? Cache::default_path() : cache_path;

  std::string note;
  const LookupTarget target{r.model_key, d.arch(), d.sm_count, d.driver_version, d};
  SizeLookup sizes;
  std::error_code ec;
  bool looked_up = false;
  if (r.cache_path != ":memory:" && std::filesystem::exists(r.cache_path, ec)) {
    // Read-only: a lookup never writes the cache, leaves no side file and works from a read-only directory. A cache
    // that cannot be read is reported in the message and the rest of the lookup order (policy, default) answers.
    try {
      const Cache cache = Cache::open_read_only(r.cache_path);
      sizes = lookup_sizes(cache, target, problem, required);
      looked_up = true;
    } catch (const CacheError& e) {
      note = fmt::format(" (cache not used: {})", e.what());
    }
  }
  if (!looked_up) sizes = untuned_sizes(target, problem, required);  // no cache: the policy and the default, ranked
  const Lookup& lookup = sizes.at_hint;
  if (lookup.stale_skipped)
    note += fmt::format(" ({} result{} measured with other code not used; `autotune tune` re-tunes)",
                        lookup.stale_skipped, lookup.stale_skipped == 1 ? "" : "s");
  r.source = lookup.source;
  r.config = lookup.config;
  r.predicted_slowdown = lookup.predicted_slowdown;
  r.runner_up = lookup.runner_up;
  // Strict mode: refuse before anything is compiled or loaded, and say what would satisfy it.
  if (const std::string gives = size_table_violation(sizes.sizes, lookup, problem.n(), required); !gives.empty()) {
    std::string command = tune_command(problem, r.cache_path);
    if (problem.n() == 0)  // no size hint: any size the application runs at
      if (const auto at = command.find(" --n 0"); at != std::string::npos) command.replace(at, 6, " --n N");
    throw NotTunedError(fmt::format("autotune: {} on {}: {} tuned data required, but the cache {} gives {}{}; tune it with: {}",
                                    problem.key(), d.name, to_string(required), r.cache_path, gives, note, command));
  }
  if (lookup.unbacked_skipped)
    note += fmt::format(" ({} result{} not among {} run's measurements not used)", lookup.unbacked_skipped,
                        lookup.unbacked_skipped == 1 ? "" : "s", lookup.unbacked_skipped == 1 ? "its" : "their");
  if (lookup.winner) {
    r.tuned_n = lookup.winner->problem.n();
    r.tuned_model_key = lookup.winner->model_key;
  }
  // One module per distinct configuration of the table, in order of first use.
  std::vector<std::string> sources;
  for (const SizeRange& range : sizes.sizes) {
    std::size_t k = 0;
    while (k < out.kernels.size() && !(out.kernels[k].config == range.config)) ++k;
    out.range_kernel.push_back(k);
    if (k < out.kernels.size()) continue;
    ResolvedKernel kernel;
    kernel.config = range.config;
    // A stored cubin runs on this GPU only when it is verifiably what this build would compile (SHA-256 of the
    // cubin and of its source); anything else is compiled from source below, and the message says why.
    sources.push_back(kernel_source(problem, range.config));
    std::string unusable;
    for (const Winner& w : sizes.winners) {
      if (!(w.config == range.config)) continue;
      const std::string why = cubin_unusable(w, d.arch(), sources.back());
      if (why.empty()) {
        kernel.cubin = w.cubin;
        break;
      }
      if (unusable.empty() && !w.cubin.empty()) unusable = why;
    }
    if (kernel.cubin.empty() && !unusable.empty())
      note += sizes.sizes.size() == 1 ? fmt::format(" ({}: compiled from source)", unusable)
                                      : fmt::format(" ({}: {}: compiled from source)", range.config.key(), unusable);
    out.kernels.push_back(std::move(kernel));
  }
  for (std::size_t i = 0; i < sizes.sizes.size(); ++i)
    if (sizes.sizes[i].contains(problem.n())) out.hint_kernel = out.range_kernel[i];
  compile_missing(out, sizes.sizes, sources, problem, d, note);
  r.compiled = out.at_hint().compiled;
  if (!(out.at_hint().config == r.config))  // lookup_sizes builds the table so that this cannot happen
    throw Error(fmt::format("autotune: internal error: the size table runs {} at n={}, the lookup {}",
                            out.at_hint().config.key(), problem.n(), r.config.key()));
  r.sizes = std::move(sizes.sizes);

  switch (r.source) {
    case ConfigSource::exact:
      r.message = fmt::format("autotune: {} on {}: tuned configuration {}{} from {}", problem.key(), d.name,
                              r.config.key(), lookup.distance.empty() ? "" : " (" + lookup.distance + ")",
                              r.cache_path);
      break;
    case ConfigSource::nearest_size:
    case ConfigSource::similar_problem:
    case ConfigSource::similar_device:
      r.message = fmt::format("autotune: {} on {}: configuration {} {} ({}) from {}", problem.key(), d.name,
                              r.config.key(), lookup.distance,
                              r.source == ConfigSource::nearest_size      ? "nearest tuned size"
                              : r.source == ConfigSource::similar_problem ? "similar tuned problem"
                                                                          : "similar GPU model",
                              r.cache_path);
      break;
    case ConfigSource::policy:
      r.message = fmt::format("autotune: {} on {}: {} holds nothing closer; using the measured default policy: {} ({}); "
                              "`autotune tune` measures this GPU",
                              problem.key(), d.name, r.cache_path, r.config.key(), lookup.distance);
      break;
    case ConfigSource::fallback:
      r.message = fmt::format("autotune: {} on {}: {} holds nothing closer; using the built-in default {} (run `autotune tune`)",
                              problem.key(), d.name, r.cache_path, r.config.key());
      break;
  }
  if (r.sizes.size() > 1)
    r.message += fmt::format(" [by size: {} ranges, {} configuration{}: resolution().sizes]", r.sizes.size(),
                             out.kernels.size(), out.kernels.size() == 1 ? "" : "s");
  r.message += fmt::format(" [predicted {:.2f}x its best{}]", r.predicted_slowdown,
                           r.runner_up ? fmt::format("; runner-up {} {} at {:.2f}x", to_string(r.runner_up->source),
                                                     r.runner_up->config.key(), r.runner_up->predicted_slowdown)
                                       : std::string());
  r.message += note;
  if (r.compiled) r.message += " [compiled with NVRTC]";
  return out;
}

}  // namespace autotune
