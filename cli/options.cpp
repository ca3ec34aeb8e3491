#include "cli/options.hpp"

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <sstream>

#include "autotune/error.hpp"
#include "autotune/tuner.hpp"

namespace po = boost::program_options;

namespace autotune::cli {

namespace {

constexpr const char* kSubcommands =
    "Subcommands:\n"
    "  tune      tune histogram problems on a GPU and record the results in the cache\n"
    "  devices   list the CUDA devices of this machine with their cache fingerprint\n"
    "  show      print the winners recorded in the cache, per device and problem\n"
    "  best      answer one lookup as the C++ API would: exact, nearest tuned size or built-in default\n"
    "  compare   the same problems side by side across the devices of one cache\n"
    "  report    write a self-contained HTML report with charts\n"
    "  export    write the whole cache as a portable JSON document\n"
    "  import    add an exported JSON document to the cache\n"
    "  merge     add every result of another cache file to the cache\n"
    "  gc        delete stale results (of a changed template, NVRTC or driver)\n"
    "  help      print this help, or `autotune help SUBCOMMAND`\n"
    "  version   print the version\n";

std::string usage_of(const std::string& name, const po::options_description& desc, const char* synopsis,
                     const char* examples) {
  std::ostringstream out;
  out << "Usage: autotune " << name << " " << synopsis << "\n\n" << desc << "\nExamples:\n" << examples;
  return out.str();
}

po::options_description common_options() {
  po::options_description d("Common options");
  d.add_options()("cache", po::value<std::string>()->value_name("FILE"),
                  "SQLite cache file (default: $AUTOTUNE_CACHE, else $XDG_CACHE_HOME/autotune/autotune.db, else "
                  "~/.cache/autotune/autotune.db)")("help,h", "print this subcommand's help");
  return d;
}

po::options_description problem_options(const char* title) {
  po::options_description d(title);
  d.add_options()
      ("kernel", po::value<std::string>()->value_name("FAMILY"), "kernel family: histogram")
      ("type", po::value<std::string>()->value_name("T"), "sample type: u8, u16, i32, u32, f32")
      ("bins", po::value<std::string>()->value_name("N"), "number of bins (>= 1)")
      ("lower", po::value<std::string>()->value_name("X"), "lowest sample counted (default 0)")
      ("upper", po::value<std::string>()->value_name("X"),
       "samples >= upper are not counted (default: 256 for u8, 65536 for u16, lower + bins for i32/u32, 1 for f32)")
      ("n", po::value<std::string>()->value_name("SIZE"), "samples per run, e.g. 1000, 64K, 64M, 1G")
      ("dist", po::value<std::string>()->value_name("D"), "input distribution: uniform, constant, runs")
      ("counters", po::value<std::string>()->value_name("BITS"), "output counter width: 32 (default) or 64");
  return d;
}

po::options_description format_options() {
  po::options_description d("Output format");
  d.add_options()("json", "print JSON instead of a table")("csv", "print CSV (RFC 4180) instead of a table");
  return d;
}

po::options_description tune_options() {
  po::options_description d = problem_options("Tune options");
  d.add_options()
      ("device", po::value<std::string>()->value_name("ORDINAL"), "CUDA device (default 0)")
      ("samples", po::value<std::string>()->value_name("K"), "timed runs per variant (default 15)")
      ("no-flush", "time with a warm L2 (default: flush the L2 before every timed run)");
  return d;
}

long long to_integer(const std::string& flag, const std::string& text) {
  try {
    std::size_t pos = 0;
    const long long v = std::stoll(text, &pos);
    if (pos == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--{}: '{}' is not an integer", flag, text));
}

double to_double(const std::string& flag, const std::string& text) {
  try {
    std::size_t pos = 0;
    const double v = std::stod(text, &pos);
    if (pos == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--{}: '{}' is not a number", flag, text));
}

// Parses `args` against `desc`, refusing unknown flags and stray positional words (beyond `positionals`).
po::variables_map parse(const std::string& sub, const std::vector<std::string>& args,
                        const po::options_description& desc, const po::positional_options_description& positionals) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).positional(positionals).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(fmt::format("autotune {}: {} (see `autotune {} --help`)", sub, e.what(), sub));
  }
  return vm;
}

HistogramProblem make_problem(const po::variables_map& vm);

TuneCommand make_tune(const po::variables_map& vm) {
  TuneCommand t;
  auto str = [&](const char* k) { return vm.count(k) ? vm[k].as<std::string>() : std::string(); };
  if (vm.count("device")) {
    const long long d = to_integer("device", str("device"));
    if (d < 0) throw UsageError(fmt::format("--device: {} is not a device ordinal (0, 1, ...)", d));
    t.device = static_cast<int>(d);
  }
  if (vm.count("samples")) {
    const long long s = to_integer("samples", str("samples"));
    if (s < 1 || s > 10000) throw UsageError(fmt::format("--samples: {} is outside 1..10000", s));
    t.samples = static_cast<int>(s);
  }
  t.flush_l2 = vm.count("no-flush") == 0;

  const bool any_problem_flag = vm.count("kernel") || vm.count("type") || vm.count("bins") || vm.count("lower") ||
                                vm.count("upper") || vm.count("n") || vm.count("dist") || vm.count("counters");
  if (!any_problem_flag) {
    t.problems = default_histogram_problems();
    t.default_set = true;
    return t;
  }
  t.problems = {make_problem(vm)};
  return t;
}

OutputFormat make_format(const po::variables_map& vm) {
  if (vm.count("json") && vm.count("csv")) throw UsageError("--json and --csv exclude each other: choose one");
  if (vm.count("json")) return OutputFormat::json;
  if (vm.count("csv")) return OutputFormat::csv;
  return OutputFormat::table;
}

// A histogram problem from --kernel/--type/--bins/--lower/--upper/--n/--dist/--counters (tune and best).
HistogramProblem make_problem(const po::variables_map& vm) {
  auto str = [&](const char* k) { return vm.count(k) ? vm[k].as<std::string>() : std::string(); };
  if (vm.count("kernel") && str("kernel") != "histogram")
    throw UsageError(fmt::format("--kernel: unknown kernel family '{}' (known: histogram)", str("kernel")));
  HistogramProblem p;
  if (vm.count("type")) {
    const auto type = parse_sample_type(str("type"));
    if (!type) throw UsageError(fmt::format("--type: unknown sample type '{}' (known: u8, u16, i32, u32, f32)", str("type")));
    p.type = *type;
  }
  if (vm.count("bins")) {
    const long long b = to_integer("bins", str("bins"));
    if (b < 1 || b > (1 << 24)) throw UsageError(fmt::format("--bins: {} is outside 1..16777216", b));
    p.bins = static_cast<int>(b);
  } else if (p.type != SampleType::u8) {
    throw UsageError("--bins is required for sample types other than u8");
  }
  p.lower = vm.count("lower") ? to_double("lower", str("lower")) : 0.0;
  if (vm.count("upper")) p.upper = to_double("upper", str("upper"));
  else if (is_float(p.type)) p.upper = 1.0;
  else if (p.type == SampleType::u8) p.upper = 256.0;    // the whole type: bins split it evenly
  else if (p.type == SampleType::u16) p.upper = 65536.0;
  else p.upper = p.lower + p.bins;                       // 32-bit types: one value per bin
  if (!vm.count("n")) throw UsageError("--n is required when a problem is named (e.g. --n 64M)");
  try {
    p.n = parse_size(str("n"));
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--n: {}", e.what()));
  }
  if (vm.count("dist")) p.distribution = str("dist");
  if (vm.count("counters")) {
    const std::string c = str("counters");
    if (c != "32" && c != "64") throw UsageError(fmt::format("--counters: '{}' is not 32 or 64", c));
    p.counter_bits = c == "32" ? 32 : 64;
  }
  p.validate();
  return p;
}

}  // namespace

std::string general_help() {
  return fmt::format(
      "autotune {}: picks the fastest CUDA kernel variant for each GPU\n\n"
      "Usage: autotune SUBCOMMAND [OPTIONS]\n\n{}\n"
      "Every subcommand takes --cache FILE and --help.\n\n"
      "Examples:\n"
      "  autotune devices\n"
      "  autotune tune                     # the default problems on GPU 0\n"
      "  autotune tune --kernel histogram --type u8 --bins 256 --n 64M\n"
      "  autotune show --cache ./results.db --device H100 --json\n"
      "  autotune best --type u8 --bins 256 --n 64M --device 0\n"
      "  autotune compare --cache fleet.db\n"
      "  autotune report --output report.html\n"
      "  autotune merge node17.db --cache fleet.db\n",
      version(), kSubcommands);
}

CommandLine parse_command_line(const std::vector<std::string>& args) {
  CommandLine cl;
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    cl.command = HelpCommand{general_help()};
    return cl;
  }
  if (args[0] == "--version" || args[0] == "version") {
    cl.command = VersionCommand{};
    return cl;
  }
  const std::string sub = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "help") {
    if (rest.empty()) {
      cl.command = HelpCommand{general_help()};
      return cl;
    }
    std::vector<std::string> again{rest[0], "--help"};
    return parse_command_line(again);
  }

  po::options_description desc = common_options();
  po::options_description hidden;                  // positional arguments: parsed, but named in the synopsis
  po::positional_options_description positionals;  // empty: a stray word is an error, not ignored
  const char* synopsis = "[OPTIONS]";
  const char* examples = "";
  if (sub == "tune") {
    desc.add(tune_options());
    synopsis = "[--kernel histogram --type T --bins N --n SIZE [--lower X --upper X] [--dist D]] [--device I]";
    examples =
        "  autotune tune                                   # the default problems on GPU 0\n"
        "  autotune tune --kernel histogram --type u8 --bins 256 --n 64M\n"
        "  autotune tune --type f32 --bins 1024 --lower 0 --upper 1 --n 16M --device 1 --cache fleet.db\n";
  } else if (sub == "devices") {
    desc.add(format_options());
    synopsis = "[--json | --csv]";
    examples = "  autotune devices\n  autotune devices --json\n";
  } else if (sub == "show") {
    po::options_description show("Show options");
    show.add_options()
        ("all", "also list stale winners (their template, NVRTC or driver changed), marked as such")
        ("device", po::value<std::string>()->value_name("SUBSTRING"),
         "only devices whose name or model key contains SUBSTRING")
        ("problem", po::value<std::string>()->value_name("SUBSTRING"),
         "only problems whose key contains SUBSTRING, e.g. u8/bins=256");
    desc.add(show).add(format_options());
    synopsis = "[--all] [--device SUBSTRING] [--problem SUBSTRING] [--json | --csv]";
    examples =
        "  autotune show\n  autotune show --cache fleet.db --device H100\n"
        "  autotune show --problem f32/bins=1024 --csv > winners.csv\n  autotune show --all --json\n";
  } else if (sub == "best") {
    po::options_description best = problem_options("Problem");
    best.add_options()
        ("device-model", po::value<std::string>()->value_name("KEY"),
         "the GPU model to answer for, as its model key (`autotune show --json` and `devices` print them); no GPU needed")
        ("device", po::value<std::string>()->value_name("ORDINAL"), "the model of this machine's CUDA device I");
    desc.add(best).add(format_options());
    synopsis =
        "--n SIZE [--type T --bins N --lower X --upper X --dist D --counters 32|64] (--device-model KEY | --device I)\n\n"
        "Answers as the C++ API would: the exact problem on the model, else the nearest tuned size on the model,\n"
        "else the built-in default; prints which. Only reads the cache (stale winners are never answered).";
    examples =
        "  autotune best --type u8 --bins 256 --n 64M --device 0\n"
        "  autotune best --type f32 --bins 1024 --n 10M --device-model 'NVIDIA H100 80GB HBM3|sm_90|132SM|81090MiB' "
        "--cache fleet.db --json\n";
  } else if (sub == "compare") {
    po::options_description cmp("Compare options");
    cmp.add_options()("problem", po::value<std::string>()->value_name("SUBSTRING"),
                      "only problems whose key contains SUBSTRING");
    desc.add(cmp).add(format_options());
    synopsis = "[--problem SUBSTRING] [--json | --csv]\n\n"
               "Per problem, each device's winner, GB/s, % of its roof, time relative to the fastest device, and\n"
               "whether its configuration is the fastest device's.";
    examples = "  autotune compare --cache fleet.db\n  autotune compare --problem u8/bins=256 --csv\n";
  } else if (sub == "report") {
    po::options_description rep("Report options");
    rep.add_options()("output,o", po::value<std::string>()->value_name("FILE"),
                      "the HTML file to write (required)");
    desc.add(rep);
    synopsis = "--output FILE.html\n\n"
               "One self-contained HTML file (inline CSS and SVG, no scripts, no network): per problem, a heat map of\n"
               "GB/s over block size x loads per thread, the winner against the device's read roof, and the\n"
               "devices side by side.";
    examples = "  autotune report --output report.html\n  autotune report --cache fleet.db -o fleet.html\n";
  } else if (sub == "export") {
    po::options_description exp("Export options");
    exp.add_options()("output,o", po::value<std::string>()->value_name("FILE"),
                      "write the document to FILE instead of standard output (- is standard output)");
    desc.add(exp);
    synopsis = "[--output FILE]";
    examples =
        "  autotune export --output node17.json      # on each machine of a fleet\n"
        "  autotune export --cache fleet.db > fleet.json\n";
  } else if (sub == "import" || sub == "merge") {
    hidden.add_options()("file", po::value<std::string>());
    positionals.add("file", 1);
    synopsis = sub == "import" ? "FILE [--cache FILE]\n\nFILE is an `autotune export` document; - reads standard input."
                               : "FILE [--cache FILE]\n\nFILE is another autotune cache file; it is only read.";
    examples = sub == "import" ? "  autotune import node17.json --cache fleet.db\n"
                                 "  ssh node17 autotune export | autotune import -\n"
                               : "  autotune merge node17.db --cache fleet.db\n"
                                 "  for f in nodes/*.db; do autotune merge \"$f\" --cache fleet.db; done\n";
  } else if (sub == "gc") {
    examples = "  autotune gc\n  autotune gc --cache fleet.db\n";
  } else {
    throw UsageError(fmt::format("unknown subcommand '{}' (see `autotune --help`)", sub));
  }

  po::options_description accepted;
  accepted.add(desc).add(hidden);
  const po::variables_map vm = parse(sub, rest, accepted, positionals);
  if (vm.count("help")) {
    cl.command = HelpCommand{usage_of(sub, desc, synopsis, examples)};
    return cl;
  }
  if (vm.count("cache")) {
    cl.cache_path = vm["cache"].as<std::string>();
    if (cl.cache_path.empty()) throw UsageError("--cache: the file name is empty");
  }
  auto text = [&](const char* flag, const char* what) {
    const std::string v = vm[flag].as<std::string>();
    if (v.empty()) throw UsageError(fmt::format("autotune {}: {} is empty", sub, what));
    return v;
  };
  if (sub == "tune") {
    cl.command = make_tune(vm);
  } else if (sub == "devices") {
    cl.command = DevicesCommand{make_format(vm)};
  } else if (sub == "show") {
    ShowCommand c;
    c.all = vm.count("all") > 0;
    if (vm.count("device")) c.device = text("device", "--device: the substring");
    if (vm.count("problem")) c.problem = text("problem", "--problem: the substring");
    c.format = make_format(vm);
    cl.command = c;
  } else if (sub == "best") {
    BestCommand c;
    c.format = make_format(vm);
    const bool model = vm.count("device-model") > 0, device = vm.count("device") > 0;
    if (model && device) throw UsageError("--device-model and --device exclude each other: choose one");
    if (!model && !device)
      throw UsageError("autotune best: name the GPU model with --device-model KEY or --device I");
    if (model) c.device_model = text("device-model", "--device-model: the model key");
    if (device) {
      const long long d = to_integer("device", vm["device"].as<std::string>());
      if (d < 0) throw UsageError(fmt::format("--device: {} is not a device ordinal (0, 1, ...)", d));
      c.device = static_cast<int>(d);
    }
    c.problem = make_problem(vm);
    cl.command = c;
  } else if (sub == "compare") {
    CompareCommand c;
    if (vm.count("problem")) c.problem = text("problem", "--problem: the substring");
    c.format = make_format(vm);
    cl.command = c;
  } else if (sub == "report") {
    if (!vm.count("output")) throw UsageError("autotune report: --output FILE is required");
    cl.command = ReportCommand{text("output", "--output: the file name")};
  } else if (sub == "export") {
    ExportCommand e;
    if (vm.count("output")) e.output = text("output", "--output: the file name");
    cl.command = e;
  } else if (sub == "import" || sub == "merge") {
    if (!vm.count("file"))
      throw UsageError(fmt::format("autotune {}: FILE is required (see `autotune {} --help`)", sub, sub));
    const std::string file = text("file", "FILE");
    if (sub == "import") cl.command = ImportCommand{file};
    else cl.command = MergeCommand{file};
  } else {
    cl.command = GcCommand{};
  }
  return cl;
}

}  // namespace autotune::cli
