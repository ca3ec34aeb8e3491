// The tuner: walks a problem's search space on one GPU, verifies every variant against the CPU reference, times the
// correct ones, and records every measurement and the winner in the cache.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/problem.hpp"

namespace autotune {

struct TuneOptions {
  int device = 0;         ///< CUDA ordinal
  int warmup = 2;         ///< untimed calls before the samples of each variant
  int samples = 30;       ///< at most this many timed calls per variant; the median is kept
  int min_samples = 5;    ///< at least this many (or `samples`, if smaller)
  double target_noise = 0.005;  ///< stop sampling once the median's relative standard error is below this
  double max_ms_per_variant = 1000.0;  ///< sampling time cap per variant
  /// A variant whose first two timed calls are both more than this many times the fastest median measured so far in
  /// the run stops there, recorded with those samples (its warm-up is its first call): it cannot win, and sampling it
  /// to the minimum spent most of a large tuning run. 0 samples every variant to the stopping rule.
  double slow_cut = 4.0;
  int finalists = 4;      ///< the fastest few (and any others within 1 % of the fastest, up to 3x as many) are
                          ///< re-measured interleaved at the end, then the tie-break decides
  int final_rounds = 10;  ///< interleaved rounds of that re-measurement
  bool flush_l2 = true;   ///< overwrite a buffer twice the L2 size before every sample (cold-cache timing)
  bool resume = true;     ///< continue an interrupted run of the same problem, model and code (skip what it measured)
  bool compile_cache = true;      ///< keep compiled cubins on disk (a re-tune compiles nothing)
  std::string compile_cache_dir;  ///< empty = beside the default cache ($AUTOTUNE_CUBIN_CACHE overrides)
  std::uint64_t seed = 42;
  int compile_threads = 0;  ///< parallel NVRTC compilations; 0 = hardware concurrency
  /// How configurations are chosen (recorded with the run; resume only continues a run of the same strategy):
  ///   "exhaustive": every configuration, each sampled until the stopping rule is met;
  ///   "random":     `budget` configurations drawn with `seed` (default a quarter of the space, at least 8), always
  ///                 including the built-in default, and no more once `budget_s` seconds have passed (0 = no cap);
  ///   "halving":    successive halving: every configuration gets a short measurement (3 samples), the fastest
  ///                 quarter (at least 2 * finalists) is measured again under the full stopping rule.
  /// Every strategy ends with the interleaved finalists and the same tie-break.
  std::string strategy = "exhaustive";
  int budget = 0;
  /// A crossover run (issue #14, tuner/ladder.hpp): when not empty, exactly these configurations are measured (each
  /// checked against the CPU reference and timed as any variant, a configuration the problem or the device cannot
  /// run recorded as invalid_config), instead of the family's space; the run is recorded with the strategy
  /// "crossover" whatever `strategy` says, and its winner is chosen as every run's is (interleaved re-measurement,
  /// pick_winner). Configurations of another family than the problem's: UsageError.
  std::vector<Config> candidates;
  double budget_s = 0.0;
  /// For a worker process (see `autotune tune`): when a variant faults and the CUDA context is lost, record it and
  /// throw ContextLostError instead of recording the rest as not run; a new process resumes the run.
  bool stop_on_fault = false;
  /// Testing aid: the configuration with this key is launched on an invalid input address, so that it faults
  /// (illegal address) like a broken kernel would. Empty = none.
  std::string inject_fault;
  /// Called after each variant is measured (or rejected), from the calling thread.
  std::function<void(std::size_t done, std::size_t total, const Measurement&)> on_measurement;
  /// Called before a variant is loaded and run on the GPU, and after its outcome is recorded (also in successive
  /// halving's second round; not in the interleaved final re-measurement). A worker tells its parent's watchdog
  /// (cli/watchdog.hpp), which ends a worker whose variant stays in flight too long.
  std::function<void(const Config&)> on_variant_start, on_variant_end;
  /// Configurations (by key) that hung in an earlier worker of this run and were ended by its watchdog: recorded as
  /// launch_error with the given log instead of being run again.
  std::map<std::string, std::string> timed_out;
};

/// Thrown by tune() with TuneOptions::stop_on_fault when a variant faulted: the CUDA context of this process is
/// unusable. The faulting variant is recorded (launch_error), the run is left unfinished so that it resumes.
class ContextLostError : public Error {
 public:
  using Error::Error;
};

/// Thrown by tune() before anything is allocated or recorded when the problem does not fit the GPU's free memory:
/// the message says how much it needs and how much is free (device_memory_shortfall, core/workload.hpp). A ladder
/// skips such a size and goes on.
class DeviceMemoryError : public Error {
 public:
  using Error::Error;
};

/// The strategy name of crossover runs (TuneOptions::candidates): not one of tune_strategies().
inline constexpr const char* kCrossoverStrategy = "crossover";

struct TuneReport {
  Problem problem;
  std::string strategy;
  DeviceInfo device;
  std::int64_t run_id = 0;
  std::vector<Measurement> measurements;  ///< one per configuration of the space, in space order
  std::optional<Measurement> winner;      ///< the fastest correct variant, if any
  std::optional<Measurement> fallback;    ///< the built-in default's measurement, for the speedup figure
  double seconds = 0.0;                   ///< wall time of the whole run
  double roof_gbps = 0.0;                 ///< the device's read roof, measured at the start of the run
  int compiled = 0;                       ///< variants NVRTC compiled in this run
  int compile_cache_hits = 0;             ///< variants whose cubin came from the on-disk compile cache
  int resumed = 0;                        ///< variants taken from an interrupted run instead of measured again
  int throttled_samples = 0;              ///< slow outlier samples dropped (clock throttling)
  int fully_measured = 0;                 ///< variants sampled under the full stopping rule in this run
};

/// Tunes `problem` (any family) on options.device and records the run in `cache`: first the device's read roof (a 16-byte
/// streaming read, kernel_templates/roof.cu; stored with Cache::set_device_roof, so every measurement gets its
/// % of roof), then every configuration. Throws NoDeviceError without a GPU, UsageError for an invalid problem;
/// a variant that fails is recorded with its status, never thrown.
///
/// Timing: each variant is sampled until its median settles (StoppingRule in tuner/timing.hpp, from the options),
/// slow outliers from throttled clocks are dropped, and the fastest `finalists` are re-measured interleaved; the
/// winner is then chosen by pick_winner() (near-ties inside the noise go to the cheapest configuration), so two runs
/// on one GPU choose the same winner.
TuneReport tune(const Problem& problem, Cache& cache, const TuneOptions& options = {});

/// Strategies TuneOptions::strategy accepts, in a fixed order.
const std::vector<std::string>& tune_strategies();

/// Measures the read roof of the current device in GB/s: median of `samples` 16-byte streaming reads of `bytes`.
/// With `compile_cache_dir`, the roof kernel's cubin is kept there (jit::compile_cached) like the variants'.
double measure_read_roof(const DeviceInfo& device, std::size_t bytes, int samples,
                         const std::string& compile_cache_dir = {});

/// The problems `autotune tune` runs when none is named: every registered family's default problems
/// (KernelFamily::default_problems).
std::vector<Problem> default_problems();

/// A tuning preset: a grid of common problems `autotune tune --preset NAME` tunes in one command (each family says
/// which of its problems are in it: KernelFamily::preset_problems).
struct TunePreset {
  std::string name;                ///< "standard"
  std::string summary;             ///< one line for the help
  /// Distributions each problem of a family that keeps robust winners is tuned on (its robust winner is recorded as
  /// dist=robust); empty = the problems' own distribution.
  std::vector<std::string> dists;
};
/// Every preset, in the order the help lists them.
const std::vector<TunePreset>& tune_presets();
/// The preset named `name`; UsageError listing the presets when there is none.
const TunePreset& tune_preset(std::string_view name);
/// The problems of a preset across every registered family, one per size.
std::vector<Problem> preset_problems(const TunePreset& preset);

/// Library version, e.g. "0.1.0".
std::string version();

}  // namespace autotune
