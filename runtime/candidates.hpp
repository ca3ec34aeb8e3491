// The first half of the lookup (include/autotune/resolution.hpp): gather every piece of evidence the cache, the
// shipped policy and the family hold for a problem's shape, each with what separates it from the problem (its kind,
// shape distance, distribution, GPU model) and its tuned sizes. runtime/rank.hpp prices them; runtime/size_table.hpp
// builds a handle's table from the ranking.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// How the distribution an entry was measured on relates to the problem's.
enum class DistributionMatch {
  same,    ///< the problem's own (or evidence that serves any distribution: the shipped policy, the default)
  robust,  ///< a histogram's robust winner across distributions (dist=robust)
  other,   ///< another one (the tuner's default, "uniform", for a problem of another distribution)
};

/// Why a winner imported from another machine (Winner::trusted false) is served as similar_device, not as exact or a
/// nearest size: said in Lookup::distance and SizeRange::why.
inline constexpr std::string_view kImportedNote = "imported from another machine, not measured here";

/// A configuration's time at one tuned size of the problem's own shape (EvidenceSize::measured).
struct MeasuredAt {
  std::uint64_t n = 0;
  double slowdown = 1.0;    ///< its time over the fastest there
  double fastest_ms = 0.0;  ///< the fastest time there, 0 when not known
  bool operator==(const MeasuredAt&) const = default;
};

/// One tuned size of a piece of evidence.
struct EvidenceSize {
  std::uint64_t n = 0;
  Config config;                 ///< made valid for the problem (KernelFamily::adapt_config)
  std::optional<Winner> winner;  ///< the cache entry (none for the policy and the built-in default)
  std::string change;            ///< what adapt_config changed, "" when nothing
  std::string key;               ///< the measured problem's key (Problem::key); "" for the built-in default
  std::string measured_on;       ///< a policy entry's GPU where not the policy's (PolicyEntry::gpu)
  /// The problem's own shape on this model (nearest_size): this configuration's time over the fastest time at each
  /// tuned size of the evidence whose tuning timed it, by ascending n. A full tuning times every variant; a
  /// crossover check between two tuned sizes times their winners (include/autotune/tuner.hpp). Between two tuned
  /// sizes that both timed it, runtime/rank.hpp prices it from these instead of the size curves.
  std::vector<MeasuredAt> measured;
  /// KernelFamily::one_block_up_to of the configuration for the problem (0: no one-block path): its times measured
  /// on the other side of it from n do not price it at n (runtime/rank.hpp).
  std::uint64_t one_block_up_to = 0;
  /// Whether this size was measured on another GPU model than the target, where that differs from its evidence's
  /// Evidence::other_model (a policy entry measured_on the target's model while the policy's GPU is another, or the
  /// other way round); nullopt: the evidence's. A tie rule (runtime/rank.hpp), not a factor: the policy's prices are
  /// fitted across its entries.
  std::optional<bool> other_model;
};

/// Evidence of one kind for the problem: the tuned sizes of one shape on one GPU model (or of the policy, or the
/// built-in default).
struct Evidence {
  /// nearest_size: the problem's own shape on this model (exact at its tuned sizes); similar_problem,
  /// similar_device, policy, fallback: the ConfigSource of what it serves.
  ConfigSource kind = ConfigSource::fallback;
  std::string shape;            ///< the measured shape (Problem::shape_key); "" for the built-in default
  double shape_distance = 0.0;  ///< KernelFamily::shape_distance (policy: policy_distance); 0 for the own shape
  DistributionMatch distribution = DistributionMatch::same;
  /// A policy shape fitted on the problem's own distribution (PolicyChoice::of_distribution), not robust across
  /// distributions: its own entry is priced at 1, not policy_own, and it ranks before a robust shape it ties with.
  bool policy_of_distribution = false;
  bool other_model = false;     ///< measured on another GPU model than the target (the built-in default: its cost
                                ///< was, rank_sizes)
  std::string model_key;        ///< where it was measured ("" for the policy and the built-in default)
  std::string note;             ///< "measured on dist=uniform, not runs"; for the policy its provenance
  std::vector<EvidenceSize> sizes;  ///< ascending n, not empty; the built-in default has one, at n = 0, for any n
};

/// Everything gathered, with what the cache held but may not serve.
struct Gathered {
  std::vector<Evidence> evidence;
  std::string gpu;                  ///< the target's GPU name (DeviceInfo::name, from its model key)
  std::size_t stale_skipped = 0;    ///< Lookup::stale_skipped
  std::size_t unbacked_skipped = 0; ///< Lookup::unbacked_skipped
  /// The target GPU's L2 in bytes (LookupTarget::device, else the cache's device row of its model), 0 when unknown:
  /// the evict-first size rule's scale (runtime/streaming.hpp).
  std::uint64_t l2_bytes = 0;
  std::optional<DeviceInfo> device;  ///< LookupTarget::device, else the cache's devices row of its model
  /// Whether the lookup may serve configurations nothing measured (the size rules, runtime/streaming.hpp and
  /// runtime/grid_by_size.hpp): only with NVRTC, since no stored cubin is of them.
  bool compiles = true;
};

/// Every candidate for `problem` on `target`: from `cache` (may be null: no file) the problem's shape on this model
/// (one piece per distribution of distribution_candidates that has tuned sizes), every other shape of the family on
/// this model whose winners the problem can run (adapted), the same shape on the closest model of the architecture;
/// then every shape of the shipped policy whose configurations the problem can run (runtime/policy.hpp), and the
/// built-in default. Only reads. Runs of other code are skipped (counted in stale_skipped).
Gathered gather_candidates(const Cache* cache, const LookupTarget& target, const Problem& problem);

/// The lookup's distribution order for `problem`: its own distribution, then the robust one (families that record
/// one), then the default one (include/autotune/resolution.hpp).
std::vector<Problem> distribution_candidates(const Problem& problem);
/// "" when `used` has the problem's distribution, else "measured on dist=USED, not PROBLEM'S".
std::string distribution_note(const Problem& problem, const Problem& used);

}  // namespace autotune
