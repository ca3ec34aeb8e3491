// Image histograms (issue #17): pixels of interleaved channels and 2D regions, against CUB's MultiHistogramEven and
// its 2D overloads and the read roof, on this GPU, in the same run; and CUB-exact float binning on image gradients.
//
//   1. u8 RGBA, 3 of 4 channels x 256 bins, 512 MiB of a photo-like image (gradients, a disc, a vignette, noise;
//      kernel_templates/histogram/reference.cpp): the tuner runs over the whole space (every variant checked), then
//      the winner and CUB are timed by the same harness (CUDA events around one whole call, zeroing included, L2
//      flushed before every sample, median of --samples).
//   1b. The same photo with each active channel's own bins and range (256, 64 and 17 bins) against CUB's
//      MultiHistogramEven with those levels, run by the winner of 1.
//   2. A 7680 x 4320 RGBA crop of a 8192-pixel-wide image (row stride 32 KiB > the row's 30 KiB) against the same
//      pixels contiguous, with the winner of 1 and with CUB; also a crop that starts off the 16-byte grid and one
//      whose stride is not a multiple of 16 bytes (its 4-byte gaps: counted as one span, and by rows for
//      comparison). The contenders of a crop are timed in interleaved rounds.
//   3. f32 image gradients over [0.02, 0.8) with 4096 and 65536 bins: counts compared with CUB bin by bin.
// Every case's counts are compared with the CPU reference and with CUB's, bin by bin.
//
//   histogram_image_bench [--quick] [--samples K] [--markdown FILE]
//     --quick   the rows bench/gpu_targets.py reads: the tuned RGBA case, and the 2D rows 30724 B apart with the same
//               pixels contiguous (the per-channel levels, the two other crops and the f32 gradients are left out)
//   histogram_image_bench --compile-only [--arch ARCH]   case 1's space into the compile cache, nothing run
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/tuner.hpp"
#include "bench/baselines.hpp"
#include "bench/bench_common.hpp"
#include "bench/compile_space.hpp"
#include "bench/cub_baseline.hpp"
#include "bench/read_roof.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "tuner/harness.hpp"

using namespace autotune;

namespace {

using bench::cub_problem;

std::vector<unsigned> download(const cuda::DeviceBuffer& b) {
  std::vector<unsigned> out(b.bytes() / 4);
  AUTOTUNE_CUDA(cudaMemcpy(out.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

int differing(const std::vector<unsigned>& a, const std::vector<unsigned>& b) {
  int d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
  return d;
}

std::string check_note(const std::vector<std::uint64_t>& expected, const std::vector<unsigned>& ours,
                       const std::vector<unsigned>& cub) {
  int wrong = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) wrong += (expected[i] & 0xFFFFFFFFu) != ours[i];
  const int cub_diff = differing(ours, cub);
  return fmt::format("{}{}", wrong ? fmt::format("WRONG ({} bins) ", wrong) : "exact ",
                     cub_diff ? fmt::format("({} bins differ from CUB)", cub_diff) : "= CUB");
}

}  // namespace

int main(int argc, char** argv) try {
  int samples = 30;
  bool quick = false, compile_only = false;
  std::string markdown, arch;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--samples" && i + 1 < argc) samples = std::stoi(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else if (a == "--compile-only") compile_only = true;
    else if (a == "--arch" && i + 1 < argc) arch = argv[++i];
    else {
      std::fprintf(stderr, "usage: histogram_image_bench [--quick] [--samples K] [--markdown FILE] [--compile-only [--arch ARCH]]\n");
      return 2;
    }
  }
  // 1. RGBA, 3 of 4 channels, 512 MiB: the one tuned case (the others run its winner or the built-in default).
  HistogramProblem rgba;
  rgba.channels = 4, rgba.active = 3, rgba.n = 128ull << 20, rgba.distribution = "image";
  if (compile_only) {  // its space (the tuner's, histogram_space) into the compile cache
    std::vector<std::string> sources;
    bench::add_sources(sources, rgba, histogram_space(rgba));
    return bench::compile_ahead(sources, arch.empty() ? query_device(0).arch() : arch, "histogram_image_bench");
  }
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  cuda::Stream stream;
  cuda::DeviceBuffer flush(2 * dev.l2_bytes);
  const bench::ReadRoof roof = bench::measure_bench_roof(flush, samples, stream.get());
  std::string table = fmt::format(
      "# Image histogram benchmark: {} ({} SMs), driver {}.{}, NVRTC {}.{}\n\n"
      "Read roof (16-byte streaming read of 512 MiB): **{:.0f} GB/s** (spread {:.1f} %). Times: median of {} calls,\n"
      "L2 flushed before each, events around one whole call (zeroing included). GB/s counts the pixels' bytes once.\n\n"
      "| case | ours | time (us) | GB/s | % roof | CUB (us) | CUB GB/s | vs CUB | counts |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---|\n",
      dev.name, dev.sm_count, dev.driver_version / 1000, dev.driver_version % 1000 / 10, dev.nvrtc_version / 1000,
      dev.nvrtc_version % 1000 / 10, roof.gbps, roof.spread * 100, samples);
  std::printf("%s", table.c_str());
  std::fflush(stdout);
  auto row = [&](const std::string& name, const std::string& ours, double bytes, const SampleStats& t,
                 const SampleStats& tc, const std::string& note) {
    const double gbps = bytes / (t.median * 1e-3) / 1e9, cub_gbps = bytes / (tc.median * 1e-3) / 1e9;
    const std::string r = fmt::format("| {} | {} | {:.1f} | {:.0f} | {:.1f} | {:.1f} | {:.0f} | **{:.2f}x** | {} |\n", name,
                                      ours, t.median * 1000, gbps, 100 * gbps / roof.gbps, tc.median * 1000, cub_gbps,
                                      tc.median / t.median, note);
    std::printf("%s", r.c_str());
    std::fflush(stdout);
    table += r;
  };

  Cache cache(":memory:");
  TuneOptions o;
  o.samples = 5;
  o.warmup = 1;
  const TuneReport r = tune(Problem(rgba), cache, o);
  if (!r.winner) throw Error("no correct variant for " + rgba.key());
  {
    std::vector<const Measurement*> ok;
    for (const auto& m : r.measurements)
      if (m.status == MeasurementStatus::ok) ok.push_back(&m);
    std::sort(ok.begin(), ok.end(), [](auto* a, auto* b) { return a->median_ms < b->median_ms; });
    std::printf("  # %zu correct variants of %zu; tuned in %.1f s, %d compiled, %d from the compile cache\n", ok.size(),
                r.measurements.size(), r.seconds, r.compiled, r.compile_cache_hits);
    for (std::size_t k = 0; k < 8 && k < ok.size(); ++k)
      std::printf("  # RGBA #%zu %.2f us %s\n", k + 1, ok[k]->median_ms * 1000.0, ok[k]->config.key().c_str());
  }
  const HistogramConfig best = *r.winner->config.as<HistogramConfig>();
  const auto compiled = jit::compile(kernel_source(rgba, best), "winner.cu", dev.arch());
  if (!compiled.ok) throw Error("the winner no longer compiles: " + compiled.log);
  const HistogramKernel kernel(rgba, best, dev, compiled.cubin);
  // Times `k` on `p`'s generated pixels against CUB's MultiHistogramEven of the same problem, both checked bin for
  // bin against the CPU reference; one row of the table.
  auto pixels_row = [&](const HistogramProblem& p, const HistogramKernel& k, const std::string& name,
                        const std::string& config) {
    const auto host = generate_samples(p, p.n, o.seed);
    const std::size_t counters = static_cast<std::size_t>(p.counters());
    cuda::DeviceBuffer in(host.size()), ours(counters * 4), theirs(counters * 4);
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    bench::CubHistogram cub(cub_problem(p), p.n);
    const SampleStats t =
        time_calls([&](cudaStream_t s) { k.run(in.get(), p.n, ours.get(), s); }, flush, samples, stream.get());
    const SampleStats tc = time_calls([&](cudaStream_t s) { cub.run(in.get(), theirs.as<unsigned>(), s); }, flush,
                                      samples, stream.get());
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    row(name, config, static_cast<double>(p.bytes()), t, tc,
        check_note(reference_histogram(p, host.data(), p.n), download(ours), download(theirs)));
  };
  pixels_row(rgba, kernel, "u8 RGBA 3 of 4 x 256 bins, 512 MiB photo", fmt::format("`{}`", best.key()));

  // 1b. The same pixels, each active channel with its own bins and range (MultiHistogramEven with levels per
  // channel): R 256 bins over [0, 256), G 64 over [0, 256), B 17 over [10, 200). The winner of 1 runs it.
  if (!quick) {
    HistogramProblem levels = HistogramProblem::multi_channel(
        SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}, {17, 10, 200}});
    levels.n = rgba.n, levels.distribution = "image";
    const auto cc = jit::compile(kernel_source(levels, best), "levels.cu", dev.arch());
    if (!cc.ok) throw Error("the winner does not compile for per-channel levels: " + cc.log);
    const HistogramKernel k(levels, best, dev, cc.cubin);
    pixels_row(levels, k, "u8 RGBA 3 of 4, per-channel levels: 256 [0,256), 64 [0,256), 17 [10,200), 512 MiB photo",
               "winner of 1");
  }

  // 2. 2D: a 7680 x 4320 crop of an 8192-pixel-wide image, against the same pixels contiguous.
  {
    constexpr std::uint64_t kW = 7680, kH = 4320, kFullW = 8192, kFullH = 4420;
    HistogramProblem full = rgba;
    full.n = kFullW * kFullH;
    const auto host = generate_samples(full, full.n, 3);  // rows of 4096 pixels: the photo field, twice per row
    cuda::DeviceBuffer image(host.size() + 64), packed(kW * kH * 4), ours(768 * 4), theirs(768 * 4);
    AUTOTUNE_CUDA(cudaMemcpy(image.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    struct Crop {
      std::string name;
      std::uint64_t x0, y0;
      std::size_t stride;  // bytes
    };
    std::vector<Crop> crops = {{"crop at (64, 50), stride 32 KiB", 64, 50, kFullW * 4},
                               {"crop at (3, 50): rows start off the 16-byte grid", 3, 50, kFullW * 4},
                               {"rows 30724 B apart (stride not a multiple of 16 B)", 0, 0, kW * 4 + 4}};
    if (quick) crops.erase(crops.begin(), crops.begin() + 2);
    for (const Crop& c : crops) {
      // The crop's pixels, packed on the host: the reference and the contiguous case count these.
      std::vector<unsigned char> crop(kW * kH * 4);
      for (std::uint64_t y = 0; y < kH; ++y)
        std::memcpy(&crop[y * kW * 4], &host[(c.y0 * c.stride) + y * c.stride + c.x0 * 4], kW * 4);
      AUTOTUNE_CUDA(cudaMemcpy(packed.get(), crop.data(), crop.size(), cudaMemcpyHostToDevice));
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      const auto* base = static_cast<const unsigned char*>(image.get()) + c.y0 * c.stride + c.x0 * 4;
      const HistogramKernel::Region region{kW, kH, c.stride};
      const HistogramKernel::Region by_rows{kW, kH, c.stride, false};  // the 2D entry, never a span
      const bool span = HistogramKernel::region_args(rgba, best, base, kW * kH, region).span;
      bench::CubHistogram cub2d(cub_problem(rgba), bench::CubRegion{kW, kH, c.stride});
      bench::CubHistogram cub1d(cub_problem(rgba), kW * kH);
      const auto expected = reference_histogram(rgba, crop.data(), kW * kH);
      // Each call checked against the reference, then all five timed in interleaved rounds, so that no order of
      // timing favours one (they were timed one after the other until 2026-12-03f).
      const std::vector<std::function<void(cudaStream_t)>> calls = {
          [&](cudaStream_t s) { kernel.run(base, region, ours.get(), s); },
          [&](cudaStream_t s) { cub2d.run(base, theirs.as<unsigned>(), s); },
          [&](cudaStream_t s) { kernel.run(packed.get(), kW * kH, ours.get(), s); },
          [&](cudaStream_t s) { cub1d.run(packed.get(), theirs.as<unsigned>(), s); },
          [&](cudaStream_t s) { kernel.run(base, by_rows, ours.get(), s); }};
      std::vector<std::string> notes;
      for (std::size_t k = 0; k < calls.size(); k += 2) {  // ours, CUB; ours, CUB; ours by rows (with CUB 2D again)
        calls[k](stream.get());
        (k + 1 < calls.size() ? calls[k + 1] : calls[1])(stream.get());
        AUTOTUNE_CUDA(cudaStreamSynchronize(stream.get()));
        notes.push_back(check_note(expected, download(ours), download(theirs)));
      }
      const std::vector<SampleStats> t = bench::time_interleaved(calls, flush, samples, stream.get());
      const double bytes = static_cast<double>(kW * kH * 4);
      row(fmt::format("7680x4320 RGBA, 2D: {}", c.name),
          fmt::format("winner of 1{}; {:+.1f} % vs contiguous (CUB {:+.1f} %)", span ? ", one span" : "",
                      100 * (t[0].median / t[2].median - 1), 100 * (t[1].median / t[3].median - 1)),
          bytes, t[0], t[1], notes[0]);
      if (span)
        row("7680x4320 RGBA, 2D: the same crop counted by rows (read_gaps = false)",
            fmt::format("winner of 1; {:+.1f} % vs contiguous", 100 * (t[4].median / t[2].median - 1)), bytes, t[4],
            t[1], notes[2]);
      row("7680x4320 RGBA, the same pixels contiguous", "winner of 1", bytes, t[2], t[3], notes[1]);
    }
  }

  // 3. CUB-exact float binning: f32 image gradients over [0.02, 0.8), counts compared with CUB bin by bin.
  for (const int bins : {4096, 65536}) {
    if (quick) break;
    HistogramProblem p;
    p.type = SampleType::f32, p.bins = bins, p.lower = 0.02f, p.upper = 0.8f, p.n = 64ull << 20;
    p.distribution = "image";
    const HistogramConfig c = HistogramConfig::fallback(p);
    const auto cc = jit::compile(kernel_source(p, c), "f32.cu", dev.arch());
    if (!cc.ok) throw Error("f32 variant does not compile: " + cc.log);
    const HistogramKernel k(p, c, dev, cc.cubin);
    const auto host = generate_samples(p, p.n, 11);
    cuda::DeviceBuffer in(host.size()), ours(static_cast<std::size_t>(bins) * 4), theirs(static_cast<std::size_t>(bins) * 4);
    AUTOTUNE_CUDA(cudaMemcpy(in.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    bench::CubHistogram cub(cub_problem(p), p.n);
    const SampleStats t = time_calls([&](cudaStream_t s) { k.run(in.get(), p.n, ours.get(), s); }, flush, samples,
                                     stream.get());
    const SampleStats tc = time_calls([&](cudaStream_t s) { cub.run(in.get(), theirs.as<unsigned>(), s); }, flush,
                                      samples, stream.get());
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    row(fmt::format("f32 gradients, {} bins over [0.02, 0.8), 64M", bins), fmt::format("built-in default `{}`", c.key()),
        static_cast<double>(p.bytes()), t, tc, check_note(reference_histogram(p, host.data(), p.n), download(ours), download(theirs)));
  }
  if (!markdown.empty()) std::ofstream(markdown) << table;
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "histogram_image_bench: %s\n", e.what());
  return 1;
}
