// The GPU suites' host side, checked without a GPU: which cudaGetDeviceCount outcomes skip a GPU suite and which fail
// it (core/device_probe.hpp), the tier's subset of a space (tests/gpu/tier.hpp), and the generators' promises
// (tests/gpu/generators.hpp): specials in every channel of every pixel, region strides off the 16-byte grid.
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <cmath>
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
    check(histogram_space_any_n(u8));
    check(reduce_space(f32_sum));
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
}
