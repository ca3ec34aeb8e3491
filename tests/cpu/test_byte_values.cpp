// Value counting of u8 histograms (HistogramConfig::binning = Binning::values): its key field, its rules, the host's
// value -> counter map against the CPU reference, where the space, the fallback and the transfer of a configuration
// from another shape (adapt_config) use it, and that its variants compile with the registers of the u8 winner.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autotune/histogram_problem.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/histogram/value_bins.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"
#include "tests/test_devices.hpp"

using namespace autotune;
using histogram_detail::covers_all_values;
using histogram_detail::direct_bin_divides;
using histogram_detail::values_are_bins;

namespace {

HistogramProblem u8(int bins, double lo, double hi) {
  HistogramProblem p;
  p.type = SampleType::u8, p.bins = bins, p.lower = lo, p.upper = hi;
  return p;
}

// The u8/256 winner at 512 MiB (bench/results/2026-12-01b-h200-size-bench-u8.md) and its value-counting twin.
const std::string kWinner =
    "priv=shared,R=32,cbits=32,block=512,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0";
const std::string kWinnerValues = kWinner + ",bin=values";
// The value-counting configuration a transfer runs (the best probe on a real photo's bytes, 37 bins over [10, 250) at
// 256M: bench/results/2026-12-02c-h200-untuned-grid-after.md).
const std::string kMeasuredValues =
    "priv=shared,R=32,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0,bin=values";

std::vector<HistogramConfig> values_only(const std::vector<HistogramConfig>& space) {
  std::vector<HistogramConfig> out;
  for (const auto& c : space)
    if (c.binning == Binning::values) out.push_back(c);
  return out;
}

}  // namespace

TEST_SUITE("config") {
  TEST_CASE("bin=values: printed after every other field, parsed back to the same configuration") {
    const auto c = HistogramConfig::parse(kWinnerValues);
    REQUIRE(c.has_value());
    CHECK(c->binning == Binning::values);
    CHECK(c->key() == kWinnerValues);
    HistogramConfig clustered = *c;
    clustered.cluster = 8;
    CHECK(clustered.key() == kWinner + ",cluster=8,bin=values");
    CHECK(HistogramConfig::parse(clustered.key()) == clustered);
  }

  TEST_CASE("keys without bin= parse to direct counting and print unchanged; bin=direct and unknown values are "
            "refused") {
    const auto c = HistogramConfig::parse(kWinner);
    REQUIRE(c.has_value());
    CHECK(c->binning == Binning::direct);
    CHECK(c->key() == kWinner);
    // One key per configuration: direct counting is never written, so "bin=direct" is not a key.
    CHECK_FALSE(HistogramConfig::parse(kWinner + ",bin=direct").has_value());
    CHECK_FALSE(HistogramConfig::parse(kWinner + ",bin=lut").has_value());
    CHECK_FALSE(HistogramConfig::parse(kWinner + ",bin=values,bin=values").has_value());
    // The schema-1 keys stay as they were read.
    const auto v1 = HistogramConfig::parse("priv=shared,block=256,ipt=4,agg=0,part=interleaved");
    REQUIRE(v1.has_value());
    CHECK(v1->binning == Binning::direct);
    CHECK_FALSE(HistogramConfig::parse("priv=shared,block=256,ipt=4,agg=0,part=interleaved,bin=values").has_value());
  }

  TEST_CASE("every configuration of the shipped policy parses and prints back to the same text") {
    std::ifstream in(std::string(AUTOTUNE_SOURCE_DIR) + "/kernel_templates/histogram/policy.json");
    REQUIRE(in);
    const auto doc = nlohmann::json::parse(in);
    int n = 0;
    for (const auto& e : doc.at("entries")) {
      const std::string key = e.at("config").get<std::string>();
      const auto c = HistogramConfig::parse(key);
      REQUIRE_MESSAGE(c.has_value(), key);
      CHECK(c->binning == Binning::direct);
      CHECK(c->key() == key);
      ++n;
    }
    CHECK(n > 10);
  }

  TEST_CASE("value counting: u8 samples, shared or per-warp copies, 32-bit counters; shared memory counts 256 "
            "values per active channel and a row of bin totals") {
    HistogramConfig c = *HistogramConfig::parse(kWinnerValues);
    const HistogramProblem p = u8(37, 10, 250);
    CHECK(c.invalid_reason(p) == "");
    CHECK(c.shared_bytes(p) == (256 * 32 + 37) * 4);
    HistogramProblem rgba = HistogramProblem::multi_channel(
        SampleType::u8, 4, {{37, 10, 250}, {64, 0, 256}, {300, 0, 256}});
    CHECK(c.invalid_reason(rgba) == "");
    CHECK(c.shared_bytes(rgba) == (3 * 256 * 32 + 37 + 64 + 300) * 4);
    c.privatization = Privatization::warp, c.replicas = 1;
    CHECK(c.invalid_reason(p) == "");
    CHECK(c.shared_bytes(p) == (256 * 16 + 37) * 4);  // one copy per warp of 512 threads
    c.privatization = Privatization::global;
    CHECK(c.invalid_reason(p).find("global atomics") != std::string::npos);
    c = *HistogramConfig::parse(kWinnerValues);
    c.counter_bits = 16, c.merge = Merge::atomic;
    CHECK(c.invalid_reason(p).find("32-bit") != std::string::npos);
    c = *HistogramConfig::parse(kWinnerValues);
    HistogramProblem u16 = p;
    u16.type = SampleType::u16;
    CHECK(c.invalid_reason(u16).find("u8") != std::string::npos);
  }

  TEST_CASE("the space holds value counting for every u8 shape whose bins are not the byte values, and only there") {
    for (const HistogramProblem& p : {u8(37, 10, 250), u8(1, 0, 256), u8(255, 1, 256), u8(300, 0, 256),
                                      u8(32, 0, 256)}) {
      CAPTURE(p.shape_key());
      for (std::uint64_t n : {std::uint64_t{4096}, std::uint64_t{256} << 20}) {
        HistogramProblem sized = p;
        sized.n = n;
        const auto values = values_only(histogram_space(sized));
        CHECK(values.size() >= 20);
        std::set<std::string> keys;
        for (const auto& c : values) {
          CHECK(c.invalid_reason(sized) == "");
          keys.insert(c.key());
        }
        CHECK(keys.count(kWinnerValues) == 1);  // the u8/256 winner's twin
        // One block for small inputs only, as the direct variants.
        CHECK((keys.count("priv=shared,R=1,cbits=32,block=1024,vec=16,loads=4,agg=none,part=interleaved,"
                          "merge=last_block,grid=1,bin=values") == 1) == (n <= (4u << 20)));
      }
    }
    CHECK(values_only(space_decl::any_n(u8(256, 0, 256), histogram_space)).empty());  // the values are the bins
    HistogramProblem u16 = HistogramProblem::with_defaults(SampleType::u16, 37, 10);
    CHECK(values_only(space_decl::any_n(u16, histogram_space)).empty());
  }

  TEST_CASE("the fallback counts values for u8 samples of one channel whose bins are not the values, and is in the "
            "space") {
    for (const HistogramProblem& p : {u8(37, 10, 250), u8(1, 0, 256), u8(32, 0, 256), u8(256, 0, 255)}) {
      CAPTURE(p.shape_key());
      const HistogramConfig f = HistogramConfig::fallback(p);
      CHECK(f.key() == kWinnerValues);
      std::set<std::string> keys;
      for (const auto& c : space_decl::any_n(p, histogram_space)) keys.insert(c.key());
      CHECK(keys.count(f.key()) == 1);
    }
    CHECK(HistogramConfig::fallback(u8(256, 0, 256)).binning == Binning::direct);
    CHECK(HistogramConfig::fallback(HistogramProblem::with_defaults(SampleType::u16, 37, 10)).binning ==
          Binning::direct);
    const HistogramProblem rgba = HistogramProblem::multi_channel(SampleType::u8, 4, {{37, 10, 250}});
    CHECK(HistogramConfig::fallback(rgba).binning == Binning::direct);  // 16-byte loads need aligned pixels
    // Bins whose totals would not leave 32 KiB of copies within 48 KiB: the direct fallback.
    CHECK(HistogramConfig::fallback(u8(5000, 0, 256)).binning == Binning::direct);
  }
}

TEST_SUITE("reference") {
  TEST_CASE("which u8 shapes count values: bins that are the values take none; a division per sample takes them") {
    CHECK(values_are_bins(u8(256, 0, 256)));
    CHECK_FALSE(values_are_bins(u8(256, 0, 255)));
    CHECK_FALSE(values_are_bins(u8(128, 0, 256)));
    CHECK(values_are_bins(HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {256, 0, 256}})));
    CHECK_FALSE(values_are_bins(HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 256}})));
    CHECK(direct_bin_divides(u8(37, 10, 250)));
    CHECK_FALSE(direct_bin_divides(u8(255, 1, 256)));  // one value per bin from 1: a subtraction
    CHECK(direct_bin_divides(u8(254, 1, 256)));
    CHECK(direct_bin_divides(u8(100, 0, 256)));
    CHECK_FALSE(direct_bin_divides(u8(256, 0, 256)));
    CHECK_FALSE(direct_bin_divides(u8(32, 0, 256)));   // 8 values per bin: a shift
    CHECK_FALSE(direct_bin_divides(u8(512, 0, 256)));  // 2 bins per value
    CHECK_FALSE(direct_bin_divides(u8(60, 10, 250)));  // 4 values per bin from 10
    CHECK(covers_all_values(u8(32, 0, 256)));
    CHECK_FALSE(covers_all_values(u8(100, 0, 200)));
    CHECK_FALSE(covers_all_values(u8(60, 10, 250)));
    CHECK_FALSE(covers_all_values(HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {64, 0, 255}})));
    HistogramProblem i8 = u8(64, -128, 128);
    i8.type = SampleType::i8;
    CHECK(covers_all_values(i8));
    i8.lower = -127;
    CHECK_FALSE(covers_all_values(i8));
    CHECK(direct_bin_divides(HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}, {37, 10, 250}})));
  }
}

TEST_SUITE("family") {
  TEST_CASE("a configuration from another shape counts values where the wanted u8 bins need a division, and only "
            "there") {
    const KernelFamily& family = family_named("histogram");
    const DeviceInfo h100 = test::h100_device("GPU-byte-values");
    const Config winner = *Config::parse("histogram", kWinner);
    // Every configuration here was measured at 512 MiB: the wanted shape at that size (adapt_config's problem).
    auto adapt = [&](HistogramProblem p, const Config& c) {
      p.n = 512ull << 20;
      auto a = family.adapt_config(Problem(p), c, &h100);
      REQUIRE(a.has_value());
      return *a;
    };
    // 37 bins over [10, 250): the measured value-counting configuration, each changed field named.
    auto a = adapt(u8(37, 10, 250), winner);
    CHECK(a.config.key() == kMeasuredValues);
    CHECK(a.change == "block=1024, loads=2, merge=atomic, bin=values");
    // Bins that are a shift of the values (32 over [0, 256)) and the values themselves: unchanged.
    a = adapt(u8(32, 0, 256), winner);
    CHECK(a.config.key() == kWinner);
    CHECK(a.change == "");
    // A value-counting configuration given to the shape whose bins are the values, or to u16 samples: direct.
    const Config values = *Config::parse("histogram", kWinnerValues);
    a = adapt(u8(256, 0, 256), values);
    CHECK(a.config.key() == kWinner);
    CHECK(a.change == "bin=direct");
    a = adapt(HistogramProblem::with_defaults(SampleType::u16, 37, 10), values);
    CHECK(a.config.as<HistogramConfig>()->binning == Binning::direct);
    CHECK(a.config.as<HistogramConfig>()->invalid_reason(HistogramProblem::with_defaults(SampleType::u16, 37, 10)) ==
          "");
    // A shift (two values per bin) over a range short of the byte's 256 values: a range test per sample, so values,
    // and a transfer that starts counting values takes one shared copy per lane (R = 32).
    const std::string r16 =
        "priv=shared,R=16,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,grid=0";
    a = adapt(u8(100, 0, 200), *Config::parse("histogram", r16));
    CHECK(a.config.key() == kMeasuredValues);
    CHECK(a.change == "R=32, merge=atomic, bin=values");
    a = adapt(u8(48, 16, 240), *Config::parse("histogram", r16));  // 224 values: not a shift, nor the whole byte
    CHECK(a.change == "R=32, merge=atomic, bin=values");
    // The same shift over the whole byte (4 values per bin), of u8 and of i8: no range test, bins counted directly
    // (with a shared copy per lane: the next test case).
    CHECK(adapt(u8(64, 0, 256), *Config::parse("histogram", r16)).change == "R=32");
    HistogramProblem i8 = u8(64, -128, 128);
    i8.type = SampleType::i8;
    CHECK(adapt(i8, *Config::parse("histogram", r16)).change == "R=32");
    i8.lower = -64;  // [-64, 128): a range test
    CHECK(adapt(i8, *Config::parse("histogram", r16)).change == "R=32, merge=atomic, bin=values");
    // Pixels of several channels keep the given configuration, with one shared copy per lane.
    const HistogramProblem rgba = HistogramProblem::multi_channel(SampleType::u8, 4, {{37, 10, 250}});
    a = adapt(rgba, *Config::parse("histogram", r16));
    CHECK(a.config.key() == r16.substr(0, r16.find(",R=16")) + ",R=32" +
                                r16.substr(r16.find(",R=16") + 5) + ",bin=values");
    // Global atomics have no shared counters to count values in: unchanged.
    const std::string global =
        "priv=global,R=1,cbits=32,block=512,vec=16,loads=2,agg=warp,part=interleaved,merge=atomic,grid=0";
    CHECK(adapt(u8(37, 10, 250), *Config::parse("histogram", global)).config.key() == global);
    // 80000 bins: their 32-bit totals alone exceed 227 KiB, so value counting cannot run; counted directly in
    // 16-bit shared counters, as before value counting existed.
    a = adapt(u8(80000, 0, 256), winner);
    CHECK(a.config.as<HistogramConfig>()->binning == Binning::direct);
    CHECK(a.change == "R=1, cbits=16, merge=atomic");
  }

  TEST_CASE("a configuration measured at a small size counts values with its own geometry; above histogram_spaces::"
            "kSmallN samples it becomes the measured value-counting configuration") {
    const KernelFamily& family = family_named("histogram");
    const DeviceInfo h100 = test::h100_device("GPU-byte-values-small");
    // The u8/32 policy entry at 64K (kernel_templates/histogram/policy.json): one copy, 256 threads, one sample per
    // load from contiguous items.
    const std::string small =
        "priv=shared,R=1,cbits=32,block=256,vec=0,loads=4,agg=none,part=contiguous,merge=atomic,grid=0";
    HistogramProblem p = u8(11, 45, 110);
    for (const std::uint64_t n : {std::uint64_t{0}, std::uint64_t{65536}, std::uint64_t{4} << 20}) {
      CAPTURE(n);
      p.n = n;
      const auto a = family.adapt_config(Problem(p), *Config::parse("histogram", small), &h100);
      REQUIRE(a.has_value());
      CHECK(a->config.key() == small + ",bin=values");
      CHECK(a->change == "bin=values");
    }
    p.n = (std::uint64_t{4} << 20) + 1;
    const auto a = family.adapt_config(Problem(p), *Config::parse("histogram", small), &h100);
    REQUIRE(a.has_value());
    CHECK(a->config.key() == kMeasuredValues);
  }

  TEST_CASE("another shape's 16 shared copies of 8-bit counters become 32, a copy per lane, where 32 fit") {
    const KernelFamily& family = family_named("histogram");
    const DeviceInfo h100 = test::h100_device("GPU-lane-copies");
    DeviceInfo small = h100;
    small.shared_per_block_optin = 48 * 1024;
    const std::string r16 =
        "priv=shared,R=16,cbits=32,block=1024,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0";
    const std::string r32 =
        "priv=shared,R=32,cbits=32,block=1024,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0";
    auto adapt = [&](const HistogramProblem& p, const std::string& key, const DeviceInfo& d) {
      auto a = family.adapt_config(Problem(p), *Config::parse("histogram", key), &d);
      REQUIRE(a.has_value());
      return *a;
    };
    // The u8/256 policy entry's copies at 16M: 16 -> 32 (32 KiB of counters).
    auto a = adapt(u8(256, 0, 256), r16, h100);
    CHECK(a.config.key() == r32);
    CHECK(a.change == "R=32");
    // 512 bins (two per byte value): 32 copies are 64 KiB, more than a 48 KiB device gives a block: 16 stay.
    a = adapt(u8(512, 0, 256), r16, small);
    CHECK(a.config.key() == r16);
    CHECK(a.change == "");
    CHECK(adapt(u8(512, 0, 256), r16, h100).change == "R=32");
    // Other counts of copies, and samples wider than a byte, are left as tuned.
    const std::string r1 =
        "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0";
    CHECK(adapt(u8(256, 0, 256), r1, h100).config.key() == r1);
    CHECK(adapt(u8(256, 0, 256), r32, h100).change == "");
    const HistogramProblem u16 = HistogramProblem::with_defaults(SampleType::u16, 256, 0);
    CHECK(adapt(u16, r16, h100).config.key() == r16);
    // Pixels of several channels: as tuned.
    const HistogramProblem rgba = HistogramProblem::multi_channel(SampleType::u8, 4, {{256, 0, 256}});
    CHECK(adapt(rgba, r16, h100).config.as<HistogramConfig>()->replicas == 16);
  }
}

TEST_SUITE("nvrtc") {
  TEST_CASE("the value-counting variants compile for sm_90 (one pairwise covering of one channel's and RGBA pixels' "
            "joint space, every variant under nvrtc_full) and sm_80") {
    const HistogramProblem p = u8(37, 10, 250);
    HistogramProblem rgba = HistogramProblem::multi_channel(SampleType::u8, 4, {{37, 10, 250}, {64, 0, 256}, {3, 7, 9}});
    rgba.n = 1 << 20;
    CHECK(test::compile_all_joint(std::vector{p, rgba},
                                  std::vector{values_only(space_decl::any_n(p, histogram_space)),
                                              values_only(histogram_space(rgba))},
                                  "sm_90") == "");
    CHECK(test::compile_all(p, std::vector{*HistogramConfig::parse(kWinnerValues)}, "sm_80") == "");
    // Clusters come only from a transfer (adapt_config keeps them): one cluster storing its sums, and a resident grid.
    const std::vector<HistogramConfig> clusters = {
        *HistogramConfig::parse("priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,"
                                "merge=self_zero,grid=8,cluster=8,bin=values"),
        *HistogramConfig::parse("priv=shared,R=1,cbits=32,block=1024,vec=16,loads=4,agg=none,part=interleaved,"
                                "merge=self_zero,grid=0,cluster=16,bin=values")};
    for (const auto& c : clusters) CHECK(test::compile_all(p, std::vector{c}, "sm_90") == "");
  }

  TEST_CASE("the preamble of a value-counting variant says so and carries no table: each block bins the values") {
    const HistogramProblem p = u8(37, 10, 250);
    const std::string values = kernel_source(p, *HistogramConfig::parse(kWinnerValues));
    CHECK(values.find("#define AT_VALUES 1") != std::string::npos);
    CHECK(values.find("constexpr Binning kBinning = Binning::values;") != std::string::npos);
    // The map of the byte values to bins is computed from the levels in the kernel, not loaded: a table in global
    // memory was a cold load at the end of every block (histogram.cu's value_counter).
    CHECK(values.find("__device__ int") == std::string::npos);
    const std::string direct = kernel_source(p, *HistogramConfig::parse(kWinner));
    CHECK(direct.find("#define AT_VALUES 0") != std::string::npos);
  }

}
