// The lookup's rule for one-launch histogram merges (runtime/one_launch.hpp) on the CPU: on an sm_90 device a
// self_zero range whose problem's output is 12 KiB or more, served from evidence other than the problem's own tuning,
// runs merge=atomic; an output one counter smaller, the problem's own tuning, clusters, an sm_80 device, no device,
// another family and AUTOTUNE_SELF_ZERO_AS_MEASURED=1 leave it alone. Output sizes worked out by hand: 3072 f32 bins
// of 32-bit counters are 12288 bytes, 3071 are 12284; 1536 u16 bins of 64-bit counters 12288.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../scoped_env.hpp"
#include "../test_devices.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/resolution.hpp"
#include "core/family.hpp"
#include "runtime/one_launch.hpp"

using namespace autotune;

namespace {

constexpr const char* kOneLaunch =
    "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,grid=0";
constexpr const char* kAtomic =
    "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0";

Problem ol_histogram(SampleType type, int bins, int counter_bits = 32) {
  HistogramProblem h = HistogramProblem::with_defaults(type, bins);
  h.counter_bits = counter_bits;
  h.n = 1'000'000;
  return Problem(h);
}

Config ol_parsed(const Problem& p, const std::string& key) {
  auto c = p.family().parse_config(key);
  REQUIRE(c);
  return *c;
}

// The key the rule leaves in a one-range table of `key` served from `source` for `p` on `device`.
std::string ol_served(const Problem& p, const std::string& key, ConfigSource source, const DeviceInfo* device) {
  SizeRange r;
  r.n_from = 0;
  r.n_to = ~std::uint64_t(0);
  r.config = ol_parsed(p, key);
  r.source = source;
  r.why = "given";
  std::vector<SizeRange> t{r};
  self_zero_as_atomic(t, p, device);
  REQUIRE(t.size() == 1);
  return t[0].config.key();
}

}  // namespace

TEST_SUITE("one_launch") {
  TEST_CASE("on sm_90 a self_zero policy range of a 12 KiB output runs merge=atomic and says why") {
    const test::ScopedEnv rule_on("AUTOTUNE_SELF_ZERO_AS_MEASURED", std::nullopt);  // tests/cpu/main.cpp sets it
    const DeviceInfo h100 = test::h100_device("GPU-1");
    const Problem p = ol_histogram(SampleType::f32, 3072);
    CHECK(ol_served(p, kOneLaunch, ConfigSource::policy, &h100) == kAtomic);
    CHECK(ol_served(p, kOneLaunch, ConfigSource::similar_problem, &h100) == kAtomic);
    CHECK(ol_served(p, kOneLaunch, ConfigSource::similar_device, &h100) == kAtomic);
    CHECK(ol_served(ol_histogram(SampleType::u16, 1536, 64), kOneLaunch, ConfigSource::policy, &h100) == kAtomic);
    SizeRange r;
    r.config = ol_parsed(p, kOneLaunch);
    r.source = ConfigSource::policy;
    r.why = "given";
    std::vector<SizeRange> t{r};
    self_zero_as_atomic(t, p, &h100);
    CHECK(t[0].why.find("merge=atomic") != std::string::npos);
  }

  TEST_CASE("the rule leaves a smaller output, the problem's own tuning, clusters and other merges alone") {
    const test::ScopedEnv rule_on("AUTOTUNE_SELF_ZERO_AS_MEASURED", std::nullopt);
    const DeviceInfo h100 = test::h100_device("GPU-1");
    const Problem p = ol_histogram(SampleType::f32, 3072);
    CHECK(ol_served(ol_histogram(SampleType::f32, 3071), kOneLaunch, ConfigSource::policy, &h100) == kOneLaunch);
    CHECK(ol_served(p, kOneLaunch, ConfigSource::exact, &h100) == kOneLaunch);
    CHECK(ol_served(p, kOneLaunch, ConfigSource::nearest_size, &h100) == kOneLaunch);
    const std::string cluster = "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,"
                                "merge=self_zero,grid=0,cluster=16";
    CHECK(ol_served(p, cluster, ConfigSource::policy, &h100) == cluster);
    const std::string last_block = "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,"
                                   "merge=last_block,grid=0";
    CHECK(ol_served(p, last_block, ConfigSource::policy, &h100) == last_block);
    CHECK(ol_served(p, kAtomic, ConfigSource::policy, &h100) == kAtomic);
  }

  TEST_CASE("no rule before sm_90, without a device, or with AUTOTUNE_SELF_ZERO_AS_MEASURED=1") {
    const DeviceInfo a100 = test::a100_device("GPU-2");
    const DeviceInfo h100 = test::h100_device("GPU-1");
    const Problem p = ol_histogram(SampleType::f32, 8192);
    CHECK(ol_served(p, kOneLaunch, ConfigSource::policy, &a100) == kOneLaunch);
    CHECK(ol_served(p, kOneLaunch, ConfigSource::policy, nullptr) == kOneLaunch);
    {
      const test::ScopedEnv off("AUTOTUNE_SELF_ZERO_AS_MEASURED", "1");
      CHECK_FALSE(self_zero_rule_enabled());
      CHECK(ol_served(p, kOneLaunch, ConfigSource::policy, &h100) == kOneLaunch);
    }
    {
      const test::ScopedEnv unset("AUTOTUNE_SELF_ZERO_AS_MEASURED", std::nullopt);
      CHECK(self_zero_rule_enabled());
      CHECK(ol_served(p, kOneLaunch, ConfigSource::policy, &h100) == kAtomic);
    }
  }

  TEST_CASE("the rule changes no other family") {
    const test::ScopedEnv rule_on("AUTOTUNE_SELF_ZERO_AS_MEASURED", std::nullopt);
    const DeviceInfo h100 = test::h100_device("GPU-1");
    ReduceProblem r;
    r.op = ReduceOp::sum;
    r.type = ValueType::f32;
    r.n = 1'000'000;
    const Problem sum(r.normalized());
    const std::string fallback = sum.family().fallback(sum).key();
    CHECK(ol_served(sum, fallback, ConfigSource::policy, &h100) == fallback);
  }
}
