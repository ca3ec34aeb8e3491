#include "runtime/resolve.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "core/jit.hpp"

namespace autotune {

Requirement effective_requirement(std::optional<Requirement> given) {
  if (given) return *given;
  const char* env = std::getenv("AUTOTUNE_REQUIRE");
  if (env == nullptr || *env == '\0') return Requirement::any;
  const auto r = parse_requirement(env);
  if (!r) throw UsageError(fmt::format("AUTOTUNE_REQUIRE='{}' is not any, tuned or exact", env));
  return *r;
}

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
  Lookup lookup;
  lookup.config = Config::fallback(problem);
  std::error_code ec;
  if (r.cache_path != ":memory:" && std::filesystem::exists(r.cache_path, ec)) {
    // Read-only: a lookup never writes the cache, leaves no side file and works from a read-only directory. A cache
    // that cannot be read is reported in the message and the built-in default runs.
    try {
      const Cache cache = Cache::open_read_only(r.cache_path);
      LookupTarget target{r.model_key, d.arch(), d.sm_count, d.driver_version, d};
      lookup = lookup_config(cache, target, problem);
    } catch (const CacheError& e) {
      note = fmt::format(" (cache not used: {})", e.what());
    }
  }
  if (lookup.stale_skipped)
    note += fmt::format(" ({} result{} measured with other code not used; `autotune tune` re-tunes)",
                        lookup.stale_skipped, lookup.stale_skipped == 1 ? "" : "s");
  r.source = lookup.source;
  r.config = lookup.config;
  // Strict mode: refuse before anything is compiled or loaded, and say what would satisfy it.
  if (!meets(r.source, required))
    throw NotTunedError(fmt::format(
        "autotune: {} on {}: {} tuned data required, but the cache {} gives {}{}{}; tune it with: {}", problem.key(),
        d.name, to_string(required), r.cache_path,
        r.source == ConfigSource::fallback ? "nothing (the built-in default)" : std::string(to_string(r.source)),
        lookup.distance.empty() ? "" : " (" + lookup.distance + ")", note, tune_command(problem, r.cache_path)));
  if (lookup.unbacked_skipped)
    note += fmt::format(" ({} result{} not among {} run's measurements not used)", lookup.unbacked_skipped,
                        lookup.unbacked_skipped == 1 ? "" : "s", lookup.unbacked_skipped == 1 ? "its" : "their");
  const std::string source = kernel_source(problem, r.config);
  if (lookup.winner) {
    r.tuned_n = lookup.winner->problem.n();
    r.tuned_model_key = lookup.winner->model_key;
    // A stored cubin runs on this GPU only when it is verifiably what this build would compile (SHA-256 of the
    // cubin and of its source); anything else is compiled from source, and the message says why.
    const std::string unusable = cubin_unusable(*lookup.winner, d.arch(), source);
    if (unusable.empty()) out.cubin = lookup.winner->cubin;
    else if (!lookup.winner->cubin.empty()) note += fmt::format(" ({}: compiled from source)", unusable);
  }
  if (out.cubin.empty()) {
    jit::CompileResult c = jit::compile(source, std::string(problem.family_name()) + ".cu", d.arch());
    if (!c.ok) throw Error(fmt::format("NVRTC failed to compile {} for {}:\n{}", r.config.key(), d.arch(), c.log));
    out.cubin = std::move(c.cubin);
    r.compiled = true;
  }

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
    case ConfigSource::fallback:
      r.message = fmt::format("autotune: {} on {}: not tuned in {}; using the built-in default {} (run `autotune tune`)",
                              problem.key(), d.name, r.cache_path, r.config.key());
      break;
  }
  r.message += note;
  if (r.compiled) r.message += " [compiled with NVRTC]";
  return out;
}

}  // namespace autotune
