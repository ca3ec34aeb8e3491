// The second half of the lookup (include/autotune/resolution.hpp): price every gathered candidate
// (runtime/candidates.hpp) by its predicted slowdown against the problem's own best, and order them.
//
// The prediction comes from measurement: runtime/transfer_costs.json, fitted by scripts/fit_transfer_costs.py from
// leave-one-out over `autotune tune --preset standard` on one GPU (every variant measured on every preset problem;
// the tables: bench/results/2026-12-02-leave-one-out.md). For a candidate of kind K at shape distance d, measured at n'
// for a problem at n, on distribution D, on GPU model M:
//
//   predicted = shape(K, d) x size(direction of n' from n, |log2((n'+1)/(n+1))|) x distribution(D) x model(M)
//               x concentrated x provenance_penalty(winner)
//
// concentrated: where the lookup would otherwise serve a robust policy entry whose configuration counts poorly on
// concentrated samples (a histogram's 16-bit shared counters, KernelFamily::slow_on_concentrated) and the policy
// holds an entry of the problem's own distribution (narrow, runs, ...), every robust policy entry is priced
// TransferCosts::concentrated more, n and the entry's n both large (concentrated_at). Not from the preset's
// leave-one-out (it measures no held-out shape against another shape's entry of its distribution) but from an A/B of
// held-out problems (bench/results/2026-12-07j-summary.md): pricing every robust entry so wherever such an entry of
// the problem's distribution exists lost up to 2.5x on runs samples whose robust answer kept 32-bit counters.
//
// each factor 1 when nothing separates the candidate from the problem. Measurement replaces the size factor where
// there is some: the problem's own shape between two of its tuned sizes whose tunings both timed the candidate's
// configuration (a full tuning times every variant, a crossover check both neighbours' winners) is priced from its
// times there, interpolated geometrically in log2(n+1), against the fastest time those tunings lead n to expect
// (measured_between). A configuration whose one-block path (KernelFamily::one_block_up_to) lies between n and one
// of those sizes is priced from the other's time alone: one block reading two tiles runs another code path than
// several blocks handing partials over. Leave-one-out over an H100's tuned sizes, offline: the worst priced regret
// of f32 sum 21.5 -> 7.5 % (bench/results/2026-12-06-summary.md); on a later H100 tune 25.2 -> 4.0 % with the
// one-block path and the times interpolated geometrically (bench/results/2026-12-06e-summary.md). A policy's entry
// whose configuration ran its own size in one block does not serve an n it reads in several (or the other way round)
// while another entry of that shape keeps its path (best_size; 2026-12-06g).
//
// shape and size are curves: 1 at distance 0
// (the policy's shape curve starts at policy_own, the cost of the policy's own robust entry of a problem; at 1 for a
// policy entry fitted on the problem's own distribution, PolicyChoice::of_distribution), linear between the
// measured points (each the 90th percentile of the leave-one-out slowdowns at that distance, made non-decreasing
// along the curve: farther evidence never predicts less), flat after the last.
// The size curve has two directions because winners carry over unevenly (a histogram winner of a larger n runs a
// smaller n better than the other way round), and a second pair for two large sizes (both n >= large_from, 1M:
// bandwidth-bound, where a winner carries over far better than from or to a launch-bound 64K). The built-in default is one measured
// constant (fallback), times other_model on another GPU model than the costs' own. A family without preset data is
// priced with default_family's table.
//
// Ties (equal predictions) go, in order, to: evidence measured on the target's GPU model (a policy entry's own GPU,
// EvidenceSize::other_model; two far policy shapes both priced at the top of the policy curve: the u16 problem with
// 4492 bins at 606K on an H100 ran the H200's u16 entry +16.6 % over its exact winner, the H100's bf16 entry +4.3 %,
// bench/results/2026-12-06e-summary.md); the smaller shape distance; the smaller |doublings of n|; the kind
// measured closer to the problem (exact, nearest_size, similar_problem, similar_device, policy, fallback: the
// ConfigSource order); a policy shape fitted on the problem's own distribution before a robust one; the shape key;
// the larger tuned n; the configuration key. Deterministic for the same inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "autotune/cache.hpp"
#include "runtime/candidates.hpp"

namespace autotune {

/// A cost curve: (distance, predicted slowdown) points, ascending distance, all > 0.
struct CostCurve {
  std::vector<std::pair<double, double>> points;
  /// The prediction at `distance` >= 0: `origin` at 0, linear between the points, the last point's after it.
  double at(double distance, double origin = 1.0) const;
};

/// One family's fitted costs.
struct FamilyCosts {
  CostCurve from_larger;      ///< the problem's shape at a larger tuned n, by doublings
  CostCurve from_smaller;     ///< ... at a smaller tuned n
  /// The same when both n are at least large_from (bandwidth-bound sizes, where winners carry over far better);
  /// empty: from_larger / from_smaller.
  CostCurve large_from_larger, large_from_smaller;
  std::uint64_t large_from = 0;  ///< 0: no large-size curves
  CostCurve similar_problem;  ///< another shape of the family on this model, by shape_distance, at the same n
  CostCurve policy;           ///< a policy shape, by policy_distance, at the same n (starts at policy_own)
  double policy_own = 1.0;    ///< the policy's entry of the problem itself (a histogram's robust fit); also the
                              ///< factor of a cache winner measured across distributions (dist=robust)
  double other_dist = 1.0;    ///< a winner measured on another distribution than the problem's
  double fallback = 1.0;      ///< the built-in default
};

/// The whole table.
struct TransferCosts {
  std::map<std::string, FamilyCosts, std::less<>> families;
  std::string default_family;  ///< whose costs price a family not in `families`
  double other_model = 1.0;    ///< evidence from another GPU model (scripts/fit_other_model.py: two models' logs)
  /// The factor on robust policy entries where concentrated_at holds, and the least n (the problem's and the
  /// entry's) it applies at. Measured on held-out problems, each timed against the entry of its own distribution (the
  /// document's "concentrated"); 1: off.
  double concentrated = 1.0;
  std::uint64_t concentrated_from = 0;
  std::string provenance;      ///< "NVIDIA H200, 2026-12-02, `autotune tune --preset standard`, data ..."
  /// The GPU the costs were measured on (DeviceInfo::name). On another model the built-in default's measured cost is
  /// another model's evidence too, and carries other_model like the shipped policy's entries.
  std::string gpu;

  /// The costs of `family` (default_family's when it has none). Error when neither is present.
  const FamilyCosts& of(std::string_view family) const;
};

/// Parses a transfer-cost document (runtime/transfer_costs.json's format). Error naming what is wrong.
TransferCosts parse_transfer_costs(std::string_view json);
/// The shipped table (runtime/transfer_costs.json, embedded at build time), parsed once. Thread-safe.
const TransferCosts& shipped_transfer_costs();

/// How much less a winner is trusted for where it came from, as a factor >= 1 on its predicted slowdown. Always 1
/// today: every winner in the cache counts as measured here. A winner imported from another machine (unverified)
/// is to rank below the same evidence measured locally: this is where its provenance is weighed.
double provenance_penalty(const Winner& winner);

/// One candidate at one n: a size of a piece of evidence, with its prediction.
struct Ranked {
  std::size_t evidence = 0;  ///< index in the gathered evidence
  std::size_t size = 0;      ///< index in its sizes
  double predicted = 1.0;    ///< predicted slowdown against the problem's own best
  double doublings = 0.0;    ///< |log2((n'+1)/(n+1))| (0 for the built-in default)
  ConfigSource source = ConfigSource::fallback;  ///< exact at the problem's own tuned n on this model, else the kind
  /// Priced from its own times at the tuned sizes around n (measured_between), not from the size curves alone.
  bool measured_between = false;

  bool operator==(const Ranked& o) const { return evidence == o.evidence && size == o.size; }
};

/// The time (ms) of size `s`'s configuration at an untuned n of the problem's own shape (nearest_size) between two of
/// its tuned sizes lo < n < hi whose tunings both timed it (EvidenceSize::measured): its times there interpolated
/// geometrically in log2(n+1). Where lo or hi lies on the other side of the configuration's one-block path from n
/// (EvidenceSize::one_block_up_to), its time at the other end, flat (even its own tuned size's: the size curves do not
/// know the path). nullopt otherwise (another kind of evidence, n tuned or outside the tuned sizes, not timed where
/// needed).
std::optional<double> time_between(const Evidence& e, const EvidenceSize& s, std::uint64_t n);
/// time_between's slowdown against the fastest n can expect from the shape's tunings: the least time_between of any
/// of its sizes at n, and the fastest times at lo and hi interpolated geometrically, unless the winner of lo or hi
/// runs n on the other side of its one-block path. nullopt where time_between is.
std::optional<double> measured_between(const Evidence& e, const EvidenceSize& s, std::uint64_t n);
/// Whether TransferCosts::concentrated prices the robust policy entries at `n`: it is above 1, n is at least
/// concentrated_from, the policy holds an entry of the problem's own distribution, and without it the best-ranked
/// candidate is a robust policy entry (measured at concentrated_from or more) whose configuration counts poorly on
/// concentrated samples (KernelFamily::slow_on_concentrated). All robust entries are then priced alike, so that the
/// answer moves to the problem's own distribution's entry rather than to another robust one.
bool concentrated_at(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& evidence,
                     std::uint64_t n);
/// The prediction for size `size` of `e` serving a problem of family `family` at `n`; `concentrated`: whether
/// TransferCosts::concentrated applies at n (nullopt: concentrated_at).
Ranked price(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& evidence,
             std::size_t e, std::size_t size, std::uint64_t n, std::optional<bool> concentrated = std::nullopt);
/// Whether `a` ranks before `b` (the tie rules above).
bool ranks_before(const Ranked& a, const Ranked& b, const std::vector<Evidence>& evidence);
/// Every piece of evidence at its best size for `n`, best first. Not empty when `evidence` is not.
std::vector<Ranked> rank_at(const TransferCosts& costs, std::string_view family, const std::vector<Evidence>& evidence,
                            std::uint64_t n);
/// rank_at(...).front() without ranking the rest (the size table asks it at every point it bisects); nullopt when no
/// evidence has a size.
std::optional<Ranked> best_at(const TransferCosts& costs, std::string_view family,
                              const std::vector<Evidence>& evidence, std::uint64_t n);

}  // namespace autotune
