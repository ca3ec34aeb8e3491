// The CPU reference is what every GPU variant is judged by, so it is checked here against hand-computed counts.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernel_templates/histogram/reference.hpp"
#include "autotune/histogram_problem.hpp"
#include "core/splitmix.hpp"
#include "kernel_templates/argreduce/reference.hpp"
#include "kernel_templates/reduction_reference.hpp"

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

  TEST_CASE("f32: the scale is float(bins) / (float(upper) - float(lower)) in float, as CUB computes it") {
    // 65536 bins over [0.02, 0.8): CUB's scale is 0x1.483482p+16; rounded from double it would be 0x1.483484p+16 and
    // put this sample in bin 25 instead of CUB's 24 (tests/cub/ checks every float of the range against CUB).
    const float s = 0x1.4c8e14p-6f;
    const auto bins = reference_bins(make(SampleType::f32, 65536, 0.02f, 0.8f), &s, 1);
    CHECK(bins == std::vector<int>{24});
  }

  TEST_CASE("f32: a sample whose bin rounds up to bins is not counted, as in CUB's shared-memory path") {
    // 129 bins over [0x1.51e258p-9, 0x1.f1fca4p-5): the float just below upper computes bin 129 in CUB's arithmetic.
    const std::vector<float> s{0x1.f1fca2p-5f, 0x1.51e258p-9f};
    const HistogramProblem p = make(SampleType::f32, 129, 0x1.51e258p-9, 0x1.f1fca4p-5);
    CHECK(reference_bins(p, s.data(), 2) == std::vector<int>{-1, 0});
    const auto h = reference_histogram(p, s.data(), 2);
    CHECK(h[0] == 1);
    CHECK(h[128] == 0);
  }

  TEST_CASE("RGBA pixels, 3 of 4 channels: channel c counts into counters c * bins.., the fourth is not counted") {
    HistogramProblem p = make(SampleType::u8, 4, 0, 256);  // 4 bins of 64 values per channel
    p.channels = 4, p.active = 3;
    // Three pixels (R, G, B, A): R falls in bins 0, 0, 3; G in 1, 2, 2; B in 3, 3, 3; A is never counted.
    const std::vector<std::uint8_t> s{0, 64, 255, 9, 63, 128, 200, 255, 255, 190, 192, 0};
    const auto h = reference_histogram(p, s.data(), 3);
    CHECK(h == std::vector<std::uint64_t>{2, 0, 0, 1, /* G */ 0, 1, 2, 0, /* B */ 0, 0, 0, 3});
    // The same bytes as 4 pixels of 3 channels, all counted: (0, 64, 255) (9, 63, 128) (200, 255, 255) (190, 192, 0).
    HistogramProblem rgb = p;
    rgb.channels = 3, rgb.active = 3;
    CHECK(reference_histogram(rgb, s.data(), 4) ==
          std::vector<std::uint64_t>{2, 0, 1, 1, /* G */ 1, 1, 0, 2, /* B */ 1, 0, 1, 2});
  }

  TEST_CASE("levels per channel: each channel bins over its own range into its own counters, after the channels "
            "before it") {
    // R: 4 bins over [0, 256) (64 values each); G: 2 bins over [100, 200) (50 each); B: 3 bins over [0, 3).
    const HistogramProblem p =
        HistogramProblem::multi_channel(SampleType::u8, 4, {{4, 0, 256}, {2, 100, 200}, {3, 0, 3}});
    // Pixels (R, G, B, A): (0, 99, 0, 7) (64, 100, 1, 7) (255, 149, 2, 7) (128, 150, 3, 7) (200, 199, 255, 7).
    const std::vector<std::uint8_t> s{0, 99, 0, 7, 64, 100, 1, 7, 255, 149, 2, 7, 128, 150, 3, 7, 200, 199, 255, 7};
    const auto h = reference_histogram(p, s.data(), 5);
    // R: 0 -> 0, 64 -> 1, 255 -> 3, 128 -> 2, 200 -> 3. G: 99 and outside; 100, 149 -> 0; 150, 199 -> 1.
    // B: 0 -> 0, 1 -> 1, 2 -> 2; 3 and 255 outside.
    CHECK(h == std::vector<std::uint64_t>{1, 1, 1, 2, /* G */ 2, 2, /* B */ 1, 1, 1});
    // f32 channels: [0, 1) in 10 bins and [-8, 8) in 4 bins (4 wide).
    const HistogramProblem f = HistogramProblem::multi_channel(SampleType::f32, 2, {{10, 0, 1}, {4, -8, 8}});
    const std::vector<float> fs{0.05f, -8.0f, 0.95f, 7.99f, 1.0f, -0.01f, 0.0f, 8.0f};
    // Channel 0: 0.05 and 0.0 in bin 0, 0.95 in bin 9, 1.0 outside. Channel 1: -8 in 0, -0.01 in 1, 7.99 in 3, 8 outside.
    CHECK(reference_histogram(f, fs.data(), 4) == std::vector<std::uint64_t>{2, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                                                                               /* ch 1 */ 1, 1, 0, 1});
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

  // core/splitmix.hpp: inputs are made on every core, chunk by chunk, with the bytes of one generator shared in order.
  TEST_CASE("fill_draws writes what one generator drawn in order writes, on 1, 3 or 8 threads") {
    const std::uint64_t n = 3 * (std::uint64_t{1} << 20) + 17;  // three whole chunks and a part
    auto draw = [](SplitMix64& r, std::uint64_t i) { return r.next() ^ (i * 0x100000001b3ull); };
    std::vector<std::uint64_t> expected(n);
    SplitMix64 one{99};
    for (std::uint64_t i = 0; i < n; ++i) expected[i] = draw(one, i);
    for (unsigned threads : {1u, 3u, 8u}) {
      std::vector<std::uint64_t> got(n);
      fill_draws(got.data(), n, 99, draw, threads);
      CHECK_MESSAGE(got == expected, threads << " threads");
    }
  }

  TEST_CASE("large generated inputs are the values of one generator in order: element i is the first of the seed "
            "advanced by i draws") {
    const std::uint64_t n = 2 * (std::uint64_t{1} << 20) + 5, seed = 7;
    const std::uint64_t probes[] = {0, 1, (std::uint64_t{1} << 20) - 1, std::uint64_t{1} << 20, n - 1};
    auto element = [](const std::vector<unsigned char>& bytes, std::size_t size, std::uint64_t i) {
      return std::vector<unsigned char>(bytes.begin() + static_cast<std::ptrdiff_t>(i * size),
                                        bytes.begin() + static_cast<std::ptrdiff_t>((i + 1) * size));
    };
    for (ValueType t : {ValueType::f32, ValueType::i64, ValueType::bf16, ValueType::u32}) {
      ReduceProblem r;
      r.op = ReduceOp::max;
      r.type = t;
      r = r.normalized();
      const auto all = generate_values(r, n, seed);
      for (std::uint64_t i : probes)
        CHECK(element(all, size_of(t), i) == generate_values(r, 1, seed + i * SplitMix64::kGamma));
      ArgReduceProblem a;
      a.type = t;
      const auto args = generate_arg_values(a, n, seed);
      for (std::uint64_t i : probes)
        CHECK(element(args, size_of(t), i) == generate_arg_values(a, 1, seed + i * SplitMix64::kGamma));
    }
    for (const HistogramProblem& h : {make(SampleType::u8, 256, 0, 256), make(SampleType::f32, 1000, -1, 3),
                                      make(SampleType::f32, 64, 0, 1)}) {
      HistogramProblem narrow = h;
      narrow.distribution = "narrow";
      for (const HistogramProblem& p : {h, narrow}) {
        const auto all = generate_samples(p, n, seed);
        for (std::uint64_t i : probes)
          CHECK(element(all, size_of(p.type), i) == generate_samples(p, 1, seed + i * SplitMix64::kGamma));
      }
    }
  }

  // The references reduce in chunks on every core (core/chunks.hpp): ties, NaN and sums must come out as one loop
  // in order gives them, wherever the chunks fall.
  TEST_CASE("references over several chunks keep the first of equal extremes, the first NaN, and exact sums") {
    const std::uint64_t chunk = std::uint64_t{1} << 20, n = 3 * chunk + 11;
    std::vector<float> v(n, 0.5f);
    v[5] = 0.0f;               // +0 first ...
    v[2 * chunk + 3] = -0.0f;  // ... and -0 in a later chunk: equal, so the first (+0) is the min
    ReduceProblem mn;
    mn.op = ReduceOp::min;
    mn.type = ValueType::f32;
    mn = mn.normalized();
    CHECK(reference_reduce(mn, v.data(), n).bits == 0x00000000u);
    std::swap(v[5], v[2 * chunk + 3]);  // now -0 first
    CHECK(reference_reduce(mn, v.data(), n).bits == 0x80000000u);
    // argmax: the maximum at index 7 and again in the last chunk: 7; then a NaN in chunk 1 and one in chunk 2: the first.
    std::vector<float> a(n, 0.25f);
    a[7] = 3.0f;
    a[3 * chunk + 2] = 3.0f;
    CHECK(reference_arg_extreme(ValueType::f32, true, a.data(), n).index == 7);
    a[chunk + 9] = std::numeric_limits<float>::quiet_NaN();
    a[2 * chunk + 1] = std::numeric_limits<float>::quiet_NaN();
    CHECK(reference_arg_extreme(ValueType::f32, true, a.data(), n).index == chunk + 9);
    // A NaN anywhere makes a float min NaN.
    v[3 * chunk + 10] = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(static_cast<double>(reference_reduce(mn, v.data(), n).value)));
    // An i32 sum over the chunks: the exact sum of the values, cut to the accumulator's 64 bits.
    std::vector<std::int32_t> w(n);
    std::int64_t sum = 0;
    for (std::uint64_t i = 0; i < n; ++i) sum += w[i] = static_cast<std::int32_t>((i * 2654435761u) % 2000001) - 1000000;
    ReduceProblem s;
    s.op = ReduceOp::sum;
    s.type = ValueType::i32;
    s = s.normalized();
    CHECK(reference_reduce(s, w.data(), n).bits == static_cast<std::uint64_t>(sum));
  }
}
