// Command-line parsing for `autotune`: Boost.Program_options stays in cli/, and fills plain structs.
// parse_command_line takes a vector of strings so it is unit-tested without running anything.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/problem.hpp"
#include "cli/format.hpp"

namespace autotune::cli {

struct HelpCommand {
  std::string text;  ///< what to print (general help or one subcommand's)
};
struct VersionCommand {};
struct DevicesCommand {
  OutputFormat format = OutputFormat::table;  ///< --json / --csv
};
struct TuneCommand {
  std::vector<Problem> problems;  ///< the default set when none was named; one per size of --n
  bool default_set = false;
  std::string preset;  ///< --preset NAME (tuner: TunePreset); its problems are in `problems`
  /// More than one size was asked for (--n LIST or LO..HI, a problem without --n: the default ladder, or the default
  /// set): sizes already tuned with the current code are skipped unless --retune (tuner/ladder.hpp).
  bool ladder = false;
  bool retune = false;            ///< --retune: tune every size again, finished or not
  std::vector<int> devices{0};    ///< --device I, or --devices all / 0,2: each distinct GPU model once
  bool all_devices = false;       ///< --devices all (resolved to ordinals when run)
  int samples = 15;
  int warmup = 2;
  bool flush_l2 = true;
  /// Compile the variants of the later problems into the compile cache while the current ones are measured, at the
  /// lowest CPU priority (tuner/ahead_compile.hpp); --no-compile-ahead: only when the tuner needs them.
  bool compile_ahead = true;
  std::string strategy = "exhaustive";  ///< --strategy
  int budget = 0;                        ///< --budget K (random)
  double budget_s = 0.0;                 ///< --budget-s SECONDS (random)
  bool isolate = true;                   ///< run each problem in a worker process (--no-isolate: in this process)
  bool worker = false;                   ///< (hidden) this process is a worker: --worker
  std::string inject_fault;              ///< (hidden, testing) --inject-fault CONFIG_KEY
  std::string inject_hang;  ///< (hidden, testing) --inject-hang CONFIG_KEY: a worker stops there, as on a hung kernel
  /// --variant-timeout SECONDS: a worker whose variant runs this long without finishing is ended and the variant
  /// recorded as launch_error ("timed out after N s"); 0 = never (cli/watchdog.hpp).
  double variant_timeout_s = 10.0;
  std::vector<std::string> timed_out;  ///< (hidden, worker) --timed-out CONFIG_KEY: hung an earlier worker
  int progress_fd = -1;                ///< (hidden, worker) --progress-fd N: where "start/done KEY" lines go
  /// (hidden, worker) --crossover CONFIG_KEY, twice: measure exactly these two configurations (a ladder's crossover).
  std::vector<std::string> crossover;
  /// (hidden, worker) --progress-scope STARTED,DONE,SIZES_AFTER,NUMBER,SIZES: the ladder's progress so far, so that
  /// the worker's bar and ETA cover the whole command (cli/progress.hpp).
  std::string progress_scope;
  /// --dists D1,D2,...: each histogram problem is tuned on every one of these distributions (per-distribution
  /// winners), then its robust winner across them is recorded as dist=robust (tuner/robust.hpp).
  std::vector<std::string> dists;
};
struct ShowCommand {
  bool all = false;     ///< --all: stale winners too, marked as such
  std::string device;   ///< --device SUBSTRING: only devices whose name or model key contains it
  std::string problem;  ///< --problem SUBSTRING: only problems whose key contains it
  OutputFormat format = OutputFormat::table;
};
/// One lookup, answered in the runtime API's order (exact, nearest tuned size, built-in default); only reads.
struct BestCommand {
  Problem problem;
  std::string device_model;  ///< --device-model KEY (a model key as `show --json` / `devices` print it)
  int device = -1;           ///< --device I: the model of this machine's GPU I (when device_model is empty)
  std::string source_file;   ///< --source FILE: the answered configuration's CUDA source, as a handle compiles it
  OutputFormat format = OutputFormat::table;
};
struct CompareCommand {
  std::string problem;  ///< --problem SUBSTRING
  OutputFormat format = OutputFormat::table;
};
/// The tuned configuration against CUB on one GPU (cli/bench.hpp).
struct BenchCommand {
  std::vector<Problem> problems;  ///< the default set when none was named
  int device = 0;
  int samples = 20;
  OutputFormat format = OutputFormat::table;
};
struct ReportCommand {
  std::string output;  ///< --output FILE.html
};
struct ExportCommand {
  std::string output = "-";  ///< --output FILE; "-" is standard output
  ExportFilter filter;       ///< --problem SUBSTRING (repeatable), --device-model KEY (repeatable)
  std::string sign;          ///< --sign KEYFILE: a private key of `autotune keygen`; empty: unsigned
};
struct ImportCommand {
  std::string file;  ///< an `autotune export` document; "-" is standard input
  bool no_cubins = false;  ///< --no-cubins: results only; applications compile from source
  std::vector<std::string> trust;  ///< --trust KEYFILE (repeatable): public keys whose signature is required
};
/// Creates a signing key pair for `export --sign` / `import --trust`.
struct KeygenCommand {
  std::string output;  ///< --output FILE: the private key; FILE.pub the public one
};
struct MergeCommand {
  std::string file;  ///< another cache file, only read
  bool no_cubins = false;  ///< --no-cubins
};
struct GcCommand {};
/// Lists every row of the cache that breaks an invariant of the schema (Cache::invariant_violations); only reads.
struct CheckCommand {};

using Command = std::variant<HelpCommand, VersionCommand, DevicesCommand, TuneCommand, ShowCommand, BestCommand,
                             CompareCommand, BenchCommand, ReportCommand, ExportCommand, ImportCommand, MergeCommand, GcCommand,
                             CheckCommand, KeygenCommand>;

struct CommandLine {
  Command command;
  std::string cache_path;  ///< --cache, or Cache::default_path() when not given (resolved lazily: empty here)
};

/// Parses the arguments after the program name. Throws UsageError (exit code 2) naming the bad flag or value;
/// every value is checked here, before any work starts.
CommandLine parse_command_line(const std::vector<std::string>& args);

/// The general help text (lists the subcommands).
std::string general_help();

}  // namespace autotune::cli
