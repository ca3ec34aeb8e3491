// Value counting of u8 histograms (bin=values) on the GPU: every value-counting variant of the space against the CPU
// reference for bins and ranges of every kind (few, one, the byte values themselves, bins wider than the range), odd
// sizes, unaligned starts, n = 0 and 1, 64-bit counters, pixels of several channels with their own bins, 2D regions;
// and a handle with no tuning data for an untuned u8 shape, which counts values and is exact.
// And the float min/max of the reduction template, whose per-element step is a hardware min/max with NaN noted on
// the side: one NaN in each element slot of a vector deep inside the full tiles gives the canonical NaN in every
// variant, with the same bits on every call.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <limits>
#include <unistd.h>

#include "autotune/histogram.hpp"
#include "autotune/histogram_problem.hpp"
#include "core/jit.hpp"
#include "gpu_fixtures.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/reduce/launcher.hpp"
#include "kernel_templates/reduction_reference.hpp"
#include "kernel_templates/reduce/space.hpp"

using namespace autotune;
using namespace autotune::testing;

namespace {

HistogramProblem u8(int bins, double lo, double hi, int counter_bits = 32) {
  HistogramProblem p;
  p.type = SampleType::u8, p.bins = bins, p.lower = lo, p.upper = hi, p.counter_bits = counter_bits;
  return p;
}

// The value-counting variants of the space for any n (the same for every u8 shape whose bins are not the values),
// and two that only a transfer from another shape makes (adapt_config keeps a cluster): one cluster of 8 blocks
// storing its sums, and a resident grid of clusters of 16 (sm_90; pruned elsewhere).
std::vector<HistogramConfig> values_variants(const HistogramProblem& p) {
  std::vector<HistogramConfig> out;
  for (const auto& c : space_decl::any_n(p, histogram_space))
    if (c.binning == Binning::values) out.push_back(c);
  for (const char* key :
       {"priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,grid=8,"
        "cluster=8,bin=values",
        "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0,"
        "cluster=16,bin=values"})
    out.push_back(*HistogramConfig::parse(key));
  return out;
}

struct Input {
  std::string name;
  std::uint64_t n;       // pixels
  std::size_t offset;    // samples before the first: an unaligned start
  std::string dist;      // "" = adversarial samples (random bytes and the range's boundaries)
};

// Runs every configuration of `configs` that the device can run on `p`, twice per input (the one-launch merges must
// leave their workspace as they found it), against the CPU reference.
void check_variants(const HistogramProblem& p, const std::vector<HistogramConfig>& configs,
                    const std::vector<Input>& inputs) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  int pruned = 0;
  const auto variants = compile_runnable(
      p, configs, dev, [&](const HistogramConfig& c) { return histogram_violation(p, c, &dev); }, pruned,
      Entries::one_row);
  MESSAGE(fmt::format("{}: {} value-counting variants ({} pruned by device limits)", p.shape_key(), variants.size(),
                      pruned));
  REQUIRE(!variants.empty());
  std::vector<HistogramKernel> kernels;
  for (const auto& v : variants) kernels.emplace_back(p, v.config, dev, v.cubin, v.entry_2d);
  cuda::DeviceBuffer counts = counter_buffer(p);
  for (const Input& in : inputs) {
    HistogramProblem data = p;
    if (!in.dist.empty()) data.distribution = in.dist;
    const auto host = in.dist.empty() ? adversarial_samples(p, p.samples(in.n), 77 + in.n)
                                      : generate_samples(data, in.n, 78);
    const auto expected = expected_counts(p, host, in.n);
    DeviceSamples dev_in(host, 1, in.offset);
    for (const auto& kernel : kernels)
      for (int repeat = 0; repeat < 2; ++repeat) {
        fill_and_wait(counts, 0xAB);  // poison: every counter must be written
        kernel.run(dev_in.ptr, in.n, counts.get(), nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        INFO(in.name, " ", kernel.config().key(), " run ", repeat);
        const std::string diff = compare_histograms(expected, download(p, counts));
        CHECK_MESSAGE(diff.empty(), diff);
      }
  }
}

std::vector<Input> one_channel_inputs() {
  std::vector<Input> in;
  for (std::uint64_t n : {0ull, 1ull, 31ull, 12345ull, (1ull << 20) + 7})
    in.push_back({fmt::format("adversarial n={}", n), n, 0, ""});
  for (std::size_t offset : {1, 3, 15}) in.push_back({fmt::format("adversarial offset {}", offset), 100003, offset, ""});
  in.push_back({"image n=3M+1", 3 * (1ull << 20) + 1, 5, "image"});
  in.push_back({"constant n=3M+1", 3 * (1ull << 20) + 1, 0, "constant"});
  return in;
}

}  // namespace

TEST_SUITE("gpu_histogram") {
  TEST_CASE("value counting: every variant exact for 37 bins over [10, 250), 1 bin, 256 over [0, 256), 255 over "
            "[1, 256) and more bins than values") {
    const std::vector<HistogramConfig> configs = values_variants(u8(37, 10, 250));
    CHECK(configs.size() >= 20);
    // 256 over [0, 256) is not in the space (the values are the bins) but must count exactly all the same.
    for (const HistogramProblem& p : {u8(37, 10, 250), u8(1, 0, 256), u8(1, 100, 101), u8(256, 0, 256),
                                      u8(255, 1, 256), u8(300, 0, 256), u8(1000, 10, 20)}) {
      CAPTURE(p.shape_key());
      check_variants(p, configs, one_channel_inputs());
    }
  }

  TEST_CASE("value counting: 64-bit counters, and RGBA pixels whose three counted channels have their own bins") {
    check_variants(u8(37, 10, 250, 64), values_variants(u8(37, 10, 250)), one_channel_inputs());
    const HistogramProblem rgba =
        HistogramProblem::multi_channel(SampleType::u8, 4, {{37, 10, 250}, {64, 0, 256}, {3, 7, 9}});
    // Pixel-aligned starts (4-channel vectors need them), one of them not 16-byte aligned.
    const std::vector<Input> pixels = {{"adversarial n=0", 0, 0, ""},
                                       {"adversarial n=1", 1, 0, ""},
                                       {"adversarial n=12345", 12345, 4, ""},
                                       {"image n=1M+3", (1ull << 20) + 3, 0, "image"}};
    check_variants(rgba, values_variants(rgba), pixels);
  }

  TEST_CASE("value counting: 2D regions with padded and odd row strides") {
    const HistogramProblem p = u8(37, 10, 250);
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    for (const std::string key :
         {"priv=shared,R=32,cbits=32,block=512,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0,"
          "bin=values",
          "priv=shared,R=1,cbits=32,block=256,vec=16,loads=1,agg=none,part=interleaved,merge=atomic,grid=0,"
          "bin=values"}) {
      const HistogramConfig c = *HistogramConfig::parse(key);
      const auto compiled = jit::compile(kernel_source(p, c), "region.cu", dev.arch());
      REQUIRE_MESSAGE(compiled.ok, compiled.log);
      HistogramKernel kernel(p, c, dev, compiled.cubin);
      for (const auto& shape : {std::tuple{1000ull, 37ull, 1003ull}, std::tuple{4099ull, 300ull, 4160ull},
                                std::tuple{7ull, 5ull, 7ull}}) {
        // Named variables, not a structured binding: INFO captures them, which clang 14 refuses for bindings.
        const unsigned long long row = std::get<0>(shape), rows = std::get<1>(shape), stride = std::get<2>(shape);
        INFO(key, " rows of ", row, " every ", stride, " bytes, ", rows, " rows");
        const auto host = adversarial_samples(p, rows * stride, 99 + row);
        std::vector<unsigned char> packed;  // the region's samples, row after row
        for (std::uint64_t r = 0; r < rows; ++r)
          packed.insert(packed.end(), host.begin() + static_cast<std::ptrdiff_t>(r * stride),
                        host.begin() + static_cast<std::ptrdiff_t>(r * stride + row));
        DeviceSamples in(host, 1, 1);
        cuda::DeviceBuffer counts = counter_buffer(p);
        fill_and_wait(counts, 0xAB);
        kernel.run(in.ptr, HistogramKernel::Region{row, rows, stride}, counts.get(), nullptr);
        AUTOTUNE_CUDA(cudaDeviceSynchronize());
        CHECK(compare_histograms(expected_counts(p, packed, packed.size()), download(p, counts)) == "");
      }
    }
  }

  TEST_CASE("a handle with no tuning data for u8 with 37 bins over [10, 250) counts values at every size, exactly") {
    const auto path = std::filesystem::temp_directory_path() /
                      ("autotune_byte_values_" + std::to_string(::getpid()) + ".db");  // does not exist
    std::filesystem::remove(path);
    HistogramProblem p = u8(37, 10, 250);
    p.n = 256ull << 20;
    Histogram h(p, Histogram::Options{0, path.string()});
    MESSAGE("source: ", to_string(h.resolution().source), ": ", h.resolution().message);
    for (const SizeRange& r : h.resolution().sizes) {
      INFO(r.config.key(), " for n from ", r.n_from);
      CHECK(r.config.as<HistogramConfig>()->binning == Binning::values);
    }
    for (std::uint64_t n : {std::uint64_t{5}, std::uint64_t{70001}, (std::uint64_t{3} << 20) + 1}) {
      const auto host = adversarial_samples(p, n, n);
      DeviceSamples in(host, 1, 1);
      cuda::DeviceBuffer counts = counter_buffer(p);
      fill_and_wait(counts, 0xFF);
      h(in.ptr, n, counts.as<unsigned>(), nullptr);
      AUTOTUNE_CUDA(cudaDeviceSynchronize());
      INFO("n = ", n, ": ", h.config_for(n).key());
      CHECK(compare_histograms(expected_counts(p, host, n), download(p, counts)) == "");
    }
    CHECK_FALSE(std::filesystem::exists(path));
  }
}

TEST_SUITE("gpu_reduce") {
  TEST_CASE("float min/max: one NaN in any element of a vector inside the full tiles gives the canonical NaN, the "
            "same bits on every call, in every variant") {
    const DeviceInfo dev = query_device(0);
    AUTOTUNE_CUDA(cudaSetDevice(0));
    constexpr std::uint64_t n = (1ull << 20) + 3;
    cuda::DeviceBuffer out(16);
    for (ValueType t : {ValueType::f32, ValueType::f64})
      for (ReduceOp op : {ReduceOp::min, ReduceOp::max}) {
        ReduceProblem p;
        p.op = op, p.type = t;
        CAPTURE(p.shape_key());
        int pruned = 0;
        const auto variants = compile_runnable(
            p, reduce_space(p), dev, [&](const ReduceConfig& c) { return reduce_violation(p, c, &dev); },
            pruned, Entries::all);
        std::vector<ReduceKernel> kernels;
        for (const auto& v : variants) kernels.emplace_back(p, v.config, dev, v.cubin);
        const std::size_t size = size_of(t);
        // Positions n/2 .. n/2 + 3: every element slot of a 16-byte vector of f32 (two vectors of f64). The rest is
        // uniform, with -inf and +inf around the NaN (which must not hide it).
        for (std::uint64_t at = n / 2; at < n / 2 + 4; ++at)
          for (bool negative : {false, true}) {
            std::vector<unsigned char> host = generate_values(p, n, at);
            const double nan = negative ? -std::numeric_limits<double>::quiet_NaN()
                                        : std::numeric_limits<double>::quiet_NaN();
            auto put = [&](std::uint64_t i, double v) {
              if (t == ValueType::f32) {
                const float f = static_cast<float>(v);
                std::memcpy(&host[i * size], &f, size);
              } else {
                std::memcpy(&host[i * size], &v, size);
              }
            };
            put(at, nan);
            put(at - 9, -std::numeric_limits<double>::infinity());
            put(at + 9, std::numeric_limits<double>::infinity());
            const auto expected = reference_reduce(p, host.data(), n);
            DeviceSamples in(host, size, 0);
            for (const auto& kernel : kernels) {
              INFO("NaN at ", at, negative ? " (negative)" : "", " ", kernel.config().key());
              std::uint64_t first = 0;
              for (int r = 0; r < 3; ++r) {
                fill_and_wait(out, 0xAB);
                kernel.run(in.ptr, n, out.get(), nullptr);
                AUTOTUNE_CUDA(cudaDeviceSynchronize());
                std::uint64_t bits = 0;
                AUTOTUNE_CUDA(cudaMemcpy(&bits, out.get(), size, cudaMemcpyDeviceToHost));
                CHECK(compare_reduce(p, expected, &bits, n) == "");
                if (r == 0) first = bits;
                else CHECK(bits == first);
              }
            }
          }
      }
  }
}
