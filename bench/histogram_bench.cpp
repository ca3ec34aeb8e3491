// Histogram benchmark: the tuned winner against cub::DeviceHistogram::HistogramEven and the read roof, on this GPU,
// in the same run. For each case the tuner runs over the whole space (verifying every variant), then the winner and
// CUB are timed by the same harness: CUDA events around one complete call (zeroing included), L2 flushed before
// every sample, median of --samples. GB/s counts the input bytes once; % roof is against the read-only 16-byte
// streaming kernel measured at the start of the run.
//
// Each case also prints (stdout only) its fastest variants by the tuner's measurement, so a winner's margin over
// the other families is visible; the header gives the floor of one empty launch, and of a memset + launch.
// --only TEXT runs the cases whose group contains TEXT (e.g. --only "37 bins": u8 with 37 bins over [10, 250) at
// 256M samples of the photo-like image and of uniform bytes, where the direct kernel divides per sample and value
// counting, bin=values, is what the space offers instead).
//
//   histogram_bench [--quick] [--small] [--only TEXT] [--samples K] [--top K] [--skip K] [--markdown FILE]
//   histogram_bench ... --compile-only [--arch ARCH]   compiles the selected cases' spaces into the compile cache
//                                                        and runs nothing (bench/compile_space.hpp); no GPU with --arch
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/tuner.hpp"
#include "bench/compile_space.hpp"
#include "bench/cub_baseline.hpp"
#include "bench/read_roof.hpp"
#include "core/cuda.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "core/jit.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "tuner/harness.hpp"

using namespace autotune;

namespace {

struct Case {
  std::string group;
  HistogramProblem problem;
};

std::vector<Case> cases(bool quick) {
  std::vector<Case> out;
  auto make = [](SampleType t, int bins, double lo, double hi, std::uint64_t n, const char* dist) {
    HistogramProblem p;
    p.type = t, p.bins = bins, p.lower = lo, p.upper = hi, p.n = n, p.distribution = dist;
    return p;
  };
  for (const char* d : {"uniform", "constant", "narrow", "runs", "image"})
    out.push_back({"u8/256 at 512 MiB", make(SampleType::u8, 256, 0, 256, 512ull << 20, d)});
  for (int bins : {64, 1024, 4096, 16384, 65536, 1 << 20})
    out.push_back({fmt::format("f32/{} bins at 64M samples", bins), make(SampleType::f32, bins, 0, 1, 64ull << 20, "uniform")});
  for (std::uint64_t n : {4ull << 10, 64ull << 10, 1ull << 20, 16ull << 20})
    out.push_back({"u8/256, small n", make(SampleType::u8, 256, 0, 256, n, "uniform")});
  for (const char* d : {"image", "uniform"})
    out.push_back({"u8/37 bins over [10,250) at 256M", make(SampleType::u8, 37, 10, 250, 256ull << 20, d)});
  // 16-bit floats (binned in float, against CUB's HistogramEven of __half / __nv_bfloat16 samples with float levels)
  // and signed bytes.
  const std::size_t typed = out.size();
  out.push_back({"f16/1000 bins at 64M samples", make(SampleType::f16, 1000, 0, 1, 64ull << 20, "uniform")});
  out.push_back({"i8/256 at 512 MiB", make(SampleType::i8, 256, -128, 128, 512ull << 20, "uniform")});
  out.push_back({"bf16/1000 bins at 64M samples", make(SampleType::bf16, 1000, 0, 1, 64ull << 20, "uniform")});
  // --quick: the rows bench/gpu_targets.py reads (u8 and i8 at 512 MiB: % of the roof; f16/1000: vs CUB), nothing
  // else, so that bench/gpu_check.sh quick fits one GPU job.
  if (quick) out = {out[0], out[typed], out[typed + 1]};
  return out;
}

std::string fmt_us(double ms) { return fmt::format("{:.1f}", ms * 1000.0); }

}  // namespace

int main(int argc, char** argv) try {
  bool quick = false, small_only = false, compile_only = false;
  int samples = 30, top = 5, skip = 0;
  std::string markdown, only, arch;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--small") small_only = true;
    else if (a == "--samples" && i + 1 < argc) samples = std::stoi(argv[++i]);
    else if (a == "--top" && i + 1 < argc) top = std::stoi(argv[++i]);
    else if (a == "--skip" && i + 1 < argc) skip = std::stoi(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--compile-only") compile_only = true;
    else if (a == "--arch" && i + 1 < argc) arch = argv[++i];
    else {
      std::fprintf(stderr, "usage: histogram_bench [--quick] [--small] [--only TEXT] [--samples K] [--top K] [--skip K] "
                           "[--markdown FILE] [--compile-only [--arch ARCH]]\n");
      return 2;
    }
  }
  // The cases the options select, in the table's order.
  std::vector<Case> selected;
  for (const Case& c : cases(quick)) {
    if (skip > 0 && skip--) continue;  // resume a table after its first cases
    if (small_only && c.group.find("small") == std::string::npos) continue;
    if (!only.empty() && c.group.find(only) == std::string::npos) continue;
    selected.push_back(c);
  }
  if (compile_only) {  // the spaces the tuner will compile (its workload's, histogram_space), into the compile cache
    std::vector<std::string> sources;
    for (const Case& c : selected) bench::add_sources(sources, c.problem, histogram_space(c.problem));
    return bench::compile_ahead(sources, arch.empty() ? query_device(0).arch() : arch, "histogram_bench");
  }
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * dev.l2_bytes);
  cuda::DeviceBuffer sink(16);

  const bench::ReadRoof roof = bench::measure_bench_roof(flush, samples, stream.get());
  const double roof_gbps = roof.gbps;
  // The floor under small inputs: one empty launch, and a 16-byte memset followed by one (Merge::atomic's shape).
  const SampleStats empty = time_calls([&](cudaStream_t s) { bench::launch_empty(s); }, flush, samples, stream.get());
  const SampleStats memset_empty = time_calls(
      [&](cudaStream_t s) {
        AUTOTUNE_CUDA(cudaMemsetAsync(sink.get(), 0, 16, s));
        bench::launch_empty(s);
      },
      flush, samples, stream.get());

  std::string header = fmt::format(
      "# Histogram benchmark: {} ({} SMs, {} MiB L2), driver {}.{}, NVRTC {}.{}\n\n"
      "Read roof (16-byte streaming read of 512 MiB): **{:.0f} GB/s** (spread {:.1f} %). Every time below is the\n"
      "median of {} calls with the L2 flushed before each, events around one whole call (zeroing included).\n"
      "Timed the same way: one empty kernel launch {:.1f} us; a memset + an empty launch {:.1f} us.\n\n"
      "| case | distribution | n | winner | time (us) | GB/s | % roof | CUB (us) | CUB GB/s | vs CUB |\n"
      "|---|---|---|---|---:|---:|---:|---:|---:|---:|\n",
      dev.name, dev.sm_count, dev.l2_bytes >> 20, dev.driver_version / 1000, dev.driver_version % 1000 / 10,
      dev.nvrtc_version / 1000, dev.nvrtc_version % 1000 / 10, roof_gbps, roof.spread * 100, samples, empty.median * 1000,
      memset_empty.median * 1000);
  std::printf("%s", header.c_str());
  std::fflush(stdout);
  std::string table = header;

  for (const Case& c : selected) {
    const HistogramProblem& p = c.problem;
    Cache cache(":memory:");
    TuneOptions o;
    o.samples = 5;
    o.warmup = 1;
    const TuneReport r = tune(Problem(p), cache, o);
    if (!r.winner) {
      std::printf("| %s | %s | %llu | no correct variant | | | | | | |\n", c.group.c_str(), p.distribution.c_str(),
                  static_cast<unsigned long long>(p.n));
      continue;
    }
    {  // the tuning run and the runners-up, by the tuner's own measurement (stdout only)
      std::printf("  # %s %s: tuned in %.1f s, %d variants compiled, %d from the compile cache\n", c.group.c_str(),
                  p.distribution.c_str(), r.seconds, r.compiled, r.compile_cache_hits);
      std::vector<const Measurement*> ok;
      for (const auto& m : r.measurements)
        if (m.status == MeasurementStatus::ok) ok.push_back(&m);
      std::sort(ok.begin(), ok.end(), [](auto* a, auto* b) { return a->median_ms < b->median_ms; });
      for (int k = 0; k < top && k < static_cast<int>(ok.size()); ++k)
        std::printf("  # %s %s n=%llu #%d %.2f us %s\n", c.group.c_str(), p.distribution.c_str(),
                    static_cast<unsigned long long>(p.n), k + 1, ok[k]->median_ms * 1000.0, ok[k]->config.key().c_str());
    }
    // Re-create the winner and the inputs the tuner used (same seed), then time both contenders alike.
    const auto host = generate_samples(p, p.n, o.seed);
    cuda::DeviceBuffer in(host.size());
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    // A pageable copy may return before its DMA lands: wait before a non-blocking stream reads it.
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    cuda::DeviceBuffer ours(static_cast<std::size_t>(p.bins) * 4), theirs(static_cast<std::size_t>(p.bins) * 4);
    const auto compiled = jit::compile(kernel_source(p, r.winner->config), "winner.cu", dev.arch());
    if (!compiled.ok) throw Error("the winner no longer compiles: " + compiled.log);
    HistogramKernel kernel(p, *r.winner->config.as<HistogramConfig>(), dev, compiled.cubin);
    static_assert(static_cast<int>(SampleType::f32) == static_cast<int>(bench::CubSample::f32) &&
                  static_cast<int>(SampleType::f64) == static_cast<int>(bench::CubSample::f64) &&
                  static_cast<int>(SampleType::i16) == static_cast<int>(bench::CubSample::i16));
    bench::CubHistogram cub({static_cast<bench::CubSample>(p.type), p.bins, p.lower, p.upper}, p.n);

    const SampleStats t_ours =
        time_calls([&](cudaStream_t s) { kernel.run(in.get(), p.n, ours.get(), s); }, flush, samples, stream.get());
    const SampleStats t_cub = time_calls([&](cudaStream_t s) { cub.run(in.get(), theirs.as<unsigned>(), s); }, flush,
                                        samples, stream.get());
    // Both answers checked bin by bin: ours against the reference, and CUB's against ours (the binning is CUB's, bit
    // for bit: tests/cub/).
    const auto expected = counts_as_written(p, reference_histogram(p, host.data(), p.n));
    std::vector<unsigned> got(p.bins), got_cub(p.bins);
    AUTOTUNE_CUDA(cudaMemcpy(got.data(), ours.get(), ours.bytes(), cudaMemcpyDeviceToHost));
    AUTOTUNE_CUDA(cudaMemcpy(got_cub.data(), theirs.get(), theirs.bytes(), cudaMemcpyDeviceToHost));
    bool exact = true;
    int cub_differs = 0;
    for (int b = 0; b < p.bins; ++b) {
      exact = exact && expected[b] == got[b];
      cub_differs += got_cub[b] != got[b];
    }
    const double gbps = p.bytes() / (t_ours.median * 1e-3) / 1e9;
    const double cub_gbps = p.bytes() / (t_cub.median * 1e-3) / 1e9;
    const std::string note = std::string(exact ? "" : " WRONG RESULT") +
                             (cub_differs == 0 ? " = CUB" : fmt::format(" ({} bins differ from CUB)", cub_differs));
    std::string row = fmt::format("| {} | {} | {} | `{}` | {} | {:.0f} | {:.1f} | {} | {:.0f} | **{:.2f}x** |{}\n",
                                  c.group, p.distribution, p.n, r.winner->config.key(), fmt_us(t_ours.median), gbps,
                                  100.0 * gbps / roof_gbps, fmt_us(t_cub.median), cub_gbps,
                                  t_cub.median / t_ours.median, note);
    std::printf("%s", row.c_str());
    std::fflush(stdout);
    table += row;
  }
  if (!markdown.empty()) std::ofstream(markdown) << table;
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "histogram_bench: %s\n", e.what());
  return 1;
}
