// Command-line parsing for `autotune`: Boost.Program_options stays in cli/, and fills plain structs.
// parse_command_line takes a vector of strings so it is unit-tested without running anything.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "autotune/problem.hpp"

namespace autotune::cli {

struct HelpCommand {
  std::string text;  ///< what to print (general help or one subcommand's)
};
struct VersionCommand {};
struct DevicesCommand {};
struct TuneCommand {
  std::vector<HistogramProblem> problems;  ///< the default set when none was named
  bool default_set = false;
  int device = 0;
  int samples = 15;
  int warmup = 2;
  bool flush_l2 = true;
};
struct ShowCommand {
  bool all = false;  ///< --all: stale winners too, marked as such
};
struct ExportCommand {
  std::string output = "-";  ///< --output FILE; "-" is standard output
};
struct ImportCommand {
  std::string file;  ///< an `autotune export` document; "-" is standard input
};
struct MergeCommand {
  std::string file;  ///< another cache file, only read
};
struct GcCommand {};

using Command = std::variant<HelpCommand, VersionCommand, DevicesCommand, TuneCommand, ShowCommand, ExportCommand,
                             ImportCommand, MergeCommand, GcCommand>;

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
