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
//   5. policy:         the family's measured default policy (runtime/policy.hpp): a configuration fitted from a
//                      standard preset tuned on one GPU and shipped with the library (kernel_templates/<family>/
//                      policy.json, with its provenance), from the closest shape it holds whose configuration is
//                      valid for the problem and fits the device; one size range per size it holds
//   6. fallback:       the family's built-in default configuration
// The problem's input distribution is a hint: in steps 1, 2 and 4 a winner measured on that distribution comes first,
// then a histogram's robust winner across distributions (dist=robust, `autotune tune --dists`), then one measured
// on the default ("uniform"); Lookup::distance says so ("measured on dist=uniform, not runs").
// Runs measured with another kernel template, NVRTC or driver are never served (skipped, not marked: a lookup
// never writes the cache). A winner imported from another machine and not signed by a trusted key
// (Winner::trusted() false) is served as similar_device at best, never as exact or nearest_size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  policy,          ///< nothing tuned in the cache applies: the family's measured default policy (shipped data)
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

/// One range of sizes of a size-adaptive handle (Resolution::sizes): a call with n_from <= n <= n_to (both bounds
/// inclusive) runs `config`.
///
/// A handle is made for a problem's shape; at construction it loads the winners of every tuned size of that shape on
/// this GPU model and serves each n from the nearest tuned size (by ratio): between two adjacent tuned sizes a < b
/// the switch is at their geometric mean (the first n with (n+1)^2 >= (a+1)(b+1): the measure of the nearest-size
/// lookup, so that the table and lookup_config agree at every n; for sizes of thousands within one or two of
/// sqrt(a*b)), below the smallest and above the largest the nearest serves, and adjacent ranges of one configuration
/// are one range. When no size of the shape is tuned on this model the table is one range, 0..max, answered by the
/// rest of the lookup order (similar problem, similar GPU model, built-in default) for problem.n.
struct SizeRange {
  std::uint64_t n_from = 0;                              ///< first n of the range
  std::uint64_t n_to = ~std::uint64_t(0);                ///< last n of the range (inclusive)
  Config config;                                         ///< what calls in the range run
  /// How the range is served: nearest_size for a range of tuned sizes of the shape on this model (at the tuned sizes
  /// themselves it is exact: source_at), else the source of the single lookup (similar_problem, similar_device,
  /// fallback).
  ConfigSource source = ConfigSource::fallback;
  std::vector<std::uint64_t> tuned_n;  ///< the measured sizes the range is served from, ascending (empty: fallback)
  std::string tuned_model_key;         ///< the GPU model they were measured on (empty for fallback)
  /// Why, one phrase: "tuned for n=4096 and n=65536", "tuned for n=1048576; measured on dist=uniform, not runs",
  /// "tuned for histogram/u8/bins=256/...", "built-in default".
  std::string why;

  bool contains(std::uint64_t n) const { return n_from <= n && n <= n_to; }
  /// The source for one n of the range: exact at a tuned size of a range of this model's tuned sizes.
  ConfigSource source_at(std::uint64_t n) const;
  /// "4097..65536: CONFIG (nearest_size: tuned for n=4096 and n=65536)"; sizes as K/M/G when exact multiples.
  std::string describe() const;
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
  /// The handle's size table, sorted by n, covering 0..max without gaps: each call runs the configuration of the
  /// range that holds its n. The fields above describe the range of problem.n (the hint).
  std::vector<SizeRange> sizes;
  /// The table, one range per line (SizeRange::describe), for logs.
  std::string sizes_summary() const;
};

/// The size table of a handle of `problem`'s shape, with what it is made of (lookup_sizes).
struct SizeLookup {
  Lookup at_hint;                   ///< lookup_config(problem): the answer for problem.n
  std::vector<SizeRange> sizes;     ///< the table (SizeRange)
  /// The measured entries the table was built from (the tuned sizes of the shape, by ascending n; or at_hint's
  /// winner when nothing of the shape is tuned on this model): where the handle takes the cubins of its ranges.
  std::vector<Winner> winners;
};

/// Looks `problem` up in `cache` for `target` in the order above. Only reads: open the file with
/// Cache::open_read_only. Throws CacheError when the cache cannot be read.
Lookup lookup_config(const Cache& cache, const LookupTarget& target, const Problem& problem);

/// The size table of a handle of `problem`'s shape on `target` (SizeRange), read from `cache` with the filters and
/// order of lookup_config: only runs of this build's code, and the winners of the first of the problem's
/// distribution, the robust one, the default one that has any tuned size on this model. Only reads.
SizeLookup lookup_sizes(const Cache& cache, const LookupTarget& target, const Problem& problem);

/// The end of the lookup order, without a cache (no file, or one that cannot be read): the measured default policy,
/// else the built-in default. The table has one range per size of the policy's chosen shape.
SizeLookup untuned_sizes(const LookupTarget& target, const Problem& problem);

/// Strict mode for a size table: why `sizes` (with `at_hint`, the answer for the hint n) does not meet `required`,
/// or "" when it does. any: always met. tuned: every range must be measured data (no built-in default). exact: with
/// a hint (n > 0) the hint itself must be a tuned size of this model (at_hint is exact); without one (n = 0) the
/// whole table must come from tuned sizes of the shape on this GPU model (no similar problem or GPU).
/// The text says what the cache gives instead, e.g. "nothing (the built-in default)", "nearest_size (tuned for
/// n=4096)", "no tuned size of the shape on this GPU model (similar_problem: tuned for ...)".
std::string size_table_violation(const std::vector<SizeRange>& sizes, const Lookup& at_hint, std::uint64_t hint_n,
                                 Requirement required);

/// Why a winner's stored cubin must not be loaded to run `source` (the kernel source this build compiles for the
/// winner's configuration) on a GPU of `arch`, or "" when it may: the cubin must be for `arch`, be an ELF image,
/// hash (SHA-256) to the value recorded with it when its run finished, and have been compiled from a source whose
/// SHA-256 is that of `source`. A cubin that fails any of these is compiled afresh from `source`.
std::string cubin_unusable(const Winner& winner, const std::string& arch, const std::string& source);

}  // namespace autotune
