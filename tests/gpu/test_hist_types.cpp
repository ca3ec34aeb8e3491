// f16, bf16, i8 and i16 samples in the even and range histograms, and MultiHistogramRange (pixels with levels per
// channel), on the GPU: the variants of the tier (tier.hpp: a pairwise-covering subset in the quick tier, every
// variant in the full tier) against the CPU reference on edge inputs (n = 0, 1, odd tails, unaligned starts, NaN,
// infinities, the bounds and the values next to them, the levels and the values just below them), and against CUB
// where the test binary links it (AUTOTUNE_GPU_TESTS_HAVE_CUB: bench/cub_baseline.cu, bench/cub_range.cu) on the
// finite ones: CUB's global-memory path (more than 256 bins) was seen to over-count bin 0 and to change from run to
// run with NaN among f64 samples, so NaN and infinities are checked against the reference alone. Not i8: CUB's 8-bit
// path takes a sample's value as its privatized bin ((int)sample, PassThruTransform in
// cub/device/dispatch/dispatch_histogram.cuh), so a negative signed char is never counted there.
//
// Stand-alone includes for the helpers' C library calls.
#include <unistd.h>

#include <cstdio>
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "autotune/histogram_range.hpp"
#include "gpu_fixtures.hpp"
#include "kernel_templates/half_float.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/histogram_range/launcher.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/histogram_range/space.hpp"
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
#include "bench/cub_baseline.hpp"
#include "bench/cub_range.hpp"
#endif

using namespace autotune;
using namespace autotune::testing;

namespace {

#if AUTOTUNE_GPU_TESTS_HAVE_CUB
constexpr bool kCubLinked = true;
#else
constexpr bool kCubLinked = false;  // the oracle cases below are reported skipped
#endif

HistogramProblem even(SampleType t, int bins, double lo, double hi) {
  return HistogramProblem{.type = t, .bins = bins, .lower = lo, .upper = hi};
}

HistogramRangeProblem range(SampleType t, int bins) {
  HistogramRangeProblem p;
  p.type = t, p.bins = bins;
  return p;
}

// Whether sample i of `bytes` is NaN or infinite (halves by their exponent bits).
bool not_finite(SampleType t, const std::vector<unsigned char>& bytes, std::uint64_t i) {
  if (t == SampleType::f16 || t == SampleType::bf16) {
    std::uint16_t b = 0;
    std::memcpy(&b, &bytes[i * 2], 2);
    return t == SampleType::f16 ? (b & 0x7C00) == 0x7C00 : (b & 0x7F80) == 0x7F80;
  }
  if (t == SampleType::f32) {
    float f = 0;
    std::memcpy(&f, &bytes[i * 4], 4);
    return !std::isfinite(f);
  }
  return false;
}

// The same samples with every NaN and infinity replaced by zero bits: what CUB is compared on.
std::vector<unsigned char> finite_only(SampleType t, std::vector<unsigned char> bytes) {
  const std::size_t size = size_of(t);
  for (std::uint64_t i = 0; i < bytes.size() / size; ++i)
    if (not_finite(t, bytes, i)) std::memset(&bytes[i * size], 0, size);
  return bytes;
}

std::vector<std::uint64_t> download_raw(const cuda::DeviceBuffer& counts, std::size_t counters, int bits) {
  std::vector<unsigned char> raw(counts.bytes());
  AUTOTUNE_CUDA(cudaMemcpy(raw.data(), counts.get(), raw.size(), cudaMemcpyDeviceToHost));
  std::vector<std::uint64_t> out(counters);
  for (std::size_t i = 0; i < counters; ++i) {
    if (bits == 64) std::memcpy(&out[i], &raw[i * 8], 8);
    else {
      std::uint32_t v = 0;
      std::memcpy(&v, &raw[i * 4], 4);
      out[i] = v;
    }
  }
  return out;
}

struct Input {
  std::string name;
  std::vector<unsigned char> host;
  std::uint64_t n;       // pixels
  std::size_t offset;    // samples into the allocation
};

// The even histogram's edge inputs: adversarial samples (random bits: NaN, infinities, out of range; the bounds and
// their neighbours) at n = 0, 1, 31, 12345, 2^20 + 7 and from unaligned starts, and two distributions.
std::vector<Input> even_inputs(const HistogramProblem& p) {
  std::vector<Input> in;
  for (std::uint64_t n : {0ull, 1ull, 31ull, 12345ull, (1ull << 20) + 7})
    in.push_back({fmt::format("adversarial n={}", n), adversarial_samples(p, n, 1000 + n), n, 0});
  for (std::size_t offset : {1, 3})
    in.push_back({fmt::format("adversarial, offset {}", offset), adversarial_samples(p, 100003, 77), 100003, offset});
  for (const char* d : {"uniform", "narrow"}) {
    HistogramProblem q = p;
    q.distribution = d;
    in.push_back({std::string(d) + " n=3M+1", generate_samples(q, 3 * (1ull << 20) + 1, 99), 3 * (1ull << 20) + 1, 0});
  }
  return in;
}

// The even problems of the cases below: the quick tier covers their joint space once (tier_share).
const std::vector<HistogramProblem>& even_problems() {
  static const std::vector<HistogramProblem> problems{
      even(SampleType::f16, 1000, 0.0, 1.0), even(SampleType::bf16, 64, -8.0, 8.0),
      even(SampleType::i8, 256, -128, 128),  even(SampleType::i8, 37, -100, 100),
      even(SampleType::i16, 4096, -32768, 32768), even(SampleType::i16, 1000, -1000, 3000)};
  return problems;
}

// The range problems of the cases below, likewise.
std::vector<HistogramRangeProblem> range_problems() {
  HistogramRangeProblem i16 = range(SampleType::i16, 1000).with_channel_bins(4, {1000, 7});
  i16.counter_bits = 64;
  return {range(SampleType::u8, 255).with_channel_bins(4, {255, 63, 16}),
          range(SampleType::u8, 63).with_channel_bins(3, {63, 16, 200}),
          i16,
          range(SampleType::f32, 10).with_channel_bins(2, {10, 20}),
          range(SampleType::f16, 999),
          range(SampleType::bf16, 999),
          range(SampleType::i8, 255),
          range(SampleType::i16, 4096)};
}

// CUB's HistogramEven on the finite edge inputs of `base`, against the CPU reference (and so against every variant,
// which the suites check against the same reference).
void check_cub_even(const HistogramProblem& base) {
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
  if (base.type == SampleType::i8) return;  // see the top of this file
  cuda::DeviceBuffer counts = counter_buffer(base);
  int compared = 0;
  for (const Input& in : even_inputs(base)) {
    if (in.n == 0) continue;
    const auto host = finite_only(base.type, in.host);
    const DeviceSamples samples(host, size_of(base.type), in.offset);
    bench::CubHistogram cub({static_cast<bench::CubSample>(base.type), base.bins, base.lower, base.upper}, in.n);
    fill_and_wait(counts, 0xAB);
    cub.run(samples.ptr, counts.as<unsigned>(), nullptr);
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    INFO("CUB HistogramEven, finite ", in.name, " of ", base.shape_key());
    const std::string diff = compare_histograms(expected_counts(base, host, in.n), download(base, counts));
    CHECK_MESSAGE(diff.empty(), diff);
    ++compared;
  }
  CHECK(compared > 0);
#else
  MESSAGE("CUB is not linked into this test binary: the CPU reference alone (", base.shape_key(), ")");
#endif
}

void check_even_variants(const HistogramProblem& base) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  const auto picked = tier_share(
      even_problems(), base, [](const HistogramProblem& p) { return space_decl::any_n(p, histogram_space); }, dev,
      [&](const HistogramProblem& p, const HistogramConfig& c) { return histogram_violation(p, c, &dev); });
  const auto variants = compile_variants(base, picked, dev, Entries::one_row);
  MESSAGE(fmt::format("{}: {} variants of {} ({} tier, one covering of {} problems)", base.shape_key(),
                      variants.size(), space_decl::any_n(base, histogram_space).size(), tier_name(gpu_tier()),
                      even_problems().size()));
  REQUIRE(!variants.empty());
  std::vector<HistogramKernel> kernels;
  for (const auto& v : variants) kernels.emplace_back(base, v.config, dev, v.cubin, v.entry_2d);
  cuda::DeviceBuffer counts = counter_buffer(base);
  for (const Input& in : even_inputs(base)) {
    const auto expected = expected_counts(base, in.host, in.n);
    const DeviceSamples samples(in.host, size_of(base.type), in.offset);
    for (const auto& kernel : kernels) {
      fill_and_wait(counts, 0xAB);  // poison: counters must be overwritten
      kernel.run(samples.ptr, in.n, counts.get(), nullptr);
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      INFO(in.name, " ", kernel.config().key());
      const std::string diff = compare_histograms(expected, download(base, counts));
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
  check_cub_even(base);
}

// The range histogram's edge samples: adversarial bits over the span, and every seventh sample a level of its
// channel or the sample type's value just below it (the level rounded to the type for halves).
std::vector<unsigned char> range_edges(const HistogramRangeProblem& p, const std::vector<unsigned char>& levels,
                                       std::uint64_t n, std::uint64_t seed) {
  HistogramProblem span{.type = p.type, .bins = p.bins, .lower = p.span().first, .upper = p.span().second};
  span.channels = p.channels, span.active = 1;
  std::vector<unsigned char> bytes = adversarial_samples(span, n, seed);
  const bool floats = level_type_name(p.type) != "int" && level_type_name(p.type) != "unsigned int";
  for (std::uint64_t pixel = 2, k = 0; pixel < n; pixel += 7, ++k) {
    const int c = static_cast<int>(k % static_cast<std::uint64_t>(p.active));
    const int l = static_cast<int>((k / p.active) % static_cast<std::uint64_t>(p.channel_bins(c) + 1));
    const std::size_t at = static_cast<std::size_t>(p.level_offset(c) + l) * level_size(p.type);
    double v = 0;
    if (p.type == SampleType::f64) std::memcpy(&v, &levels[at], 8);
    else if (floats) { float f; std::memcpy(&f, &levels[at], 4); v = f; }
    else { int i; std::memcpy(&i, &levels[at], 4); v = i; }
    const bool below = (k / 3) % 2 == 1;
    if (below && floats) v = is_half(p.type) ? (p.type == SampleType::f16 ? half_step<F16>(v, false) : half_step<BF16>(v, false))
                                             : std::nextafter(v, -1e300);
    else if (below) v -= 1;
    put_sample(span, bytes, pixel * static_cast<std::uint64_t>(p.channels) + static_cast<std::uint64_t>(c), v);
  }
  return bytes;
}

// The offsets (in samples) a call may start at: any for 1 or 3 channels, whole pixels for 2 and 4.
std::vector<std::size_t> range_offsets(const HistogramRangeProblem& p) {
  if (p.channels == 2 || p.channels == 4) return {static_cast<std::size_t>(p.channels), 3u * p.channels};
  return {1, 3};
}

// The range histogram's edge inputs: the edge samples at n = 0, 1, 31, 12345, 2^20 + 7 and from unaligned starts, and
// the narrow distribution.
std::vector<Input> range_inputs(const HistogramRangeProblem& base, const std::vector<unsigned char>& levels) {
  std::vector<Input> inputs;
  for (std::uint64_t n : {0ull, 1ull, 31ull, 12345ull, (1ull << 20) + 7})
    inputs.push_back({fmt::format("edges n={}", n), range_edges(base, levels, n, 1234 + n), n, 0});
  for (std::size_t offset : range_offsets(base))
    inputs.push_back({fmt::format("edges, offset {} samples", offset), range_edges(base, levels, 100003, 77), 100003,
                      offset});
  HistogramRangeProblem q = base;
  q.distribution = "narrow";
  inputs.push_back({"narrow n=3M+1", generate_range_samples(q, 3 * (1ull << 20) + 1, 99), 3 * (1ull << 20) + 1, 0});
  return inputs;
}

// CUB's HistogramRange (MultiHistogramRange for u8 pixels) on the finite edge inputs, against the CPU reference (and
// so against every variant, which the suites check against the same reference).
void check_cub_range(const HistogramRangeProblem& base, const std::vector<unsigned char>& levels,
                     const std::vector<Input>& inputs) {
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
  if (base.counter_bits != 32 || base.type == SampleType::i8 ||
      !bench::CubHistogramRange::supports(static_cast<bench::CubSample>(base.type), base.channels, base.active))
    return;
  int bins[4] = {0, 0, 0, 0};
  for (int c = 0; c < base.active; ++c) bins[c] = base.channel_bins(c);
  const DeviceSamples d_levels(levels, 1, 0);
  cuda::DeviceBuffer counts(static_cast<std::size_t>(base.counters()) * 4);
  for (const Input& in : inputs) {
    if (in.n == 0) continue;
    const auto host = finite_only(base.type, in.host);
    const DeviceSamples samples(host, size_of(base.type), in.offset);
    const bench::CubHistogramRange cub =
        base.channels > 1 ? bench::CubHistogramRange(static_cast<bench::CubSample>(base.type), base.channels,
                                                     base.active, bins, in.n)
                          : bench::CubHistogramRange(static_cast<bench::CubSample>(base.type), base.bins, in.n);
    fill_and_wait(counts, 0xAB);
    cub.run(samples.ptr, d_levels.ptr, counts.as<unsigned>(), nullptr);
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    INFO("CUB, finite ", in.name, " of ", base.shape_key());
    const auto expected = reference_range_histogram(base, host.data(), in.n, levels.data());
    const std::string diff =
        compare_histograms(expected, download_raw(counts, static_cast<std::size_t>(base.counters()), 32));
    // CUB's HistogramRange of bf16 samples on float levels disagreed with the reference (and with every variant
    // of ours) on an H200 with CUDA 13.0 (bench/results/2026-12-02-h200-gpu-quick-tier-final.log: 999 irregular
    // bins, up to 255 bins off from bin 256 on), f16 on the same levels agreeing: CUB is no oracle there, and its
    // difference is reported, not asserted, until the cause is known.
    if (base.type == SampleType::bf16) {
      if (!diff.empty()) MESSAGE("CUB (bf16, not asserted): ", diff);
      continue;
    }
    CHECK_MESSAGE(diff.empty(), diff);
  }
#else
  (void)levels, (void)inputs;
  MESSAGE("CUB is not linked into this test binary: the CPU reference alone (", base.shape_key(), ")");
#endif
}

void check_range_variants(const HistogramRangeProblem& base) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  const std::vector<unsigned char> levels = generate_levels(base);
  REQUIRE(levels_violation(base, levels.data(), static_cast<std::size_t>(base.levels())) == "");
  const auto picked = tier_share(
      range_problems(), base, [](const HistogramRangeProblem& p) { return space_decl::any_n(p, histogram_range_space); }, dev,
      [&](const HistogramRangeProblem& p, const HistogramRangeConfig& c) {
        return histogram_range_violation(p, c, &dev);
      });
  const auto variants = compile_variants(base, picked, dev, Entries::one_row);
  MESSAGE(fmt::format("{}: {} variants of {} ({} tier, one covering of {} problems)", base.shape_key(),
                      variants.size(), space_decl::any_n(base, histogram_range_space).size(), tier_name(gpu_tier()),
                      range_problems().size()));
  REQUIRE(!variants.empty());

  const std::vector<Input> inputs = range_inputs(base, levels);

  std::vector<HistogramRangeKernel> kernels;
  for (const auto& v : variants) kernels.emplace_back(base, v.config, dev, v.cubin, v.entry_2d);
  const DeviceSamples d_levels(levels, 1, 0);
  cuda::DeviceBuffer counts(static_cast<std::size_t>(base.counters()) * (base.counter_bits / 8));
  for (const Input& in : inputs) {
    const auto expected = histogram_samples::counts_as_written(
        base, reference_range_histogram(base, in.host.data(), in.n, levels.data()));
    const DeviceSamples samples(in.host, size_of(base.type), in.offset);
    for (const auto& kernel : kernels) {
      fill_and_wait(counts, 0xAB);
      kernel.run(samples.ptr, in.n, d_levels.ptr, counts.get(), nullptr);
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      INFO(in.name, " ", kernel.config().key());
      const std::string diff = compare_histograms(
          expected, download_raw(counts, static_cast<std::size_t>(base.counters()), base.counter_bits));
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
  check_cub_range(base, levels, inputs);
}

}  // namespace

TEST_SUITE("gpu_histogram") {
  TEST_CASE("f16 and bf16 samples, binned in float: every variant of the tier exact, CUB too on finite samples") {
    check_even_variants(even(SampleType::f16, 1000, 0.0, 1.0));
    check_even_variants(even(SampleType::bf16, 64, -8.0, 8.0));
  }
  TEST_CASE("i8 and i16 samples (i8: byte values with an offset), whole and partial ranges: every variant of the tier "
            "exact, CUB too for i16") {
    check_even_variants(even(SampleType::i8, 256, -128, 128));
    check_even_variants(even(SampleType::i8, 37, -100, 100));  // value counting with a map
    check_even_variants(even(SampleType::i16, 4096, -32768, 32768));
    // A range inside the type on both sides: the sign-flipped keys' bounds and quotient (histogram.cu's bin_of).
    check_even_variants(even(SampleType::i16, 1000, -1000, 3000));
  }
  TEST_CASE("CUB as the oracle: HistogramEven of u8, u16, i32, u32, f32 and f64 equals the CPU reference the variants "
            "are checked against, on the finite edge inputs" * doctest::skip(!kCubLinked)) {
    AUTOTUNE_CUDA(cudaSetDevice(0));
    for (const HistogramProblem& p :
         {even(SampleType::u8, 256, 0, 256), even(SampleType::u8, 37, 10, 250), even(SampleType::u16, 1000, 0, 65536),
          even(SampleType::u16, 300, 7, 60007), even(SampleType::i32, 37, -100, 100),
          even(SampleType::u32, 4096, 0, 1u << 20), even(SampleType::f32, 1000, 0.0, 1.0),
          even(SampleType::f32, 37, -1.5, 2.25), even(SampleType::f64, 100, -2.5, 7.25),
          even(SampleType::f64, 5000, 0.0, 1.0)}) {
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
      REQUIRE(bench::cub_supports({static_cast<bench::CubSample>(p.type), p.bins, p.lower, p.upper}));
#endif
      check_cub_even(p);
    }
  }
}

TEST_SUITE("gpu_histrange") {
  TEST_CASE("MultiHistogramRange: u8 RGBA 3 of 4 and RGB 3 of 3 with levels per channel, every variant exact") {
    check_range_variants(range(SampleType::u8, 255).with_channel_bins(4, {255, 63, 16}));
    check_range_variants(range(SampleType::u8, 63).with_channel_bins(3, {63, 16, 200}));
  }
  TEST_CASE("MultiHistogramRange: 2 of 4 i16 channels, 2 of 2 f32 channels, 64-bit counters") {
    HistogramRangeProblem i16 = range(SampleType::i16, 1000).with_channel_bins(4, {1000, 7});
    i16.counter_bits = 64;
    check_range_variants(i16);
    check_range_variants(range(SampleType::f32, 10).with_channel_bins(2, {10, 20}));
  }
  TEST_CASE("range histograms of f16, bf16, i8 and i16 samples: every variant exact, CUB too for f16 and i16") {
    check_range_variants(range(SampleType::f16, 999));
    check_range_variants(range(SampleType::bf16, 999));
    check_range_variants(range(SampleType::i8, 255));
    check_range_variants(range(SampleType::i16, 4096));
  }
  TEST_CASE("CUB as the oracle: HistogramRange of u8, u16, i32, u32, f32 and f64 equals the CPU reference the "
            "variants are checked against, on the finite edge inputs and the levels themselves" *
            doctest::skip(!kCubLinked)) {
    AUTOTUNE_CUDA(cudaSetDevice(0));
    for (const HistogramRangeProblem& p : {range(SampleType::u8, 255), range(SampleType::u8, 16),
                                           range(SampleType::u16, 1000), range(SampleType::i32, 100),
                                           range(SampleType::u32, 300), range(SampleType::f32, 999),
                                           range(SampleType::f64, 300)}) {
#if AUTOTUNE_GPU_TESTS_HAVE_CUB
      REQUIRE(bench::CubHistogramRange::supports(static_cast<bench::CubSample>(p.type), 1, 1));
#endif
      const std::vector<unsigned char> levels = generate_levels(p);
      check_cub_range(p, levels, range_inputs(p, levels));
    }
  }

  TEST_CASE("MultiHistogramRange of 2D regions: rows of RGBA pixels, strides of whole vectors and odd ones") {
    const HistogramRangeProblem p = range(SampleType::u8, 255).with_channel_bins(4, {255, 63, 16});
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    const std::vector<unsigned char> levels = generate_levels(p);
    int pruned = 0;
    const auto variants = compile_tier(
        p, space_decl::any_n(p, histogram_range_space), dev,
        [&](const HistogramRangeConfig& c) { return histogram_range_violation(p, c, &dev); }, pruned,
        Entries::all);
    const DeviceSamples d_levels(levels, 1, 0);
    cuda::DeviceBuffer counts(static_cast<std::size_t>(p.counters()) * 4);
    struct Shape {
      std::uint64_t row_pixels, rows, stride_pixels, offset_pixels;
    };
    for (const Shape s : {Shape{1001, 37, 1003, 1}, Shape{1000, 29, 1024, 0}, Shape{3, 101, 5, 2}, Shape{5000, 1, 5000, 3}}) {
      const std::uint64_t span = (s.rows - 1) * s.stride_pixels + s.row_pixels;
      const std::vector<unsigned char> host = range_edges(p, levels, span, s.row_pixels + s.rows);
      const std::size_t stride = static_cast<std::size_t>(s.stride_pixels) * 4;
      const auto expected =
          reference_range_histogram_region(p, host.data(), s.row_pixels, s.rows, stride, levels.data());
      const DeviceSamples samples(host, 1, static_cast<std::size_t>(s.offset_pixels) * 4);
      for (const auto& v : variants) {
        const HistogramRangeKernel kernel(p, v.config, dev, v.cubin);
        fill_and_wait(counts, 0xAB);
        kernel.run(samples.ptr, HistogramRangeKernel::Region{s.row_pixels, s.rows, stride}, d_levels.ptr, counts.get(),
                   nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        INFO(s.row_pixels, " x ", s.rows, " stride ", stride, " ", v.config.key());
        const std::string diff =
            compare_histograms(expected, download_raw(counts, static_cast<std::size_t>(p.counters()), 32));
        CHECK_MESSAGE(diff.empty(), diff);
      }
    }
  }

  TEST_CASE("the HistogramRange handle counts RGBA pixels and __half samples; pixels off their alignment are refused") {
    const std::string cache = fmt::format("/tmp/autotune-hist-types-{}.db", ::getpid());
    AUTOTUNE_CUDA(cudaSetDevice(0));
    HistogramRangeProblem p = range(SampleType::u8, 255).with_channel_bins(4, {255, 63, 16});
    p.n = 1 << 20;
    const HistogramRange rgba(p, HistogramRange::Options{.cache_path = cache});
    const std::vector<unsigned char> levels = generate_levels(p);
    const std::uint64_t n = (1 << 20) + 3;
    const std::vector<unsigned char> host = range_edges(p, levels, n, 5);
    const DeviceSamples samples(host, 1, 0), d_levels(levels, 1, 0);
    cuda::DeviceBuffer counts(static_cast<std::size_t>(p.counters()) * 4);
    rgba(static_cast<const std::uint8_t*>(samples.ptr), n, static_cast<const int*>(d_levels.ptr),
         counts.as<unsigned>());
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    CHECK(compare_histograms(reference_range_histogram(p, host.data(), n, levels.data()),
                             download_raw(counts, static_cast<std::size_t>(p.counters()), 32)) == "");
    CHECK_THROWS_WITH_AS(rgba(static_cast<const std::uint8_t*>(samples.ptr) + 1, n - 1,
                              static_cast<const int*>(d_levels.ptr), counts.as<unsigned>()),
                         doctest::Contains("must be aligned to a pixel (4 bytes)"), UsageError);

    HistogramRangeProblem h = range(SampleType::f16, 999);
    h.n = 1 << 20;
    const HistogramRange halves(h, HistogramRange::Options{.cache_path = cache});
    static_assert(std::is_same_v<range_level_t<__half>, float>);
    const std::vector<unsigned char> hl = generate_levels(h);
    const std::vector<unsigned char> hs = range_edges(h, hl, n, 6);
    const DeviceSamples h_samples(hs, 2, 1), h_levels(hl, 1, 0);
    cuda::DeviceBuffer h_counts(999 * 4);
    halves(static_cast<const __half*>(h_samples.ptr), n, static_cast<const float*>(h_levels.ptr),
           h_counts.as<unsigned>());
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    CHECK(compare_histograms(reference_range_histogram(h, hs.data(), n, hl.data()), download_raw(h_counts, 999, 32)) ==
          "");
    std::remove(cache.c_str());
  }
}
