// Size-ladder tuning (issue #14): one command tunes a problem shape at several sizes, then measures the crossover
// between adjacent sizes whose winners differ, so that the choice between two tuned sizes comes from measurement.
//
// A crossover is an ordinary tuned size: for adjacent sizes a < b with winners A != B, A, B and up to
// kCrossoverBridges bridging configurations (bridge_candidates: those that ran closest to the best at both a and b,
// from the two runs' own measurements), verified and timed with the tuner's harness (TuneOptions::candidates), are
// measured at m = crossover_size(a, b) (core/ladder.hpp) and recorded as a run of the problem at n = m with the
// strategy "crossover", whose winner is the fastest of them (pick_winner, as in every run). The exact lookup at m
// then returns it, and the nearest-size lookup of sizes around m sees three measured points instead of two.
// Why bridges: between two sizes the best configuration is often neither size's winner but one a few percent off
// at both. Over the standard preset's tuned sizes on an H200 (every variant measured at each), a size measured only
// with its two neighbours' winners (16x apart) was +1.2 % off its best in the median, +5.0 % at the 90th percentile
// and +13.8 % at worst; with four bridges added, +0.0 %, +1.4 % and +4.1 % (bench/results/2026-12-03e-crossover-bridges.md).
//
// Finished sizes: with LadderSettings::skip_finished, a size that already has a fresh winner measured with the
// current code (template, NVRTC, driver) is not tuned again, so that rerunning an interrupted ladder resumes the
// interrupted size (tune() resumes its run) and re-tunes nothing else. A crossover is measured again only when one
// of its neighbours was tuned by this command or when no fresh winner at m is one of the two neighbours' winners.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/tuner.hpp"

namespace autotune {

/// Why a crossover is or is not measured (crossover_decision).
enum class CrossoverDecision {
  measure,         ///< the winners differ and nothing current is recorded at m
  same_winner,     ///< both neighbours won with the same configuration: nothing to decide between them
  no_size_between, ///< the rounded geometric mean is not strictly between the two sizes
  recorded,        ///< a fresh winner at m is one of the two and neither neighbour was tuned by this command
};
std::string_view to_string(CrossoverDecision d);

/// The decision for adjacent tuned sizes a < b with winners `a_winner`, `b_winner`: `at_m`, the configuration of
/// the fresh winner recorded at m (nullopt when none, or when m does not exist), and whether a neighbour was tuned by
/// this command (its winner may have changed since m was measured). A winner at m that is one of `bridges` (the
/// crossover's other candidates) is recorded as well.
CrossoverDecision crossover_decision(const Config& a_winner, const Config& b_winner, std::uint64_t a, std::uint64_t b,
                                     const std::optional<Config>& at_m, bool neighbour_tuned_now,
                                     const std::vector<Config>& bridges = {});

/// How many bridging configurations a crossover measures besides the two winners.
inline constexpr std::size_t kCrossoverBridges = 4;

/// Crossovers are refined down to sizes this far apart: after the crossover at m between a and b, the crossovers
/// between a and m and between m and b are measured too (by the same decision) while their sizes are more than this
/// ratio apart. The default ladder (powers of 4) stops at its first crossovers (powers of 2); the standard
/// preset's sizes (16x apart) get crossovers at 4x, then at 2x where the winners differ: the resolution of the
/// default ladder. Why: between 64M and 256M f64 min and i32 sum change regime (evict-first loads win at 64M, lose
/// at 128M); a lookup at 100-128M between a 64M crossover and 256M took the 64M winner, 4.3-4.4 % slower than the
/// 256M one (bench/results/2026-12-04d-summary.md). 2.1, not 2: crossover_size rounds m by up to ~3 %.
inline constexpr double kCrossoverFinestRatio = 2.1;

/// Up to `count` configurations for a crossover between two tuned sizes besides their winners: measured ok in both
/// runs (`below`, `above`: the runs' measurements), ranked by the sum of log(time / the run's fastest time) over the
/// two runs (the geometric mean of their slowdowns), ties to the smaller key; the two winners left out.
std::vector<Config> bridge_candidates(const std::vector<Measurement>& below, const std::vector<Measurement>& above,
                                      const Config& below_winner, const Config& above_winner, std::size_t count);

/// The problems of a command grouped into ladders: problems of one shape (Problem::shape_key) in order of their
/// first appearance, each ladder's sizes ascending and each size once.
std::vector<std::vector<Problem>> group_ladders(const std::vector<Problem>& problems);

/// One tuning step of run_ladders: a size, or a crossover between two.
struct LadderStep {
  Problem problem;
  /// Empty: tune the size. A crossover (TuneOptions::candidates): the two winners (below's, above's), then its
  /// bridges (bridge_candidates).
  std::vector<Config> candidates;
  std::optional<Problem> below, above;  ///< a crossover's neighbours
  std::size_t size_number = 0;     ///< 1-based among every size of the command (a crossover: its upper neighbour's)
  std::size_t sizes = 0;           ///< sizes of the command (all ladders)
  std::size_t sizes_after = 0;     ///< sizes still to be tuned after this step, for an ETA
};

enum class StepOutcome { tuned, no_memory, failed };

struct LadderSettings {
  bool skip_finished = true;  ///< a size with a fresh winner measured with the current code is not tuned again
};

struct LadderEvents {
  /// Tunes the step (in this process or in a worker) and says how it went. Required.
  std::function<StepOutcome(const LadderStep&)> run;
  /// A size skipped because it is tuned already (its winner).
  std::function<void(const Problem&, const Winner&)> finished;
  /// A crossover not measured, and why (decision != measure), with the sizes and m when there is one.
  std::function<void(const Problem& below, const Problem& above, CrossoverDecision why)> crossover_skipped;
};

struct LadderSummary {
  std::size_t tuned = 0, skipped_finished = 0, no_memory = 0, failed = 0, crossovers = 0, crossovers_skipped = 0;
};

/// Runs every ladder of `problems` on `device`: each size (or skips it, see above), and after each pair of adjacent
/// sizes their crossover when crossover_decision says so. Winners are read from `cache` with the current code's
/// identity, so a worker process may do the tuning. Exceptions of events.run propagate.
LadderSummary run_ladders(const std::vector<Problem>& problems, Cache& cache, const DeviceInfo& device,
                          const LadderSettings& settings, const LadderEvents& events);

/// What tune_ladder did, in order: the reports of the runs it made (sizes and crossovers; a crossover's strategy is
/// "crossover"), the sizes skipped as finished and those that did not fit the GPU's memory.
struct LadderReport {
  std::vector<TuneReport> runs;
  std::vector<Problem> skipped_finished, no_memory;
  LadderSummary summary;
};

/// run_ladders in this process with tune(problem, cache, options) for every step (options.candidates is set for
/// crossovers).
LadderReport tune_ladder(const std::vector<Problem>& problems, Cache& cache, const TuneOptions& options,
                         const LadderSettings& settings = {});

}  // namespace autotune
