// autotune: the command-line tool. The only try/catch that maps errors to exit codes and stderr lives here:
// 0 success, 1 runtime failure (no GPU, cache unreadable, CUDA error), 2 usage error. A message is printed as one
// line with control characters escaped: it may quote hostile input (a name from an imported cache, a flag value).
#include <iostream>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "cli/commands.hpp"
#include "cli/format.hpp"
#include "cli/options.hpp"

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return autotune::cli::run(autotune::cli::parse_command_line(args), std::cout, std::cerr);
  } catch (const autotune::UsageError& e) {
    std::cerr << "autotune: " << autotune::cli::printable_line(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "autotune: " << autotune::cli::printable_line(e.what()) << "\n";
    return 1;
  }
}
