// The variants of the tier (tier.hpp: a pairwise-covering subset of the space in the quick tier, all of it in the
// full tier), on the GPU, against the CPU reference: adversarial inputs (NaN, infinities, out-of-range, boundaries),
// n = 0, 1, odd sizes, unaligned pointers, every distribution, and inputs that wrap 16-bit shared counters many times.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <optional>
#include <utility>


#include "gpu_fixtures.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "core/jit.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "autotune/histogram_problem.hpp"

using namespace autotune;
using namespace autotune::testing;

namespace {

HistogramProblem make(SampleType t, int bins, double lo, double hi, int counter_bits = 32) {
  HistogramProblem p;
  p.type = t, p.bins = bins, p.lower = lo, p.upper = hi, p.counter_bits = counter_bits;
  return p;
}

struct Input {
  std::string name;
  HistogramProblem problem;
  std::uint64_t n;
  std::size_t offset;  // elements: an unaligned start for vector loads
  bool adversarial;
};

// The problems of the cases below: the quick tier covers their joint space once (tier_share).
const std::vector<HistogramProblem>& suite_problems() {
  static const std::vector<HistogramProblem> problems{
      make(SampleType::u8, 256, 0, 256),          make(SampleType::u8, 7, 10, 250),
      make(SampleType::f32, 1024, -1, 1),         make(SampleType::f64, 1000, -1000, 1000),
      make(SampleType::i32, 100, -50, 50),        make(SampleType::u16, 65536, 0, 65536, 64),
      make(SampleType::f32, 65536, 0, 1),         make(SampleType::u32, 1000, 0, 4294967296.0),
      make(SampleType::u32, 1 << 20, 0, 1 << 20), make(SampleType::f32, 100003, -2, 3)};
  return problems;
}

void check_every_variant(const HistogramProblem& base, std::uint64_t big_constant_n = 0) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  const auto picked = tier_share(
      suite_problems(), base, [](const HistogramProblem& p) { return space_decl::any_n(p, histogram_space); }, dev,
      [&](const HistogramProblem& p, const HistogramConfig& c) { return histogram_violation(p, c, &dev); });
  const auto variants = compile_variants(base, picked, dev, Entries::one_row);
  MESSAGE(fmt::format("{}: {} variants of {} on {} ({} tier, one covering of the suite's {} problems)",
                      base.shape_key(), variants.size(), space_decl::any_n(base, histogram_space).size(), dev.name,
                      tier_name(gpu_tier()), suite_problems().size()));
  CHECK(!variants.empty());

  std::vector<Input> inputs;
  for (std::uint64_t n : {0ull, 1ull, 31ull, 12345ull, (1ull << 20) + 7})
    inputs.push_back({fmt::format("adversarial n={}", n), base, n, 0, true});
  for (std::size_t offset : {1, 3}) inputs.push_back({fmt::format("adversarial, offset {}", offset), base, 100003, offset, true});
  for (const auto& d : histogram_distributions()) {
    HistogramProblem p = base;
    p.distribution = d;
    inputs.push_back({d + " n=3M+1", p, 3 * (1ull << 20) + 1, 0, false});
  }
  if (big_constant_n) {  // every block sees far more than 65535 samples of one bin: 16-bit counters wrap often
    HistogramProblem p = base;
    p.distribution = "constant";
    inputs.push_back({fmt::format("constant n={}", big_constant_n), p, big_constant_n, 0, false});
  }

  std::vector<HistogramKernel> kernels;  // one module load per variant, reused for every input
  for (const auto& v : variants) kernels.emplace_back(base, v.config, dev, v.cubin, v.entry_2d);
  cuda::DeviceBuffer counts = counter_buffer(base);
  for (const auto& in : inputs) {
    const auto host = in.adversarial ? adversarial_samples(in.problem, in.n, 1234 + in.n)
                                     : generate_samples(in.problem, in.n, 99);
    const auto expected = expected_counts(base, host, in.n);
    DeviceSamples dev_in(host, size_of(base.type), in.offset);
    for (auto& kernel : kernels) {
      for (int repeat = 0; repeat < 2; ++repeat) {  // twice: the last-block ticket must reset itself
        fill_and_wait(counts, 0xAB);  // poison: counters must be overwritten
        kernel.run(dev_in.ptr, in.n, counts.get(), nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        const auto diff = compare_histograms(expected, download(base, counts));
        INFO(in.name, " ", kernel.config().key(), " run ", repeat);
        CHECK_MESSAGE(diff.empty(), diff);
      }
    }
  }
}

}  // namespace

TEST_SUITE("gpu_histogram") {
  TEST_CASE("u8, 256 bins over [0, 256): the tier's variants exact") {
    check_every_variant(make(SampleType::u8, 256, 0, 256), 64ull << 20);
  }
  TEST_CASE("u8, 7 uneven bins over [10, 250): the tier's variants exact") {
    check_every_variant(make(SampleType::u8, 7, 10, 250));
  }
  TEST_CASE("f32, 1024 bins over [-1, 1) with NaN, infinities and boundaries: the tier's variants exact") {
    check_every_variant(make(SampleType::f32, 1024, -1, 1));
  }
  TEST_CASE("f64, 1000 bins over [-1000, 1000) with NaN, infinities and boundaries: the tier's variants exact") {
    check_every_variant(make(SampleType::f64, 1000, -1000, 1000));
  }
  TEST_CASE("i32, 100 bins over [-50, 50): the tier's variants exact") {
    check_every_variant(make(SampleType::i32, 100, -50, 50));
  }
  TEST_CASE("u16, 65536 bins, 64-bit counters: 16-bit shared counters wrap exactly") {
    check_every_variant(make(SampleType::u16, 65536, 0, 65536, 64), 32ull << 20);
  }
  TEST_CASE("f32, 65536 bins: the tier's variants exact") { check_every_variant(make(SampleType::f32, 65536, 0, 1)); }
  TEST_CASE("u32, 1000 bins over [0, 2^32): 64-bit bin arithmetic exact") {
    check_every_variant(make(SampleType::u32, 1000, 0, 4294967296.0));
  }
  TEST_CASE("u32, 1M bins: the global-atomics path exact") {
    check_every_variant(make(SampleType::u32, 1 << 20, 0, 1 << 20));
  }
  TEST_CASE("f32, 100003 bins (not a multiple of 32): copies of a global histogram, plain, striped and interleaved "
            "in chunks, exact") {
    check_every_variant(make(SampleType::f32, 100003, -2, 3));
  }

  // merge=atomic on sm_90+: the counting kernel starts while autotune_histogram_zero zeroes the output
  // (programmatic dependent launch) and waits for it before adding; AUTOTUNE_ZERO_WITH_MEMSET=1 restores the memset.
  // Three places the wait can be: after counting (shared copies), at the start (global atomics), and at the start
  // for the spills of 16-bit counters. On one created stream, without a synchronization between calls: the input
  // written by a memset on that stream just before each call (the counting must not overtake it), two calls into
  // the same poisoned counters (a call's zeroing must not overtake the counting of the call before).
  TEST_CASE("merge=atomic zeroing kernel overlapped with the counting launch: exact, ordered after the work before it") {
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    if (!overlaps_zeroing_or_skip(dev)) return;
    struct Case {
      HistogramProblem problem;
      const char* config;
    };
    const std::vector<Case> cases{
        {make(SampleType::u8, 256, 0, 256),
         "priv=shared,R=32,cbits=32,block=512,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0"},
        {make(SampleType::u8, 256, 0, 256),
         "priv=global,R=1,cbits=32,block=256,vec=16,loads=2,agg=warp,part=interleaved,merge=atomic,grid=0"},
        {make(SampleType::u16, 65536, 0, 65536, 64),
         "priv=shared,R=1,cbits=16,block=512,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0"}};
    // 16M samples: the resident blocks see over 65535 each, so the 16-bit counters wrap.
    const std::uint64_t n = (16ull << 20) + 5;
    for (const Case& c : cases) {
      INFO(c.problem.shape_key(), " ", c.config);
      const std::optional<HistogramConfig> config = HistogramConfig::parse(c.config);
      REQUIRE(config.has_value());
      const std::vector<char> cubin = compile_one(c.problem, *config, dev);
      CHECK(HistogramKernel::zero_with_kernel(dev));
      cuda::DeviceBuffer in(n * size_of(c.problem.type));
      cuda::DeviceBuffer counts = counter_buffer(c.problem);
      // Every byte 0x07 (u8: 7; u16: 0x0707): all n samples in one bin, whose 16-bit counters wrap and spill into
      // the output many times; before the call's memset every byte is 0x55 (another bin).
      const auto expected = expected_counts(c.problem, std::vector<unsigned char>(in.bytes(), 0x07), n);
      check_zeroing_after_stream_work(
          [&] { return HistogramKernel(c.problem, *config, dev, cubin, false); }, in, 0x55, 0x07, counts, 0xAB,
          [&](const HistogramKernel& k, cudaStream_t stream) { k.run(in.get(), n, counts.get(), stream); },
          [&](const char* zeroing) {
            INFO(zeroing);
            CHECK(compare_histograms(expected, download(c.problem, counts)) == "");
          });
    }
  }

  TEST_CASE("more than 2^32 samples: 64-bit offsets and 64-bit counters") {
    const DeviceInfo dev = query_device(0);
    const std::uint64_t n = (1ull << 32) + 4097;
    if (dev.memory_bytes < n + (2ull << 30)) {
      skip_case(fmt::format("{} MiB of GPU memory cannot hold 4 GiB of samples", dev.memory_bytes >> 20));
      return;
    }
    HistogramProblem p = make(SampleType::u8, 256, 0, 256, 64);
    // Constant 7 everywhere except a marker every 2^20 samples: bin 7 exceeds 2^32.
    std::vector<unsigned char> host(n, 7);
    for (std::uint64_t i = 0; i < n; i += 1 << 20) host[i] = 200;
    std::vector<std::uint64_t> expected(256, 0);
    expected[200] = (n + (1 << 20) - 1) >> 20;
    expected[7] = n - expected[200];
    DeviceSamples in(host, 1, 0);
    host.clear();
    host.shrink_to_fit();
    cuda::DeviceBuffer counts = counter_buffer(p);
    int tested = 0, pruned = 0;
    std::vector<HistogramConfig> picked;
    for (const auto& c : space_decl::any_n(p, histogram_space))
      if ((c.privatization == Privatization::global && c.vec_bytes == 16 && c.loads == 4 && c.block == 512 &&
           c.aggregation == Aggregation::warp && c.grid_blocks == 0) ||
          (c.privatization == Privatization::shared && c.replicas == 32 && c.block == 512 && c.loads == 2 &&
           c.aggregation == Aggregation::none && c.grid_blocks == 0) ||
          // one tile per block: 2^32 samples in 2^17 blocks, far past the resident ones
          (c.privatization == Privatization::shared && c.replicas == 4 && c.block == 512 && c.loads == 4 &&
           c.grid_blocks == HistogramConfig::kCoverGrid) ||
          // one cluster of 16 blocks, each of 2^28 samples, stored without atomics
          (c.cluster == 16 && c.grid_blocks == 16 && c.block == 1024 && c.loads == 4) ||
          (c == HistogramConfig::fallback(p)))
        picked.push_back(c);
    const auto variants = compile_runnable(
        p, picked, dev, [&](const HistogramConfig& c) { return histogram_violation(p, c, &dev); }, pruned,
        Entries::one_row);
    for (const auto& v : variants) {
      HistogramKernel kernel(p, v.config, dev, v.cubin, v.entry_2d);
      fill_and_wait(counts, 0xAB);
      kernel.run(in.ptr, n, counts.get(), nullptr);
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      INFO(v.config.key());
      CHECK(compare_histograms(expected, download(p, counts)) == "");
      ++tested;
    }
    CHECK(tested >= (dev.cc_major >= 9 ? 6 : 5));
  }
}
