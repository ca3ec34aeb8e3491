// What each subcommand does, given parsed options. Output goes to the streams passed in, so tests capture it.
#pragma once

#include <iosfwd>

#include "cli/options.hpp"

namespace autotune::cli {

/// Runs the parsed command; returns the process exit code (0 ok, 1 runtime failure). Throws autotune::Error
/// subclasses for failures that main() reports.
int run(const CommandLine& cl, std::ostream& out, std::ostream& err);

}  // namespace autotune::cli
