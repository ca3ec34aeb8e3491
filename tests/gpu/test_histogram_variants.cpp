// Every variant of the space, on the GPU, against the CPU reference: adversarial inputs, n = 0, 1, odd sizes,
// unaligned pointers, every distribution.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <atomic>
#include <thread>

#include "gpu_fixtures.hpp"
#include "runtime/histogram_kernel.hpp"
#include "runtime/jit.hpp"
#include "tuner/space.hpp"

using namespace autotune;
using namespace autotune::testing;

namespace {

HistogramProblem make(SampleType t, int bins, double lo, double hi) {
  HistogramProblem p;
  p.type = t, p.bins = bins, p.lower = lo, p.upper = hi;
  return p;
}

// Compiles the runnable part of the space in parallel; returns (config, cubin) pairs, failing the test on any
// compile error.
std::vector<std::pair<HistogramConfig, std::vector<char>>> compile_runnable(const HistogramProblem& p,
                                                                           const DeviceInfo& dev, int& pruned) {
  std::vector<HistogramConfig> configs;
  pruned = 0;
  for (const auto& c : histogram_space()) {
    if (histogram_constraint_violation(p, c, dev).empty()) configs.push_back(c);
    else ++pruned;
  }
  std::vector<jit::CompileResult> results(configs.size());
  std::atomic<std::size_t> next{0};
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t)
      pool.emplace_back([&] {
        for (std::size_t i; (i = next++) < configs.size();)
          results[i] = jit::compile(kernel_source(p, configs[i]), "v.cu", dev.arch());
      });
  }
  std::vector<std::pair<HistogramConfig, std::vector<char>>> out;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    INFO(configs[i].key(), "\n", results[i].log);
    REQUIRE(results[i].ok);
    out.emplace_back(configs[i], std::move(results[i].cubin));
  }
  return out;
}

void check_every_variant(const HistogramProblem& base) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  int pruned = 0;
  const auto variants = compile_runnable(base, dev, pruned);
  MESSAGE(fmt::format("{}: {} variants on {} ({} pruned by device limits)", base.shape_key(), variants.size(),
                      dev.name, pruned));
  CHECK(!variants.empty());

  struct Input {
    std::string name;
    HistogramProblem problem;
    std::uint64_t n;
    std::size_t offset;  // elements
    bool adversarial;
  };
  std::vector<Input> inputs;
  for (std::uint64_t n : {0ull, 1ull, 31ull, 12345ull, (1ull << 20) + 7})
    inputs.push_back({fmt::format("adversarial n={}", n), base, n, 0, true});
  inputs.push_back({"adversarial, unaligned pointer", base, 100003, 1, true});
  for (const auto& d : histogram_distributions()) {
    HistogramProblem p = base;
    p.distribution = d;
    inputs.push_back({d + " n=3M+1", p, 3 * (1ull << 20) + 1, 0, false});
  }

  cuda::DeviceBuffer counts(static_cast<std::size_t>(base.bins) * sizeof(unsigned));
  for (const auto& in : inputs) {
    const auto host = in.adversarial ? adversarial_samples(in.problem, in.n, 1234 + in.n)
                                     : generate_samples(in.problem, in.n, 99);
    const auto expected = reference_histogram(in.problem, host.data(), in.n);
    DeviceSamples dev_in(host, size_of(base.type), in.offset);
    for (const auto& [config, cubin] : variants) {
      HistogramKernel kernel(base, config, dev, cubin);
      // Poison the counters: the handle must overwrite them, not accumulate.
      AUTOTUNE_CUDA(cudaMemset(counts.get(), 0xAB, counts.bytes()));
      kernel.run(dev_in.ptr, in.n, counts.as<unsigned>(), nullptr);
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      const auto diff = compare_histograms(expected, download(counts, base.bins));
      INFO(in.name, " ", config.key());
      CHECK_MESSAGE(diff.empty(), diff);
    }
  }
}

}  // namespace

TEST_SUITE("gpu_histogram") {
  TEST_CASE("u8, 256 bins over [0, 256): every variant exact") { check_every_variant(make(SampleType::u8, 256, 0, 256)); }
  TEST_CASE("u8, 7 uneven bins over [10, 250): every variant exact") {
    check_every_variant(make(SampleType::u8, 7, 10, 250));
  }
  TEST_CASE("f32, 1024 bins over [-1, 1) with NaN, infinities and boundaries: every variant exact") {
    check_every_variant(make(SampleType::f32, 1024, -1, 1));
  }
  TEST_CASE("i32, 100 bins over [-50, 50): every variant exact") {
    check_every_variant(make(SampleType::i32, 100, -50, 50));
  }
  TEST_CASE("u16, 65536 bins: shared variants pruned, global variants exact") {
    check_every_variant(make(SampleType::u16, 65536, 0, 65536));
  }
  TEST_CASE("u32, 1000 bins over [0, 2^32): 64-bit bin arithmetic exact") {
    check_every_variant(make(SampleType::u32, 1000, 0, 4294967296.0));
  }
}
