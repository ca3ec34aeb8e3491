// The problem options of the CLI (--kernel, --n, --dist and each family's own, e.g. --bins or --op), built from the
// registered families (core/family.hpp): a family's options and their help appear without editing cli/.
#pragma once

#include <boost/program_options.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/problem.hpp"

namespace autotune::cli {

/// --kernel, --n, --dist and every registered family's problem parameters (one option per name; a name that
/// several families share lists each family's help).
/// With `sizes`, --n is documented as `autotune tune` reads it (lists and ladders, the default ladder).
boost::program_options::options_description problem_options(const char* title, bool sizes = false);
/// Whether any problem option was given.
bool any_problem_option(const boost::program_options::variables_map& vm);
/// The problem the options name (--kernel selects the family, the first registered by default). UsageError for a
/// missing --n, a list or ladder of sizes (`subcommand` takes one size: the message names it), an option the family
/// does not take, or a value the family refuses.
Problem make_problem(const boost::program_options::variables_map& vm, const std::string& subcommand = "best");

/// The sizes an `autotune tune --n` text names, ascending:
///   "64M"            one size (parse_size);
///   "4K,64K,1M"      a list (any order; each item a size; no empty item, no 0, no duplicate);
///   "64K..256M"      a ladder: powers of 4 from LO up to HI, and HI itself when a step does not land on it;
///   "1M..64M:x2"     the same with another integer factor (at least 2).
/// At most kMaxLadderSizes (32) sizes. UsageError (without the "--n: " prefix) naming what is wrong.
struct SizeList {
  std::vector<std::uint64_t> sizes;
  bool several = false;  ///< a list or a ladder (even of one size), not a single size
};
SizeList parse_size_list(const std::string& text);

/// `autotune tune`'s problems: the named problem at every size of --n (parse_size_list), or at each size of the
/// default ladder (core/ladder.hpp) when --n is not given. `ladder` says whether more than one size was asked for
/// (a list, a ladder or the default ladder).
std::vector<Problem> make_problems(const boost::program_options::variables_map& vm, bool& ladder);
/// "PROBLEM: --kernel F1 --opt ... --n SIZE [--dist D]\n     or: ..." for the synopsis of tune, best and bench;
/// with `sizes` (tune), "[--n SIZES]": a list or a ladder, the default ladder when left out.
std::string problem_synopsis(bool sizes = false);
/// One example line per family, "  autotune SUB --kernel F EXAMPLE_OPTIONS\n".
std::string problem_examples(const std::string& subcommand);

}  // namespace autotune::cli
