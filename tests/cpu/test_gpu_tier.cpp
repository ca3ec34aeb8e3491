// The GPU suites' host side, checked without a GPU: which cudaGetDeviceCount outcomes skip a GPU suite and which fail
// it (core/device_probe.hpp), the tier's subset of a space (tests/gpu/tier.hpp), and the generators' promises
// (tests/gpu/generators.hpp): specials in every channel of every pixel, region strides off the 16-byte grid.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cuda_runtime.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>
#include <cstring>
#include <stdexcept>

#include "core/device_probe.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "tests/gpu/generators.hpp"
#include "tests/gpu/tier.hpp"

using namespace autotune;
using namespace autotune::testing;

TEST_SUITE("gpu_tier") {
  TEST_CASE("only a missing driver or a missing device skips; a driver that is there and fails is a failure") {
    CHECK(classify_device_probe(cudaSuccess, 2, true) == DeviceProbe::devices);
    CHECK(classify_device_probe(cudaErrorInsufficientDriver, 0, false) == DeviceProbe::no_driver);
    CHECK(classify_device_probe(cudaErrorNoDevice, 0, true) == DeviceProbe::no_device);
    CHECK(classify_device_probe(cudaErrorNoDevice, 0, false) == DeviceProbe::no_device);
    CHECK(classify_device_probe(cudaSuccess, 0, true) == DeviceProbe::no_device);
    // libcuda.so.1 loads but is older than this build's CUDA: the same code as no driver, and a broken machine.
    CHECK(classify_device_probe(cudaErrorInsufficientDriver, 0, true) == DeviceProbe::driver_failed);
    for (const cudaError_t e : {cudaErrorInitializationError, cudaErrorSystemDriverMismatch,
                                cudaErrorCompatNotSupportedOnDevice, cudaErrorCallRequiresNewerDriver,
                                cudaErrorDevicesUnavailable, cudaErrorUnknown, cudaErrorNotPermitted}) {
      CAPTURE(cudaGetErrorName(e));
      CHECK(classify_device_probe(e, 0, true) == DeviceProbe::driver_failed);
      CHECK(classify_device_probe(e, 0, false) == DeviceProbe::driver_failed);
    }
  }

  TEST_CASE("AUTOTUNE_GPU_TIER: quick when unset or empty, full, and anything else refused naming the variable") {
    CHECK(parse_tier(nullptr) == Tier::quick);
    CHECK(parse_tier("") == Tier::quick);
    CHECK(parse_tier("quick") == Tier::quick);
    CHECK(parse_tier("full") == Tier::full);
    CHECK_THROWS_WITH_AS(parse_tier("Full"), doctest::Contains("AUTOTUNE_GPU_TIER='Full'"), std::invalid_argument);
  }

  TEST_CASE("the full tier verifies a whole space; the quick tier a smaller subset meeting every pair of values") {
    HistogramProblem u8;
    ReduceProblem f32_sum;
    f32_sum.type = ValueType::f32;
    auto check = [](const auto& space) {
      CHECK(tier_space(space, Tier::full) == space);
      const auto quick = tier_space(space, Tier::quick);
      MESSAGE(quick.size(), " of ", space.size(), " variants in the quick tier");
      CHECK(quick.size() < space.size() / 2);
      CHECK(test::value_pairs(quick) == test::value_pairs(space));
      for (const auto& c : quick) CHECK(std::find(space.begin(), space.end(), c) != space.end());
    };
    check(space_decl::any_n(u8, histogram_space));
    check(reduce_space(f32_sum));
  }

  TEST_CASE("pairwise_cover: greedy, first candidate of the largest gain: four of the eight points of three binary "
            "parameters, and a group that adds no pair still gets a candidate") {
    std::vector<std::vector<std::string>> fields;
    for (int k = 0; k < 8; ++k)  // candidate k = (a, b, c) with k = 4a + 2b + c
      fields.push_back({fmt::format("a={}", k >> 2), fmt::format("b={}", (k >> 1) & 1), fmt::format("c={}", k & 1)});
    // Worked by hand: (0,0,0) covers 3 pairs; then (0,1,1), (1,0,1) and (1,1,0) cover 3 new ones each: all 12 pairs.
    CHECK(test::pairwise_cover(fields, std::vector<std::size_t>(8, 0)) == std::vector<std::size_t>{0, 3, 5, 6});
    // Group 1 repeats group 0's first candidate: it covers nothing new, and is chosen for its group all the same.
    fields.push_back(fields[0]);
    std::vector<std::size_t> group(8, 0);
    group.push_back(1);
    CHECK(test::pairwise_cover(fields, group) == std::vector<std::size_t>{0, 3, 5, 6, 8});
    CHECK_THROWS_AS(test::pairwise_cover(fields, std::vector<std::size_t>(3, 0)), std::invalid_argument);
  }

  TEST_CASE("the quick tier of several problems: one covering of their joint space, every pair of a problem field "
            "and a configuration field and of two configuration fields met, each problem served, fewer than half the variants of a covering per problem") {
    auto check = [](const auto& problems, const auto& spaces) {
      const auto quick = tier_spaces(problems, spaces, Tier::quick);
      CHECK(tier_spaces(problems, spaces, Tier::full) == spaces);
      REQUIRE(quick.size() == problems.size());
      // The pairs of the joint space, and those the chosen variants hold, each listed independently of the covering.
      std::set<std::pair<std::string, std::string>> wanted, met;
      auto add_pairs = [](auto& to, const std::vector<std::string>& f) {
        for (std::size_t i = 0; i < f.size(); ++i)
          for (std::size_t j = 0; j < f.size(); ++j)
            if (f[i] < f[j]) to.emplace(f[i], f[j]);
      };
      std::size_t total = 0, separate = 0, whole = 0;
      for (std::size_t i = 0; i < problems.size(); ++i) {
        const auto pf = test::problem_fields(problems[i].shape_key());
        auto with_problem = [&](const auto& c) {
          auto f = test::key_fields(c);
          f.insert(f.end(), pf.begin(), pf.end());
          return f;
        };
        for (const auto& c : spaces[i]) add_pairs(wanted, with_problem(c));
        for (const auto& c : quick[i]) {
          add_pairs(met, with_problem(c));
          CHECK(std::find(spaces[i].begin(), spaces[i].end(), c) != spaces[i].end());
        }
        CHECK_FALSE(quick[i].empty());
        total += quick[i].size(), whole += spaces[i].size(), separate += test::pairwise_subset(spaces[i]).size();
      }
      CHECK(met == wanted);
      MESSAGE(problems.size(), " problems: ", total, " variants in one covering, ", separate,
              " in a covering per problem, of ", whole);
      CHECK(total * 2 < separate);
    };
    std::vector<ReduceProblem> sums;
    std::vector<std::vector<ReduceConfig>> sum_spaces;
    for (ValueType t : all_value_types()) {
      ReduceProblem p;
      p.type = t;
      sums.push_back(p);
      sum_spaces.push_back(reduce_space(p));
    }
    check(sums, sum_spaces);
    std::vector<HistogramProblem> hists;
    std::vector<std::vector<HistogramConfig>> hist_spaces;
    for (const HistogramProblem& p : {HistogramProblem{}, HistogramProblem{.type = SampleType::f32, .bins = 1024, .lower = -1, .upper = 1},
                                      HistogramProblem{.type = SampleType::u16, .bins = 65536, .lower = 0, .upper = 65536}}) {
      hists.push_back(p);
      hist_spaces.push_back(space_decl::any_n(p, histogram_space));
    }
    check(hists, hist_spaces);
  }

  TEST_CASE("adversarial samples hold random bits and each channel's specials in every channel, past the first n "
            "samples") {
    const std::uint64_t n = 1000;
    const HistogramProblem rgba =
        HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}, {17, 10, 200}});
    const auto bytes = adversarial_samples(rgba, n, 7), plain = generate_samples(rgba, n, 7);
    REQUIRE(bytes.size() == rgba.samples(n));
    std::uint64_t changed_past_n = 0;
    for (std::uint64_t i = n; i < bytes.size(); ++i) changed_past_n += bytes[i] != plain[i];
    CHECK(changed_past_n > n / 2);  // every third sample of the 3000 past n, but for the equal draws
    // Channel 2 (17 bins over [10, 200)): its lower bound, the last value inside and the first values outside.
    using At = std::pair<std::uint64_t, int>;
    for (const At& at : {At{0, 10}, At{3, 199}, At{6, 200}, At{9, 9}, At{n - 1, 10}, At{n - 4, 199}}) {
      CAPTURE(at.first);
      CHECK(int(bytes[at.first * 4 + 2]) == at.second);
    }

    const HistogramProblem f32 = HistogramProblem::multi_channel(SampleType::f32, 4, {{100, -1, 1}, {37, 0.02, 0.8}});
    const auto floats = adversarial_samples(f32, n, 9);
    auto sample = [&](std::uint64_t pixel, int channel) {
      float v;
      std::memcpy(&v, &floats[(pixel * 4 + static_cast<std::uint64_t>(channel)) * 4], 4);
      return v;
    };
    for (int c : {0, 1, 3}) {
      CAPTURE(c);
      const HistogramChannel ch = f32.channel(c);
      CHECK(sample(0, c) == static_cast<float>(ch.lower));
      CHECK(sample(3, c) == static_cast<float>(ch.upper));
      CHECK(std::isnan(sample(9, c)));
      CHECK(std::isnan(sample(n - 10, c)));
      CHECK(sample(12, c) == -INFINITY);
    }
  }

  TEST_CASE("image regions: for every pixel size of the suite, a long-row stride of whole pixels off the 16-byte "
            "grid and a start off it") {
    for (std::size_t pixel : {1, 2, 3, 4, 8, 12}) {
      CAPTURE(pixel);
      bool odd_stride = false, odd_start = false;
      for (const ImageRegion& r : image_regions(pixel)) {
        CAPTURE(r.name);
        if (r.rows > 1) {
          CHECK(r.stride_bytes % pixel == 0);  // pixel-vector variants take whole pixels only
          CHECK(r.stride_bytes >= r.row_pixels * pixel);
        }
        odd_stride = odd_stride || (r.rows > 1 && r.row_pixels * pixel >= 16 * 16 && r.stride_bytes % 16 != 0);
        odd_start = odd_start || (r.rows > 1 && r.offset_bytes % 16 != 0);
      }
      CHECK(odd_stride);
      CHECK(odd_start);
    }
  }

  TEST_CASE("range regions: for every sample size, the rows said to start on their own alignment do") {
    for (std::size_t size : {1, 2, 4, 8}) {
      CAPTURE(size);
      int own = 0;
      for (const RangeRegion& r : range_regions(size)) {
        CAPTURE(r.name);
        CHECK(r.stride >= r.row_samples);
        if (!r.own_heads) continue;
        ++own;
        CHECK(r.rows > 1);
        CHECK((r.stride * size) % 16 != 0);
      }
      CHECK(own >= 2);
    }
  }

  TEST_CASE("put_value writes a value as the type's bytes: halves rounded to nearest even, signed zeros kept") {
    std::vector<unsigned char> b(16, 0xAB);
    auto u16 = [&] { return static_cast<unsigned>(b[0] | (b[1] << 8)); };
    put_value(ValueType::bf16, b, 0, 1.5);
    CHECK(u16() == 0x3FC0u);
    put_value(ValueType::bf16, b, 0, 1.0 + 1.0 / 256);  // halfway between 1 and 1 + 2^-7: to the even 1.0
    CHECK(u16() == 0x3F80u);
    put_value(ValueType::f16, b, 0, -0.0);
    CHECK(u16() == 0x8000u);
    put_value(ValueType::f16, b, 0, -2.0);
    CHECK(u16() == 0xC000u);
    put_value(ValueType::i8, b, 3, -3);
    CHECK(b[3] == 0xFD);
    CHECK(b[4] == 0xAB);  // nothing past the element
    put_value(ValueType::i16, b, 1, -2);
    CHECK(b[2] == 0xFE);
    CHECK(b[3] == 0xFF);
    put_value(ValueType::f32, b, 1, -0.0);
    CHECK(b[7] == 0x80);
    CHECK(b[4] == 0x00);
  }
}
