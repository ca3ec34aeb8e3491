#include "cli/options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <boost/program_options.hpp>
#include <algorithm>
#include <functional>
#include <limits>
#include <sstream>

#include "autotune/error.hpp"
#include "autotune/tuner.hpp"
#include "cli/problem_options.hpp"
#include "core/family.hpp"
#include "core/option_text.hpp"

namespace po = boost::program_options;

namespace autotune::cli {

namespace {

constexpr const char* kSubcommands =
    "Subcommands:\n"
    "  tune      tune problems of every kernel family on a GPU and record the results in the cache\n"
    "  devices   list the CUDA devices of this machine with their cache fingerprint\n"
    "  show      print the winners recorded in the cache, per device and problem\n"
    "  best      answer one lookup as the C++ API would (exact, nearest tuned size, ...) and its size table\n"
    "  compare   the same problems side by side across the devices of one cache\n"
    "  bench     time the tuned configurations against CUB on a GPU (and record CUB's times)\n"
    "  report    write a self-contained HTML report with charts\n"
    "  export    write the whole cache as a portable JSON document\n"
    "  import    add an exported JSON document to the cache\n"
    "  merge     add every result of another cache file to the cache\n"
    "  gc        delete stale results (of a changed template, NVRTC or driver)\n"
    "  check     list the rows of the cache that break an invariant of its schema (exit 1 if any)\n"
    "  keygen    create a key pair for signing exports (export --sign) and trusting them (import --trust)\n"
    "  help      print this help, or `autotune help SUBCOMMAND`\n"
    "  version   print the version\n";

std::string usage_of(const std::string& name, const po::options_description& desc, const std::string& synopsis,
                     const std::string& examples) {
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

po::options_description format_options() {
  po::options_description d("Output format");
  d.add_options()("json", "print JSON instead of a table")("csv", "print CSV (RFC 4180) instead of a table");
  return d;
}

po::options_description tune_options() {
  po::options_description d = problem_options("Tune options", true);
  d.add_options()
      ("device", po::value<std::string>()->value_name("ORDINAL"), "CUDA device (default 0)")
      ("devices", po::value<std::string>()->value_name("LIST"),
       "several GPUs in parallel: all, or ordinals like 0,2 (each distinct GPU model is tuned once)")
      ("samples", po::value<std::string>()->value_name("K"), "at most K timed runs per variant (default 15)")
      ("strategy", po::value<std::string>()->value_name("S"),
       "exhaustive (default: every variant), random (a seeded sample, see --budget), or halving (short "
       "measurements of all, full ones of the fastest quarter)")
      ("dists", po::value<std::string>()->value_name("LIST"),
       "histograms: tune on each of these distributions (e.g. uniform,constant,narrow,runs,image), keep each one's "
       "winner, and record the robust winner across them (least worst-case slowdown) as dist=robust")
      ("preset", po::value<std::string>()->value_name("NAME"),
       "tune a preset grid of problems instead of one problem or the default set: standard (common shapes of every "
       "family, the data the lookup's similar-problem step and the measured default policy draw on; about 10 "
       "minutes on an H200; resumable: a rerun tunes only what is missing)")
      ("budget", po::value<std::string>()->value_name("K"), "random: variants to measure (default: a quarter)")
      ("budget-s", po::value<std::string>()->value_name("SECONDS"), "random: stop drawing after this long")
      ("no-flush", "time with a warm L2 (default: flush the L2 before every timed run)")
      ("no-compile-ahead", "compile each problem's variants only when it is tuned (default: the later problems' "
                           "variants are compiled meanwhile, on cores the tuning leaves idle)")
      ("no-isolate", "measure in this process (default: a worker process per problem, restarted after a variant "
                     "faults, so a fault cannot end the run)")
      ("variant-timeout", po::value<std::string>()->value_name("SECONDS"),
       "end a worker whose variant runs this long without finishing (a hung kernel), record the variant as "
       "launch_error and resume with a new worker; e.g. 10 (default), 30s, 0 (never); needs worker processes")
      ("retune", "with several sizes (a list, a ladder, the default ladder or set): tune again the sizes already "
                 "tuned with the current code (default: skip them, so that rerunning a command tunes only what is "
                 "missing)");
  return d;
}

po::options_description tune_hidden_options() {
  po::options_description d;
  d.add_options()("worker", "")("inject-fault", po::value<std::string>())("problem-key", po::value<std::string>())
      ("timed-out", po::value<std::vector<std::string>>()->composing())("inject-hang", po::value<std::string>())("progress-fd", po::value<std::string>())
      ("crossover", po::value<std::vector<std::string>>()->composing())("progress-scope", po::value<std::string>());
  return d;
}

using option_text::to_double;
using option_text::to_integer;

// Parses `args` against `desc`, refusing unknown flags and stray positional words (beyond `positionals`).
po::variables_map parse(const std::string& sub, const std::vector<std::string>& args,
                        const po::options_description& desc, const po::positional_options_description& positionals) {
  po::variables_map vm;
  // Words beyond the subcommand's positional arguments land in a hidden option, so that the first is named.
  po::options_description all;
  all.add(desc).add_options()("stray-argument", po::value<std::vector<std::string>>());
  po::positional_options_description with_stray = positionals;
  if (positionals.max_total_count() != std::numeric_limits<unsigned>::max()) with_stray.add("stray-argument", -1);
  try {
    po::store(po::command_line_parser(args).options(all).positional(with_stray).run(), vm);
    po::notify(vm);
    if (vm.count("stray-argument"))
      throw UsageError(fmt::format("autotune {}: unexpected argument '{}' (see `autotune {} --help`)", sub,
                                   vm["stray-argument"].as<std::vector<std::string>>().front(), sub));
  } catch (const po::error_with_option_name& e) {
    // Boost's what() replaces placeholders such as %original_token% with the offending token until none is left:
    // a token that holds one itself (`--x%original_token%`) loops forever (found by tests/fuzz/fuzz_cli.cpp). Such
    // a command line gets a message built without what(); get_option_name() does no substitution.
    const bool placeholder =
        std::any_of(args.begin(), args.end(), [](const std::string& a) { return a.find('%') != std::string::npos; });
    if (placeholder)
      throw UsageError(fmt::format("autotune {}: invalid option or value near '{}' (see `autotune {} --help`)", sub,
                                   e.get_option_name(), sub));
    throw UsageError(fmt::format("autotune {}: {} (see `autotune {} --help`)", sub, e.what(), sub));
  } catch (const po::error& e) {
    throw UsageError(fmt::format("autotune {}: {} (see `autotune {} --help`)", sub, e.what(), sub));
  }
  return vm;
}


// --dists names distributions of every family that keeps robust winners among the problems; the others are tuned
// on their own distribution.
void check_dists(const TuneCommand& t) {
  for (const Problem& p : t.problems) {
    const KernelFamily& f = p.family();
    if (t.dists.empty() || !f.robust_across_distributions()) continue;
    const auto known = f.distributions();
    for (const std::string& d : t.dists)
      if (std::find(known.begin(), known.end(), d) == known.end())
        throw UsageError(fmt::format("--dists: unknown distribution '{}' ({} knows: {})", d, f.name(),
                                     fmt::join(known, ", ")));
  }
}

// The text of option `k`, "" when absent.
std::string text_of(const po::variables_map& vm, const char* k) {
  return vm.count(k) ? vm[k].as<std::string>() : std::string();
}

// --device, --devices, --samples, --no-flush, --no-compile-ahead.
void tune_devices(const po::variables_map& vm, TuneCommand& t) {
  auto str = [&](const char* k) { return text_of(vm, k); };
  long long t_device = 0;
  if (vm.count("device")) {
    t_device = to_integer("device", str("device"));
    if (t_device < 0) throw UsageError(fmt::format("--device: {} is not a device ordinal (0, 1, ...)", t_device));
  }
  if (vm.count("samples")) {
    const long long s = to_integer("samples", str("samples"));
    if (s < 1 || s > 10000) throw UsageError(fmt::format("--samples: {} is outside 1..10000", s));
    t.samples = static_cast<int>(s);
  }
  t.flush_l2 = vm.count("no-flush") == 0;
  t.compile_ahead = vm.count("no-compile-ahead") == 0;
  if (!vm.count("devices")) {
    t.devices = {static_cast<int>(t_device)};
    return;
  }
  if (vm.count("device")) throw UsageError("--device and --devices exclude each other: choose one");
  const std::string list = str("devices");
  t.devices.clear();
  if (list == "all") {
    t.all_devices = true;
    return;
  }
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    const long long d = to_integer("devices", item);
    if (d < 0) throw UsageError(fmt::format("--devices: {} is not a device ordinal (0, 1, ...)", d));
    if (std::find(t.devices.begin(), t.devices.end(), d) == t.devices.end()) t.devices.push_back(static_cast<int>(d));
  }
  if (t.devices.empty()) throw UsageError("--devices: give 'all' or ordinals such as 0,1");
}

// --strategy, --budget, --budget-s, --dists.
void tune_strategy(const po::variables_map& vm, TuneCommand& t) {
  auto str = [&](const char* k) { return text_of(vm, k); };
  if (vm.count("strategy")) {
    t.strategy = str("strategy");
    const auto& known = tune_strategies();
    if (std::find(known.begin(), known.end(), t.strategy) == known.end())
      throw UsageError(fmt::format("--strategy: unknown strategy '{}' (known: exhaustive, random, halving)", t.strategy));
  }
  if (vm.count("budget") || vm.count("budget-s")) {
    if (t.strategy != "random") throw UsageError("--budget and --budget-s apply to --strategy random only");
    if (vm.count("budget")) {
      const long long b = to_integer("budget", str("budget"));
      if (b < 1) throw UsageError(fmt::format("--budget: {} is not a positive number of variants", b));
      t.budget = static_cast<int>(std::min<long long>(b, 1 << 30));
    }
    if (vm.count("budget-s")) {
      t.budget_s = to_double("budget-s", str("budget-s"));
      if (!(t.budget_s > 0)) throw UsageError(fmt::format("--budget-s: {} is not a positive number of seconds", str("budget-s")));
    }
  }
  if (vm.count("dists")) {
    if (vm.count("dist")) throw UsageError("--dist and --dists exclude each other: choose one");
    std::stringstream in(str("dists"));
    for (std::string d; std::getline(in, d, ',');)
      if (std::find(t.dists.begin(), t.dists.end(), d) == t.dists.end()) t.dists.push_back(d);
    if (t.dists.size() < 2) throw UsageError("--dists: name at least two distributions, e.g. uniform,runs");
  }
}

// Worker processes and what a parent hands its workers: --no-isolate, --variant-timeout, --worker, --timed-out,
// --progress-fd, --progress-scope, --inject-fault, --inject-hang, --crossover; and --retune.
void tune_workers(const po::variables_map& vm, TuneCommand& t) {
  auto str = [&](const char* k) { return text_of(vm, k); };
  t.isolate = vm.count("no-isolate") == 0;
  t.worker = vm.count("worker") > 0;
  if (vm.count("variant-timeout")) {
    std::string text = str("variant-timeout");
    if (!text.empty() && text.back() == 's') text.pop_back();
    const double s = text.empty() || text.find_first_not_of("0123456789.") != std::string::npos
                         ? -1.0 : to_double("variant-timeout", text);
    if (!(s >= 0 && s <= 86400))
      throw UsageError(fmt::format("--variant-timeout: '{}' is not a number of seconds in 0..86400 (e.g. 10, 30s; 0 "
                                   "= never)", str("variant-timeout")));
    if (!t.isolate && s > 0) throw UsageError("--variant-timeout needs worker processes: drop --no-isolate");
    t.variant_timeout_s = s;
  }
  if (vm.count("timed-out")) t.timed_out = vm["timed-out"].as<std::vector<std::string>>();
  if (vm.count("progress-fd")) {
    const long long fd = to_integer("progress-fd", str("progress-fd"));
    if (fd < 0 || fd > 1023) throw UsageError(fmt::format("--progress-fd: {} is not a file descriptor", fd));
    t.progress_fd = static_cast<int>(fd);
  }
  if (vm.count("inject-fault")) t.inject_fault = str("inject-fault");
  t.retune = vm.count("retune") > 0;
  if (vm.count("progress-scope")) t.progress_scope = str("progress-scope");
  if (vm.count("crossover")) {
    t.crossover = vm["crossover"].as<std::vector<std::string>>();
    if (!vm.count("problem-key") || t.crossover.size() < 2)
      throw UsageError("--crossover: a worker's crossover takes --problem-key and at least two configurations (the "
                       "two winners, then any bridges)");
  }
  if (vm.count("inject-hang")) t.inject_hang = str("inject-hang");
}

// The problems: a worker's --problem-key, a --preset, the problem options, or the default set.
void tune_problems(const po::variables_map& vm, TuneCommand& t) {
  auto str = [&](const char* k) { return text_of(vm, k); };
  const bool any_problem_flag = any_problem_option(vm);
  if (vm.count("problem-key")) {  // a worker's problem, as its parent spelled it
    if (any_problem_flag || vm.count("dists")) throw UsageError("--problem-key excludes the problem flags");
    const auto p = Problem::parse(str("problem-key"));
    if (!p) throw UsageError(fmt::format("--problem-key: '{}' is not a problem key", str("problem-key")));
    t.problems = {*p};
    for (const std::string& key : t.crossover)
      if (!Config::parse(p->family_name(), key))
        throw UsageError(fmt::format("--crossover: '{}' is not a configuration of {}", key, p->family_name()));
    return;
  }
  if (vm.count("preset")) {
    if (any_problem_flag || vm.count("dists"))
      throw UsageError("--preset names its own problems and distributions: drop the problem options and --dists");
    const TunePreset& preset = tune_preset(str("preset"));
    t.preset = preset.name;
    t.problems = preset_problems(preset);
    t.dists = preset.dists;
    t.ladder = true;
  } else if (!any_problem_flag) {
    t.problems = default_problems();
    t.default_set = true;
    t.ladder = true;
  } else {
    t.problems = make_problems(vm, t.ladder);
  }
  check_dists(t);
}

TuneCommand make_tune(const po::variables_map& vm) {
  TuneCommand t;
  tune_devices(vm, t);
  tune_strategy(vm, t);
  tune_workers(vm, t);
  tune_problems(vm, t);
  return t;
}

OutputFormat make_format(const po::variables_map& vm) {
  if (vm.count("json") && vm.count("csv")) throw UsageError("--json and --csv exclude each other: choose one");
  if (vm.count("json")) return OutputFormat::json;
  if (vm.count("csv")) return OutputFormat::csv;
  return OutputFormat::table;
}

}  // namespace

namespace {
std::string family_list() {
  std::size_t width = 0;  // names aligned to the longest (histogram_range)
  for (const KernelFamily* f : families()) width = std::max(width, f->name().size());
  std::string out;
  for (const KernelFamily* f : families()) out += fmt::format("  {:<{}}  {}\n", f->name(), width, f->summary());
  return out;
}
}  // namespace

std::string general_help() {
  return fmt::format(
      "autotune {}: picks the fastest CUDA kernel variant for each GPU\n\n"
      "Usage: autotune SUBCOMMAND [OPTIONS]\n\n{}\n"
      "Kernel families (--kernel):\n{}\n"
      "Every subcommand takes --cache FILE and --help.\n\n"
      "Examples:\n"
      "  autotune devices\n"
      "  autotune tune                     # the default problems on GPU 0\n"
      "{}"
      "  autotune show --cache ./results.db --device H100 --json\n"
      "  autotune compare --cache fleet.db\n"
      "  autotune bench                    # the tuned winners against CUB on GPU 0\n"
      "  autotune report --output report.html\n"
      "  autotune merge node17.db --cache fleet.db\n",
      version(), kSubcommands, family_list(), problem_examples("tune"));
}

namespace {

// A subcommand: what it accepts and says in its help, and the command its options make.
struct Spec {
  po::options_description desc = common_options();
  po::options_description hidden;                  // positional arguments: parsed, but named in the synopsis
  po::positional_options_description positionals;  // empty: a stray word is an error, not ignored
  std::string synopsis = "[OPTIONS]";
  std::string examples;
};
// A non-empty option value, or UsageError naming what is empty.
using Text = std::function<std::string(const char* flag, const char* what)>;

void describe_tune(const std::string&, Spec& s) {
  s.desc.add(tune_options());
  s.hidden.add(tune_hidden_options());
  s.synopsis = "[PROBLEM] [--device I | --devices all|LIST] [--strategy S [--budget K] [--budget-s SECONDS]] [--retune]\n\n" +
               problem_synopsis(true) +
               "Without a problem, the default set is tuned. An interrupted run resumes when run again.\n\n"
               "Several sizes (issue #14): --n takes a list (--n 4K,64K,1M) or a ladder LO..HI, by default every power\n"
               "of 4 from LO with HI included (--n 4K..1G), or by another factor (--n 1M..64M:x2); at most 32 sizes.\n"
               "A problem named without --n is tuned at the default ladder 64K..256M (7 sizes). Each size is its own\n"
               "run, under one progress bar whose ETA covers them all; the compile cache is shared, so sizes of one\n"
               "space compile nothing after the first. Sizes that do not fit the GPU's memory are skipped with one\n"
               "line each. Between adjacent sizes whose winners differ, both winners and up to 4 bridging\n"
               "configurations (those that ran closest to the best at both sizes) are measured at the crossover\n"
               "size, their geometric mean rounded to a multiple of 4096, and recorded as a run of the problem at\n"
               "that size (strategy crossover) won by the fastest: lookups there get a measured answer. Then the\n"
               "same between that size and each neighbour, while two measured sizes are more than 2.1x apart.\n"
               "Rerunning a command of several sizes (and the default set) resumes an interrupted size and skips\n"
               "the sizes already tuned with the current code (template, NVRTC, driver); --retune tunes them again.\n"
               "The default set: u8/256 bins and the f32 sum at each size of the default ladder, f32/1024 bins at 16M.\n"
               "--preset standard tunes common shapes of every family instead (what untuned problems are served "
               "from:\nthe similar-problem step and the measured default policy, include/autotune/resolution.hpp).";
  s.examples = "  autotune tune                                   # the default problems on GPU 0\n" +
               problem_examples("tune") +
               "  autotune tune --type u8 --bins 256 --n 4K..1G   # 10 sizes, powers of 4, and their crossovers\n"
               "  autotune tune --type u8 --bins 256 --n 4K,64K,1M\n"
               "  autotune tune --kernel reduce --op sum --type f32            # the default ladder 64K..256M\n"
               "  autotune tune --devices all                     # every GPU model of this machine, in parallel\n";
}

Command make_tune(const std::string&, const po::variables_map& vm, const Text&) {
  return make_tune(vm);
}

void describe_devices(const std::string&, Spec& s) {
  s.desc.add(format_options());
  s.synopsis = "[--json | --csv]";
  s.examples = "  autotune devices\n  autotune devices --json\n";
}

Command make_devices(const std::string&, const po::variables_map& vm, const Text&) {
  return DevicesCommand{make_format(vm)};
}

void describe_show(const std::string&, Spec& s) {
  po::options_description show("Show options");
  show.add_options()
      ("all", "also list stale winners (their template, NVRTC or driver changed), marked as such")
      ("device", po::value<std::string>()->value_name("SUBSTRING"),
       "only devices whose name or model key contains SUBSTRING")
      ("problem", po::value<std::string>()->value_name("SUBSTRING"),
       "only problems whose key contains SUBSTRING, e.g. u8/bins=256");
  s.desc.add(show).add(format_options());
  s.synopsis = "[--all] [--device SUBSTRING] [--problem SUBSTRING] [--json | --csv]";
  s.examples =
      "  autotune show\n  autotune show --cache fleet.db --device H100\n"
      "  autotune show --problem f32/bins=1024 --csv > winners.csv\n  autotune show --all --json\n";
}

Command make_show(const std::string&, const po::variables_map& vm, const Text& text) {
  ShowCommand c;
  c.all = vm.count("all") > 0;
  if (vm.count("device")) c.device = text("device", "--device: the substring");
  if (vm.count("problem")) c.problem = text("problem", "--problem: the substring");
  c.format = make_format(vm);
  return c;
}

void describe_best(const std::string&, Spec& s) {
  po::options_description best = problem_options("Problem");
  best.add_options()
      ("device-model", po::value<std::string>()->value_name("KEY"),
       "the GPU model to answer for, as its model key (`autotune show --json` and `devices` print them); no GPU needed")
      ("device", po::value<std::string>()->value_name("ORDINAL"), "the model of this machine's CUDA device I")
      ("source", po::value<std::string>()->value_name("FILE"),
       "also write the answered configuration's CUDA source to FILE: the text NVRTC compiles for a handle of the "
       "problem (its options are printed with the table)");
  s.desc.add(best).add(format_options());
  s.synopsis =
      "PROBLEM (--device-model KEY | --device I)\n\n"
      "PROBLEM as for `autotune tune`. Answers as the C++ API would: the exact problem on the model, else the\n"
      "nearest tuned size on the model, else the same problem on the closest GPU model of the same architecture,\n"
      "else the built-in default; prints which. Then the size table a handle of the problem's shape builds: each\n"
      "range of n, the configuration it runs and where that came from (tuned sizes of the shape on the model, the\n"
      "switch between two at their geometric mean), the range of --n marked =>. --json nests the table under\n"
      "\"sizes\"; --csv prints one row per range. Only reads the cache (stale winners are never answered).";
  s.examples = problem_examples("best --device 0") +
             "  autotune best ... --device-model 'NVIDIA H100 80GB HBM3|sm_90|132SM|81090MiB' --cache fleet.db --json\n"
             "  autotune best --type u8 --bins 256 --n 64M --device 0 --source u8_256.cu   # the code a handle runs\n";
}

Command make_best(const std::string&, const po::variables_map& vm, const Text& text) {
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
  if (vm.count("source")) c.source_file = text("source", "--source: the file name");
  c.problem = make_problem(vm, "best");
  return c;
}

void describe_compare(const std::string&, Spec& s) {
  po::options_description cmp("Compare options");
  cmp.add_options()("problem", po::value<std::string>()->value_name("SUBSTRING"),
                    "only problems whose key contains SUBSTRING");
  s.desc.add(cmp).add(format_options());
  s.synopsis = "[--problem SUBSTRING] [--json | --csv]\n\n"
             "Per problem, each device's winner, GB/s, % of its roof, time relative to the fastest device, and\n"
             "whether its configuration is the fastest device's.";
  s.examples = "  autotune compare --cache fleet.db\n  autotune compare --problem u8/bins=256 --csv\n";
}

Command make_compare(const std::string&, const po::variables_map& vm, const Text& text) {
  CompareCommand c;
  if (vm.count("problem")) c.problem = text("problem", "--problem: the substring");
  c.format = make_format(vm);
  return c;
}

void describe_bench(const std::string&, Spec& s) {
  po::options_description bench = problem_options("Problem (default: the default set of `autotune tune`)");
  bench.add_options()
      ("device", po::value<std::string>()->value_name("ORDINAL"), "CUDA device (default 0)")
      ("samples", po::value<std::string>()->value_name("K"), "timed calls of each contender (default 20)");
  s.desc.add(bench).add(format_options());
  s.synopsis = "[PROBLEM] [--device I] [--samples K] [--json | --csv]\n\n"
             "For each problem: the configuration the C++ API resolves from the cache (exact, nearest size, similar\n"
             "GPU or built-in default) and the family's CUB baseline, both checked against the CPU reference,\n"
             "timed with the tuner's harness (L2 flushed before every call), with the read roof measured in the same run. CUB's times are recorded in the cache for `report`.";
  s.examples = "  autotune bench                                  # the default problems, after `autotune tune`\n" +
             problem_examples("bench");
}

Command make_bench(const std::string&, const po::variables_map& vm, const Text&) {
  BenchCommand c;
  c.format = make_format(vm);
  if (vm.count("device")) {
    const long long d = to_integer("device", vm["device"].as<std::string>());
    if (d < 0) throw UsageError(fmt::format("--device: {} is not a device ordinal (0, 1, ...)", d));
    c.device = static_cast<int>(d);
  }
  if (vm.count("samples")) {
    const long long k = to_integer("samples", vm["samples"].as<std::string>());
    if (k < 1 || k > 10000) throw UsageError(fmt::format("--samples: {} is outside 1..10000", k));
    c.samples = static_cast<int>(k);
  }
  const bool any_problem_flag = any_problem_option(vm);
  if (any_problem_flag) c.problems = {make_problem(vm, "bench")};
  else c.problems = default_problems();
  return c;
}

void describe_report(const std::string&, Spec& s) {
  po::options_description rep("Report options");
  rep.add_options()("output,o", po::value<std::string>()->value_name("FILE"),
                    "the HTML file to write (required)");
  s.desc.add(rep);
  s.synopsis = "--output FILE.html\n\n"
             "One self-contained HTML file (inline CSS and SVG, no scripts, no network): per problem, a heat map of\n"
             "GB/s over block size x loads per thread, the winner against the device's read roof, and the\n"
             "devices side by side.";
  s.examples = "  autotune report --output report.html\n  autotune report --cache fleet.db -o fleet.html\n";
}

Command make_report(const std::string&, const po::variables_map& vm, const Text& text) {
  if (!vm.count("output")) throw UsageError("autotune report: --output FILE is required");
  return ReportCommand{text("output", "--output: the file name")};
}

void describe_export(const std::string&, Spec& s) {
  po::options_description exp("Export options");
  exp.add_options()("output,o", po::value<std::string>()->value_name("FILE"),
                    "write the document to FILE instead of standard output (- is standard output)")
      ("problem", po::value<std::vector<std::string>>()->value_name("SUBSTRING")->composing(),
       "only runs of problems whose key contains SUBSTRING (repeat for several)")
      ("device-model", po::value<std::vector<std::string>>()->value_name("KEY")->composing(),
       "only runs on this GPU model, its model key as `autotune devices` prints it (repeat for several)")
      ("sign", po::value<std::string>()->value_name("KEYFILE"),
       "sign the document with this private key (`autotune keygen`): an importer that trusts the public key "
       "(import --trust) keeps its cubins and may serve its winners as exact");
  s.desc.add(exp);
  s.synopsis = "[--output FILE] [--problem SUBSTRING]... [--device-model KEY]... [--sign KEYFILE]\n\n"
               "With --problem or --device-model, only the matching runs and the devices, problems and kernel\n"
               "templates they refer to: the file an application ships (import it into the cache it opens, or open\n"
               "the signed document itself as the cache, trusting its public key).";
  s.examples =
      "  autotune export --output node17.json      # on each machine of a fleet\n"
      "  autotune export --cache fleet.db > fleet.json\n"
      "  autotune export --cache fleet.db --problem histogram/u8/bins=256/ --problem reduce/sum/f32/ \\\n"
      "      --device-model 'NVIDIA H100 80GB HBM3|sm_90|132SM|81090MiB' --output app.json\n"
      "  autotune export --sign ~/.config/autotune/release.key --output app.json\n";
}

Command make_export(const std::string&, const po::variables_map& vm, const Text& text) {
  ExportCommand e;
  if (vm.count("output")) e.output = text("output", "--output: the file name");
  // --problem is repeatable rather than a comma list: problem keys contain commas (range=[0,256)).
  auto list = [&](const char* flag, std::vector<std::string>& into) {
    if (!vm.count(flag)) return;
    into = vm[flag].as<std::vector<std::string>>();
    for (const std::string& v : into)
      if (v.empty()) throw UsageError(fmt::format("autotune export: --{} is empty", flag));
  };
  list("problem", e.filter.problems);
  list("device-model", e.filter.device_models);
  if (vm.count("sign")) e.sign = text("sign", "--sign: the key file");
  return e;
}

void describe_import_merge(const std::string& sub, Spec& s) {
  s.hidden.add_options()("file", po::value<std::string>());
  s.positionals.add("file", 1);
  po::options_description imp("Options");
  imp.add_options()("no-cubins", "leave the compiled kernels (cubins) out: only configurations and timings are "
                                 "added, and applications compile the configurations from source with NVRTC");
  if (sub == "import")
    imp.add_options()("trust", po::value<std::vector<std::string>>()->value_name("KEYFILE")->composing(),
                      "accept only a document signed by this public key (`autotune keygen`; repeat for several): its "
                      "results count as this machine's own and its cubins are kept as they are");
  s.desc.add(imp);
  s.synopsis = sub == "import" ? "FILE [--trust KEYFILE]... [--no-cubins] [--cache FILE]\n\nFILE is an `autotune "
                                 "export` document; - reads standard input. Without --trust its results are recorded as\n"
                                 "imported (never served as exact) and a cubin is kept only when this machine's NVRTC\n"
                                 "compiles the same bytes."
                             : "FILE [--no-cubins] [--cache FILE]\n\nFILE is another autotune cache file; it is only read. Its "
                               "results are recorded as imported\n(never served as exact); a cubin is kept only when "
                               "this machine's NVRTC compiles the same bytes.";
  s.examples = sub == "import" ? "  autotune import node17.json --cache fleet.db\n"
                               "  ssh node17 autotune export | autotune import -\n"
                               "  autotune import app.json --trust release.key.pub --cache app.db\n"
                             : "  autotune merge node17.db --cache fleet.db\n"
                               "  for f in nodes/*.db; do autotune merge \"$f\" --cache fleet.db; done\n";
}

Command make_import_merge(const std::string& sub, const po::variables_map& vm, const Text& text) {
  if (!vm.count("file"))
    throw UsageError(fmt::format("autotune {}: FILE is required (see `autotune {} --help`)", sub, sub));
  const std::string file = text("file", "FILE");
  const bool no_cubins = vm.count("no-cubins") > 0;
  if (sub == "import") {
    ImportCommand i{file, no_cubins, {}};
    if (vm.count("trust")) i.trust = vm["trust"].as<std::vector<std::string>>();
    for (const std::string& t : i.trust)
      if (t.empty()) throw UsageError("autotune import: --trust: the key file name is empty");
    return i;
  }
  else return MergeCommand{file, no_cubins};
}

void describe_gc(const std::string&, Spec& s) {
  s.examples = "  autotune gc\n  autotune gc --cache fleet.db\n";
}

Command make_gc(const std::string&, const po::variables_map&, const Text&) {
  return GcCommand{};
}

void describe_check(const std::string&, Spec& s) {
  s.examples = "  autotune check\n  autotune check --cache fleet.db\n";
}

Command make_check(const std::string&, const po::variables_map&, const Text&) {
  return CheckCommand{};
}

void describe_keygen(const std::string&, Spec& s) {
  po::options_description k("Keygen options");
  k.add_options()("output,o", po::value<std::string>()->value_name("FILE"),
                  "write the private key to FILE (mode 0600; never overwritten) and the public key to FILE.pub");
  s.desc.add(k);
  s.synopsis = "--output FILE\n\nAn Ed25519 key pair: sign exports with the private key (`autotune export --sign FILE`),\n"
               "give FILE.pub to whoever imports them (`autotune import --trust FILE.pub`) or to the application\n"
               "that opens the signed document as its cache ($AUTOTUNE_TRUSTED_KEYS, autotune::trust_public_key).";
  s.examples = "  autotune keygen --output ~/.config/autotune/release.key\n";
}

Command make_keygen(const std::string&, const po::variables_map& vm, const Text& text) {
  if (!vm.count("output")) throw UsageError("autotune keygen: --output FILE is required");
  return KeygenCommand{text("output", "--output: the file name")};
}

struct Subcommand {
  const char* name;
  void (*describe)(const std::string&, Spec&);
  Command (*make)(const std::string&, const po::variables_map&, const Text&);
};

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table{
      {"tune", describe_tune, make_tune},
      {"devices", describe_devices, make_devices},
      {"show", describe_show, make_show},
      {"best", describe_best, make_best},
      {"compare", describe_compare, make_compare},
      {"bench", describe_bench, make_bench},
      {"report", describe_report, make_report},
      {"export", describe_export, make_export},
      {"import", describe_import_merge, make_import_merge},
      {"merge", describe_import_merge, make_import_merge},
      {"gc", describe_gc, make_gc},
      {"check", describe_check, make_check},
      {"keygen", describe_keygen, make_keygen},
  };
  return table;
}

}  // namespace

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
  const auto& table = subcommands();
  const auto it = std::find_if(table.begin(), table.end(), [&](const Subcommand& c) { return sub == c.name; });
  if (it == table.end()) throw UsageError(fmt::format("unknown subcommand '{}' (see `autotune --help`)", sub));
  Spec spec;
  it->describe(sub, spec);
  po::options_description accepted;
  accepted.add(spec.desc).add(spec.hidden);
  const po::variables_map vm = parse(sub, rest, accepted, spec.positionals);
  if (vm.count("help")) {
    cl.command = HelpCommand{usage_of(sub, spec.desc, spec.synopsis, spec.examples)};
    return cl;
  }
  if (vm.count("cache")) {
    cl.cache_path = vm["cache"].as<std::string>();
    if (cl.cache_path.empty()) throw UsageError("--cache: the file name is empty");
  }
  const Text text = [&](const char* flag, const char* what) {
    const std::string v = vm[flag].as<std::string>();
    if (v.empty()) throw UsageError(fmt::format("autotune {}: {} is empty", sub, what));
    return v;
  };
  cl.command = it->make(sub, vm, text);
  return cl;
}

}  // namespace autotune::cli
