// libFuzzer target: the command-line parser (cli/options.cpp's parse_command_line) on untrusted arguments. The input
// is the argument vector with NUL bytes between the arguments. Every bad flag or value must be refused with
// UsageError (exit code 2 in main); any other exception, a crash or a sanitizer report is a bug. Nothing is run.
// Seeds: corpus/cli/ (the README's command lines).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "cli/options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args;
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(std::move(current));
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (size) args.push_back(std::move(current));
  if (args.size() > 64) return 0;  // a command line, not a stress test of Boost's containers
  try {
    (void)autotune::cli::parse_command_line(args);
  } catch (const autotune::UsageError&) {
  }
  return 0;
}
