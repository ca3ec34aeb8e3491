// autotune: the command-line tool. The only try/catch that maps errors to exit codes and stderr lives here:
// 0 success, 1 runtime failure (no GPU, cache unreadable, CUDA error), 2 usage error.
#include <iostream>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return autotune::cli::run(autotune::cli::parse_command_line(args), std::cout, std::cerr);
  } catch (const autotune::UsageError& e) {
    std::cerr << "autotune: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "autotune: " << e.what() << "\n";
    return 1;
  }
}
