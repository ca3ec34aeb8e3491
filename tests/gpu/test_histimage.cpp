// CUB-exact float binning (the scale in float, a bin rounded up to `bins` not counted) and pixels of several
// interleaved channels, the variants of the tier (tier.hpp) against the CPU reference (which tests/cub/
// holds against CUB's own transform): adversarial samples, a colour photograph, odd sizes, pixel-aligned and
// unaligned starts, and through the runtime handle.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <span>

#include "autotune/error.hpp"
#include "autotune/histogram.hpp"
#include "gpu_fixtures.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/space.hpp"
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
#include "bench/cub_baseline.hpp"
#endif

using namespace autotune;
using namespace autotune::testing;

namespace {

#if AUTOTUNE_GPU_TESTS_HAVE_CUB
constexpr bool kCubLinked = true;
#else
constexpr bool kCubLinked = false;  // the oracle case below is reported skipped
#endif

HistogramProblem make(SampleType t, int bins, double lo, double hi, int channels = 1, int active = 1) {
  HistogramProblem p;
  p.type = t, p.bins = bins, p.lower = lo, p.upper = hi, p.channels = channels, p.active = active;
  return p;
}

// u8 RGBA, 3 of 4 channels x 256 bins, in 64-bit counters: the 2D regions' sign-extended block totals.
HistogramProblem wide_rgba() {
  HistogramProblem p = make(SampleType::u8, 256, 0, 256, 4, 3);
  p.counter_bits = 64;
  return p;
}

// The problems of the cases below: the quick tier covers their joint space once (tier_share).
const std::vector<HistogramProblem>& suite_problems() {
  static const std::vector<HistogramProblem> problems{
      HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}, {17, 10, 200}}),
      HistogramProblem::multi_channel(SampleType::f32, 4, {{100, -1, 1}, {37, 0.02f, 0.8f}}),
      HistogramProblem::multi_channel(SampleType::u8, 3, {{32, 0, 256}, {256, 0, 256}, {5, 100, 105}}),
      make(SampleType::f32, 129, 0x1.51e258p-9, 0x1.f1fca4p-5),
      make(SampleType::f32, 65536, 0.02f, 0.8f),
      make(SampleType::u8, 256, 0, 256, 4, 3),
      make(SampleType::u8, 64, 16, 240, 3, 3),
      make(SampleType::u16, 1000, 0, 65536, 2, 1),
      make(SampleType::f32, 100, -1, 1, 4, 2),
      make(SampleType::u8, 256, 0, 256),
      make(SampleType::f32, 1000, -1, 1, 2, 2),
      wide_rgba(),
      make(SampleType::f32, 100003, -2, 3)};
  return problems;
}

// What a case verifies of the space, compiled: in the full tier every `every`-th runnable variant (1: all of them),
// in the quick tier the problem's share of one pairwise covering of the suite's problems (tier_share); the built-in
// default in both.
std::vector<CompiledVariant<HistogramConfig>> compile_selection(const HistogramProblem& base, int every,
                                                                const DeviceInfo& dev, Entries entries) {
  int pruned = 0;
  const auto all = space_decl::any_n(base, histogram_space);
  auto violation = [&](const HistogramProblem& p, const HistogramConfig& c) {
    return histogram_violation(p, c, &dev);
  };
  std::vector<HistogramConfig> picked;
  if (gpu_tier() == Tier::full) {
    for (std::size_t i = 0; i < all.size(); i += static_cast<std::size_t>(every)) picked.push_back(all[i]);
    picked = runnable(picked, [&](const HistogramConfig& c) { return violation(base, c); }, pruned);
  } else {
    picked = tier_share(
        suite_problems(), base, [](const HistogramProblem& p) { return space_decl::any_n(p, histogram_space); }, dev, violation);
  }
  if (std::find(picked.begin(), picked.end(), HistogramConfig::fallback(base)) == picked.end())
    picked.push_back(HistogramConfig::fallback(base));
  MESSAGE(fmt::format("{}: {} variants of {} ({} pruned by device limits, {} tier{})", base.shape_key(), picked.size(),
                      all.size(), pruned, tier_name(gpu_tier()),
                      gpu_tier() == Tier::full && every > 1 ? fmt::format(": every {}th", every) : ""));
  return compile_variants(base, picked, dev, entries);
}

// The variants of compile_selection on adversarial and distribution inputs of n pixels, at sample offsets `offsets`
// (a pixel-vector variant refuses a start that is not on a pixel, UsageError, and must not be run there).
void check_every_variant(const HistogramProblem& base, const std::vector<std::size_t>& offsets, int every = 1,
                         const std::function<void(std::vector<unsigned char>&, std::uint64_t)>& edges = {}) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  const auto variants = compile_selection(base, every, dev, Entries::one_row);
  REQUIRE(!variants.empty());
  struct Input {
    std::string name;
    HistogramProblem problem;
    std::uint64_t n;
    bool adversarial;
  };
  std::vector<Input> inputs;
  for (std::uint64_t n : {0ull, 1ull, 37ull, (1ull << 20) + 5}) inputs.push_back({fmt::format("adversarial n={}", n), base, n, true});
  for (const char* d : {"image", "uniform", "constant"}) {
    HistogramProblem p = base;
    p.distribution = d;
    inputs.push_back({fmt::format("{} n=2M+3", d), p, (2ull << 20) + 3, false});
  }
  std::vector<HistogramKernel> kernels;  // one module load per variant, reused for every input
  for (const auto& v : variants) kernels.emplace_back(base, v.config, dev, v.cubin, v.entry_2d);
  cuda::DeviceBuffer counts = counter_buffer(base);
  std::size_t runs = 0, refused = 0;
  for (const auto& in : inputs) {
    auto host = in.adversarial ? adversarial_samples(in.problem, in.n, 77 + in.n) : generate_samples(in.problem, in.n, 5);
    if (in.adversarial && edges) edges(host, in.n);
    const auto expected = expected_counts(base, host, in.n);
    for (std::size_t offset : offsets) {
      DeviceSamples dev_in(host, size_of(base.type), offset);
      const bool on_pixel = offset % static_cast<std::size_t>(base.channels) == 0;
      for (auto& kernel : kernels) {
        INFO(in.name, " offset ", offset, " ", kernel.config().key());
        if (!on_pixel && HistogramKernel::needs_pixel_alignment(base, kernel.config())) {
          CHECK_THROWS_AS(kernel.run(dev_in.ptr, in.n, counts.get(), nullptr), UsageError);
          ++refused;
          continue;
        }
        fill_and_wait(counts, 0xAB);
        kernel.run(dev_in.ptr, in.n, counts.get(), nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        const auto diff = compare_histograms(expected, download(base, counts));
        CHECK_MESSAGE(diff.empty(), diff);
        ++runs;
      }
    }
  }
  MESSAGE(fmt::format("{} runs exact, {} unaligned starts refused", runs, refused));
}

// 2D regions (image_regions, generators.hpp) through the variants of compile_selection, against the reference of
// the region's pixels packed on the host.
void check_regions(const HistogramProblem& base, int every) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  const auto variants = compile_selection(base, every, dev, Entries::all);
  const std::size_t pixel = static_cast<std::size_t>(base.channels) * size_of(base.type);
  cuda::DeviceBuffer counts = counter_buffer(base);
  std::size_t runs = 0;
  for (const ImageRegion& sh : image_regions(pixel)) {
    const std::size_t stride = sh.rows > 1 ? sh.stride_bytes : sh.row_pixels * pixel;
    const std::size_t bytes = sh.offset_bytes + stride * sh.rows + 64;
    HistogramProblem gen = base;
    gen.channels = 1, gen.active = 1;
    const auto host = adversarial_samples(gen, bytes / size_of(base.type), 31 + sh.rows);
    std::vector<unsigned char> packed;
    for (std::uint64_t r = 0; r < sh.rows; ++r) {
      const auto* row = host.data() + sh.offset_bytes + r * stride;
      packed.insert(packed.end(), row, row + sh.row_pixels * pixel);
    }
    const auto expected = expected_counts(base, packed, sh.row_pixels * sh.rows);
    DeviceSamples dev_in(host, 1, 0);
    const auto* start = static_cast<const unsigned char*>(dev_in.ptr) + sh.offset_bytes;
    for (const auto& v : variants) {
      HistogramKernel kernel(base, v.config, dev, v.cubin);
      INFO(base.shape_key(), " ", sh.name, ": ", sh.row_pixels, "x", sh.rows, " stride ", sh.stride_bytes,
           " offset ", sh.offset_bytes, " ", v.config.key());
      fill_and_wait(counts, 0xAB);
      kernel.run(start, HistogramKernel::Region{sh.row_pixels, sh.rows, sh.stride_bytes}, counts.get(), nullptr);
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      const auto diff = compare_histograms(expected, download(base, counts));
      CHECK_MESSAGE(diff.empty(), diff);
      ++runs;
    }
  }
  MESSAGE(fmt::format("{}: {} region runs exact ({} variants)", base.shape_key(), runs, variants.size()));
}

// Each active channel's own edges written into pixels 3.. of n (f32 samples): its lower bound, the float below it,
// its upper bound, the float below that (which CUB's arithmetic may round to `bins`), and the float below its
// first inner bin edge; the adversarial stream only holds channel 0's.
std::function<void(std::vector<unsigned char>&, std::uint64_t)> f32_channel_edges(const HistogramProblem& p) {
  return [p](std::vector<unsigned char>& bytes, std::uint64_t n) {
    for (int c = 0; c < p.active; ++c) {
      const HistogramChannel ch = p.channel(c);
      const float lo = static_cast<float>(ch.lower), hi = static_cast<float>(ch.upper);
      const float inner = lo + (hi - lo) / static_cast<float>(ch.bins);
      const float values[] = {lo, std::nextafter(lo, -INFINITY), hi, std::nextafter(hi, lo),
                              std::nextafter(inner, lo), inner};
      for (std::size_t k = 0; k < std::size(values); ++k) {
        const std::uint64_t pixel = 3 + k * 5 + static_cast<std::uint64_t>(c);
        if (pixel >= n) break;
        std::memcpy(&bytes[(pixel * static_cast<std::uint64_t>(p.channels) + static_cast<std::uint64_t>(c)) * 4],
                    &values[k], 4);
      }
    }
  };
}

// The u8 pixel configuration the handle cases record: 16-byte loads of 4 whole pixels (the constant-channel path).
HistogramConfig pixel_winner() {
  HistogramConfig c;
  c.privatization = Privatization::shared, c.replicas = 32, c.block = 512, c.vec_bytes = 16, c.loads = 2;
  return c;
}

// A fresh cache file named after `tag` in which `c` is the recorded exact winner of `p`; its path.
std::string cache_with_winner(const HistogramProblem& p, const HistogramConfig& c, const std::string& tag) {
  const auto path = (std::filesystem::temp_directory_path() / fmt::format("{}_{}.db", tag, ::getpid())).string();
  std::filesystem::remove(path);
  record_forced_winner(path, Problem(p), Config(c));
  return path;
}

}  // namespace

TEST_SUITE("gpu_histimage") {
  TEST_CASE("CUB as the oracle: MultiHistogramEven of u8 pixels (RGBA 3 and 4 of 4, RGB 3 of 3, levels per channel) "
            "equals the CPU reference the variants are checked against, on adversarial pixels and a photo-like image" *
            doctest::skip(!kCubLinked)) {
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
    AUTOTUNE_CUDA(cudaSetDevice(0));
    for (const HistogramProblem& base :
         {make(SampleType::u8, 256, 0, 256, 4, 3), make(SampleType::u8, 64, 16, 240, 4, 4),
          make(SampleType::u8, 64, 16, 240, 3, 3),
          HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}, {17, 10, 200}}),
          HistogramProblem::multi_channel(SampleType::u8, 3, {{32, 0, 256}, {256, 0, 256}, {5, 100, 105}})}) {
      CAPTURE(base.shape_key());
      bench::CubProblem cp{bench::CubSample::u8, base.bins, base.lower, base.upper, base.channels, base.active};
      for (int c = 0; c < base.active; ++c) {
        const HistogramChannel ch = base.channel(c);
        cp.channel_bins[c] = ch.bins, cp.channel_lower[c] = ch.lower, cp.channel_upper[c] = ch.upper;
      }
      REQUIRE(bench::cub_supports(cp));
      cuda::DeviceBuffer counts = counter_buffer(base);
      HistogramProblem image = base;
      image.distribution = "image";
      struct Pixels {
        std::string name;
        std::vector<unsigned char> host;
        std::uint64_t n;
      };
      const std::uint64_t big = (1ull << 20) + 5, photo = (2ull << 20) + 3;
      for (const Pixels& in : {Pixels{"adversarial n=1", adversarial_samples(base, 1, 3), 1},
                               Pixels{"adversarial n=37", adversarial_samples(base, 37, 4), 37},
                               Pixels{"adversarial n=1M+5", adversarial_samples(base, big, 5), big},
                               Pixels{"image n=2M+3", generate_samples(image, photo, 6), photo}}) {
        const auto& [name, host, n] = in;
        const DeviceSamples samples(host, 1, 0);
        const bench::CubHistogram cub(cp, n);
        fill_and_wait(counts, 0xAB);
        cub.run(samples.ptr, counts.as<unsigned>(), nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        INFO("CUB MultiHistogramEven, ", name);
        const std::string diff = compare_histograms(expected_counts(base, host, n), download(base, counts));
        CHECK_MESSAGE(diff.empty(), diff);
      }
    }
#endif
  }
  TEST_CASE("levels per channel: u8 RGBA 3 of 4 with 256, 64 and 17 bins over their own ranges, the tier's "
            "variants exact (every fourth in the full tier)") {
    const HistogramProblem p =
        HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}, {17, 10, 200}});
    REQUIRE(!p.uniform_channels());
    REQUIRE(p.counters() == 256 + 64 + 17);
    check_every_variant(p, {0, 4, 1}, 4);
  }
  TEST_CASE("levels per channel: f32 2 of 4 channels, 100 bins over [-1, 1) and 37 over [0.02, 0.8), each channel's "
            "edges, the tier's variants exact (every fourth in the full tier)") {
    const HistogramProblem p =
        HistogramProblem::multi_channel(SampleType::f32, 4, {{100, -1, 1}, {37, 0.02f, 0.8f}});
    check_every_variant(p, {0, 2}, 4, f32_channel_edges(p));
  }
  TEST_CASE("levels per channel: u8 RGB 3 of 3 (channels change within a vector), 2D regions of RGBA and RGB") {
    const HistogramProblem rgb =
        HistogramProblem::multi_channel(SampleType::u8, 3, {{32, 0, 256}, {256, 0, 256}, {5, 100, 105}});
    check_every_variant(rgb, {0, 1, 2}, 6);
    check_regions(HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}, {17, 10, 200}}),
                  8);
    check_regions(rgb, 8);
  }
  TEST_CASE("levels per channel: the Histogram handle serves a recorded winner of the per-channel key and counts "
            "each channel into its own counters") {
    HistogramProblem p = HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}, {17, 10, 200}});
    p.n = 1 << 20;
    p.distribution = "image";
    const std::uint64_t n = (1 << 20) + 3;
    const auto host = generate_samples(p, n, 9);
    const auto expected = expected_counts(p, host, n);
    DeviceSamples in(host, 1, 0);
    cuda::DeviceBuffer counts = counter_buffer(p);
    const HistogramConfig c = pixel_winner();
    const std::string path = cache_with_winner(p, c, "histlevels");
    Histogram h(p, Histogram::Options{0, path});
    CHECK(h.resolution().source == ConfigSource::exact);
    CHECK(h.config_for(n) == Config(c));
    fill_and_wait(counts, 0xAB);
    h(std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(in.ptr), n * 4),
      std::span<unsigned>(counts.as<unsigned>(), 337));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    CHECK(compare_histograms(expected, download(p, counts)) == "");
    CHECK_THROWS_AS(h(std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(in.ptr), n * 4),
                      std::span<unsigned>(counts.as<unsigned>(), 336)),
                    UsageError);
    std::filesystem::remove(path);
  }
  TEST_CASE("2D regions (padded, off the 16-byte grid, odd strides, short rows, spans with short or no gaps): u8 "
            "RGBA 3 of 4, u8, RGB, f32, 64-bit counts, f32 of 100003 bins") {
    check_regions(make(SampleType::u8, 256, 0, 256, 4, 3), 2);
    check_regions(make(SampleType::u8, 256, 0, 256), 4);
    check_regions(make(SampleType::u8, 64, 16, 240, 3, 3), 4);
    check_regions(make(SampleType::f32, 1000, -1, 1, 2, 2), 6);
    // A span's blocks take back counts that other blocks added: a block's total may be "negative", and 64-bit
    // counts must receive it sign-extended.
    check_regions(wide_rgba(), 5);
    // Many bins: global atomics, copies of the global histogram and windows of shared counters (placed from a 2D
    // region's first sample, or a span's sample at the block's share) over regions. Added 2026-12-06 (g), after the
    // session's device time: first run by the next GPU check.
    check_regions(make(SampleType::f32, 100003, -2, 3), 3);
  }
  TEST_CASE("2D: a stride shorter than a row, or not a whole number of pixels for pixel vectors, is refused") {
    const HistogramProblem p = make(SampleType::u8, 256, 0, 256, 4, 3);
    HistogramConfig c;
    c.privatization = Privatization::shared, c.replicas = 32, c.block = 512, c.vec_bytes = 16, c.loads = 2;
    const DeviceInfo dev = query_device(0);
    HistogramKernel kernel(p, c, dev, compile_one(p, c, dev));
    cuda::DeviceBuffer in(1 << 20), counts = counter_buffer(p);
    CHECK_THROWS_AS(kernel.run(in.get(), HistogramKernel::Region{100, 10, 399}, counts.get(), nullptr), UsageError);
    CHECK_THROWS_AS(kernel.run(in.get(), HistogramKernel::Region{100, 10, 402}, counts.get(), nullptr), UsageError);
    kernel.run(in.get(), HistogramKernel::Region{100, 10, 404}, counts.get(), nullptr);
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
  }
  TEST_CASE("f32, 129 bins where the float below upper rounds to bin 129: the tier's variants leave it uncounted") {
    // The range of tests/cpu/test_reference.cpp: CUB's arithmetic puts nextafter(upper, lower) in bin 129; the
    // adversarial samples hold that value.
    check_every_variant(make(SampleType::f32, 129, 0x1.51e258p-9, 0x1.f1fca4p-5), {0, 1});
  }
  TEST_CASE("f32, 65536 bins over [0.02, 0.8): the tier's variants (every third in the full tier) bin "
            "with CUB's float scale") {
    check_every_variant(make(SampleType::f32, 65536, 0.02f, 0.8f), {0}, 3);
  }
  TEST_CASE("u8 RGBA, 3 of 4 channels x 256 bins: the tier's variants exact, unaligned starts refused "
            "or exact") {
    check_every_variant(make(SampleType::u8, 256, 0, 256, 4, 3), {0, 4, 1, 2});
  }
  TEST_CASE("u8 RGB, 3 of 3 channels x 64 bins over [16, 240): the tier's variants (every other in the full tier) "
            "exact at any start") {
    check_every_variant(make(SampleType::u8, 64, 16, 240, 3, 3), {0, 1, 2}, 2);
  }
  TEST_CASE("u16, 1 of 2 channels x 1000 bins; f32, 2 of 4 channels x 100 bins: the tier's "
            "variants exact (every fourth in the full tier)") {
    check_every_variant(make(SampleType::u16, 1000, 0, 65536, 2, 1), {0, 1}, 4);
    check_every_variant(make(SampleType::f32, 100, -1, 1, 4, 2), {0, 2}, 4);
  }

  TEST_CASE("the Histogram handle counts RGBA pixels, by pointer and by span, and refuses a partial pixel") {
    HistogramProblem p = make(SampleType::u8, 256, 0, 256, 4, 3);
    p.n = 1 << 20;
    p.distribution = "image";
    const std::uint64_t n = (1 << 20) + 3;
    const auto host = generate_samples(p, n, 9);
    const auto expected = expected_counts(p, host, n);
    DeviceSamples in(host, 1, 0);
    cuda::DeviceBuffer counts = counter_buffer(p);
    const HistogramConfig c = pixel_winner();
    REQUIRE(HistogramKernel::needs_pixel_alignment(p, c));
    const std::string path = cache_with_winner(p, c, "histimage");
    Histogram h(p, Histogram::Options{0, path});
    CHECK(h.config_for(n) == Config(c));
    CHECK(h.problem().counters() == 768);
    fill_and_wait(counts, 0xAB);
    h(static_cast<const std::uint8_t*>(in.ptr), n, counts.as<unsigned>());
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    CHECK(compare_histograms(expected, download(p, counts)) == "");
    fill_and_wait(counts, 0xAB);
    h(std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(in.ptr), n * 4),
      std::span<unsigned>(counts.as<unsigned>(), 768));
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    CHECK(compare_histograms(expected, download(p, counts)) == "");
    CHECK_THROWS_AS(h(std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(in.ptr), n * 4 - 1),
                      std::span<unsigned>(counts.as<unsigned>(), 768)),
                    UsageError);
    CHECK_THROWS_AS(h(std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(in.ptr), n * 4),
                      std::span<unsigned>(counts.as<unsigned>(), 767)),
                    UsageError);
    // A start that is not on a pixel: refused (this configuration loads whole pixels).
    CHECK_THROWS_AS(h(static_cast<const std::uint8_t*>(in.ptr) + 1, n - 1, counts.as<unsigned>()), UsageError);
    std::filesystem::remove(path);
  }
}
