// The same configuration in several instances: does a variant's time depend on where its memory lands?
//
// Each --config is loaded --instances times for each --problem, as the tuner and a handle load a variant (its own
// module and its own workspace, allocated when it is loaded), with a device allocation of a different size made
// before each instance so that the instances' workspaces land in different places. Every instance is checked
// exactly against the CPU reference, then all instances of all configurations and CUB are timed in the same
// interleaved rounds (bench_common.hpp, time_interleaved: L2 flushed before each call). The table gives each
// configuration's fastest, median and slowest instance and slowest / fastest; a configuration whose time follows
// its placement shows a ratio well above the rounds' noise, one that does not stays near 1.
//
// Why: the same global-copy configuration ran 79.8 and 120.7 us in two handles (f64, 269310 bins, narrow;
// bench/results/2026-12-05f-summary.md), 3274 and 5486 us on f32/792570 (2026-12-05b).
//
//   instances_bench --problem KEY [--problem KEY ...] --config KEY [--config KEY ...] [--instances K]
//                   [--samples S] [--markdown FILE] [--commit C]
// A configuration that is not valid for a problem is reported and skipped. Exit status 1 when an instance is wrong.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "bench/baselines.hpp"
#include "bench/bench_common.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/workload.hpp"

using namespace autotune;
using namespace autotune::bench;

namespace {

struct Options {
  std::vector<Problem> problems;
  std::vector<std::string> configs;
  int instances = 6, samples = 15;
  std::string markdown, commit = AUTOTUNE_BENCH_COMMIT;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--problem" && has) {
      const std::optional<Problem> p = Problem::parse(argv[++i]);
      if (!p) throw UsageError(fmt::format("--problem: '{}' is not a problem key", argv[i]));
      o.problems.push_back(*p);
    } else if (a == "--config" && has) {
      o.configs.push_back(argv[++i]);
    } else if (a == "--instances" && has) {
      o.instances = std::stoi(argv[++i]);
    } else if (a == "--samples" && has) {
      o.samples = std::stoi(argv[++i]);
    } else if (a == "--markdown" && has) {
      o.markdown = argv[++i];
    } else if (a == "--commit" && has) {
      o.commit = argv[++i];
    } else {
      throw UsageError("unknown or incomplete option " + a);
    }
  }
  if (o.problems.empty() || o.configs.empty()) throw UsageError("at least one --problem and one --config");
  for (const Problem& p : o.problems)  // before any GPU time is spent
    for (const std::string& key : o.configs)
      if (!p.family().parse_config(key))
        throw UsageError(fmt::format("--config: '{}' is not a {} configuration", key, p.family().name()));
  if (o.instances < 1 || o.instances > 32) throw UsageError("--instances: 1 to 32");
  if (o.samples < 3) throw UsageError("--samples: at least 3");
  return o;
}

// One problem's table rows (markdown); `wrong` is set when an instance's answer differs from the CPU reference.
std::string run_problem(const Problem& p, const Options& o, const DeviceInfo& dev, const cuda::DeviceBuffer& flush,
                        cudaStream_t stream, bool& wrong) {
  const auto workload = p.family().make_workload(p, dev, 42);
  struct Contender {
    std::string config;
    int instance = 0;
    std::unique_ptr<LoadedVariant> variant;
  };
  std::vector<Contender> contenders;
  std::vector<std::unique_ptr<cuda::DeviceBuffer>> pads;  // kept until the timing ends: the placements stay
  std::string rows;
  for (const std::string& key : o.configs) {
    const std::optional<Config> c = p.family().parse_config(key);  // parse_options checked that it parses
    if (const std::string why = p.family().violation(p, *c, &dev); !why.empty()) {
      rows += fmt::format("| {} | `{}` | not valid: {} | | | | |\n", p.key(), key, why);
      continue;
    }
    const std::vector<char> cubin = cubin_for(*c, {}, p, dev, "");
    for (int i = 0; i < o.instances; ++i) {
      // 2 MiB pages: a pad of i pages and i * 192 KiB moves the next allocation's pages and its offset within one.
      pads.push_back(std::make_unique<cuda::DeviceBuffer>((static_cast<std::size_t>(i) << 21) + i * (192u << 10) + 256));
      Contender k{key, i, workload->load(*c, cubin, false)};
      if (const std::string why = k.variant->check(stream); !why.empty()) {
        rows += fmt::format("| {} | `{}` | instance {} WRONG: {} | | | | |\n", p.key(), key, i, why);
        wrong = true;
      }
      contenders.push_back(std::move(k));
    }
  }
  std::vector<std::function<void(cudaStream_t)>> calls;
  for (const Contender& k : contenders) calls.push_back([&k](cudaStream_t s) { k.variant->run(s); });
  const auto cub = cub_baseline(p, workload->input(), workload->output());
  if (cub) calls.push_back(cub->run);
  if (calls.empty()) return rows;
  const std::vector<SampleStats> t = time_interleaved(calls, flush, o.samples, stream);
  const std::string cub_us = cub ? fmt::format("{:.1f}", t.back().median * 1e3) : "-";
  for (std::size_t first = 0; first < contenders.size();) {
    std::size_t end = first;
    std::vector<double> us;
    std::string each;
    for (; end < contenders.size() && contenders[end].config == contenders[first].config; ++end) {
      us.push_back(t[end].median * 1e3);
      each += fmt::format("{}{:.1f}", each.empty() ? "" : " ", us.back());
    }
    std::sort(us.begin(), us.end());
    rows += fmt::format("| {} | `{}` | {:.1f} | {:.1f} | {:.1f} | **{:.3f}** | {} | {} |\n", p.key(),
                        contenders[first].config, us.front(), median_of(us), us.back(), us.back() / us.front(), cub_us,
                        each);
    first = end;
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse_options(argc, argv);
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * dev.l2_bytes);
  std::string table = fmt::format(
      "# One configuration in {} instances: {}\n\n"
      "Each instance loaded with its own module and workspace (a differently sized allocation before each), checked "
      "exactly, then every instance and CUB timed in the same {} interleaved rounds (L2 flushed before each call); "
      "medians in us. Data: the tuner's generators (seed 42).\n\n"
      "| problem | configuration | fastest | median | slowest | slowest / fastest | CUB | each instance |\n"
      "|---|---|---:|---:|---:|---:|---:|---|\n",
      o.instances, measured_on(dev, o.commit), o.samples);
  std::printf("%s", table.c_str());
  bool wrong = false;
  for (const Problem& p : o.problems) {
    const std::string rows = run_problem(p, o, dev, flush, stream.get(), wrong);
    std::printf("%s", rows.c_str());
    std::fflush(stdout);
    table += rows;
  }
  if (!o.markdown.empty()) std::ofstream(o.markdown) << table;
  return wrong ? 1 : 0;
} catch (const UsageError& e) {
  std::fprintf(stderr, "instances_bench: %s\n", e.what());
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "instances_bench: %s\n", e.what());
  return 1;
}
