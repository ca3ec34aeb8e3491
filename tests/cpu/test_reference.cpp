// The CPU reference is what every GPU variant is judged by, so it is checked here against hand-computed counts.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernel_templates/histogram/reference.hpp"
#include "autotune/histogram_problem.hpp"

using namespace autotune;

namespace {

HistogramProblem make(SampleType t, int bins, double lo, double hi) {
  HistogramProblem p;
  p.type = t;
  p.bins = bins;
  p.lower = lo;
  p.upper = hi;
  return p;
}

}  // namespace

TEST_SUITE("reference") {
  TEST_CASE("u8 with 256 bins counts each byte value in its own bin") {
    const std::vector<std::uint8_t> s{0, 1, 1, 255, 7, 7, 7};
    const auto h = reference_histogram(make(SampleType::u8, 256, 0, 256), s.data(), s.size());
    REQUIRE(h.size() == 256);
    CHECK(h[0] == 1);
    CHECK(h[1] == 2);
    CHECK(h[7] == 3);
    CHECK(h[255] == 1);
    CHECK(h[2] == 0);
  }

  TEST_CASE("u8 with 4 bins over [0, 256) splits the range into quarters") {
    const std::vector<std::uint8_t> s{0, 63, 64, 127, 128, 200, 255};
    const auto h = reference_histogram(make(SampleType::u8, 4, 0, 256), s.data(), s.size());
    CHECK(h == std::vector<std::uint64_t>{2, 2, 1, 2});  // 0 63 | 64 127 | 128 | 200 255
  }

  TEST_CASE("integer samples outside [lower, upper) are not counted, negatives included") {
    const std::vector<std::int32_t> s{-11, -10, -1, 0, 9, 10, 2147483647, -2147483647 - 1};
    // [-10, 10) in 4 bins of width 5: -10 -> 0, -1 -> 1, 0 -> 2, 9 -> 3; -11, 10 and the extremes are out.
    const auto h = reference_histogram(make(SampleType::i32, 4, -10, 10), s.data(), s.size());
    CHECK(h == std::vector<std::uint64_t>{1, 1, 1, 1});
  }

  TEST_CASE("u32 bins are computed without 32-bit overflow") {
    // (s - lower) * bins overflows 32 bits here; the exact answer for 4294967295 with 1000 bins over [0, 2^32) is 999.
    const std::vector<std::uint32_t> s{4294967295u, 2147483648u, 0u};
    const auto h = reference_histogram(make(SampleType::u32, 1000, 0, 4294967296.0), s.data(), s.size());
    CHECK(h[999] == 1);
    CHECK(h[500] == 1);
    CHECK(h[0] == 1);
  }

  TEST_CASE("float samples: NaN, infinities and out-of-range never count; boundaries follow [lower, upper)") {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const std::vector<float> s{nan, inf, -inf, -0.001f, 1.0f, 0.0f, 0.25f, 0.5f, 0.74999f, std::nextafter(1.0f, 0.0f)};
    // [0, 1) in 4 bins: 0 -> 0, 0.25 -> 1, 0.5 -> 2, 0.74999 -> 2, the float just below 1 -> 3.
    const auto h = reference_histogram(make(SampleType::f32, 4, 0, 1), s.data(), s.size());
    CHECK(h == std::vector<std::uint64_t>{1, 1, 2, 1});
  }

  TEST_CASE("f64 samples are binned in double, not through float") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    // 10 bins over [0, 1). 0.39999999999 is bin 3 (3.9999999999); through float it would be 0.4f, bin 4.
    const std::vector<double> s{0.0, -0.0, 1e-300, 0.1, 0.39999999999, 0.95, std::nextafter(1.0, 0.0),
                                1.0, -1e-300, nan, inf, -inf};
    const auto h = reference_histogram(make(SampleType::f64, 10, 0, 1), s.data(), s.size());
    CHECK(h == std::vector<std::uint64_t>{3, 1, 0, 1, 0, 0, 0, 0, 0, 2});
  }

  TEST_CASE("generated samples stay inside the range and follow their distribution") {
    for (SampleType t : all_sample_types()) {
      CAPTURE(to_string(t));
      HistogramProblem p = make(t, 100, 0, 100);
      const std::uint64_t n = 10000;
      for (const std::string& d : histogram_distributions()) {
        CAPTURE(d);
        p.distribution = d;
        const auto bytes = generate_samples(p, n, 7);
        REQUIRE(bytes.size() == n * size_of(t));
        const auto h = reference_histogram(p, bytes.data(), n);
        std::uint64_t total = 0, nonzero = 0;
        for (auto c : h) total += c, nonzero += c != 0;
        CHECK(total == n);  // every sample lands in range
        if (d == "constant") CHECK(nonzero == 1);
        if (d == "uniform") CHECK(nonzero == 100);
        if (d == "runs") CHECK(nonzero <= 10);  // 10 runs of 1000
        if (d == "narrow") CHECK(nonzero <= 17);  // a band of 16 bins' width
        if (d == "image") CHECK(nonzero > 20);    // a spread of grey levels
      }
    }
  }

  TEST_CASE("generation is reproducible from the seed and differs across seeds") {
    HistogramProblem p = make(SampleType::u16, 65536, 0, 65536);
    CHECK(generate_samples(p, 1000, 1) == generate_samples(p, 1000, 1));
    CHECK(generate_samples(p, 1000, 1) != generate_samples(p, 1000, 2));
  }

  TEST_CASE("comparison names the first differing bin") {
    CHECK(compare_histograms({1, 2, 3}, {1, 2, 3}).empty());
    const auto d = compare_histograms({1, 2, 3}, {1, 5, 4});
    CHECK(d.find("2 of 3 bins differ") != std::string::npos);
    CHECK(d.find("bin 1 expected 2 got 5") != std::string::npos);
    CHECK_FALSE(compare_histograms({1, 2}, {1, 2, 3}).empty());
  }
}
