// Every segmented reduction variant on the GPU against the CPU reference: the whole f32-sum space on segment-length
// distributions from 2-element to multi-chunk segments (empty ones included), CUB's begin/end arrays with gaps,
// reversed (empty) segments and unaligned begins, a queue overflow, every op and type on a few variants, repeated
// calls giving the same bits, and the SegmentedReduce handle through the API (tuned, then the built-in default).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/segmented_reduce.hpp"
#include "autotune/tuner.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "gpu_fixtures.hpp"
#include "kernel_templates/segreduce/launcher.hpp"
#include "kernel_templates/segreduce/reference.hpp"
#include "kernel_templates/segreduce/space.hpp"

using namespace autotune;
using namespace autotune::testing;

namespace {

SegReduceProblem make(SegReduceOp op, ValueType t) {
  SegReduceProblem p;
  p.op = op, p.type = t;
  return p;
}

cuda::DeviceBuffer upload_bytes(const void* data, std::size_t bytes) {
  cuda::DeviceBuffer b(std::max<std::size_t>(bytes, 16));
  if (bytes) AUTOTUNE_CUDA(cudaMemcpy(b.get(), data, bytes, cudaMemcpyHostToDevice));
  return b;
}

// One input: values and segments given as begin/end arrays.
struct Case {
  std::string name;
  std::vector<unsigned char> values;
  std::vector<int> begin, end;
};

Case from_spec(const SegReduceProblem& p, const std::string& spec, std::uint64_t n, std::uint64_t seed) {
  const auto offsets = generate_offsets(parse_segment_spec(spec), n, seed);
  Case c{fmt::format("{} n={}", spec, n), generate_segment_values(p, n, seed + 1), {}, {}};
  c.begin.assign(offsets.begin(), offsets.end() - 1);
  c.end.assign(offsets.begin() + 1, offsets.end());
  return c;
}

// CUB's general form: segments out of order, with gaps between them, overlapping, reversed (end < begin: empty),
// and begins at every alignment.
Case scrambled(const SegReduceProblem& p, std::uint64_t n, std::uint64_t seed) {
  Case c{fmt::format("begin/end arrays, gaps, overlaps, reversed, n={}", n), generate_segment_values(p, n, seed), {}, {}};
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (int s = 0; s < 5000; ++s) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const int len = s % 97 == 0 ? static_cast<int>(x % 300000) : static_cast<int>(x % 2000);
    const int b = static_cast<int>((x >> 20) % (n - len));
    if (s % 13 == 0) c.begin.push_back(b + len), c.end.push_back(b);  // reversed: empty
    else c.begin.push_back(b), c.end.push_back(b + len);
  }
  return c;
}

struct Device {
  cuda::DeviceBuffer values, begin, end, out;
  std::size_t out_bytes;
  explicit Device(const SegReduceProblem& p, const Case& c)
      : values(upload_bytes(c.values.data(), c.values.size())),
        begin(upload_bytes(c.begin.data(), c.begin.size() * 4)),
        end(upload_bytes(c.end.data(), c.end.size() * 4)),
        out(std::max<std::size_t>(16, c.begin.size() * p.result_bytes())),
        out_bytes(c.begin.size() * p.result_bytes()) {
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
  }
  template <class Call>
  std::vector<unsigned char> run(Call&& call) {
    AUTOTUNE_CUDA(cudaMemset(out.get(), 0xAB, out.bytes()));
    call();
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned char> got(std::max<std::size_t>(out_bytes, 16));
    AUTOTUNE_CUDA(cudaMemcpy(got.data(), out.get(), got.size(), cudaMemcpyDeviceToHost));
    return got;
  }
};

// Runs every variant of `variants` on every case: "" or the failures.
std::string check_variants(const SegReduceProblem& p, const std::vector<SegReduceConfig>& variants,
                           const std::vector<Case>& cases, int repeats = 1) {
  const DeviceInfo dev = query_device(0);
  int pruned = 0;
  const auto compiled = compile_runnable(
      p, variants, dev, [&](const SegReduceConfig& c) { return segreduce_constraint_violation(p, c, dev); }, pruned);
  CHECK(pruned == 0);
  std::string failures;
  for (const Case& c : cases) {
    Device d(p, c);
    const SegReduceExpected expected =
        reference_segreduce(p, c.values.data(), c.begin.data(), c.end.data(), c.begin.size());
    for (const auto& v : compiled) {
      const SegReduceKernel k(p, v.config, dev, v.cubin);
      std::vector<unsigned char> first;
      for (int r = 0; r < repeats; ++r) {
        const auto got = d.run([&] {
          k.run(d.values.get(), c.begin.size(), static_cast<const int*>(d.begin.get()),
                static_cast<const int*>(d.end.get()), d.out.get(), nullptr);
        });
        if (r == 0) {
          first = got;
          if (const std::string diff = compare_segreduce(p, expected, got.data()); !diff.empty())
            failures += fmt::format("{} {} on {}: {}\n", p.shape_key(), v.config.key(), c.name, diff);
        } else if (got != first) {
          failures += fmt::format("{} {} on {}: call {} gave other bits\n", p.shape_key(), v.config.key(), c.name, r);
        }
      }
    }
  }
  return failures;
}

std::string temp_cache(const char* name) {
  const auto path =
      std::filesystem::temp_directory_path() / fmt::format("autotune_segreduce_{}_{}.db", ::getpid(), name);
  std::filesystem::remove(path);
  return path.string();
}

}  // namespace

TEST_SUITE("gpu_segreduce") {
  TEST_CASE("every f32 sum variant is within tolerance on every segment, for every length distribution, and repeats "
            "its bits") {
    const SegReduceProblem p = make(SegReduceOp::sum, ValueType::f32);
    std::vector<Case> cases;
    cases.push_back(from_spec(p, "fixed:32", 1 << 20, 1));
    cases.push_back(from_spec(p, "uniform:0..8", 1 << 18, 2));       // many empty segments
    cases.push_back(from_spec(p, "uniform:1..64K", 4 << 20, 3));
    cases.push_back(from_spec(p, "power-law:1..256K", 4 << 20, 4));
    cases.push_back(from_spec(p, "fixed:1000003", 3000009, 5));      // multi-chunk segments, odd alignments
    cases.push_back(from_spec(p, "fixed:1", 1000, 6));
    cases.push_back(scrambled(p, 1 << 20, 7));
    const std::string failures = check_variants(p, segreduce_space(p), cases, 2);
    CHECK_MESSAGE(failures.empty(), failures);
  }

  TEST_CASE("every operation and type is exact on a thread, a group, a warp and the long path, empty segments "
            "included") {
    for (ValueType t : all_value_types())
      for (SegReduceOp op : {SegReduceOp::sum, SegReduceOp::min, SegReduceOp::max, SegReduceOp::argmin,
                             SegReduceOp::argmax}) {
        const SegReduceProblem p = make(op, t);
        const std::vector<SegReduceConfig> variants{SegReduceConfig::fallback(p), {256, 1, 32, 16, 2, 1024},
                                                    {128, 32, 4096, 0, 4, 4096}, {512, 4, 64, 16, 4, 65536}};
        std::vector<Case> cases{from_spec(p, "uniform:0..300", 1 << 18, 11), from_spec(p, "power-law:1..64K", 1 << 20, 12),
                                scrambled(p, 1 << 19, 13)};
        if (is_float(t) && op != SegReduceOp::sum) {  // NaN in some segments
          Case nan = from_spec(p, "uniform:1..3000", 1 << 18, 14);
          nan.name += ", NaN";
          for (std::size_t i = 5; i < (1 << 18); i += 7919) {
            if (t == ValueType::f32) {
              const float v = std::numeric_limits<float>::quiet_NaN();
              std::memcpy(&nan.values[i * 4], &v, 4);
            } else {
              const double v = std::numeric_limits<double>::quiet_NaN();
              std::memcpy(&nan.values[i * 8], &v, 8);
            }
          }
          cases.push_back(std::move(nan));
        }
        const std::string failures = check_variants(p, variants, cases);
        CHECK_MESSAGE(failures.empty(), failures);
      }
  }

  TEST_CASE("more long segments than the queue holds: the first kernel reduces the rest itself") {
    const SegReduceProblem p = make(SegReduceOp::sum, ValueType::i32);
    // 300-element segments past small=256: 2^18 + 1000 of them overflow the queue of 2^18.
    const std::vector<Case> cases{from_spec(p, "fixed:300", 300ull * ((1u << 18) + 1000), 21)};
    const std::string failures = check_variants(p, {SegReduceConfig::fallback(p)}, cases, 2);
    CHECK_MESSAGE(failures.empty(), failures);
  }

  TEST_CASE("the SegmentedReduce handle: tuned and default configurations, offsets and begin/end forms") {
    const std::string path = temp_cache("api");
    SegReduceProblem p = make(SegReduceOp::sum, ValueType::f32);
    p.distribution = "fixed:32";
    p.n = 1 << 20;
    {
      Cache cache(path);
      TuneOptions o;
      o.samples = 3;
      REQUIRE(tune(p, cache, o).winner);
    }
    const SegmentedReduce tuned(p, SegmentedReduce::Options{0, path});
    MESSAGE(tuned.resolution().message);
    CHECK(tuned.resolution().source == ConfigSource::exact);
    const Case c = from_spec(p, "fixed:32", p.n, 31);
    Device d(p, c);
    const auto expected = reference_segreduce(p, c.values.data(), c.begin.data(), c.end.data(), c.begin.size());
    std::vector<int> offsets = c.begin;
    offsets.push_back(c.end.back());
    const cuda::DeviceBuffer d_offsets = upload_bytes(offsets.data(), offsets.size() * 4);
    const auto* in = static_cast<const float*>(d.values.get());
    auto* out = static_cast<float*>(d.out.get());
    const auto got = d.run([&] { tuned(in, p.n, c.begin.size(), static_cast<const int*>(d_offsets.get()), out); });
    CHECK(compare_segreduce(p, expected, got.data()) == "");
    const auto got2 = d.run([&] {
      tuned(in, p.n, c.begin.size(), static_cast<const int*>(d.begin.get()), static_cast<const int*>(d.end.get()), out);
    });
    CHECK(compare_segreduce(p, expected, got2.data()) == "");
    CHECK_THROWS_AS(tuned(in, p.n, c.begin.size(), static_cast<const int*>(d_offsets.get()),
                          static_cast<double*>(d.out.get())),
                    UsageError);

    SegReduceProblem q = make(SegReduceOp::argmax, ValueType::i32);
    q.distribution = "power-law:1..64K";
    const SegmentedReduce fallback(q, SegmentedReduce::Options{0, path});
    CHECK(fallback.resolution().source == ConfigSource::fallback);
    const Case qc = scrambled(q, 1 << 20, 32);
    Device qd(q, qc);
    const auto qexpected = reference_segreduce(q, qc.values.data(), qc.begin.data(), qc.end.data(), qc.begin.size());
    const auto qgot = qd.run([&] {
      fallback(static_cast<const int*>(qd.values.get()), 1 << 20, qc.begin.size(),
               static_cast<const int*>(qd.begin.get()), static_cast<const int*>(qd.end.get()),
               static_cast<SegmentedArg<int>*>(qd.out.get()));
    });
    CHECK(compare_segreduce(q, qexpected, qgot.data()) == "");
    std::filesystem::remove(path);
  }
}
