#include "cli/problem_options.hpp"

#include <fmt/format.h>

#include <map>
#include <vector>

#include "autotune/error.hpp"
#include "core/family.hpp"
#include "core/ladder.hpp"

namespace po = boost::program_options;

namespace autotune::cli {

namespace {

// Each option name once, in first-seen order, with the families that take it and their help texts.
struct Option {
  std::string name, value_name;
  std::vector<std::pair<std::string, std::string>> help;  // (family, help)
};

std::vector<Option> family_options() {
  std::vector<Option> out;
  for (const KernelFamily* f : families()) {
    for (const ProblemParameter& p : f->problem_parameters()) {
      auto it = std::find_if(out.begin(), out.end(), [&](const Option& o) { return o.name == p.name; });
      if (it == out.end()) it = out.insert(out.end(), Option{p.name, p.value_name, {}});
      it->help.emplace_back(std::string(f->name()), p.help);
    }
  }
  return out;
}

bool takes(const KernelFamily& f, const std::string& option) {
  for (const ProblemParameter& p : f.problem_parameters())
    if (p.name == option) return true;
  return false;
}

std::string family_names() {
  std::string names;
  for (const KernelFamily* f : families()) names += fmt::format("{}{}", names.empty() ? "" : ", ", f->name());
  return names;
}

}  // namespace

po::options_description problem_options(const char* title, bool sizes) {
  po::options_description d(title);
  std::string kernels;
  for (const KernelFamily* f : families())
    kernels += fmt::format("{}{}: {}", kernels.empty() ? "" : "; ", f->name(), f->summary());
  const auto all = families();
  d.add_options()("kernel", po::value<std::string>()->value_name("FAMILY"),
                  fmt::format("kernel family (default {}): {}", all.empty() ? "" : all.front()->name(), kernels)
                      .c_str());
  for (const Option& o : family_options()) {
    std::string help;
    if (o.help.size() == 1 && all.size() == 1) help = o.help[0].second;
    else
      for (const auto& [family, text] : o.help) help += fmt::format("{}{}: {}", help.empty() ? "" : "; ", family, text);
    d.add_options()(o.name.c_str(), po::value<std::string>()->value_name(o.value_name), help.c_str());
  }
  std::string dists;
  for (const KernelFamily* f : all)
    dists += fmt::format("{}{}: {}", dists.empty() ? "" : "; ", f->name(), fmt::join(f->distributions(), ", "));
  const char* n_help = sizes ? "elements per call: one size (1000, 64K, 64M, 1G), a list (4K,64K,1M), or a ladder "
                               "LO..HI (powers of 4 from LO, HI included: 64K..256M) or LO..HI:xF (another factor: "
                               "1M..64M:x2); at most 32 sizes. Without --n a named problem is tuned at the default "
                               "ladder 64K..256M"
                             : "elements per call, e.g. 1000, 64K, 64M, 1G";
  d.add_options()("n", po::value<std::string>()->value_name(sizes ? "SIZES" : "SIZE"), n_help)(
      "dist", po::value<std::string>()->value_name("D"),
      fmt::format("input distribution the tuner measures on (default uniform): {}", dists).c_str());
  return d;
}

bool any_problem_option(const po::variables_map& vm) {
  if (vm.count("kernel") || vm.count("n") || vm.count("dist")) return true;
  for (const Option& o : family_options())
    if (vm.count(o.name)) return true;
  return false;
}

namespace {

bool is_list(const std::string& text) {
  return text.find(',') != std::string::npos || text.find("..") != std::string::npos;
}

const KernelFamily& family_of(const po::variables_map& vm, ProblemOptions& given) {
  const auto all = families();
  if (all.empty()) throw UsageError("no kernel family is registered");
  const std::string kernel = vm.count("kernel") ? vm["kernel"].as<std::string>() : std::string(all.front()->name());
  const KernelFamily* family = find_family(kernel);
  if (!family)
    throw UsageError(fmt::format("--kernel: unknown kernel family '{}' (known: {})", kernel, family_names()));
  for (const Option& o : family_options()) {
    if (!vm.count(o.name)) continue;
    if (!takes(*family, o.name)) {
      std::string owners;
      for (const auto& h : o.help) owners += fmt::format("{}{}", owners.empty() ? "" : ", ", h.first);
      throw UsageError(fmt::format("--{} is an option of --kernel {}, not of --kernel {}", o.name, owners, kernel));
    }
    given[o.name] = vm[o.name].as<std::string>();
  }
  if (vm.count("dist")) given["dist"] = vm["dist"].as<std::string>();
  return *family;
}

std::uint64_t size_item(const std::string& item, const std::string& what) {
  if (item.empty()) throw UsageError(fmt::format("{} is empty (e.g. 4K,64K,1M or 64K..256M)", what));
  const std::uint64_t n = parse_size(item);
  if (n == 0) throw UsageError(fmt::format("{}: 0 is not a size to tune", what));
  return n;
}

}  // namespace

SizeList parse_size_list(const std::string& text) {
  SizeList out;
  if (text.empty()) throw UsageError("empty size (e.g. 64M, a list 4K,64K,1M or a ladder 64K..256M)");
  if (const auto dots = text.find(".."); dots != std::string::npos) {
    out.several = true;
    if (text.find(',') != std::string::npos)
      throw UsageError(fmt::format("'{}' mixes a list and a ladder: give either 4K,64K,1M or 64K..256M", text));
    const std::string lo_text = text.substr(0, dots);
    std::string hi_text = text.substr(dots + 2);
    std::uint64_t factor = 4;
    if (const auto colon = hi_text.find(':'); colon != std::string::npos) {
      const std::string f = hi_text.substr(colon + 1);
      hi_text.resize(colon);
      if (f.size() < 2 || f.size() > 5 || f[0] != 'x' || f.find_first_not_of("0123456789", 1) != std::string::npos)
        throw UsageError(fmt::format("'{}': the ladder's factor '{}' is not x followed by an integer (e.g. :x2)",
                                     text, f));
      factor = std::stoull(f.substr(1));
      if (factor < 2) throw UsageError(fmt::format("'{}': the ladder's factor must be at least x2", text));
    }
    const std::uint64_t lo = size_item(lo_text, fmt::format("the low end of the ladder '{}'", text));
    const std::uint64_t hi = size_item(hi_text, fmt::format("the high end of the ladder '{}'", text));
    out.sizes = size_ladder(lo, hi, factor);
    return out;
  }
  if (text.find(',') == std::string::npos) {
    out.sizes = {parse_size(text)};
    return out;
  }
  out.several = true;
  std::size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::uint64_t n = size_item(item, fmt::format("an item of the list '{}'", text));
    if (std::find(out.sizes.begin(), out.sizes.end(), n) != out.sizes.end())
      throw UsageError(fmt::format("the list '{}' names {} twice", text, format_size(n)));
    out.sizes.push_back(n);
    if (out.sizes.size() > kMaxLadderSizes)
      throw UsageError(fmt::format("the list '{}' has more than {} sizes", text, kMaxLadderSizes));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(out.sizes.begin(), out.sizes.end());
  return out;
}

Problem make_problem(const po::variables_map& vm, const std::string& subcommand) {
  ProblemOptions given;
  const KernelFamily& family = family_of(vm, given);
  if (!vm.count("n")) throw UsageError("--n is required when a problem is named (e.g. --n 64M)");
  given["n"] = vm["n"].as<std::string>();
  if (is_list(given["n"]))
    throw UsageError(fmt::format("--n: '{}' is a list or ladder of sizes, but autotune {} takes one size (lists and "
                                 "ladders are for `autotune tune`)", given["n"], subcommand));
  try {
    parse_size(given["n"]);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--n: {}", e.what()));
  }
  return family.make_problem(given);
}

std::vector<Problem> make_problems(const po::variables_map& vm, bool& ladder) {
  ProblemOptions given;
  const KernelFamily& family = family_of(vm, given);
  SizeList sizes;
  if (vm.count("n")) {
    try {
      sizes = parse_size_list(vm["n"].as<std::string>());
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--n: {}", e.what()));
    }
  } else {
    sizes.sizes = default_ladder();
    sizes.several = true;
  }
  ladder = sizes.several;
  std::vector<Problem> out;
  for (std::uint64_t n : sizes.sizes) {
    given["n"] = std::to_string(n);
    out.push_back(family.make_problem(given));
  }
  return out;
}

std::string problem_synopsis(bool sizes) {
  std::string out;
  for (const KernelFamily* f : families()) {
    std::string line = fmt::format("--kernel {}", f->name());
    for (const ProblemParameter& p : f->problem_parameters()) line += fmt::format(" [--{} {}]", p.name, p.value_name);
    out += fmt::format("{}{} {} [--dist D]\n", out.empty() ? "PROBLEM: " : "     or: ", line,
                       sizes ? "[--n SIZES]" : "--n SIZE");
  }
  return out;
}

std::string problem_examples(const std::string& subcommand) {
  std::string out;
  for (const KernelFamily* f : families())
    out += fmt::format("  autotune {} --kernel {} {}\n", subcommand, f->name(), f->example_options());
  return out;
}

}  // namespace autotune::cli
