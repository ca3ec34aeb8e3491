#include "cli/bench.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/tuner.hpp"
#include "cli/format.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/workload.hpp"
#include "runtime/resolve.hpp"
#include "tuner/harness.hpp"

#if AUTOTUNE_HAVE_CUB
#include "bench/baselines.hpp"
#endif

namespace autotune::cli {

#if AUTOTUNE_HAVE_CUB

namespace {

// One problem made ready: its family's workload (input, CPU answer), the configuration the runtime API resolves
// from the cache loaded on that input, and CUB's call on the same buffers, if CUB has the case.
struct Prepared {
  Resolved resolved;
  std::unique_ptr<Workload> workload;
  std::unique_ptr<LoadedVariant> tuned;
  std::optional<bench::BaselineCall> cub;
};

// The flush buffer and the roof's buffer are held while a problem is benchmarked: a problem that does not fit
// beside them is a clear error before anything is allocated (as in the tuner), not a CUDA error half-way.
Prepared prepare(const Problem& problem, int device, const std::string& cache_path, std::uint64_t held_bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  AUTOTUNE_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (const std::string why = device_memory_shortfall(problem, device, device_memory_need(problem, 0), free_bytes,
                                                      total_bytes, "benchmark");
      !why.empty())
    throw Error(why + fmt::format(" (besides {} MiB held for the L2 flush)", held_bytes >> 20));
  Prepared out;
  out.resolved = resolve(problem, device, cache_path);
  out.workload = problem.family().make_workload(problem, out.resolved.device, 42);
  out.tuned = out.workload->load(out.resolved.resolution.config, out.resolved.at_hint().cubin, false);
  out.cub = bench::cub_baseline(problem, out.workload->input(), out.workload->output());
  return out;
}
}  // namespace

int run_bench(const BenchCommand& cmd, const std::string& cache_path, std::ostream& out, std::ostream& err) {
  const DeviceInfo device = query_device(cmd.device);  // a clear error without a GPU
  AUTOTUNE_CUDA(cudaSetDevice(cmd.device));
  const double roof = measure_read_roof(device, std::max<std::size_t>(256u << 20, 4 * device.l2_bytes), 10);
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * device.l2_bytes);
  Cache cache(cache_path);
  Listing l;
  l.columns = {{"problem", "problem"},   {"source", "source"},     {"configuration", "config"},
               {"time us", "median_us"}, {"GB/s", "gbps"},         {"% roof", "roof_pct"},
               {"CUB us", "cub_us"},     {"CUB GB/s", "cub_gbps"}, {"vs CUB", "speedup_vs_cub"}};
  int failures = 0;
  for (const Problem& problem : cmd.problems) {
    Prepared p = prepare(problem, cmd.device, cache_path, flush.bytes());
    const Resolution& r = p.resolved.resolution;
    if (const std::string diff = p.tuned->check(stream.get()); !diff.empty()) {
      fmt::print(err, "autotune: {}: the tuned configuration {} gave a wrong result: {}\n", problem.key(),
                 r.config.key(), diff);
      ++failures;
      continue;
    }
    auto gbps = [&](double ms) { return static_cast<double>(problem.bytes()) / (ms * 1e-3) / 1e9; };
    const SampleStats tuned = time_calls([&](cudaStream_t s) { p.tuned->run(s); }, flush, cmd.samples, stream.get());
    std::optional<SampleStats> cub;
    if (p.cub) {
      if (const std::string diff = p.workload->check_call(p.cub->run, stream.get()); !diff.empty())
        fmt::print(err, "autotune: {}: CUB gave a different result ({}); its time is shown anyway\n", problem.key(), diff);
      cub = time_calls(p.cub->run, flush, cmd.samples, stream.get());
      cache.set_baseline(device, problem, p.cub->name, cub->median, gbps(cub->median));
    }
    l.rows.push_back({text_cell(problem.key()), text_cell(std::string(to_string(r.source))), text_cell(r.config.key()),
                      number_cell(tuned.median * 1000.0, 1), number_cell(gbps(tuned.median), 1),
                      number_cell(100.0 * gbps(tuned.median) / roof, 1),
                      cub ? number_cell(cub->median * 1000.0, 1) : null_cell("-"),
                      cub ? number_cell(gbps(cub->median), 1) : null_cell("-"),
                      cub ? number_cell(cub->median / tuned.median, 2, "x") : null_cell("-")});
  }
  if (cmd.format == OutputFormat::table)
    fmt::print(out, "{} ({}), read roof {:.0f} GB/s measured now; {} timed calls each, L2 flushed before every one\n",
               device.name, device.arch(), roof, cmd.samples);
  out << render(l, cmd.format);
  return failures ? 1 : 0;
}

#else

int run_bench(const BenchCommand&, const std::string&, std::ostream&, std::ostream&) {
  throw Error("this autotune was built without the CUB baselines (no CUDA compiler at build time): `autotune bench` "
              "is not available; rebuild with nvcc on the PATH");
}

#endif

}  // namespace autotune::cli
