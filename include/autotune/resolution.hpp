// The lookup order every consumer of the cache shares: the runtime handles (autotune::Histogram, autotune::Reduce)
// and `autotune best`, so that the CLI answers exactly what an application would get.
//
//   1. exact:          the problem, tuned on this GPU model
//   2. nearest_size:   the same problem shape (everything but n) at the nearest tuned n, on this GPU model
//   3. similar_problem: the closest tuned shape of the same family on this GPU model (KernelFamily::shape_distance:
//                      e.g. the same sample type with the nearest bins count, in log scale; then the nearest n),
//                      whose winner is valid for this problem (and, when the device is known, fits it)
//   4. similar_device: the same problem (else its nearest tuned size) on another GPU model of the same architecture,
//                      the one with the closest SM count
//   5. fallback:       the family's built-in default configuration
// The problem's input distribution is a hint: in steps 1, 2 and 4 a winner measured on that distribution comes first,
// then a histogram's robust winner across distributions (dist=robust, `autotune tune --dists`), then one measured
// on the default ("uniform"); Lookup::distance says so ("measured on dist=uniform, not runs").
// Runs measured with another kernel template, NVRTC or driver are never served (skipped, not marked: a lookup
// never writes the cache).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/problem.hpp"

namespace autotune {

/// Where a configuration came from, best first.
enum class ConfigSource {
  exact,           ///< tuned for exactly this problem on this GPU model
  nearest_size,    ///< tuned for the same problem at another n on this GPU model
  similar_problem, ///< tuned for the closest shape of the same family on this GPU model (e.g. other bins)
  similar_device,  ///< tuned on another GPU model of the same architecture
  fallback,        ///< nothing tuned applies: the built-in safe default
};
std::string_view to_string(ConfigSource s);

/// What an application demands of the lookup before a handle runs anything (Options::require of the handles, else
/// the environment variable AUTOTUNE_REQUIRE=any|tuned|exact, else any):
enum class Requirement {
  any,    ///< whatever the lookup finds, the built-in default included
  tuned,  ///< measured data on this GPU model or a similar one (exact, nearest_size, similar_problem, similar_device)
  exact,  ///< this exact problem, tuned on this GPU model
};
std::string_view to_string(Requirement r);
std::optional<Requirement> parse_requirement(std::string_view text);
/// Whether a configuration of `source` meets `required`.
bool meets(ConfigSource source, Requirement required);
/// The `autotune tune` command that tunes `problem` into `cache_path` (the family's own options: its
/// KernelFamily::command_options), e.g. "autotune tune --kernel histogram --type f32 --bins 1000 --lower 0
/// --upper 1 --n 67108864 --cache /path/cache.db".
std::string tune_command(const Problem& problem, const std::string& cache_path);

/// The GPU a lookup answers for. Only model_key is needed; arch and sm_count enable the similar-device step
/// and driver_version the staleness check of the driver (0 = unknown, not compared).
struct LookupTarget {
  std::string model_key;  ///< DeviceInfo::model_key()
  std::string arch;       ///< "sm_90"; empty = taken from model_key
  int sm_count = 0;       ///< 0 = taken from model_key
  int driver_version = 0;
  /// The device itself, when known (a handle, `best --device I`): a configuration from another problem or GPU is
  /// then served only if it fits this device's limits (threads, shared memory, clusters).
  std::optional<DeviceInfo> device;

  /// From a model key "NAME|sm_XY|NSM|MiB" (what `autotune devices` prints); arch and SMs are read from it.
  static LookupTarget from_model_key(const std::string& model_key);
};

struct Lookup {
  ConfigSource source = ConfigSource::fallback;
  Config config;                 ///< what to run
  std::optional<Winner> winner;  ///< the measured entry it comes from (none for fallback)
  std::size_t stale_skipped = 0;  ///< winners of the problem's shape on this model not served: stale or other code
  /// Winners of the problem's shape on this model not served because they are not one of their run's ok
  /// measurements (rows autotune did not write).
  std::size_t unbacked_skipped = 0;
  /// "how far from measured data", one phrase: "" (exact), "tuned for n=16777216", "tuned on NVIDIA H100 ...".
  std::string distance;
};

/// How a runtime handle got its configuration (Histogram::resolution(), Reduce::resolution()).
struct Resolution {
  ConfigSource source = ConfigSource::fallback;
  Config config;
  std::string model_key;          ///< the GPU model the lookup used
  std::string cache_path;         ///< the cache file consulted (may not exist)
  std::uint64_t tuned_n = 0;      ///< n of the measured problem the configuration comes from (0 for fallback)
  std::string tuned_model_key;    ///< the GPU model it was measured on (this one, or a similar one; empty for fallback)
  bool compiled = false;          ///< true when NVRTC ran because the cache had no cubin for this GPU's architecture
  std::string message;            ///< one line saying all of the above, for logs
};

/// Looks `problem` up in `cache` for `target` in the order above. Only reads: open the file with
/// Cache::open_read_only. Throws CacheError when the cache cannot be read.
Lookup lookup_config(const Cache& cache, const LookupTarget& target, const Problem& problem);

/// Why a winner's stored cubin must not be loaded to run `source` (the kernel source this build compiles for the
/// winner's configuration) on a GPU of `arch`, or "" when it may: the cubin must be for `arch`, be an ELF image,
/// hash (SHA-256) to the value recorded with it when its run finished, and have been compiled from a source whose
/// SHA-256 is that of `source`. A cubin that fails any of these is compiled afresh from `source`.
std::string cubin_unusable(const Winner& winner, const std::string& arch, const std::string& source);

}  // namespace autotune
