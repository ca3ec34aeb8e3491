// The range-histogram variants of the tier (tier.hpp: a pairwise-covering subset of each space in the quick tier, all
// of it in the full tier) on the GPU against the CPU reference: random bits (NaN, infinities, out-of-range),
// samples equal to the levels and just below them, levels beyond the sample type's values, n = 0, 1, odd sizes,
// unaligned pointers, every distribution, 2D regions (odd strides, strides of whole vectors, 1 and 0 rows); and the HistogramRange handle through the API, before and after a tuned
// winner is recorded.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <tuple>

#include "autotune/histogram_range.hpp"
#include "gpu_fixtures.hpp"
#include "kernel_templates/histogram_range/launcher.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/histogram_range/space.hpp"

using namespace autotune;
using namespace autotune::testing;

namespace {

HistogramRangeProblem make(SampleType t, int bins, EdgeLayout e = EdgeLayout::irregular, int counter_bits = 32) {
  HistogramRangeProblem p;
  p.type = t, p.bins = bins, p.edges = e, p.counter_bits = counter_bits;
  return p;
}

// The span's histogram problem: what the even family's generators take.
HistogramProblem span_problem(const HistogramRangeProblem& p) {
  HistogramProblem h;
  h.type = p.type;
  h.bins = p.bins;
  std::tie(h.lower, h.upper) = p.span();
  h.distribution = p.distribution;
  return h;
}

// Adversarial samples (random bits every third sample, the span's bounds, NaN, infinities) with, every seventh
// sample, a level's own value, and for floats the value just below it: the edges decide these.
std::vector<unsigned char> edge_samples(const HistogramRangeProblem& p, const std::vector<unsigned char>& levels,
                                        std::uint64_t n, std::uint64_t seed) {
  std::vector<unsigned char> bytes = adversarial_samples(span_problem(p), n, seed);
  const int count = p.bins + 1;
  for (std::uint64_t i = 4, k = 0; i < n; i += 7, ++k) {
    const int l = static_cast<int>(k % count);
    const bool below = (k / count) % 2 == 1;
    switch (p.type) {
      case SampleType::u8: case SampleType::u16: case SampleType::i32: {
        int v = 0;
        std::memcpy(&v, &levels[l * 4], 4);
        v -= below ? 1 : 0;
        if (p.type == SampleType::u8) bytes[i] = static_cast<std::uint8_t>(v);
        else if (p.type == SampleType::u16) { auto t = static_cast<std::uint16_t>(v); std::memcpy(&bytes[i * 2], &t, 2); }
        else std::memcpy(&bytes[i * 4], &v, 4);
        break;
      }
      case SampleType::u32: {
        unsigned v = 0;
        std::memcpy(&v, &levels[l * 4], 4);
        v -= below ? 1u : 0u;
        std::memcpy(&bytes[i * 4], &v, 4);
        break;
      }
      case SampleType::f32: {
        float v = 0;
        std::memcpy(&v, &levels[l * 4], 4);
        if (below) v = std::nextafter(v, -1e30f);
        std::memcpy(&bytes[i * 4], &v, 4);
        break;
      }
      case SampleType::f64: {
        double v = 0;
        std::memcpy(&v, &levels[l * 8], 8);
        if (below) v = std::nextafter(v, -1e300);
        std::memcpy(&bytes[i * 8], &v, 8);
        break;
      }
    }
  }
  return bytes;
}

std::vector<std::uint64_t> download_counts(const HistogramRangeProblem& p, const cuda::DeviceBuffer& counts) {
  std::vector<unsigned char> raw(counts.bytes());
  AUTOTUNE_CUDA(cudaMemcpy(raw.data(), counts.get(), raw.size(), cudaMemcpyDeviceToHost));
  return histogram_samples::widen_counts(p, raw.data());
}

cuda::DeviceBuffer upload_bytes(const std::vector<unsigned char>& host) {
  cuda::DeviceBuffer b(std::max<std::size_t>(host.size(), 16));
  AUTOTUNE_CUDA(cudaMemcpy(b.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  AUTOTUNE_CUDA(cudaDeviceSynchronize());  // a pageable copy may land after a non-blocking stream starts
  return b;
}

// The problems of the cases below: the quick tier covers their joint space once (tier_share).
const std::vector<HistogramRangeProblem>& suite_problems() {
  static const std::vector<HistogramRangeProblem> problems{
      make(SampleType::u8, 255),  make(SampleType::u8, 8),   make(SampleType::u16, 4096, EdgeLayout::irregular, 64),
      make(SampleType::f32, 999), make(SampleType::f32, 64, EdgeLayout::even),
      make(SampleType::f32, 3),   make(SampleType::f64, 1000), make(SampleType::i32, 100),
      make(SampleType::u32, 1000), make(SampleType::u32, 70000)};
  return problems;
}

// The variants of the tier (any n) on every input, over `levels` (the tuner's when empty).
void check_every_variant(const HistogramRangeProblem& base, std::vector<unsigned char> levels = {}) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  if (levels.empty()) levels = generate_levels(base);
  REQUIRE(levels_violation(base, levels.data(), base.bins + 1) == "");
  const auto picked = tier_share(
      suite_problems(), base, [](const HistogramRangeProblem& p) { return space_decl::any_n(p, histogram_range_space); }, dev,
      [&](const HistogramRangeProblem& p, const HistogramRangeConfig& c) {
        return histogram_range_violation(p, c, &dev);
      });
  const auto variants = compile_variants(base, picked, dev, Entries::all);  // it runs 2D regions too
  MESSAGE(fmt::format("{}: {} variants of {} on {} ({} tier, one covering of the suite's {} problems)",
                      base.shape_key(), variants.size(), space_decl::any_n(base, histogram_range_space).size(), dev.name,
                      tier_name(gpu_tier()), suite_problems().size()));
  CHECK(!variants.empty());

  struct Input {
    std::string name;
    std::vector<unsigned char> host;
    std::uint64_t n;
    std::size_t offset;
  };
  std::vector<Input> inputs;
  for (std::uint64_t n : {0ull, 1ull, 31ull, 12345ull, (1ull << 20) + 7})
    inputs.push_back({fmt::format("edges n={}", n), edge_samples(base, levels, n, 1234 + n), n, 0});
  for (std::size_t offset : {1, 3})
    inputs.push_back({fmt::format("edges, offset {}", offset), edge_samples(base, levels, 100003, 77), 100003, offset});
  for (const auto& d : histogram_distributions()) {
    HistogramRangeProblem p = base;
    p.distribution = d;
    const std::uint64_t n = 3 * (1ull << 20) + 1;
    inputs.push_back({d + " n=3M+1", generate_range_samples(p, n, 99), n, 0});
  }

  std::vector<HistogramRangeKernel> kernels;  // one module load per variant, reused for every input
  for (const auto& v : variants) kernels.emplace_back(base, v.config, dev, v.cubin);
  const cuda::DeviceBuffer d_levels = upload_bytes(levels);
  cuda::DeviceBuffer counts(static_cast<std::size_t>(base.bins) * (base.counter_bits / 8));
  for (const auto& in : inputs) {
    const auto expected = histogram_samples::counts_as_written(
        base, reference_range_histogram(base, in.host.data(), in.n, levels.data()));
    DeviceSamples dev_in(in.host, size_of(base.type), in.offset);
    for (auto& kernel : kernels) {
      fill_and_wait(counts, 0xAB);  // poison: counters must be overwritten
      kernel.run(dev_in.ptr, in.n, d_levels.get(), counts.get(), nullptr);
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      const auto diff = compare_histograms(expected, download_counts(base, counts));
      INFO(in.name, " ", kernel.config().key());
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }

  // 2D regions (range_regions, generators.hpp): rows `stride` samples apart from a pointer `offset` samples into an
  // allocation.
  const std::size_t ss = size_of(base.type);
  for (const RangeRegion& r : range_regions(ss)) {
    const std::uint64_t total = r.rows == 0 ? 1 : (r.rows - 1) * r.stride + r.row_samples;
    const auto host = edge_samples(base, levels, total, 4321 + r.rows);
    const auto expected = histogram_samples::counts_as_written(
        base, reference_range_histogram_region(base, host.data(), r.row_samples, r.rows, r.stride * ss, levels.data()));
    DeviceSamples dev_in(host, ss, r.offset);
    for (auto& kernel : kernels) {
      fill_and_wait(counts, 0xAB);
      kernel.run(dev_in.ptr, HistogramRangeKernel::Region{r.row_samples, r.rows, r.stride * ss}, d_levels.get(),
                 counts.get(), nullptr);
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      const auto diff = compare_histograms(expected, download_counts(base, counts));
      INFO("region ", r.name, " ", kernel.config().key());
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
}

template <class L>
std::vector<unsigned char> bytes_of(const std::vector<L>& v) {
  std::vector<unsigned char> out(v.size() * sizeof(L));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace

TEST_SUITE("gpu_histrange") {
  TEST_CASE("u8, 256 irregular edges (255 bins): the tier's variants exact") { check_every_variant(make(SampleType::u8, 255)); }
  TEST_CASE("u8, 8 bins with levels beyond the byte values (-10 .. 1000): the tier's variants exact") {
    check_every_variant(make(SampleType::u8, 8), bytes_of(std::vector<int>{-10, 0, 1, 2, 50, 51, 255, 256, 1000}));
  }
  TEST_CASE("u16, 4096 irregular bins, 64-bit counters: the tier's variants exact") {
    check_every_variant(make(SampleType::u16, 4096, EdgeLayout::irregular, 64));
  }
  TEST_CASE("f32, 1000 irregular edges (999 bins) with NaN, infinities and samples at the edges: the tier's variants exact") {
    check_every_variant(make(SampleType::f32, 999));
  }
  TEST_CASE("f32, 64 even bins: the tier's variants exact") { check_every_variant(make(SampleType::f32, 64, EdgeLayout::even)); }
  TEST_CASE("f32, 3 bins with clustered edges: the pre-bin walk stays exact") {
    check_every_variant(make(SampleType::f32, 3), bytes_of(std::vector<float>{0.5f, 0.5000001f, 0.5000002f, 0.9f}));
  }
  TEST_CASE("f64, 1000 irregular bins: the tier's variants exact") { check_every_variant(make(SampleType::f64, 1000)); }
  TEST_CASE("i32, 100 bins with negative edges: the tier's variants exact") {
    std::vector<int> levels;
    for (int i = 0; i <= 100; ++i) levels.push_back(-5000000 + i * i * 1000);
    check_every_variant(make(SampleType::i32, 100), bytes_of(levels));
  }
  TEST_CASE("u32, 1000 irregular bins: the tier's variants exact") { check_every_variant(make(SampleType::u32, 1000)); }
  TEST_CASE("u32, 70000 bins: global atomics and levels in global memory exact") {
    check_every_variant(make(SampleType::u32, 70000));
  }

  TEST_CASE("the HistogramRange handle: typed and untyped calls, before and after a tuned winner is recorded") {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("autotune-histrange-{}", ::getpid());
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "cache.db").string();
    HistogramRangeProblem p = make(SampleType::f32, 999);
    p.n = 1 << 20;
    const auto levels = generate_levels(p);
    const auto host = generate_range_samples(p, p.n, 5);
    const auto expected =
        histogram_samples::counts_as_written(p, reference_range_histogram(p, host.data(), p.n, levels.data()));
    const cuda::DeviceBuffer d_levels = upload_bytes(levels), d_samples = upload_bytes(host);
    cuda::DeviceBuffer counts(p.bins * 4);
    auto check_handle = [&](const HistogramRange& h) {
      fill_and_wait(counts, 0xAB);
      h(d_samples.as<float>(), p.n, d_levels.as<float>(), counts.as<std::uint32_t>());
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      CHECK(compare_histograms(expected, download_counts(p, counts)) == "");
      fill_and_wait(counts, 0xAB);
      h(static_cast<const void*>(d_samples.get()), p.n, static_cast<const void*>(d_levels.get()),
        counts.as<unsigned int>());
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      CHECK(compare_histograms(expected, download_counts(p, counts)) == "");
      CHECK_THROWS_AS(h(d_samples.as<float>(), p.n, d_levels.as<float>(), counts.as<unsigned long long>()),
                      UsageError);
      // The same samples as a region: 1024 rows of 1000 samples, 1024 samples apart (the rest of each row unread).
      const std::size_t row = 1000, stride = 1024, rows = p.n / stride;
      const auto region_expected = histogram_samples::counts_as_written(
          p, reference_range_histogram_region(p, host.data(), row, rows, stride * 4, levels.data()));
      fill_and_wait(counts, 0xAB);
      h(d_samples.as<float>(), row, rows, stride * 4, d_levels.as<float>(), counts.as<std::uint32_t>());
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      CHECK(compare_histograms(region_expected, download_counts(p, counts)) == "");
      CHECK_THROWS_AS(h(d_samples.as<float>(), row, rows, row * 4 - 4, d_levels.as<float>(), counts.as<std::uint32_t>()),
                      UsageError);  // a stride shorter than the row
    };
    {
      HistogramRange h(p, {.cache_path = path});  // nothing tuned: the measured default policy (policy.json)
      CHECK(h.resolution().source == ConfigSource::policy);
      CHECK_FALSE(h.config_for(p.n) == Config(HistogramRangeConfig::fallback(p)));
      check_handle(h);
    }
    HistogramRangeConfig forced;
    forced.binning = RangeBinning::prebin, forced.replicas = 8, forced.block = 512, forced.loads = 4;
    record_forced_winner(path, p, forced);
    {
      HistogramRange h(p, {.cache_path = path});
      CHECK(h.config_for(p.n) == Config(forced));
      // Far from its one tuned size the ranking may prefer the policy's own entry (runtime/rank.hpp); with measured
      // data required, the one tuned size serves every n.
      HistogramRange tuned_only(p, {.cache_path = path, .require = Requirement::tuned});
      CHECK(tuned_only.config_for(p.n * 64) == Config(forced));
      CHECK(tuned_only.config_for(1) == Config(forced));
      check_handle(h);
      HistogramRange moved = std::move(h);
      check_handle(moved);
    }
    std::filesystem::remove_all(dir);
  }
}
