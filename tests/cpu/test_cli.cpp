#include <doctest/doctest.h>

#include <sstream>

#include "autotune/error.hpp"
#include "autotune/tuner.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/table.hpp"

using namespace autotune;
using namespace autotune::cli;

namespace {
CommandLine parse(std::vector<std::string> args) { return parse_command_line(args); }
}  // namespace

TEST_SUITE("cli") {
  TEST_CASE("no arguments and --help print the general help, which lists every subcommand") {
    for (auto args : {std::vector<std::string>{}, {"--help"}, {"-h"}, {"help"}}) {
      const auto cl = parse(args);
      REQUIRE(std::holds_alternative<HelpCommand>(cl.command));
      const auto& text = std::get<HelpCommand>(cl.command).text;
      for (const char* sub : {"tune", "devices", "show", "help", "version"}) CHECK(text.find(sub) != std::string::npos);
    }
  }

  TEST_CASE("every subcommand has its own --help with examples") {
    for (const char* sub : {"tune", "devices", "show"}) {
      CAPTURE(sub);
      const auto cl = parse({sub, "--help"});
      REQUIRE(std::holds_alternative<HelpCommand>(cl.command));
      const auto& text = std::get<HelpCommand>(cl.command).text;
      CHECK(text.find(std::string("autotune ") + sub) != std::string::npos);
      CHECK(text.find("Examples:") != std::string::npos);
      CHECK(text.find("--cache") != std::string::npos);
    }
    const auto cl = parse({"help", "tune"});
    REQUIRE(std::holds_alternative<HelpCommand>(cl.command));
    CHECK(std::get<HelpCommand>(cl.command).text.find("--bins") != std::string::npos);
  }

  TEST_CASE("tune parses a named histogram problem") {
    const auto cl = parse({"tune", "--kernel", "histogram", "--type", "u8", "--bins", "256", "--n", "64M", "--cache",
                           "/tmp/x.db", "--device", "1", "--samples", "7"});
    REQUIRE(std::holds_alternative<TuneCommand>(cl.command));
    const auto& t = std::get<TuneCommand>(cl.command);
    CHECK(cl.cache_path == "/tmp/x.db");
    CHECK(t.device == 1);
    CHECK(t.samples == 7);
    CHECK_FALSE(t.default_set);
    REQUIRE(t.problems.size() == 1);
    const auto& p = t.problems[0];
    CHECK(p.type == SampleType::u8);
    CHECK(p.bins == 256);
    CHECK(p.lower == 0.0);
    CHECK(p.upper == 256.0);
    CHECK(p.n == 64ull * 1024 * 1024);
    CHECK(p.distribution == "uniform");
  }

  TEST_CASE("tune defaults the range by type") {
    auto range = [](std::vector<std::string> extra) {
      std::vector<std::string> args{"tune", "--n", "1000"};
      args.insert(args.end(), extra.begin(), extra.end());
      const auto p = std::get<TuneCommand>(parse_command_line(args).command).problems.at(0);
      return std::pair{p.lower, p.upper};
    };
    CHECK(range({"--type", "u8", "--bins", "16"}) == std::pair{0.0, 256.0});
    CHECK(range({"--type", "u16", "--bins", "16"}) == std::pair{0.0, 65536.0});
    CHECK(range({"--type", "i32", "--bins", "16", "--lower", "-8"}) == std::pair{-8.0, 8.0});
    CHECK(range({"--type", "f32", "--bins", "16"}) == std::pair{0.0, 1.0});
    CHECK(range({"--type", "f32", "--bins", "16", "--lower", "-2", "--upper", "2"}) == std::pair{-2.0, 2.0});
  }

  TEST_CASE("tune with no problem flags takes the default set") {
    const auto cl = parse({"tune"});
    const auto& t = std::get<TuneCommand>(cl.command);
    CHECK(t.default_set);
    CHECK(t.device == 0);
    CHECK(t.problems == default_histogram_problems());
    CHECK(cl.cache_path.empty());  // resolved to the default path when the command runs
  }

  TEST_CASE("bad input is refused before any work, naming what was wrong") {
    auto refuses = [](std::vector<std::string> args, std::string needle) {
      CAPTURE(needle);
      try {
        parse_command_line(args);
        FAIL("accepted");
      } catch (const UsageError& e) {
        CHECK(std::string(e.what()).find(needle) != std::string::npos);
      }
    };
    refuses({"frobnicate"}, "unknown subcommand 'frobnicate'");
    refuses({"tune", "--bogus"}, "bogus");
    refuses({"tune", "--bins", "-5", "--n", "1M"}, "--bins");
    refuses({"tune", "--bins", "abc", "--n", "1M"}, "not an integer");
    refuses({"tune", "--n", "abc"}, "--n");
    refuses({"tune", "--type", "f64", "--bins", "10", "--n", "1M"}, "unknown sample type 'f64'");
    refuses({"tune", "--type", "f32", "--bins", "10", "--lower", "1", "--upper", "1", "--n", "1M"}, "less than upper");
    refuses({"tune", "--type", "f32", "--bins", "10", "--lower", "2", "--upper", "1", "--n", "1M"}, "less than upper");
    refuses({"tune", "--kernel", "sort", "--n", "1M"}, "unknown kernel family 'sort'");
    refuses({"tune", "--type", "u16", "--n", "1M"}, "--bins is required");
    refuses({"tune", "--type", "u8"}, "--n is required");
    refuses({"tune", "--dist", "zipf", "--n", "1M"}, "unknown distribution 'zipf'");
    refuses({"tune", "--device", "-1"}, "--device");
    refuses({"tune", "--samples", "0"}, "--samples");
    refuses({"show", "--cache"}, "cache");
    refuses({"devices", "extra"}, "devices");
  }

  TEST_CASE("show on an empty cache says there is nothing yet") {
    CommandLine cl;
    cl.command = ShowCommand{};
    cl.cache_path = ":memory:";
    std::ostringstream out, err;
    CHECK(run(cl, out, err) == 0);
    CHECK(out.str().find("no winners recorded") != std::string::npos);
  }

  TEST_CASE("version prints the library version") {
    std::ostringstream out, err;
    CHECK(run(parse({"--version"}), out, err) == 0);
    CHECK(out.str() == "autotune " + version() + "\n");
  }

  TEST_CASE("tables align their columns") {
    Table t({"a", "long header"});
    t.add({"wide cell", "x"});
    CHECK(t.render() == "a          long header\n---------  -----------\nwide cell  x\n");
  }
}
