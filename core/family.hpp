// A kernel family as a plug-in: everything the family-independent code (tuner, cache, lookup, CLI, report) needs
// from one family, behind one interface, and the registry that lists the families.
//
// A family lives in one folder, kernel_templates/<name>/: its problem and configuration types, its template, its
// search space, CPU reference, launcher and tuner workload, and a KernelFamily implementation that ties them
// together. kernel_templates/registry.cpp is the one place that names the built-in families; tests add their own
// with register_family(). Nothing outside a family's folder and the registry names a family.
//
// Thread-safety: families are immutable once registered; every member is callable from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "core/workload.hpp"

namespace autotune {

/// One problem parameter as the CLI offers it: `--NAME VALUE`. Every family's problems also take --n and --dist,
/// which the CLI handles for all of them.
struct ProblemParameter {
  std::string name;        ///< "bins": the option --bins
  std::string value_name;  ///< "N", shown in the help
  std::string help;        ///< one line
};

/// The problem options given on a command line: option name -> text as typed. Always holds "n" (the size text, as
/// typed) and "dist" when given.
using ProblemOptions = std::map<std::string, std::string, std::less<>>;

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;

  /// "histogram": the first part of its problem keys, the value of `--kernel` and of the cache's family column.
  virtual std::string_view name() const = 0;
  /// One line for help texts.
  virtual std::string_view summary() const = 0;

  // --- vocabulary ------------------------------------------------------------------------------------------------
  /// A problem from its canonical key, or nullopt. Problem::parse checks that it prints back to the same key.
  virtual std::optional<Problem> parse_problem(std::string_view key) const = 0;
  /// A problem from a key a cache file of an older schema may hold: the same parts, each value in any spelling its
  /// reader takes ("range=[0.0,256.0)"), so that the cache can respell it canonically. By default parse_problem.
  virtual std::optional<Problem> parse_stored_key(std::string_view key) const { return parse_problem(key); }
  /// The names of the key's parts between the family's name and its first "name=value" part, in order: {"op",
  /// "type"} for "reduce/sum/f32/acc=f32/...". With the named parts they name every parameter of a problem, as the
  /// cache stores them (core/key_parameters.hpp); a part's name is what a user would query ("type" for a sample or
  /// value type, as in every built-in family).
  virtual std::vector<std::string> key_part_names() const = 0;
  virtual std::optional<Config> parse_config(std::string_view key) const = 0;
  /// The safe configuration used when nothing was tuned: valid for every problem of the family on every GPU.
  virtual Config fallback(const Problem& problem) const = 0;
  /// How far a tuned problem's shape is from a wanted one, for the lookup's similar-problem step: nullopt when the
  /// tuned problem's winner says nothing about the wanted one (another sample type, operator, ...), else a
  /// non-negative distance (0 = the same shape; 1 = bins 2x apart for a histogram).
  virtual std::optional<double> shape_distance(const Problem& wanted, const Problem& tuned) const = 0;
  /// The measured default policy's distance (runtime/policy.hpp): shape_distance, and where that has no answer (another
  /// sample type, ...) a larger one when the family's configurations carry over at all, so that a shape the policy
  /// holds nothing of its own kind for still gets measured data rather than the built-in default.
  virtual std::optional<double> policy_distance(const Problem& wanted, const Problem& tuned) const {
    return shape_distance(wanted, tuned);
  }
  /// Why `config` cannot run `problem` (its own rules, and the device's limits when `device` is given), or empty.
  virtual std::string violation(const Problem& problem, const Config& config, const DeviceInfo* device) const = 0;
  /// A configuration tuned for another shape, made runnable for `problem` (the wanted shape at the size `config` was
  /// measured at, where it will serve): `config` itself when it is valid (change
  /// empty), else the family's closest valid variant of it with what changed (e.g. a histogram whose bins no longer
  /// fit 32-bit shared counters keeps its privatization with 16-bit ones instead of falling to global atomics), else
  /// nullopt. Used by the similar-problem step and the policy (runtime/resolution.cpp, runtime/policy.cpp). The
  /// default adapts nothing.
  struct Adapted {
    Config config;
    std::string change;  ///< "" when unchanged, else e.g. "cbits=16, merge=atomic"
  };
  virtual std::optional<Adapted> adapt_config(const Problem& problem, const Config& config,
                                              const DeviceInfo* device) const {
    if (!violation(problem, config, device).empty()) return std::nullopt;
    return Adapted{config, {}};
  }
  /// `config` with evict-first input loads (ld.global.cs) when `evict_first`, plain loads when not, where the family's
  /// configurations have that choice and the result is valid for `problem` (and `device`'s limits): `config` itself
  /// when it already loads so; nullopt when it cannot (no such field, or loads it does not apply to). The lookup's
  /// size rule (runtime/streaming.hpp). TypedFamily answers it for every configuration type with a `load_cs` field.
  virtual std::optional<Config> with_evict_first(const Problem& problem, const Config& config, bool evict_first,
                                                 const DeviceInfo* device) const {
    (void)problem, (void)config, (void)evict_first, (void)device;
    return std::nullopt;
  }
  /// `config`, measured at `measured_n`, served at `problem`'s smaller n: with less work per block where that keeps
  /// the blocks a grid covering n launches at the number it launched at measured_n (at most one per SM of `device`),
  /// valid for `problem`; nullopt where the family has no such rule or nothing changes. The lookup's grid rule
  /// (runtime/grid_by_size.hpp).
  virtual std::optional<Config> keeping_grid(const Problem& problem, const Config& config, std::uint64_t measured_n,
                                             const DeviceInfo& device) const {
    (void)problem, (void)config, (void)measured_n, (void)device;
    return std::nullopt;
  }
  /// What `problem` runs in place of `config` from some n on, where the family knows from measurement that `config`'s
  /// kind of kernel loses to another there (not a tuning: a rule of the family's): the first such n, the configuration
  /// (valid for `problem` and `device`'s limits) and why; nullopt where the family has no such rule for them. The
  /// lookup's replacement rule (runtime/replace_by_size.hpp).
  struct Replacement {
    std::uint64_t n_from = 0;
    Config config;
    std::string why;
  };
  virtual std::optional<Replacement> replaced_from(const Problem& problem, const Config& config,
                                                   const DeviceInfo* device) const {
    (void)problem, (void)config, (void)device;
    return std::nullopt;
  }
  /// `config`, a one-launch merge whose output the kernel zeroes itself, as the merge into an output zeroed by an
  /// overlapped zeroing launch on `device` (sm_90+: programmatic dependent launch), valid for `problem`; nullopt where
  /// the family has no such pair or `config` is not such a merge. The lookup's one-launch rule
  /// (runtime/one_launch.hpp).
  virtual std::optional<Config> with_overlapped_zeroing(const Problem& problem, const Config& config,
                                                        const DeviceInfo& device) const {
    (void)problem, (void)config, (void)device;
    return std::nullopt;
  }
  /// The largest n at which `config` runs `problem` in one block that reads every element and writes the result
  /// itself, a code path of its own: nothing handed over between blocks, so that a time measured on one side of it
  /// says little about the other (a reduction's one-block path, kernel_templates/reduction_launch.hpp; a histogram's
  /// grid of one block or one cluster, kernel_templates/histogram_launch.hpp). The lookup interpolates a
  /// configuration's measured times only between sizes on the same side as n (runtime/rank.hpp). 0 where the family
  /// has no such path; the largest std::uint64_t where the configuration always runs one block.
  virtual std::uint64_t one_block_up_to(const Problem& problem, const Config& config) const {
    (void)problem, (void)config;
    return 0;
  }
  /// Whether `config` is of a kind measured to lose, on samples concentrated on few values (the narrow and runs
  /// distributions), to what the shipped policy fitted on those samples: a histogram's 16-bit shared counters, whose
  /// adds return their word to see a wrap and so serialize on hot counters. Where the policy holds an entry of the
  /// problem's own distribution, the lookup prices a robust entry of such a configuration higher
  /// (TransferCosts::concentrated, runtime/rank.hpp). false by default.
  virtual bool slow_on_concentrated(const Config& config) const {
    (void)config;
    return false;
  }
  /// Operations one call puts on the stream (memsets and kernels): the first cost of the tuner's tie-break.
  virtual int launches(const Config& config) const = 0;
  /// Dynamic shared memory of a variant for a problem, in bytes.
  virtual std::size_t shared_bytes(const Problem& problem, const Config& config) const = 0;
  /// A configuration's place in the report's heat map: block size x loads in flight, within its algorithm.
  struct ReportAxes {
    int block = 0;
    int loads = 0;
    std::string algorithm;  ///< e.g. "shared/R=32"
  };
  virtual ReportAxes report_axes(const Config& config) const = 0;
  /// The reference implementation `autotune bench` and the report compare with, e.g. "CUB HistogramEven".
  virtual std::string_view baseline_name() const = 0;

  // --- code -------------------------------------------------------------------------------------------------------
  /// The complete CUDA source of one variant (UsageError when the configuration is not valid for the problem).
  virtual std::string kernel_source(const Problem& problem, const Config& config) const = 0;
  /// What the tuner compiles and times (tuning_source in problem.hpp): kernel_source unless the family leaves out
  /// entry points the problem's calls never run.
  virtual std::string tuning_source(const Problem& problem, const Config& config) const {
    return kernel_source(problem, config);
  }
  /// Everything that decides what a configuration's code is (the template and what generates its preamble): its
  /// hash is the family's code identity, stored with every run (core/identity.cpp).
  virtual std::string code_text() const = 0;

  // --- tuning -----------------------------------------------------------------------------------------------------
  /// The input distributions the family can generate (the first is the default, "uniform").
  virtual std::vector<std::string> distributions() const = 0;
  /// Whether `autotune tune --dists` records a robust winner across distributions (dist=robust) for it.
  virtual bool robust_across_distributions() const { return false; }
  /// Whether the distribution is part of the problem's shape (segment lengths) rather than a hint about the input
  /// values: the measured default policy then weighs an entry's own distribution (policy_distance) instead of
  /// reading every entry as if measured on the wanted one.
  virtual bool distribution_is_shape() const { return false; }
  /// The configurations the tuner measures for `problem` (its workload's space, core/workload.hpp), known without a
  /// GPU: what `autotune tune` compiles ahead for the problems after the one it tunes (tuner/ahead_compile.hpp).
  /// Empty when the family does not say (nothing is compiled ahead for it).
  virtual std::vector<Config> space(const Problem& problem) const {
    (void)problem;
    return {};
  }
  /// The problems of the family in `autotune tune`'s default set.
  virtual std::vector<Problem> default_problems() const = 0;
  /// The problems of the family in the tuning preset `preset` (`autotune tune --preset NAME`, tuner/preset.hpp),
  /// one per size; empty when the family has none in it.
  virtual std::vector<Problem> preset_problems(std::string_view preset) const {
    (void)preset;
    return {};
  }
  /// The family's measured default policy (runtime/policy.hpp): JSON written by scripts/fit_policy.py from a tuned
  /// preset, embedded from the family's folder; empty when the family has none (the lookup then ends at fallback()).
  virtual std::string_view policy_data() const { return {}; }
  /// Device memory one call's output takes (the tuner checks that input, output and its buffers fit before it
  /// allocates anything).
  virtual std::uint64_t output_bytes(const Problem& problem) const = 0;
  /// The problem made ready on the current GPU for the tuner: its input, CPU answer and space (core/workload.hpp).
  virtual std::unique_ptr<Workload> make_workload(const Problem& problem, const DeviceInfo& device,
                                                  std::uint64_t seed) const = 0;

  // --- command line -----------------------------------------------------------------------------------------------
  /// The problem options besides --n and --dist, in the order the help lists them.
  virtual std::vector<ProblemParameter> problem_parameters() const = 0;
  /// A problem from the options given (only this family's options, "n" and "dist"); UsageError names the option.
  virtual Problem make_problem(const ProblemOptions& options) const = 0;
  /// The options that name this problem on the command line, besides --kernel, --n and --dist, spelled so that
  /// make_problem reads them back to the same problem (e.g. "--type f32 --bins 1000 --lower 0 --upper 1").
  virtual std::string command_options(const Problem& problem) const = 0;
  /// An example command line's problem options for the help, e.g. "--type u8 --bins 256 --n 64M".
  virtual std::string example_options() const = 0;
};

/// The registered families, built-in ones first (kernel_templates/registry.cpp), in registration order.
std::vector<const KernelFamily*> families();
/// The family named `name`, or nullptr.
const KernelFamily* find_family(std::string_view name);
/// The family named `name`; UsageError listing the known ones when there is none.
const KernelFamily& family_named(std::string_view name);
/// Adds a family (a test's, or an application's own). UsageError when its name is taken. Not thread-safe against
/// concurrent lookups: register before other threads use the library.
void register_family(std::unique_ptr<KernelFamily> family);

/// The built-in families, defined in kernel_templates/registry.cpp: the one list of them.
std::vector<std::unique_ptr<KernelFamily>> built_in_families();

}  // namespace autotune
