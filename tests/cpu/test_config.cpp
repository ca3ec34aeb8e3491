#include <doctest/doctest.h>

#include <set>
#include <string>

#include "autotune/config.hpp"
#include "tuner/space.hpp"

using namespace autotune;

TEST_SUITE("config") {
  TEST_CASE("the space is the full product of its axes, without duplicates") {
    const HistogramSpaceAxes axes;
    const auto space = histogram_space(axes);
    CHECK(space.size() == axes.privatization.size() * axes.block.size() * axes.items_per_thread.size() *
                              axes.aggregation.size() * axes.partitioning.size());
    std::set<std::string> keys;
    for (const auto& c : space) keys.insert(c.key());
    CHECK(keys.size() == space.size());
    // The built-in fallback is part of the space, so the tuner always measures it.
    HistogramProblem p;
    const auto fb = HistogramConfig::fallback(p);
    CHECK(keys.count(fb.key()) == 1);
  }

  TEST_CASE("every configuration survives key() -> parse()") {
    for (const auto& c : histogram_space()) {
      const auto back = HistogramConfig::parse(c.key());
      REQUIRE(back.has_value());
      CHECK(*back == c);
    }
  }

  TEST_CASE("parse refuses what key() never writes") {
    CHECK_FALSE(HistogramConfig::parse("").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=local,block=256,ipt=4,agg=0,part=interleaved").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,block=-1,ipt=4,agg=0,part=interleaved").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,block=256,ipt=4,agg=2,part=interleaved").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,block=256x,ipt=4,agg=0,part=interleaved").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,block=256,ipt=4,agg=0,part=interleaved,extra=1").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,priv=shared,ipt=4,agg=0,part=interleaved").has_value());
  }

  TEST_CASE("device limits prune the space before anything is compiled") {
    DeviceInfo small;
    small.max_threads_per_block = 512;
    small.shared_per_block_optin = 48 * 1024;
    HistogramProblem p;  // 256 bins: 1 KiB of shared counters
    HistogramConfig c;
    c.block = 1024;
    CHECK(histogram_constraint_violation(p, c, small).find("1024 threads") != std::string::npos);
    c.block = 512;
    CHECK(histogram_constraint_violation(p, c, small).empty());
    p.type = SampleType::u16;
    p.bins = 65536;  // 256 KiB of counters: too much shared memory anywhere
    p.upper = 65536;
    c.privatization = Privatization::shared;
    CHECK(histogram_constraint_violation(p, c, small).find("shared memory") != std::string::npos);
    c.privatization = Privatization::global;
    CHECK(histogram_constraint_violation(p, c, small).empty());
  }

  TEST_CASE("the fallback stays within 48 KiB of shared memory") {
    HistogramProblem p;
    p.type = SampleType::f32;
    p.upper = 1;
    p.bins = 12288;  // exactly 48 KiB
    CHECK(HistogramConfig::fallback(p).privatization == Privatization::shared);
    p.bins = 12289;
    CHECK(HistogramConfig::fallback(p).privatization == Privatization::global);
  }
}
