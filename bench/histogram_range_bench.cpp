// Range-histogram benchmark: the tuned winner against cub::DeviceHistogram::HistogramRange and the read roof, on
// this GPU, in the same run. For each case the tuner runs over the whole space (verifying every variant against the
// CPU reference), then the winner and CUB are timed by the same harness: CUDA events around one complete call
// (zeroing included), L2 flushed before every sample, median of --samples. GB/s counts the input bytes once; % roof
// is against the read-only 16-byte streaming kernel measured at the start of the run. Both answers are compared
// bin for bin with the CPU reference (and so with each other).
//
// Data: the tuner's distributions (uniform, narrow: a hot band of 16 bins' worth, image: a smooth field with noise)
// and, for u8, English-like text bytes (words from a fixed vocabulary with Zipf-like frequencies, spaces,
// punctuation, newlines), timed with the winner tuned on uniform bytes of the same shape.
//
// 2D regions: a crop of rows (row stride larger than the row) timed with the winner tuned on the contiguous samples
// of the same count, against CUB's 2D HistogramRange and against the same winner on those samples contiguous.
// Reference row: the even u8 histogram's winner at 512 MiB (bench/results/2026-12-01b-h200-size-bench-u8.md), the
// same counting method, timed on the same bytes in the same run: what the range family's value counting should reach.
//
// --only TEXT runs the cases whose group contains TEXT (e.g. --only "3 of 4 channels": the MultiHistogramRange row).
//
//   histogram_range_bench [--quick | --all] [--only TEXT] [--samples K] [--top K] [--markdown FILE]
//   histogram_range_bench ... --compile-only [--arch ARCH]   the selected cases' spaces into the compile cache,
//                                                              nothing run (bench/compile_space.hpp)
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "autotune/tuner.hpp"
#include "bench/compile_space.hpp"
#include "bench/cub_range.hpp"
#include "bench/read_roof.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "kernel_templates/histogram_range/launcher.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/histogram_range/space.hpp"
#include "tuner/harness.hpp"
#include "core/splitmix.hpp"

using namespace autotune;

namespace {

struct Case {
  std::string group;
  HistogramRangeProblem problem;
  bool text = false;  ///< time on text bytes with the winner tuned on uniform bytes of the same shape
  // A 2D region (rows > 0): rows of problem.n / rows samples, row_stride_bytes apart, timed with the winner tuned on
  // the same shape and count contiguous (a case before it).
  std::uint64_t rows = 0;
  std::size_t row_stride_bytes = 0;
  bool even_reference = false;  ///< the even u8 histogram's 512 MiB winner on the same uniform bytes
};

HistogramRangeProblem make(SampleType t, int bins, EdgeLayout e, std::uint64_t n, const char* dist) {
  HistogramRangeProblem p;
  p.type = t, p.bins = bins, p.edges = e, p.n = n, p.distribution = dist;
  return p;
}

// RGBA pixels, the first 3 channels counted, each over its own 256 irregular levels (255 bins; MultiHistogramRange).
HistogramRangeProblem rgba(std::uint64_t pixels, const char* dist) {
  return make(SampleType::u8, 255, EdgeLayout::irregular, pixels, dist).with_channel_bins(4, {255, 255, 255});
}

std::vector<Case> cases(bool quick, bool all) {
  // The targets first (a run cut short by a time limit keeps them), then 2D regions, then the rest.
  const std::uint64_t u8n = 512ull << 20, f32n = 64ull << 20;
  const char* u8g = "u8, 256 irregular edges, 512 MiB";
  const char* f32g = "f32, 1000 irregular edges, 64M";
  // An 8K RGBA frame's bytes as u8 samples: 7680 x 4 bytes per row, 4320 rows (126.6 MiB).
  const std::uint64_t row = 7680 * 4, rows = 4320;
  const char* img = "u8, 256 irregular edges, 7680x4320 RGBA bytes";
  const char* multi = "u8 RGBA, 3 of 4 channels, 256 irregular levels per channel, 512 MiB";
  std::vector<Case> out{
      {u8g, make(SampleType::u8, 255, EdgeLayout::irregular, u8n, "uniform")},
      {u8g, make(SampleType::u8, 255, EdgeLayout::irregular, u8n, "uniform"), false, 0, 0, true},
      {multi, rgba(u8n / 4, "uniform")},
      {u8g, make(SampleType::u8, 255, EdgeLayout::irregular, u8n, "uniform"), true},
      {f32g, make(SampleType::f32, 999, EdgeLayout::irregular, f32n, "uniform")},
      {img, make(SampleType::u8, 255, EdgeLayout::irregular, row * rows, "uniform")},
      {img, make(SampleType::u8, 255, EdgeLayout::irregular, row * rows, "uniform"), false, rows, 8192 * 4},
      {img, make(SampleType::u8, 255, EdgeLayout::irregular, row * rows, "uniform"), false, rows, row + 52},
      {"u8, 256 irregular edges, small n", make(SampleType::u8, 255, EdgeLayout::irregular, 1ull << 20, "uniform")},
  };
  // --quick: the two rows bench/gpu_targets.py reads (u8 at 512 MiB: % of the roof; MultiHistogramRange: vs CUB),
  // without the even reference row between them.
  if (quick) out = {out[0], out[2]};
  if (all) {
    std::vector<Case> more{
        {u8g, make(SampleType::u8, 255, EdgeLayout::irregular, u8n, "narrow")},
        {f32g, make(SampleType::f32, 999, EdgeLayout::irregular, f32n, "image")},
        {u8g, make(SampleType::u8, 255, EdgeLayout::irregular, u8n, "image")},
        {f32g, make(SampleType::f32, 999, EdgeLayout::irregular, f32n, "narrow")},
        {"f32, 1000 even edges, 64M", make(SampleType::f32, 999, EdgeLayout::even, f32n, "uniform")},
        {"f32, 1000 irregular edges, small n", make(SampleType::f32, 999, EdgeLayout::irregular, 1ull << 20, "uniform")},
        {"u8, 17 irregular edges, 512 MiB", make(SampleType::u8, 16, EdgeLayout::irregular, u8n, "uniform")},
        {"u16, 4097 irregular edges, 128M", make(SampleType::u16, 4096, EdgeLayout::irregular, 128ull << 20, "uniform")},
        {"f64, 1000 irregular edges, 32M", make(SampleType::f64, 999, EdgeLayout::irregular, 32ull << 20, "uniform")},
        {multi, rgba(u8n / 4, "image")},
        {"f16, 1000 irregular edges, 64M", make(SampleType::f16, 999, EdgeLayout::irregular, f32n, "uniform")},
        {"bf16, 1000 irregular edges, 64M", make(SampleType::bf16, 999, EdgeLayout::irregular, f32n, "uniform")},
        {"i8, 256 irregular edges, 512 MiB", make(SampleType::i8, 255, EdgeLayout::irregular, u8n, "uniform")},
    };
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

// The even u8 histogram's winner at 512 MiB (bench/results/2026-12-01b-h200-size-bench-u8.md, 95.1 % of that run's
// roof): R = 32 lane-interleaved byte counters, the range family's value counting without the mapping to bins.
constexpr const char* kEvenReference =
    "priv=shared,R=32,cbits=32,block=512,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0";

// English-like text: words of a fixed vocabulary drawn with Zipf-like weights (1/rank), separated by spaces, with
// commas, full stops and newlines.
std::vector<unsigned char> text_bytes(std::uint64_t n, std::uint64_t seed) {
  static const char* words[] = {
      "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on", "not",
      "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had", "they", "you", "were",
      "their", "one", "all", "we", "can", "her", "has", "there", "been", "if", "more", "when", "will", "would", "who",
      "so", "no", "histogram", "kernel", "memory", "shared", "bandwidth", "levels", "samples", "Between", "Where",
      "throughput", "August", "Quickly", "zero", "jump", "vex", "quiz", "HTTP", "GPU", "2026", "42"};
  constexpr int kWords = sizeof(words) / sizeof(words[0]);
  std::vector<double> cdf(kWords);
  double total = 0;
  for (int i = 0; i < kWords; ++i) cdf[i] = total += 1.0 / (i + 1);
  SplitMix64 rng{seed};
  std::vector<unsigned char> out;
  out.reserve(n);
  while (out.size() < n) {
    const double u = rng.unit() * total;
    const char* w = words[std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()];
    for (const char* c = w; *c && out.size() < n; ++c) out.push_back(static_cast<unsigned char>(*c));
    const double r = rng.unit();
    const char sep = r < 0.06 ? ',' : r < 0.10 ? '.' : r < 0.12 ? '\n' : ' ';
    if (out.size() < n) out.push_back(static_cast<unsigned char>(sep));
    if ((sep == ',' || sep == '.') && out.size() < n) out.push_back(' ');
  }
  return out;
}

std::string fmt_us(double ms) { return fmt::format("{:.1f}", ms * 1000.0); }

}  // namespace

int main(int argc, char** argv) try {
  bool quick = false, all = false, compile_only = false;
  int samples = 30, top = 3;
  std::string markdown, only, arch;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--all") all = true;
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--samples" && i + 1 < argc) samples = std::stoi(argv[++i]);
    else if (a == "--top" && i + 1 < argc) top = std::stoi(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else if (a == "--compile-only") compile_only = true;
    else if (a == "--arch" && i + 1 < argc) arch = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: histogram_range_bench [--quick | --all] [--only TEXT] [--samples K] [--top K] "
                   "[--markdown FILE] [--compile-only [--arch ARCH]]\n");
      return 2;
    }
  }
  if (compile_only) {  // the spaces the tuner will compile (histogram_range_space), into the compile cache
    std::vector<std::string> sources;
    for (const Case& c : cases(quick, all))
      if (!c.even_reference && (only.empty() || c.group.find(only) != std::string::npos))
        bench::add_sources(sources, c.problem, histogram_range_space(c.problem));
    return bench::compile_ahead(sources, arch.empty() ? query_device(0).arch() : arch, "histogram_range_bench");
  }
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * dev.l2_bytes);
  const bench::ReadRoof roof = bench::measure_bench_roof(flush, samples, stream.get());

  std::string header = fmt::format(
      "# Range-histogram benchmark: {} ({} SMs, {} MiB L2), driver {}.{}, NVRTC {}.{}\n\n"
      "Read roof (16-byte streaming read of 512 MiB): **{:.0f} GB/s** (spread {:.1f} %). Every time is the median of\n"
      "{} calls with the L2 flushed before each, events around one whole call (zeroing included). CUB is\n"
      "cub::DeviceHistogram::HistogramRange on the same samples and levels; `exact` means ours and CUB's counts both\n"
      "equal the CPU reference in every bin.\n\n"
      "| case | data | n | winner | time (us) | GB/s | % roof | CUB (us) | CUB GB/s | CUB % roof | vs CUB | check |\n"
      "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
      dev.name, dev.sm_count, dev.l2_bytes >> 20, dev.driver_version / 1000, dev.driver_version % 1000 / 10,
      dev.nvrtc_version / 1000, dev.nvrtc_version % 1000 / 10, roof.gbps, roof.spread * 100, samples);
  std::printf("%s", header.c_str());
  std::fflush(stdout);
  std::string table = header;
  std::map<std::string, Config> uniform_winners;  // shape without distribution -> the uniform winner
  std::map<std::string, double> contiguous_ms;     // shape -> the uniform winner's time on contiguous samples

  for (const Case& c : cases(quick, all)) {
    if (!only.empty() && c.group.find(only) == std::string::npos) continue;
    const HistogramRangeProblem& p = c.problem;
    Config winner;
    TuneOptions o;
    o.samples = 5;
    o.warmup = 1;
    const std::string shape = p.key();
    if (c.even_reference) {
      // The even family's kernel on the uniform bytes of this shape: the same method, measured in the same run.
      HistogramProblem ep;
      ep.type = SampleType::u8, ep.bins = 256, ep.lower = 0, ep.upper = 256, ep.n = p.n;
      const HistogramConfig ec = *HistogramConfig::parse(kEvenReference);
      const auto host = generate_range_samples(p, p.n, o.seed);
      cuda::DeviceBuffer in(host.size()), counts(256 * 4);
      AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
      const auto compiled = jit::compile(kernel_source(ep, ec), "even.cu", dev.arch());
      if (!compiled.ok) throw Error("the even reference does not compile: " + compiled.log);
      HistogramKernel kernel(ep, ec, dev, compiled.cubin);
      const SampleStats t = time_calls([&](cudaStream_t st) { kernel.run(in.get(), p.n, counts.get(), st); }, flush,
                                       samples, stream.get());
      std::vector<std::uint64_t> expected(256, 0);
      for (unsigned char b : host) ++expected[b];
      std::vector<unsigned> got(256);
      AUTOTUNE_CUDA(cudaMemcpy(got.data(), counts.get(), counts.bytes(), cudaMemcpyDeviceToHost));
      int wrong = 0;
      for (int b = 0; b < 256; ++b) wrong += expected[b] != got[b];
      const double gbps = p.bytes() / (t.median * 1e-3) / 1e9;
      std::string row = fmt::format(
          "| {} | uniform, **even u8 histogram, 256 bins (reference: the same counting method)** | {} | `{}` | {} | "
          "{:.0f} | {:.1f} | | | | | {} |\n",
          c.group, p.n, kEvenReference, fmt_us(t.median), gbps, 100.0 * gbps / roof.gbps,
          wrong == 0 ? "exact" : fmt::format("**{} bins off**", wrong));
      std::printf("%s", row.c_str());
      std::fflush(stdout);
      table += row;
      continue;
    }
    if ((c.text || c.rows > 0) && uniform_winners.count(shape)) {
      winner = uniform_winners.at(shape);
    } else {
      Cache cache(":memory:");
      const TuneReport r = tune(Problem(p), cache, o);
      if (!r.winner) {
        std::printf("| %s | %s | %llu | no correct variant | | | | | | | | |\n", c.group.c_str(),
                    p.distribution.c_str(), static_cast<unsigned long long>(p.n));
        continue;
      }
      std::printf("  # %s %s: tuned in %.1f s, %d variants compiled, %d from the compile cache\n", c.group.c_str(),
                  p.distribution.c_str(), r.seconds, r.compiled, r.compile_cache_hits);
      winner = r.winner->config;
      if (p.distribution == "uniform") uniform_winners[shape] = winner;
      std::vector<const Measurement*> ok;
      for (const auto& m : r.measurements)
        if (m.status == MeasurementStatus::ok) ok.push_back(&m);
      std::sort(ok.begin(), ok.end(), [](auto* a, auto* b) { return a->median_ms < b->median_ms; });
      for (int k = 0; k < top && k < static_cast<int>(ok.size()); ++k)
        std::printf("  # %s %s #%d %.2f us %s\n", c.group.c_str(), p.distribution.c_str(), k + 1,
                    ok[k]->median_ms * 1000.0, ok[k]->config.key().c_str());
      std::printf("  # %s %s: %zu variants measured ok of %zu\n", c.group.c_str(), p.distribution.c_str(), ok.size(),
                  r.measurements.size());
    }
    // A region's rows lie row_stride_bytes apart in a larger buffer; the samples between them are never counted.
    const std::uint64_t row_samples = c.rows > 0 ? p.n / c.rows : p.n;  // pixels (samples, for one channel)
    const std::uint64_t span = c.rows > 0 ? (c.rows - 1) * (c.row_stride_bytes / size_of(p.type)) + row_samples : p.n;
    const auto host = c.text ? text_bytes(span, 7) : generate_range_samples(p, span, o.seed);
    const auto levels = generate_levels(p);
    cuda::DeviceBuffer in(host.size()), d_levels(levels.size());
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaMemcpy(d_levels.get(), levels.data(), levels.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    const auto counters = static_cast<std::size_t>(p.counters());
    cuda::DeviceBuffer ours(counters * 4), theirs(counters * 4);
    const auto compiled = jit::compile(kernel_source(p, winner), "winner.cu", dev.arch());
    if (!compiled.ok) throw Error("the winner no longer compiles: " + compiled.log);
    HistogramRangeKernel kernel(p, *winner.as<HistogramRangeConfig>(), dev, compiled.cubin);
    static_assert(static_cast<int>(SampleType::i16) == static_cast<int>(bench::CubSample::i16));
    const auto cub_sample = static_cast<bench::CubSample>(p.type);
    int channel_bins[4] = {0, 0, 0, 0};
    for (int ch = 0; ch < p.active; ++ch) channel_bins[ch] = p.channel_bins(ch);
    const bench::CubHistogramRange cub =
        p.channels > 1 ? bench::CubHistogramRange(cub_sample, p.channels, p.active, channel_bins, p.n)
        : c.rows > 0   ? bench::CubHistogramRange(cub_sample, p.bins, row_samples, c.rows, c.row_stride_bytes)
                       : bench::CubHistogramRange(cub_sample, p.bins, p.n);
    const HistogramRangeKernel::Region region{row_samples, c.rows > 0 ? c.rows : 1, c.row_stride_bytes};

    const SampleStats t_ours = time_calls(
        [&](cudaStream_t s) { kernel.run(in.get(), region, d_levels.get(), ours.get(), s); }, flush, samples,
        stream.get());
    const SampleStats t_cub = time_calls(
        [&](cudaStream_t s) { cub.run(in.get(), d_levels.get(), theirs.as<unsigned>(), s); }, flush, samples,
        stream.get());
    const auto expected = histogram_samples::counts_as_written(
        p, c.rows > 0 ? reference_range_histogram_region(p, host.data(), row_samples, c.rows, c.row_stride_bytes,
                                                         levels.data())
                      : reference_range_histogram(p, host.data(), p.n, levels.data()));
    if (c.rows == 0 && !c.text && p.distribution == "uniform") contiguous_ms[shape] = t_ours.median;
    std::string data = c.text ? "text (winner of uniform)" : p.distribution;
    if (c.rows > 0) {
      data = fmt::format("2D: {} rows of {} B, stride {} B (winner of contiguous)", c.rows, row_samples * size_of(p.type),
                         c.row_stride_bytes);
      if (contiguous_ms.count(shape))
        data += fmt::format("; contiguous {} us, region {:+.1f} %", fmt_us(contiguous_ms.at(shape)),
                            100.0 * (t_ours.median / contiguous_ms.at(shape) - 1.0));
    }
    std::vector<unsigned> got(counters), got_cub(counters);
    AUTOTUNE_CUDA(cudaMemcpy(got.data(), ours.get(), ours.bytes(), cudaMemcpyDeviceToHost));
    AUTOTUNE_CUDA(cudaMemcpy(got_cub.data(), theirs.get(), theirs.bytes(), cudaMemcpyDeviceToHost));
    int wrong = 0, wrong_cub = 0;
    for (std::size_t b = 0; b < counters; ++b) {
      wrong += expected[b] != got[b];
      wrong_cub += expected[b] != got_cub[b];
    }
    const std::string check = wrong == 0 && wrong_cub == 0
                                  ? "exact"
                                  : fmt::format("**ours {} bins off, CUB {} bins off**", wrong, wrong_cub);
    const double gbps = p.bytes() / (t_ours.median * 1e-3) / 1e9;
    const double cub_gbps = p.bytes() / (t_cub.median * 1e-3) / 1e9;
    std::string row = fmt::format(
        "| {} | {} | {} | `{}` | {} | {:.0f} | {:.1f} | {} | {:.0f} | {:.1f} | **{:.2f}x** | {} |\n", c.group,
        c.text ? "text (winner of uniform)" : p.distribution, p.n, winner.key(), fmt_us(t_ours.median), gbps,
        100.0 * gbps / roof.gbps, fmt_us(t_cub.median), cub_gbps, 100.0 * cub_gbps / roof.gbps,
        t_cub.median / t_ours.median, check);
    std::printf("%s", row.c_str());
    std::fflush(stdout);
    table += row;
  }
  if (!markdown.empty()) std::ofstream(markdown) << table;
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "histogram_range_bench: %s\n", e.what());
  return 1;
}
