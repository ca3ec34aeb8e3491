#include "cli/problem_options.hpp"

#include <fmt/format.h>

#include <map>
#include <vector>

#include "autotune/error.hpp"
#include "core/family.hpp"

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

po::options_description problem_options(const char* title) {
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
  d.add_options()("n", po::value<std::string>()->value_name("SIZE"), "elements per call, e.g. 1000, 64K, 64M, 1G")(
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

Problem make_problem(const po::variables_map& vm) {
  const auto all = families();
  if (all.empty()) throw UsageError("no kernel family is registered");
  const std::string kernel = vm.count("kernel") ? vm["kernel"].as<std::string>() : std::string(all.front()->name());
  const KernelFamily* family = find_family(kernel);
  if (!family)
    throw UsageError(fmt::format("--kernel: unknown kernel family '{}' (known: {})", kernel, family_names()));
  ProblemOptions given;
  for (const Option& o : family_options()) {
    if (!vm.count(o.name)) continue;
    if (!takes(*family, o.name)) {
      std::string owners;
      for (const auto& h : o.help) owners += fmt::format("{}{}", owners.empty() ? "" : ", ", h.first);
      throw UsageError(fmt::format("--{} is an option of --kernel {}, not of --kernel {}", o.name, owners, kernel));
    }
    given[o.name] = vm[o.name].as<std::string>();
  }
  if (!vm.count("n")) throw UsageError("--n is required when a problem is named (e.g. --n 64M)");
  given["n"] = vm["n"].as<std::string>();
  try {
    parse_size(given["n"]);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--n: {}", e.what()));
  }
  if (vm.count("dist")) given["dist"] = vm["dist"].as<std::string>();
  return family->make_problem(given);
}

std::string problem_synopsis() {
  std::string out;
  for (const KernelFamily* f : families()) {
    std::string line = fmt::format("--kernel {}", f->name());
    for (const ProblemParameter& p : f->problem_parameters()) line += fmt::format(" [--{} {}]", p.name, p.value_name);
    out += fmt::format("{}{} --n SIZE [--dist D]\n", out.empty() ? "PROBLEM: " : "     or: ", line);
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
