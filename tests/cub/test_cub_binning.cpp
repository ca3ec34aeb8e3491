// autotune's CPU reference (kernel_templates/histogram/reference.cpp), which every GPU variant is checked against,
// held against CUB's own bin transform (tests/cub/cub_transform.cu) on thousands of random ranges of every sample
// type: edge samples (the bounds and their neighbours, the edges of random bins, NaN, infinities) and random ones.
// The reference must give CUB's bin for every sample; a bin CUB computes as `bins` (a float rounding just below
// upper) must not be counted, as CUB's shared-memory path does not count it.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "tests/cub/cub_transform.hpp"

using namespace autotune;

namespace {

struct Tally {
  std::uint64_t ranges = 0, samples = 0, mismatches = 0, rounded_to_bins = 0;
  std::string first;
};

// What CUB counts: its bin when it lies in [0, bins), else nothing (-1).
int counted(int cub_bin, int bins) { return cub_bin >= 0 && cub_bin < bins ? cub_bin : -1; }

template <class T, class Oracle>
void compare(const HistogramProblem& p, const std::vector<T>& samples, Oracle&& cub, Tally& t) {
  const std::vector<int> ours = reference_bins(p, samples.data(), samples.size());
  ++t.ranges;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const int c = cub(samples[i]);
    REQUIRE(c != cub_oracle::kRefused);
    t.rounded_to_bins += c >= p.bins;
    ++t.samples;
    if (ours[i] != counted(c, p.bins) && t.mismatches++ == 0)
      t.first = fmt::format("{}: sample {} -> ours {}, CUB {}", p.shape_key(), static_cast<double>(samples[i]), ours[i], c);
  }
}

bool valid(const HistogramProblem& p) {
  try {
    p.validate();
    return true;
  } catch (const UsageError&) {
    return false;
  }
}

int random_bins(std::mt19937_64& rng) {  // log-uniform in 1..2^24
  const int bits = static_cast<int>(rng() % 25);
  return static_cast<int>(std::max<std::uint64_t>(1, rng() % ((1ull << bits) + 1)));
}

// Samples of a float range: the bounds and their neighbours, the edges of random bins and their neighbours, values
// outside, NaN and infinities, and uniform values.
template <class T>
std::vector<T> float_samples(T lo, T hi, int bins, std::mt19937_64& rng, int uniform) {
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> s{lo, hi, std::nextafter(lo, -inf), std::nextafter(lo, inf), std::nextafter(hi, -inf),
                   std::nextafter(hi, inf), std::numeric_limits<T>::quiet_NaN(), inf, -inf, T(0), T(-0.0)};
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double width = static_cast<double>(hi) - static_cast<double>(lo);
  for (int k = 0; k < 24; ++k) {
    const double b = std::floor(u(rng) * bins);
    const T edge = static_cast<T>(static_cast<double>(lo) + b * width / bins);
    s.push_back(edge), s.push_back(std::nextafter(edge, -inf)), s.push_back(std::nextafter(edge, inf));
  }
  for (int k = 0; k < uniform; ++k) s.push_back(static_cast<T>(static_cast<double>(lo) + (u(rng) * 1.2 - 0.1) * width));
  return s;
}

// A random float range: lower of either sign over many magnitudes, a width from 2^-20 to 2^20 of its magnitude.
template <class T>
HistogramProblem float_range(SampleType type, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  HistogramProblem p;
  p.type = type;
  p.bins = random_bins(rng);
  const double magnitude = std::ldexp(1.0, static_cast<int>(rng() % 60) - 30);
  const T lo = static_cast<T>((rng() % 4 == 0 ? 0.0 : (u(rng) * 2 - 1)) * magnitude);
  const T hi = static_cast<T>(lo + std::ldexp(u(rng) + 0.001, static_cast<int>(rng() % 41) - 20) * magnitude);
  p.lower = lo, p.upper = hi;  // exactly representable in T: the bounds CUB gets are these
  return p;
}

}  // namespace

TEST_SUITE("cub_binning") {
  TEST_CASE("f32: the reference gives CUB's bin for every sample of 3000 random ranges") {
    std::mt19937_64 rng(17);
    Tally t;
    while (t.ranges < 3000) {
      const HistogramProblem p = float_range<float>(SampleType::f32, rng);
      if (!valid(p)) continue;
      const auto lo = static_cast<float>(p.lower), hi = static_cast<float>(p.upper);
      compare(p, float_samples<float>(lo, hi, p.bins, rng, 200),
              [&](float s) { return cub_oracle::bin_f32(p.bins, lo, hi, s); }, t);
    }
    MESSAGE(fmt::format("{} ranges, {} samples, {} rounded up to bins by CUB", t.ranges, t.samples, t.rounded_to_bins));
    CHECK_MESSAGE(t.mismatches == 0, t.mismatches, " mismatches; first: ", t.first);
    CHECK(t.rounded_to_bins > 0);  // the uncounted case was exercised
  }

  TEST_CASE("f32: the ranges where CUB's float scale differs from one rounded from double, every sample") {
    // 65536 and 4096 bins over [0.02, 0.8) (image gradients): each of the 44M floats in the range.
    for (const int bins : {65536, 4096}) {
      HistogramProblem p;
      p.type = SampleType::f32, p.bins = bins, p.lower = 0.02f, p.upper = 0.8f;  // the float bounds, exactly
      Tally t;
      std::vector<float> chunk;
      for (float s = 0.02f; s < 0.8f; s = std::nextafter(s, 1.0f)) {
        chunk.push_back(s);
        if (chunk.size() == (1u << 20) || std::nextafter(s, 1.0f) >= 0.8f) {
          compare(p, chunk, [&](float v) { return cub_oracle::bin_f32(bins, 0.02f, 0.8f, v); }, t);
          chunk.clear();
        }
      }
      CAPTURE(bins);
      CHECK_MESSAGE(t.mismatches == 0, t.mismatches, " mismatches; first: ", t.first);
      CHECK(t.samples > 10'000'000);
    }
  }

  TEST_CASE("f64: the reference gives CUB's bin for every sample of 3000 random ranges") {
    std::mt19937_64 rng(19);
    Tally t;
    while (t.ranges < 3000) {
      const HistogramProblem p = float_range<double>(SampleType::f64, rng);
      if (!valid(p)) continue;
      compare(p, float_samples<double>(p.lower, p.upper, p.bins, rng, 200),
              [&](double s) { return cub_oracle::bin_f64(p.bins, p.lower, p.upper, s); }, t);
    }
    MESSAGE(fmt::format("{} ranges, {} samples, {} rounded up to bins by CUB", t.ranges, t.samples, t.rounded_to_bins));
    CHECK_MESSAGE(t.mismatches == 0, t.mismatches, " mismatches; first: ", t.first);
  }

  TEST_CASE("u8 and u16: the reference gives CUB's bin for every sample value of 2000 random ranges each") {
    std::mt19937_64 rng(23);
    for (const SampleType type : {SampleType::u8, SampleType::u16}) {
      const long long top = type == SampleType::u8 ? 256 : 65536;
      Tally t;
      while (t.ranges < 2000) {
        HistogramProblem p;
        p.type = type;
        p.bins = random_bins(rng);
        const long long lo = static_cast<long long>(rng() % top);
        p.lower = static_cast<double>(lo);
        p.upper = static_cast<double>(lo + 1 + static_cast<long long>(rng() % static_cast<std::uint64_t>(top - lo)));
        if (!valid(p)) continue;
        const int ilo = static_cast<int>(p.lower), ihi = static_cast<int>(p.upper);
        if (type == SampleType::u8) {
          std::vector<std::uint8_t> s(256);
          for (int v = 0; v < 256; ++v) s[static_cast<std::size_t>(v)] = static_cast<std::uint8_t>(v);
          compare(p, s, [&](std::uint8_t v) { return cub_oracle::bin_u8(p.bins, ilo, ihi, v); }, t);
        } else {
          std::vector<std::uint16_t> s{0, 65535, static_cast<std::uint16_t>(ilo), static_cast<std::uint16_t>(ihi - 1),
                                       static_cast<std::uint16_t>(ihi), static_cast<std::uint16_t>(ilo - 1)};
          for (int k = 0; k < 300; ++k) s.push_back(static_cast<std::uint16_t>(rng()));
          compare(p, s, [&](std::uint16_t v) { return cub_oracle::bin_u16(p.bins, ilo, ihi, v); }, t);
        }
      }
      CAPTURE(to_string(type));
      CHECK_MESSAGE(t.mismatches == 0, t.mismatches, " mismatches; first: ", t.first);
    }
  }

  TEST_CASE("f16 and bf16: the reference gives CUB's bin (float levels) for every bit pattern of 300 random ranges") {
    std::mt19937_64 rng(31);
    for (const SampleType type : {SampleType::f16, SampleType::bf16}) {
      std::vector<std::uint16_t> every(65536);
      for (std::uint32_t b = 0; b < 65536; ++b) every[b] = static_cast<std::uint16_t>(b);
      Tally t;
      std::uniform_real_distribution<double> u(0.0, 1.0);
      while (t.ranges < 300) {
        // Bounds of either sign over the halves' magnitudes (2^-14 .. 2^15), float-exact as CUB gets them.
        HistogramProblem p;
        p.type = type;
        p.bins = random_bins(rng);
        const double magnitude = std::ldexp(1.0, static_cast<int>(rng() % 30) - 14);
        const float lo = static_cast<float>((rng() % 4 == 0 ? 0.0 : (u(rng) * 2 - 1)) * magnitude);
        const float hi = static_cast<float>(lo + std::ldexp(u(rng) + 0.001, static_cast<int>(rng() % 21) - 10) * magnitude);
        p.lower = lo, p.upper = hi;
        if (!valid(p)) continue;
        compare(p, every,
                [&](std::uint16_t bits) {
                  return type == SampleType::f16 ? cub_oracle::bin_f16(p.bins, lo, hi, bits)
                                                 : cub_oracle::bin_bf16(p.bins, lo, hi, bits);
                },
                t);
      }
      CAPTURE(to_string(type));
      MESSAGE(fmt::format("{}: {} ranges, {} samples, {} rounded up to bins by CUB", to_string(type), t.ranges,
                          t.samples, t.rounded_to_bins));
      CHECK_MESSAGE(t.mismatches == 0, t.mismatches, " mismatches; first: ", t.first);
    }
  }

  TEST_CASE("i8 and i16: the reference gives CUB's bin for every sample value of 500 random ranges each") {
    std::mt19937_64 rng(37);
    for (const SampleType type : {SampleType::i8, SampleType::i16}) {
      const long long min = type == SampleType::i8 ? -128 : -32768, top = -min;  // upper <= top
      Tally t;
      while (t.ranges < 500) {
        HistogramProblem p;
        p.type = type;
        p.bins = random_bins(rng);
        const long long lo = min + static_cast<long long>(rng() % static_cast<std::uint64_t>(top - min));
        p.lower = static_cast<double>(lo);
        p.upper = static_cast<double>(lo + 1 + static_cast<long long>(rng() % static_cast<std::uint64_t>(top - lo)));
        if (!valid(p)) continue;
        const int ilo = static_cast<int>(p.lower), ihi = static_cast<int>(p.upper);
        if (type == SampleType::i8) {
          std::vector<std::int8_t> s;
          for (int v = -128; v < 128; ++v) s.push_back(static_cast<std::int8_t>(v));
          compare(p, s, [&](std::int8_t v) { return cub_oracle::bin_i8(p.bins, ilo, ihi, v); }, t);
        } else {
          std::vector<std::int16_t> s;
          for (int v = -32768; v < 32768; ++v) s.push_back(static_cast<std::int16_t>(v));
          compare(p, s, [&](std::int16_t v) { return cub_oracle::bin_i16(p.bins, ilo, ihi, v); }, t);
        }
      }
      CAPTURE(to_string(type));
      CHECK_MESSAGE(t.mismatches == 0, t.mismatches, " mismatches; first: ", t.first);
    }
  }

  TEST_CASE("i32 and u32: the reference gives CUB's bin for 2000 random ranges each, the widest included") {
    std::mt19937_64 rng(29);
    for (const SampleType type : {SampleType::i32, SampleType::u32}) {
      const long long min = type == SampleType::i32 ? -(1ll << 31) : 0, top = min + (1ll << 32);  // upper <= top
      Tally t;
      while (t.ranges < 2000) {
        HistogramProblem p;
        p.type = type;
        p.bins = random_bins(rng);
        const bool widest = t.ranges % 100 == 0;
        const long long lo = widest ? min : min + static_cast<long long>(rng() % (1ull << 32));
        const long long span = widest ? top - lo : 1 + static_cast<long long>(rng() % static_cast<std::uint64_t>(top - lo));
        p.lower = static_cast<double>(lo), p.upper = static_cast<double>(lo + span);
        if (!valid(p)) continue;
        const long long hi = lo + span;
        auto in_type = [&](long long v) { return v >= min && v < top; };
        std::vector<long long> values{lo, hi - 1, hi, lo - 1, min, top - 1};
        for (int k = 0; k < 300; ++k) values.push_back(rng() % 2 ? lo + static_cast<long long>(rng() % static_cast<std::uint64_t>(span))
                                                                 : min + static_cast<long long>(rng() % (1ull << 32)));
        if (type == SampleType::i32) {
          std::vector<std::int32_t> s;
          for (long long v : values) if (in_type(v)) s.push_back(static_cast<std::int32_t>(v));
          compare(p, s, [&](std::int32_t v) { return cub_oracle::bin_i32(p.bins, lo, hi, v); }, t);
        } else {
          std::vector<std::uint32_t> s;
          for (long long v : values) if (in_type(v)) s.push_back(static_cast<std::uint32_t>(v));
          compare(p, s, [&](std::uint32_t v) { return cub_oracle::bin_u32(p.bins, lo, hi, v); }, t);
        }
      }
      CAPTURE(to_string(type));
      CHECK_MESSAGE(t.mismatches == 0, t.mismatches, " mismatches; first: ", t.first);
    }
  }
}
