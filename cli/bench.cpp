#include "cli/bench.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/histogram.hpp"
#include "autotune/reduce.hpp"
#include "autotune/tuner.hpp"
#include "cli/format.hpp"
#include "runtime/cuda.hpp"
#include "tuner/reduce_reference.hpp"
#include "tuner/reference.hpp"
#include "tuner/harness.hpp"

#if AUTOTUNE_HAVE_CUB
#include "bench/cub_baseline.hpp"
#include "bench/cub_reduce.hpp"
#endif

namespace autotune::cli {

#if AUTOTUNE_HAVE_CUB

namespace {

using Call = std::function<void(cudaStream_t)>;

// One problem made ready: the input on the GPU, the tuned call, CUB's call (if CUB has the case), and checks of
// both against the CPU reference.
struct Prepared {
  std::string source;  // where the tuned configuration came from
  std::string config;
  Call tuned;
  std::optional<Call> cub;
  std::function<std::string(cudaStream_t)> check_tuned;  // empty when correct
  std::function<std::string(cudaStream_t)> check_cub;
  std::vector<std::shared_ptr<void>> keep;  // buffers and handles the calls use
};

template <class T>
std::shared_ptr<T> keep(Prepared& p, std::shared_ptr<T> x) {
  p.keep.push_back(x);
  return x;
}

Prepared prepare_histogram(const HistogramProblem& p, int device, const std::string& cache_path) {
  Prepared out;
  const auto host = generate_samples(p, p.n, 42);
  const auto expected = counts_as_written(p, reference_histogram(p, host.data(), p.n));
  auto in = keep(out, std::make_shared<cuda::DeviceBuffer>(std::max<std::size_t>(host.size(), 16)));
  if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(in->get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  auto counts = keep(out, std::make_shared<cuda::DeviceBuffer>(static_cast<std::size_t>(p.bins) * p.counter_bits / 8));
  auto h = keep(out, std::make_shared<Histogram>(p, Histogram::Options{device, cache_path}));
  out.source = std::string(to_string(h->resolution().source));
  out.config = h->resolution().config.key();
  out.tuned = [=](cudaStream_t s) {
    if (p.counter_bits == 64) (*h)(in->get(), p.n, counts->as<unsigned long long>(), s);
    else (*h)(in->get(), p.n, counts->as<unsigned>(), s);
  };
  auto compare = [=](const Call& call, cudaStream_t s) {
    std::vector<unsigned char> got(counts->bytes());
    AUTOTUNE_CUDA(cudaMemsetAsync(counts->get(), 0xAB, got.size(), s));
    call(s);
    AUTOTUNE_CUDA(cudaMemcpyAsync(got.data(), counts->get(), got.size(), cudaMemcpyDeviceToHost, s));
    AUTOTUNE_CUDA(cudaStreamSynchronize(s));
    return compare_histograms(expected, widen_counts(p, got.data()));
  };
  out.check_tuned = [=, call = out.tuned](cudaStream_t s) { return compare(call, s); };
  if (p.counter_bits == 32) {  // CUB's counters are the sample count type: 32 bits here
    auto cub = keep(out, std::make_shared<bench::CubHistogram>(
                             bench::CubProblem{static_cast<bench::CubSample>(p.type), p.bins, p.lower, p.upper}, p.n));
    out.cub = [=](cudaStream_t s) { cub->run(in->get(), counts->as<unsigned>(), s); };
    out.check_cub = [=, call = *out.cub](cudaStream_t s) { return compare(call, s); };
  }
  return out;
}

Prepared prepare_reduce(const ReduceProblem& p, int device, const std::string& cache_path) {
  Prepared out;
  const auto host = generate_values(p, p.n, 42);
  const ReduceExpected expected = reference_reduce(p, host.data(), p.n);
  auto in = keep(out, std::make_shared<cuda::DeviceBuffer>(std::max<std::size_t>(host.size(), 16)));
  if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(in->get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  auto result = keep(out, std::make_shared<cuda::DeviceBuffer>(16));
  auto r = keep(out, std::make_shared<Reduce>(p, Reduce::Options{device, cache_path}));
  out.source = std::string(to_string(r->resolution().source));
  out.config = r->resolution().config.key();
  out.tuned = [=](cudaStream_t s) { r->run(in->get(), p.n, result->get(), s); };
  auto compare = [=](const Call& call, cudaStream_t s) {
    unsigned char got[16];
    AUTOTUNE_CUDA(cudaMemsetAsync(result->get(), 0xAB, sizeof got, s));
    call(s);
    AUTOTUNE_CUDA(cudaMemcpyAsync(got, result->get(), sizeof got, cudaMemcpyDeviceToHost, s));
    AUTOTUNE_CUDA(cudaStreamSynchronize(s));
    return compare_reduce(p, expected, got, p.n);
  };
  out.check_tuned = [=, call = out.tuned](cudaStream_t s) { return compare(call, s); };
  // CUB accumulates as autotune's defaults do for the types it covers (bench/cub_reduce.hpp).
  if (p.accumulator_type() == ReduceProblem{p.op, p.type, std::nullopt, p.n}.accumulator_type()) {
    try {
      auto cub = keep(out, std::make_shared<bench::CubReduce>(static_cast<bench::CubValue>(p.type),
                                                               static_cast<bench::CubOp>(p.op), p.n));
      out.cub = [=](cudaStream_t s) { cub->run(in->get(), result->get(), s); };
      out.check_cub = [=, call = *out.cub](cudaStream_t s) { return compare(call, s); };
    } catch (const std::invalid_argument&) {
      // a type the CUB baseline does not instantiate: no bar for this row
    }
  }
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
    Prepared p = problem.histogram() ? prepare_histogram(*problem.histogram(), cmd.device, cache_path)
                                     : prepare_reduce(*problem.reduce(), cmd.device, cache_path);
    if (const std::string diff = p.check_tuned(stream.get()); !diff.empty()) {
      fmt::print(err, "autotune: {}: the tuned configuration {} gave a wrong result: {}\n", problem.key(), p.config, diff);
      ++failures;
      continue;
    }
    auto gbps = [&](double ms) { return static_cast<double>(problem.bytes()) / (ms * 1e-3) / 1e9; };
    const SampleStats tuned = time_calls(p.tuned, flush, cmd.samples, stream.get());
    std::optional<SampleStats> cub;
    if (p.cub) {
      if (const std::string diff = p.check_cub(stream.get()); !diff.empty())
        fmt::print(err, "autotune: {}: CUB gave a different result ({}); its time is shown anyway\n", problem.key(), diff);
      cub = time_calls(*p.cub, flush, cmd.samples, stream.get());
      cache.set_baseline(device, problem, "cub", cub->median, gbps(cub->median));
    }
    l.rows.push_back({text_cell(problem.key()), text_cell(p.source), text_cell(p.config),
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
