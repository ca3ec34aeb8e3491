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

// Compiles the kernels of `out` that have no usable cubin, through the user's compile cache
// (jit::default_compile_cache_dir(), HMAC-checked; best effort, as the tuner uses it), so that a range no tuned
// cubin serves (a policy's or the built-in default's) is compiled once on a machine, not at every construction. The
// hint's kernel must compile (its NVRTC error is thrown); another range whose kernel cannot be compiled (no NVRTC on this machine, as with a shipped cache of
// cubins, or a compile error) runs the hint's kernel instead, which is correct at every n, and the note says so.
void compile_missing(Resolved& out, std::vector<SizeRange>& sizes, const std::vector<std::string>& sources,
                     const Problem& problem, const DeviceInfo& d, std::string& note) {
  const std::string name = std::string(problem.family_name()) + ".cu";
  std::vector<std::size_t> order{out.hint_kernel};  // the hint first: its failure is the handle's
  for (std::size_t k = 0; k < out.kernels.size(); ++k)
    if (k != out.hint_kernel) order.push_back(k);
  std::vector<bool> usable(out.kernels.size(), true);
  const std::string cache_dir = jit::default_compile_cache_dir();
  for (std::size_t k : order) {
    ResolvedKernel& kernel = out.kernels[k];
    if (!kernel.cubin.empty()) continue;
    std::string failure;
    try {
      jit::CompileResult c = jit::compile_cached(sources[k], name, d.arch(), cache_dir);
      if (c.ok) {
        kernel.cubin = std::move(c.cubin);
        kernel.compiled = true;
        if (c.from_cache && k == out.hint_kernel) note += fmt::format(" (NVRTC's cubin from {})", cache_dir);
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

namespace {

// The size table of `problem` from the cache at r.cache_path, read-only (a lookup never writes the cache, leaves no
// side file and works from a read-only directory); without a cache file, or one that cannot be read (said in
// `note`), from the policy and the built-in default, ranked.
SizeLookup look_up(const Problem& problem, const LookupTarget& target, const Resolution& r, Requirement required,
                   std::string& note) {
  std::error_code ec;
  if (r.cache_path != ":memory:" && std::filesystem::exists(r.cache_path, ec)) {
    try {
      const Cache cache = Cache::open_read_only(r.cache_path);
      return lookup_sizes(cache, target, problem, required);
    } catch (const CacheError& e) {
      note = fmt::format(" (cache not used: {})", e.what());
    }
  }
  return untuned_sizes(target, problem, required);
}

// Strict mode: refuses before anything is compiled or loaded, and says what would satisfy it.
void require_tuned(const SizeLookup& sizes, const Problem& problem, const DeviceInfo& d, const Resolution& r,
                   Requirement required, const std::string& note) {
  const std::string gives = size_table_violation(sizes.sizes, sizes.at_hint, problem.n(), required);
  if (gives.empty()) return;
  std::string command = tune_command(problem, r.cache_path);
  if (problem.n() == 0)  // no size hint: any size the application runs at
    if (const auto at = command.find(" --n 0"); at != std::string::npos) command.replace(at, 6, " --n N");
  throw NotTunedError(fmt::format("autotune: {} on {}: {} tuned data required, but the cache {} gives {}{}; tune it with: {}",
                                  problem.key(), d.name, to_string(required), r.cache_path, gives, note, command));
}

// One module per distinct configuration of the table, in order of first use, each with its stored cubin where one
// is verifiably what this build would compile (SHA-256 of the cubin and of its source); the others are compiled from
// source later (compile_missing), and the note says why. Returns each kernel's source.
std::vector<std::string> table_kernels(Resolved& out, const SizeLookup& sizes, const Problem& problem,
                                       const DeviceInfo& d, std::string& note) {
  std::vector<std::string> sources;
  for (const SizeRange& range : sizes.sizes) {
    std::size_t k = 0;
    while (k < out.kernels.size() && !(out.kernels[k].config == range.config)) ++k;
    out.range_kernel.push_back(k);
    if (k < out.kernels.size()) continue;
    ResolvedKernel kernel;
    kernel.config = range.config;
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
  return sources;
}

// The one-line account of a resolution (Resolution::message).
std::string resolution_message(const Resolution& r, const Lookup& lookup, const Problem& problem,
                               const DeviceInfo& d, std::size_t kernels, const std::string& note) {
  std::string message;
  switch (r.source) {
    case ConfigSource::exact:
      message = fmt::format("autotune: {} on {}: tuned configuration {}{} from {}", problem.key(), d.name,
                            r.config.key(), lookup.distance.empty() ? "" : " (" + lookup.distance + ")", r.cache_path);
      break;
    case ConfigSource::nearest_size:
    case ConfigSource::similar_problem:
    case ConfigSource::similar_device:
      message = fmt::format("autotune: {} on {}: configuration {} {} ({}) from {}", problem.key(), d.name,
                            r.config.key(), lookup.distance,
                            r.source == ConfigSource::nearest_size      ? "nearest tuned size"
                            : r.source == ConfigSource::similar_problem ? "similar tuned problem"
                                                                        : "similar GPU model",
                            r.cache_path);
      break;
    case ConfigSource::policy:
      message = fmt::format("autotune: {} on {}: {} holds nothing closer; using the measured default policy: {} ({}); "
                            "`autotune tune` measures this GPU",
                            problem.key(), d.name, r.cache_path, r.config.key(), lookup.distance);
      break;
    case ConfigSource::fallback:
      message = fmt::format("autotune: {} on {}: {} holds nothing closer; using the built-in default {} (run `autotune tune`)",
                            problem.key(), d.name, r.cache_path, r.config.key());
      break;
  }
  if (r.sizes.size() > 1)
    message += fmt::format(" [by size: {} ranges, {} configuration{}: resolution().sizes]", r.sizes.size(), kernels,
                           kernels == 1 ? "" : "s");
  message += fmt::format(" [predicted {:.2f}x its best{}]", r.predicted_slowdown,
                         r.runner_up ? fmt::format("; runner-up {} {} at {:.2f}x", to_string(r.runner_up->source),
                                                   r.runner_up->config.key(), r.runner_up->predicted_slowdown)
                                     : std::string());
  message += note;
  if (r.compiled) message += " [compiled with NVRTC]";
  return message;
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
  SizeLookup sizes = look_up(problem, target, r, required, note);
  const Lookup& lookup = sizes.at_hint;
  if (lookup.stale_skipped)
    note += fmt::format(" ({} result{} measured with other code not used; `autotune tune` re-tunes)",
                        lookup.stale_skipped, lookup.stale_skipped == 1 ? "" : "s");
  r.source = lookup.source;
  r.config = lookup.config;
  r.predicted_slowdown = lookup.predicted_slowdown;
  r.runner_up = lookup.runner_up;
  require_tuned(sizes, problem, d, r, required, note);
  if (lookup.unbacked_skipped)
    note += fmt::format(" ({} result{} not among {} run's measurements not used)", lookup.unbacked_skipped,
                        lookup.unbacked_skipped == 1 ? "" : "s", lookup.unbacked_skipped == 1 ? "its" : "their");
  if (lookup.winner) {
    r.tuned_n = lookup.winner->problem.n();
    r.tuned_model_key = lookup.winner->model_key;
  }
  const std::vector<std::string> sources = table_kernels(out, sizes, problem, d, note);
  compile_missing(out, sizes.sizes, sources, problem, d, note);
  r.compiled = out.at_hint().compiled;
  if (!(out.at_hint().config == r.config))  // lookup_sizes builds the table so that this cannot happen
    throw Error(fmt::format("autotune: internal error: the size table runs {} at n={}, the lookup {}",
                            out.at_hint().config.key(), problem.n(), r.config.key()));
  r.sizes = std::move(sizes.sizes);
  r.message = resolution_message(r, lookup, problem, d, out.kernels.size(), note);
  return out;
}

}  // namespace autotune
