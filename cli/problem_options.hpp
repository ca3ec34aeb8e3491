// The problem options of the CLI (--kernel, --n, --dist and each family's own, e.g. --bins or --op), built from the
// registered families (core/family.hpp): a family's options and their help appear without editing cli/.
#pragma once

#include <boost/program_options.hpp>

#include <string>

#include "autotune/problem.hpp"

namespace autotune::cli {

/// --kernel, --n, --dist and every registered family's problem parameters (one option per name; a name that
/// several families share lists each family's help).
boost::program_options::options_description problem_options(const char* title);
/// Whether any problem option was given.
bool any_problem_option(const boost::program_options::variables_map& vm);
/// The problem the options name (--kernel selects the family, the first registered by default). UsageError for a
/// missing --n, an option the family does not take, or a value the family refuses.
Problem make_problem(const boost::program_options::variables_map& vm);
/// "PROBLEM: --kernel F1 --opt ... --n SIZE [--dist D]\n     or: ..." for the synopsis of tune, best and bench.
std::string problem_synopsis();
/// One example line per family, "  autotune SUB --kernel F EXAMPLE_OPTIONS\n".
std::string problem_examples(const std::string& subcommand);

}  // namespace autotune::cli
