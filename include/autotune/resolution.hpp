// The lookup every consumer of the cache shares: the runtime handles (autotune::Histogram, autotune::Reduce) and
// `autotune best`, so that the CLI answers exactly what an application would get. It weighs its evidence instead of
// taking the first step of a fixed order that answers:
//
//   gather (runtime/candidates.hpp): every candidate for the problem's shape: its tuned sizes on this GPU model
//     (exact at a tuned n, else nearest_size), every other shape of the family tuned on this model whose winners it
//     can run (similar_problem, KernelFamily::shape_distance: other bins, another operator, ...), the same shape on
//     the closest other model of the architecture (similar_device), every shape of the family's shipped measured
//     policy it can run (policy: kernel_templates/<family>/policy.json, fitted from a standard preset on one GPU,
//     KernelFamily::policy_distance), and the built-in default (fallback);
//   rank (runtime/rank.hpp): each candidate's predicted slowdown against the problem's own best, from the transfer
//     costs measured by leave-one-out over a standard preset (runtime/transfer_costs.json,
//     scripts/fit_transfer_costs.py, bench/results/2026-12-02-leave-one-out.md): how much a winner loses per
//     doubling of n away, per unit of shape distance, on another distribution or GPU model; the best-ranked wins,
//     with deterministic tie rules (runtime/rank.hpp);
//   size table (runtime/size_table.hpp): the ranking at every n, as ranges (SizeRange); the answer for the hint n is
//     the table's, so that the two agree. Then evict-first input loads by input size (runtime/streaming.hpp): inputs
//     of L2 / 4 to 4x the L2 load evict-first (ld=cs), inputs of 8x the L2 or more plainly, where the family's
//     configuration has the choice, but at the sizes the problem itself was measured at; then the family's
//     replacements from a size on (runtime/replace_by_size.hpp: a windowed global histogram of 16-bit floats whose
//     bins are sparse runs as copies where its input passes twice their bytes); and below the sizes a
//     range was measured at, less work per block (runtime/grid_by_size.hpp: a histogram's loads halved while its
//     grid stays nearest the blocks it launched where measured, at most one per SM). Neither under a tuned or exact
//     requirement (those run what was measured), nor without NVRTC.
// So a measured policy entry of the problem's own operator at its own size on this GPU model beats the winner of
// another operator (a weaker transfer), and a closer policy shape beats a far tuned one.
// The problem's input distribution is a hint: winners measured on it, on the robust set (dist=robust, `autotune tune
// --dists`) and on the default ("uniform") are all candidates, the latter two priced by what a winner of another
// distribution loses; Lookup::distance says so ("measured on dist=uniform, not runs").
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

/// Where a configuration came from, the evidence measured closest to the problem first (a tie rule of the ranking).
enum class ConfigSource {
  exact,           ///< tuned for exactly this problem on this GPU model
  nearest_size,    ///< tuned for the same problem at another n on this GPU model
  similar_problem, ///< tuned for the closest shape of the same family on this GPU model (e.g. other bins)
  similar_device,  ///< tuned on another GPU model of the same architecture
  policy,          ///< the family's measured default policy (shipped data)
  fallback,        ///< the built-in safe default
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

/// The best-ranked candidate with another configuration than the chosen one (Lookup::runner_up).
struct Alternative {
  ConfigSource source = ConfigSource::fallback;
  Config config;
  double predicted_slowdown = 1.0;  ///< against the problem's own best
  std::string distance;             ///< as Lookup::distance
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
  /// The ranking's prediction for the choice: its time over the problem's own best (1 for an exact winner).
  double predicted_slowdown = 1.0;
  std::optional<Alternative> runner_up;  ///< the next-best configuration, when there is another
};

/// One range of sizes of a size-adaptive handle (Resolution::sizes): a call with n_from <= n <= n_to (both bounds
/// inclusive) runs `config`.
///
/// A handle is made for a problem's shape; at construction it ranks every candidate (the lookup above) at every n and
/// keeps, for each range of n, the best-ranked one: a tuned size of the shape serves the sizes around it until a
/// neighbour (or other evidence) is predicted to run them better. Between two tuned sizes of the shape the switch is
/// where the two predictions cross: measured winners carry over unevenly (bench/results/2026-12-02-leave-one-out.md:
/// a histogram winner of a larger n runs a smaller n better than the reverse, a reduction's the other way), so it is
/// not at the geometric mean. Adjacent ranges of one candidate and one configuration are one range.
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
  std::string tuned_shape_key;         ///< the shape they were measured on (Problem::shape_key; empty for fallback)
  /// Why, one phrase: "tuned for n=4096 and n=65536", "tuned for n=1048576; measured on dist=uniform, not runs",
  /// "tuned for histogram/u8/bins=256/...", "built-in default".
  std::string why;
  double predicted_slowdown = 1.0;  ///< the ranking's worst prediction within the range
  /// The shape's tuned size just below n_from, when its tuning timed the range's configuration too (a full tuning
  /// times every variant, a crossover check its neighbours' winners); 0 otherwise. The range then lies between two
  /// sizes that timed its configuration as it is, and the lookup's grid rule (runtime/grid_by_size.hpp) leaves it so.
  std::uint64_t timed_below = 0;

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
  /// true when NVRTC compiled the configuration of problem.n's range because the cache had no usable cubin for it:
  /// now, or in an earlier process on this machine whose cubin the user's compile cache kept (jit::compile_cached in
  /// jit::default_compile_cache_dir(); `message` names it then). The handle's other ranges are compiled too where
  /// they need it; one that cannot be (no NVRTC here) runs this range's configuration instead, and `message` says so.
  bool compiled = false;
  std::string message;            ///< one line saying all of the above, for logs
  double predicted_slowdown = 1.0;       ///< Lookup::predicted_slowdown of the choice for problem.n
  std::optional<Alternative> runner_up;  ///< Lookup::runner_up
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

/// Looks `problem` up in `cache` for `target`: the best-ranked candidate for problem.n (lookup_sizes' at_hint).
/// `required` narrows the candidates as lookup_sizes says. Only reads: open the file with Cache::open_read_only.
/// Throws CacheError when the cache cannot be read.
Lookup lookup_config(const Cache& cache, const LookupTarget& target, const Problem& problem,
                     Requirement required = Requirement::any);

/// The size table of a handle of `problem`'s shape on `target` (SizeRange), ranked from every candidate in `cache`
/// (only runs of this build's code), the shipped policy and the built-in default. `required` narrows the candidates
/// first, so that the ranking chooses among what meets it: tuned drops the policy and the built-in default when
/// anything measured remains; exact keeps only the problem's own shape on this model when it holds problem.n (with no
/// hint, n = 0, when it holds any size). Only reads.
SizeLookup lookup_sizes(const Cache& cache, const LookupTarget& target, const Problem& problem,
                        Requirement required = Requirement::any);

/// The same without a cache (no file, or one that cannot be read): the measured default policy's shapes and the
/// built-in default, ranked.
SizeLookup untuned_sizes(const LookupTarget& target, const Problem& problem, Requirement required = Requirement::any);

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
