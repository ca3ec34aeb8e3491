#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/tuner.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/table.hpp"
#include "tests/cpu/cache_fixtures.hpp"

using namespace autotune;
using namespace autotune::cli;

namespace {
CommandLine parse(std::vector<std::string> args) { return parse_command_line(args); }

// The command line is refused with a UsageError whose message contains `needle`.
void refuses(const std::vector<std::string>& args, const std::string& needle) {
  CAPTURE(needle);
  try {
    parse_command_line(args);
    FAIL("accepted");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}

// Runs a command line as `autotune` would; returns the exit code, and what it printed in `out`.
int run_line(std::vector<std::string> args, std::string& out) {
  std::ostringstream o, e;
  const int code = run(parse(std::move(args)), o, e);
  out = o.str();
  return code;
}

// A cache with a fresh H100 winner and a stale A100 one (its template changed).
void fixture_cache(const std::string& path) {
  using namespace autotune::test;
  Cache c(path);
  tune(c, h100(), problem(M), config(256, 4), elf({'\0', 'h'}), run_info("00000000000000aa"));
  tune(c, a100(), problem(M), config(512, 8), {}, run_info("00000000000000a0"));
  REQUIRE(c.mark_stale({"00000000000000aa", 0, 0, "histogram"}) == 1);
}
}  // namespace

TEST_SUITE("cli") {
  TEST_CASE("no arguments and --help print the general help, which lists every subcommand") {
    for (auto args : {std::vector<std::string>{}, {"--help"}, {"-h"}, {"help"}}) {
      const auto cl = parse(args);
      REQUIRE(std::holds_alternative<HelpCommand>(cl.command));
      const auto& text = std::get<HelpCommand>(cl.command).text;
      for (const char* sub : {"tune", "devices", "show", "best", "compare", "bench", "report", "export", "import",
                              "merge", "gc", "help", "version"})
        CHECK(text.find(sub) != std::string::npos);
    }
  }

  TEST_CASE("every subcommand has its own --help with examples") {
    for (const char* sub : {"tune", "devices", "show", "best", "compare", "bench", "report", "export", "import", "merge",
                            "gc"}) {
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
    CHECK(t.devices == std::vector<int>{1});
    CHECK(t.samples == 7);
    CHECK(t.strategy == "exhaustive");
    CHECK(t.isolate);
    CHECK_FALSE(t.worker);
    CHECK_FALSE(t.default_set);
    REQUIRE(t.problems.size() == 1);
    REQUIRE(t.problems[0].as<HistogramProblem>());
    const auto& p = *t.problems[0].as<HistogramProblem>();
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
      const auto p = *std::get<TuneCommand>(parse_command_line(args).command).problems.at(0).as<HistogramProblem>();
      return std::pair{p.lower, p.upper};
    };
    CHECK(range({"--type", "u8", "--bins", "16"}) == std::pair{0.0, 256.0});
    CHECK(range({"--type", "u16", "--bins", "16"}) == std::pair{0.0, 65536.0});
    CHECK(range({"--type", "i32", "--bins", "16", "--lower", "-8"}) == std::pair{-8.0, 8.0});
    CHECK(range({"--type", "f32", "--bins", "16"}) == std::pair{0.0, 1.0});
    CHECK(range({"--type", "f32", "--bins", "16", "--lower", "-2", "--upper", "2"}) == std::pair{-2.0, 2.0});
  }

  TEST_CASE("the API's histogram problem without a range is the one `autotune tune` tunes, for every sample type") {
    // An application that names no range must look up what the tool tuned: the same key, or it silently runs the
    // built-in default.
    for (const SampleType t : all_sample_types()) {
      const std::string type(to_string(t));
      INFO(type);
      const auto cli = std::get<TuneCommand>(
          parse({"tune", "--kernel", "histogram", "--type", type, "--bins", "1000", "--n", "64M"}).command);
      REQUIRE(cli.problems.size() == 1);
      const HistogramProblem api{.type = t, .bins = 1000, .n = 64ull << 20};
      CHECK(cli.problems[0].key() == Problem(api).key());
      CHECK(cli.problems[0] == Problem(api));
      // With a lower bound too (32-bit integers count one value per bin from it).
      if (t == SampleType::u8 || t == SampleType::u16 || t == SampleType::u32) continue;  // -8 is not a u8/u16/u32
      const auto shifted = std::get<TuneCommand>(
          parse({"tune", "--kernel", "histogram", "--type", type, "--bins", "1000", "--lower", "-8", "--n", "64M"})
              .command);
      const HistogramProblem api_shifted{.type = t, .bins = 1000, .lower = -8, .n = 64ull << 20};
      CHECK(shifted.problems.at(0).key() == Problem(api_shifted).key());
    }
    // The ranges themselves, as the README documents them for the tool: floats [0, 1), 32-bit integers one value
    // per bin, u8 and u16 the whole type.
    CHECK(HistogramProblem{.type = SampleType::f32, .bins = 1000}.upper == 1.0);
    CHECK(HistogramProblem{.type = SampleType::f64, .bins = 10}.upper == 1.0);
    CHECK(HistogramProblem{.type = SampleType::i32, .bins = 100, .lower = -50}.upper == 50.0);
    CHECK(HistogramProblem{.type = SampleType::u16, .bins = 16}.upper == 65536.0);
    // Keys of existing caches do not change: the default problem is still u8 over [0, 256).
    CHECK(HistogramProblem{}.key() == "histogram/u8/bins=256/range=[0,256)/n=0/dist=uniform");
    CHECK(HistogramProblem{.n = 5}.key() == "histogram/u8/bins=256/range=[0,256)/n=5/dist=uniform");
  }

  TEST_CASE("tune with no problem flags takes the default set") {
    const auto cl = parse({"tune"});
    const auto& t = std::get<TuneCommand>(cl.command);
    CHECK(t.default_set);
    CHECK(t.devices == std::vector<int>{0});
    CHECK(t.problems == default_problems());
    CHECK(cl.cache_path.empty());  // resolved to the default path when the command runs
  }

  TEST_CASE("bad input is refused before any work, naming what was wrong") {
    refuses({"frobnicate"}, "unknown subcommand 'frobnicate'");
    // Boost's own message would substitute %original_token% into itself forever (a hang, found by fuzz_cli).
    refuses({"tune", "--b%original_token%"}, "--b%original_token%");
    refuses({"tune", "--type=%value%", "--type", "u8"}, "--type");
    refuses({"show", "--%canonical_option%x"}, "%canonical_option%");
    refuses({"tune", "--bogus"}, "bogus");
    refuses({"tune", "--bins", "-5", "--n", "1M"}, "--bins");
    refuses({"tune", "--bins", "abc", "--n", "1M"}, "not an integer");
    refuses({"tune", "--n", "abc"}, "--n");
    refuses({"tune", "--type", "f8", "--bins", "10", "--n", "1M"}, "unknown sample type 'f8'");
    refuses({"tune", "--type", "f32", "--bins", "10", "--lower", "1", "--upper", "1", "--n", "1M"}, "less than upper");
    refuses({"tune", "--type", "f32", "--bins", "10", "--lower", "2", "--upper", "1", "--n", "1M"}, "less than upper");
    refuses({"tune", "--kernel", "sort", "--n", "1M"}, "unknown kernel family 'sort'");
    refuses({"tune", "--type", "u16", "--n", "1M"}, "--bins is required");
    refuses({"tune", "--dist", "zipf", "--n", "1M"}, "unknown distribution 'zipf'");
    refuses({"tune", "--device", "-1"}, "--device");
    refuses({"tune", "--samples", "0"}, "--samples");
    refuses({"show", "--cache"}, "cache");
    refuses({"devices", "extra"}, "devices");
    refuses({"show", "--all", "extra"}, "show");
    refuses({"import"}, "FILE is required");
    refuses({"merge"}, "FILE is required");
    refuses({"merge", "a.db", "b.db"}, "merge");
    refuses({"import", ""}, "FILE is empty");
    refuses({"export", "--output", ""}, "--output: the file name is empty");
    refuses({"export", "stray"}, "export");
    refuses({"gc", "--all"}, "gc");
    // output formats and the new subcommands
    refuses({"show", "--json", "--csv"}, "--json and --csv exclude each other");
    refuses({"devices", "--csv", "--json"}, "--json and --csv exclude each other");
    refuses({"devices", "--xml"}, "xml");
    refuses({"show", "--device"}, "device");
    refuses({"show", "--device", ""}, "--device: the substring is empty");
    refuses({"show", "--problem", ""}, "--problem: the substring is empty");
    refuses({"best", "--n", "1M"}, "--device-model KEY or --device I");
    refuses({"best", "--n", "1M", "--device-model", "k", "--device", "0"}, "exclude each other");
    refuses({"best", "--device", "0"}, "--n is required");
    refuses({"best", "--n", "1M", "--device", "x"}, "--device: 'x' is not an integer");
    refuses({"best", "--n", "1M", "--device", "-2"}, "--device");
    refuses({"best", "--n", "1M", "--device-model", ""}, "--device-model: the model key is empty");
    refuses({"best", "--n", "1M", "--device", "0", "--source", ""}, "--source: the file name is empty");
    refuses({"best", "--n", "1M", "--device", "0", "--counters", "16"}, "--counters: '16' is not 32 or 64");
    refuses({"best", "--n", "1M", "--device", "0", "--type", "f8"}, "unknown sample type 'f8'");
    refuses({"best", "--n", "1M", "--device", "0", "--all"}, "best");
    refuses({"best", "--n", "1M", "--device", "0", "stray"}, "best");
    refuses({"tune", "--counters", "48", "--n", "1M"}, "--counters");
    refuses({"tune", "--channels", "5", "--n", "1M"}, "--channels: 5 is outside 1..4");
    refuses({"tune", "--channels", "2", "--active", "3", "--n", "1M"}, "--active: 3 is outside 1..2");
    refuses({"compare", "--device", "H100"}, "compare");
    refuses({"compare", "--problem", ""}, "--problem: the substring is empty");
    refuses({"compare", "--json", "--csv"}, "exclude each other");
    refuses({"report"}, "--output FILE is required");
    refuses({"report", "--output", ""}, "--output: the file name is empty");
    refuses({"report", "-o", "a.html", "--json"}, "report");
    refuses({"report", "-o", "a.html", "b.html"}, "report");
  }

  TEST_CASE("bad input of reductions, strategies, devices and bench is refused before any work, naming what was wrong") {
    refuses({"tune", "--kernel", "reduce", "--type", "f32", "--n", "1M"}, "--op is required");
    refuses({"tune", "--kernel", "reduce", "--op", "avg", "--type", "f32", "--n", "1M"}, "unknown operation 'avg'");
    refuses({"tune", "--kernel", "reduce", "--op", "sum", "--n", "1M"}, "--type is required");
    refuses({"tune", "--kernel", "reduce", "--op", "sum", "--type", "u8", "--n", "1M"}, "--type: unknown type 'u8'");
    refuses({"tune", "--kernel", "reduce", "--op", "sum", "--type", "f32", "--bins", "4", "--n", "1M"},
            "--bins is an option of --kernel histogram, histogram_range, not of --kernel reduce");
    refuses({"tune", "--kernel", "reduce", "--op", "sum", "--type", "f32", "--mode", "quick", "--n", "1M"},
            "--mode: 'quick'");
    refuses({"tune", "--kernel", "reduce", "--op", "max", "--type", "f32", "--acc", "f64", "--n", "1M"}, "acc");
    refuses({"tune", "--type", "u8", "--op", "sum", "--n", "1M"}, "--op is an option of --kernel reduce");
    refuses({"tune", "--strategy", "genetic"}, "unknown strategy 'genetic'");
    refuses({"tune", "--budget", "10"}, "--strategy random only");
    refuses({"tune", "--strategy", "random", "--budget", "0"}, "--budget");
    refuses({"tune", "--strategy", "random", "--budget-s", "-1"}, "--budget-s");
    refuses({"tune", "--devices", "0,x"}, "--devices: 'x' is not an integer");
    refuses({"tune", "--devices", "all", "--device", "0"}, "exclude each other");
    refuses({"tune", "--problem-key", "histogram/u8/nonsense"}, "not a problem key");
    refuses({"best", "--kernel", "reduce", "--op", "sum", "--type", "i32", "--n", "1M"}, "--device-model KEY");
    refuses({"bench", "--samples", "0"}, "--samples");
    refuses({"tune", "--dists", "uniform"}, "at least two distributions");
    refuses({"tune", "--dists", "uniform,zipf"}, "unknown distribution 'zipf'");
    refuses({"tune", "--dists", "uniform,runs", "--dist", "runs", "--n", "1M"}, "exclude each other");
    refuses({"bench", "--device", "-1"}, "--device");
    refuses({"bench", "--type", "u8"}, "--n is required");
    refuses({"bench", "--strategy", "random"}, "bench");
  }

  TEST_CASE("bench parses a problem, or takes the default set") {
    const auto b = std::get<BenchCommand>(
        parse({"bench", "--kernel", "reduce", "--op", "min", "--type", "f64", "--n", "256M", "--samples", "7", "--json"})
            .command);
    REQUIRE(b.problems.size() == 1);
    REQUIRE(b.problems[0].as<ReduceProblem>());
    CHECK(b.problems[0].as<ReduceProblem>()->op == ReduceOp::min);
    CHECK(b.problems[0].n() == 256ull << 20);
    CHECK(b.samples == 7);
    CHECK(b.format == OutputFormat::json);
    CHECK(std::get<BenchCommand>(parse({"bench"}).command).problems == default_problems());
  }

  TEST_CASE("tune and best parse a reduction; tune parses strategies, budgets and device lists") {
    const auto cl = parse({"tune", "--kernel", "reduce", "--op", "sum", "--type", "i32", "--n", "1M", "--strategy",
                           "random", "--budget", "12", "--budget-s", "2.5", "--devices", "1,0,1", "--no-isolate"});
    const auto& t = std::get<TuneCommand>(cl.command);
    REQUIRE(t.problems.size() == 1);
    const ReduceProblem* r = t.problems[0].as<ReduceProblem>();
    REQUIRE(r);
    CHECK(r->op == ReduceOp::sum);
    CHECK(r->type == ValueType::i32);
    CHECK(r->accumulator_type() == ValueType::i64);  // an i32 sum accumulates in 64 bits unless asked otherwise
    CHECK(r->n == 1024u * 1024u);
    CHECK(r->deterministic);
    CHECK(t.strategy == "random");
    CHECK(t.budget == 12);
    CHECK(t.budget_s == 2.5);
    CHECK(t.devices == std::vector<int>{1, 0});  // each ordinal once, in the order given
    CHECK_FALSE(t.isolate);

    const auto robust = std::get<TuneCommand>(parse({"tune", "--dists", "uniform,runs,uniform,image"}).command);
    CHECK(robust.dists == std::vector<std::string>{"uniform", "runs", "image"});

    const auto all = std::get<TuneCommand>(parse({"tune", "--devices", "all", "--strategy", "halving"}).command);
    CHECK(all.all_devices);
    CHECK(all.strategy == "halving");

    const auto fast = std::get<TuneCommand>(
        parse({"tune", "--kernel", "reduce", "--op", "sum", "--type", "f32", "--mode", "fast", "--acc", "f64", "--n",
               "64K", "--dist", "sorted"}).command);
    const ReduceProblem* f = fast.problems.at(0).as<ReduceProblem>();
    REQUIRE(f);
    CHECK_FALSE(f->deterministic);
    CHECK(f->accumulator_type() == ValueType::f64);
    CHECK(f->distribution == "sorted");

    // A worker gets its problem as a key, exactly as the parent printed it.
    const std::string key = t.problems[0].key();
    const auto worker = std::get<TuneCommand>(parse({"tune", "--worker", "--problem-key", key, "--device", "2"}).command);
    CHECK(worker.worker);
    CHECK(worker.devices == std::vector<int>{2});
    REQUIRE(worker.problems.size() == 1);
    CHECK(worker.problems[0] == t.problems[0]);

    const auto best = std::get<BestCommand>(
        parse({"best", "--kernel", "reduce", "--op", "max", "--type", "f64", "--n", "1M", "--device", "0"}).command);
    REQUIRE(best.problem.as<ReduceProblem>());
    CHECK(best.problem.as<ReduceProblem>()->op == ReduceOp::max);
  }

  TEST_CASE("show, devices, best, compare and report parse into their commands") {
    const auto show = std::get<ShowCommand>(
        parse({"show", "--device", "H100", "--problem", "u8/", "--csv", "--all", "--cache", "f.db"}).command);
    CHECK(show.device == "H100");
    CHECK(show.problem == "u8/");
    CHECK(show.all);
    CHECK(show.format == OutputFormat::csv);
    CHECK(std::get<ShowCommand>(parse({"show"}).command).format == OutputFormat::table);
    CHECK(std::get<ShowCommand>(parse({"show", "--json"}).command).format == OutputFormat::json);
    CHECK(std::get<DevicesCommand>(parse({"devices", "--json"}).command).format == OutputFormat::json);
    CHECK(std::get<DevicesCommand>(parse({"devices"}).command).format == OutputFormat::table);

    const auto cl = parse({"best", "--type", "f32", "--bins", "1024", "--lower", "-1", "--upper", "1", "--n", "16M",
                           "--dist", "runs", "--counters", "64", "--device-model", "NVIDIA H200|sm_90|132SM|143771MiB",
                           "--json", "--cache", "fleet.db"});
    const auto& best = std::get<BestCommand>(cl.command);
    CHECK(cl.cache_path == "fleet.db");
    CHECK(best.device_model == "NVIDIA H200|sm_90|132SM|143771MiB");
    CHECK(best.format == OutputFormat::json);
    REQUIRE(best.problem.as<HistogramProblem>());
    CHECK(best.problem.as<HistogramProblem>()->type == SampleType::f32);
    CHECK(best.problem.as<HistogramProblem>()->bins == 1024);
    CHECK(best.problem.as<HistogramProblem>()->lower == -1.0);
    CHECK(best.problem.as<HistogramProblem>()->upper == 1.0);
    CHECK(best.problem.n() == 16ull * 1024 * 1024);
    CHECK(best.problem.distribution() == "runs");
    CHECK(best.problem.as<HistogramProblem>()->counter_bits == 64);
    const auto by_device = std::get<BestCommand>(parse({"best", "--n", "1000", "--device", "1"}).command);
    CHECK(by_device.device == 1);
    CHECK(by_device.device_model.empty());
    CHECK(by_device.source_file.empty());
    CHECK(std::get<BestCommand>(parse({"best", "--n", "1000", "--device", "1", "--source", "k.cu"}).command)
              .source_file == "k.cu");
    CHECK(by_device.problem.as<HistogramProblem>()->type == SampleType::u8);
    CHECK(by_device.problem.as<HistogramProblem>()->counter_bits == 32);
    CHECK(std::get<TuneCommand>(parse({"tune", "--n", "1M", "--counters", "64"}).command)
              .problems.at(0).as<HistogramProblem>()->counter_bits == 64);
    {  // pixels: --channels alone counts every channel; --active the first A of them
      const auto rgba = std::get<TuneCommand>(parse({"tune", "--n", "1M", "--channels", "4", "--active", "3"}).command);
      CHECK(rgba.problems.at(0).as<HistogramProblem>()->channels == 4);
      CHECK(rgba.problems.at(0).as<HistogramProblem>()->active == 3);
      const auto all = std::get<BestCommand>(parse({"best", "--n", "1M", "--device", "0", "--channels", "2"}).command);
      CHECK(all.problem.as<HistogramProblem>()->channels == 2);
      CHECK(all.problem.as<HistogramProblem>()->active == 2);
    }
    CHECK(std::get<TuneCommand>(parse({"tune", "--type", "f64", "--bins", "100", "--lower", "-1e6", "--upper", "1e6",
                                       "--n", "1M"})
                                    .command)
              .problems.at(0)
              .as<HistogramProblem>()
              ->type == SampleType::f64);

    const auto cmp = std::get<CompareCommand>(parse({"compare", "--problem", "f32", "--csv"}).command);
    CHECK(cmp.problem == "f32");
    CHECK(cmp.format == OutputFormat::csv);
    CHECK(std::get<CompareCommand>(parse({"compare"}).command).format == OutputFormat::table);
    CHECK(std::get<ReportCommand>(parse({"report", "--output", "r.html"}).command).output == "r.html");
    CHECK(std::get<ReportCommand>(parse({"report", "-o", "r.html"}).command).output == "r.html");
  }

  TEST_CASE("export, import, merge, gc and show --all parse into their commands") {
    const auto exp = parse({"export"});
    REQUIRE(std::holds_alternative<ExportCommand>(exp.command));
    CHECK(std::get<ExportCommand>(exp.command).output == "-");
    for (auto args : {std::vector<std::string>{"export", "--output", "out.json"}, {"export", "-o", "out.json"}}) {
      const auto cl = parse(args);
      REQUIRE(std::holds_alternative<ExportCommand>(cl.command));
      CHECK(std::get<ExportCommand>(cl.command).output == "out.json");
    }
    const auto imp = parse({"import", "node17.json", "--cache", "fleet.db"});
    REQUIRE(std::holds_alternative<ImportCommand>(imp.command));
    CHECK(std::get<ImportCommand>(imp.command).file == "node17.json");
    CHECK(imp.cache_path == "fleet.db");
    CHECK(std::get<ImportCommand>(parse({"import", "-"}).command).file == "-");
    const auto mer = parse({"merge", "--cache", "fleet.db", "node17.db"});
    REQUIRE(std::holds_alternative<MergeCommand>(mer.command));
    CHECK(std::get<MergeCommand>(mer.command).file == "node17.db");
    CHECK(mer.cache_path == "fleet.db");
    CHECK(std::holds_alternative<GcCommand>(parse({"gc"}).command));
    CHECK_FALSE(std::get<ShowCommand>(parse({"show"}).command).all);
    CHECK(std::get<ShowCommand>(parse({"show", "--all"}).command).all);
  }

  TEST_CASE("show hides stale winners; show --all lists them, marked") {
    autotune::test::TempPath file;
    fixture_cache(file.str());
    std::string out;
    REQUIRE(run_line({"show", "--cache", file.str()}, out) == 0);
    CHECK(out.find("NVIDIA H100 80GB HBM3") != std::string::npos);
    CHECK(out.find("NVIDIA A100") == std::string::npos);
    CHECK(out.find("stale") == std::string::npos);
    REQUIRE(run_line({"show", "--all", "--cache", file.str()}, out) == 0);
    CHECK(out.find("NVIDIA H100 80GB HBM3") != std::string::npos);
    CHECK(out.find("NVIDIA A100-SXM4-40GB") != std::string::npos);
    CHECK(out.find("STALE: template 00000000000000a0 -> 00000000000000aa") != std::string::npos);
    CHECK(out.find("1 stale winner ") != std::string::npos);
  }

  TEST_CASE("export -> import -> merge -> gc on a fixture cache") {
    using autotune::test::TempPath;
    TempPath source, json, imported, merged;
    fixture_cache(source.str());
    std::string out;
    REQUIRE(run_line({"export", "--cache", source.str(), "--output", json.str()}, out) == 0);
    CHECK(out == "exported " + source.str() + " to " + json.str() + "\n");
    const auto doc = nlohmann::json::parse(autotune::test::read_bytes(json.path));
    CHECK(doc["format"] == "autotune-cache");
    CHECK(doc["runs"].size() == 2);

    // Unsigned: recorded as imported; the made-up cubin is not what NVRTC compiles here, so it is left out.
    REQUIRE(run_line({"import", json.str(), "--cache", imported.str()}, out) == 0);
    CHECK(out == "imported " + json.str() + " into " + imported.str() +
                     ": 2 devices, 1 problem, 2 templates, 2 runs, 2 measurements, 2 winners added or updated"
                     " (recorded as imported: never served as exact) (1 cubin left out: applications compile from "
                     "source)\n");
    REQUIRE(run_line({"import", json.str(), "--cache", imported.str()}, out) == 0);
    CHECK(out == "imported " + json.str() + " into " + imported.str() + ": nothing new\n");

    // Signed and trusted: the same contents as the source, cubin included.
    TempPath key, signed_json, trusted;
    REQUIRE(run_line({"keygen", "--output", key.str()}, out) == 0);
    REQUIRE(run_line({"export", "--cache", source.str(), "--sign", key.str(), "--output", signed_json.str()}, out) == 0);
    REQUIRE(run_line({"import", signed_json.str(), "--trust", key.str() + ".pub", "--cache", trusted.str()}, out) == 0);
    CHECK(out.find(" (signed by trusted key ") != std::string::npos);
    CHECK(autotune::test::dump_contents(trusted.str()) == autotune::test::dump_contents(source.str()));
    std::filesystem::remove(key.str() + ".pub");

    // A merged file is another machine's data too: the same as the unsigned import.
    REQUIRE(run_line({"merge", source.str(), "--cache", merged.str()}, out) == 0);
    CHECK(out.find("merged " + source.str() + " into " + merged.str() + ": 2 devices") == 0);
    CHECK(autotune::test::dump_contents(merged.str()) == autotune::test::dump_contents(imported.str()));

    REQUIRE(run_line({"gc", "--cache", merged.str()}, out) == 0);
    CHECK(out == "deleted 4 stale rows from " + merged.str() + "\n");  // winner, measurement, run, template
    REQUIRE(run_line({"gc", "--cache", merged.str()}, out) == 0);
    CHECK(out == "no stale rows in " + merged.str() + "\n");
    REQUIRE(run_line({"show", "--all", "--cache", merged.str()}, out) == 0);
    CHECK(out.find("NVIDIA A100") == std::string::npos);
  }

  TEST_CASE("export --problem / --device-model writes what an application ships; a filter matching nothing fails") {
    using autotune::test::TempPath;
    const std::string h100 = autotune::test::h100().model_key(), a100 = autotune::test::a100().model_key();
    const auto e = std::get<ExportCommand>(
        parse({"export", "--problem", "u8/bins=256/", "--problem", "range=[0,256)", "--device-model", h100}).command);
    CHECK(e.filter.problems == std::vector<std::string>{"u8/bins=256/", "range=[0,256)"});
    CHECK(e.filter.device_models == std::vector<std::string>{h100});
    CHECK(std::get<ExportCommand>(parse({"export"}).command).filter.empty());

    TempPath source, json, none;
    fixture_cache(source.str());  // an H100 and an A100 run of one problem
    std::string out;
    REQUIRE(run_line({"export", "--cache", source.str(), "--problem", "u8/bins=256/", "--device-model", h100,
                      "--output", json.str()}, out) == 0);
    const auto doc = nlohmann::json::parse(autotune::test::read_bytes(json.path));
    REQUIRE(doc["runs"].size() == 1);
    CHECK(doc["runs"][0]["device"] == h100);
    REQUIRE(doc["devices"].size() == 1);
    CHECK(doc["devices"][0]["model_key"] == h100);
    REQUIRE(run_line({"export", "--cache", source.str(), "--device-model", a100}, out) == 0);  // to stdout
    CHECK(nlohmann::json::parse(out)["runs"].size() == 1);

    CHECK_THROWS_WITH_AS(run_line({"export", "--cache", source.str(), "--problem", "f32/", "--output", none.str()}, out),
                         doctest::Contains("no run in"), UsageError);
    CHECK_FALSE(std::filesystem::exists(none.path));  // nothing written, no temporary file left
    CHECK_THROWS_AS(run_line({"export", "--cache", source.str(), "--device-model", "H100"}, out), UsageError);  // exact keys
  }

  TEST_CASE("import or merge of a missing file fails clearly and creates nothing") {
    autotune::test::TempPath cache, missing;
    std::string out;
    CHECK_THROWS_WITH_AS(run_line({"import", missing.str(), "--cache", cache.str()}, out),
                         doctest::Contains(("cannot open '" + missing.str() + "'").c_str()), Error);
    CHECK_THROWS_WITH_AS(run_line({"merge", missing.str(), "--cache", cache.str()}, out),
                         doctest::Contains(("'" + missing.str() + "' does not exist").c_str()), CacheError);
    CHECK_FALSE(std::filesystem::exists(cache.path));
    CHECK_FALSE(std::filesystem::exists(missing.path));
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

  TEST_CASE("histogram levels per channel: --bins, --lower and --upper take one value or one per active channel") {
    const auto rgba = std::get<TuneCommand>(parse({"tune", "--n", "1M", "--channels", "4", "--active", "3", "--bins",
                                                   "256,64,17", "--lower", "0,0,10", "--upper", "256,256,200"})
                                                .command);
    const HistogramProblem* p = rgba.problems.at(0).as<HistogramProblem>();
    REQUIRE(p);
    CHECK(p->counters() == 337);
    CHECK(p->channel(1) == HistogramChannel{64, 0, 256});
    CHECK(p->channel(2) == HistogramChannel{17, 10, 200});
    // One --lower for all, --upper defaulted per channel from its bins (f32: 1).
    const auto f = std::get<BestCommand>(parse({"best", "--n", "1M", "--device", "0", "--type", "f32", "--channels",
                                                "4", "--active", "2", "--bins", "100,37", "--lower", "-1"})
                                             .command);
    const HistogramProblem* q = f.problem.as<HistogramProblem>();
    REQUIRE(q);
    CHECK(q->channel(0) == HistogramChannel{100, -1, 1});
    CHECK(q->channel(1) == HistogramChannel{37, -1, 1});
    // Equal lists are the problem without levels: the key of before.
    const auto same = std::get<BenchCommand>(parse({"bench", "--n", "1M", "--channels", "3", "--bins", "64,64,64"})
                                                 .command);
    CHECK(same.problems.at(0).key() == "histogram/u8/bins=64/range=[0,256)/n=1048576/dist=uniform/channels=3/active=3");
    refuses({"tune", "--n", "1M", "--channels", "4", "--active", "3", "--bins", "256,64"},
            "--bins: 2 values for 3 active channels");
    refuses({"tune", "--n", "1M", "--bins", "256,64"}, "--bins: 2 values for 1 active channels");
    refuses({"tune", "--n", "1M", "--channels", "2", "--bins", "256,x"}, "--bins");
    refuses({"tune", "--n", "1M", "--channels", "2", "--bins", "256,0"}, "--bins: 0 is outside 1..16777216");
    refuses({"tune", "--n", "1M", "--channels", "2", "--upper", "256,300"}, "channel 1: range [0, 300) does not fit u8");
    refuses({"tune", "--n", "1M", "--channels", "2", "--lower", "0,,"}, "--lower: 3 values for 2 active channels");
  }

  TEST_CASE("histogram 2D regions: --row-pixels and --row-stride name the layout best, bench and tune measure on") {
    const auto best = std::get<BestCommand>(parse({"best", "--n", "33177600", "--device", "0", "--channels", "4",
                                                   "--active", "3", "--row-pixels", "7680", "--row-stride", "32768"})
                                                .command);
    const HistogramProblem* p = best.problem.as<HistogramProblem>();
    REQUIRE(p);
    CHECK(p->row_pixels == 7680);
    CHECK(p->row_stride_bytes == 32768);
    // Without --row-stride the rows are packed: a stride of one row.
    const auto bench = std::get<BenchCommand>(parse({"bench", "--n", "1000", "--row-pixels", "100"}).command);
    CHECK(bench.problems.at(0).as<HistogramProblem>()->row_stride_bytes == 100);
    refuses({"bench", "--n", "1000", "--row-stride", "128"}, "--row-stride needs --row-pixels");
    refuses({"bench", "--n", "1000", "--row-pixels", "0"}, "--row-pixels: 0 is not a positive number of pixels");
    refuses({"bench", "--n", "1000", "--row-pixels", "x"}, "--row-pixels");
    refuses({"bench", "--n", "1000", "--row-pixels", "300"}, "--n 1000 is not a whole number of rows of 300 pixels");
    refuses({"bench", "--n", "1000", "--row-pixels", "100", "--row-stride", "99"},
            "--row-stride: 99 bytes do not hold a row of 100 bytes");
    refuses({"bench", "--n", "1000", "--channels", "4", "--row-pixels", "100", "--row-stride", "402"},
            "in whole pixels of 4");
    refuses({"bench", "--kernel", "reduce", "--op", "sum", "--type", "f32", "--n", "1000", "--row-pixels", "100"},
            "--row-pixels is an option of --kernel histogram");
  }
}
