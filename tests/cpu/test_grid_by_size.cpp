// The lookup's grid rule (runtime/grid_by_size.hpp, KernelFamily::keeping_grid) on the CPU: the loads the histogram
// family gives a configuration served below its measured size, and the pieces a handle's size table is cut into.
// The blocks are counted by hand: a grid covering n launches ceil(samples / tile) blocks, a tile being block x loads
// x (16 bytes / sample size) samples; the target is the blocks at the measured size, at most the H100's 132 SMs; the
// loads halve while the halved grid lies nearer the target on a log scale (b x 2b < target^2).
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/resolution.hpp"
#include "core/family.hpp"
#include "runtime/grid_by_size.hpp"
#include "tests/test_devices.hpp"

using namespace autotune;

namespace {

// The u16/1024 policy entry at 1M (kernel_templates/histogram/policy.json): 512 threads x 4 loads of 8 u16 samples,
// a tile of 16384 samples: 64 blocks at 1048576 samples, so the target is 64.
const std::string kU16Entry =
    "priv=shared,R=1,cbits=32,block=512,vec=16,loads=4,agg=none,part=interleaved,merge=self_zero,grid=0";
constexpr std::uint64_t kMeasured = 1048576;

Problem u16_at(std::uint64_t n) {
  HistogramProblem h = HistogramProblem::with_defaults(SampleType::u16, 4492);
  h.lower = 15239, h.upper = 32383, h.n = n;
  return Problem(h);
}

int loads_at(const std::string& key, std::uint64_t n, std::uint64_t measured = kMeasured) {
  const Problem p = u16_at(n);
  const auto c = p.family().parse_config(key);
  REQUIRE(c);
  const auto kept = p.family().keeping_grid(p, *c, measured, test::h100_device("GPU-grid"));
  return kept ? kept->as<HistogramConfig>()->loads : c->as<HistogramConfig>()->loads;
}

std::string with_loads(std::string key, int loads) {
  const auto at = key.find("loads=4");
  REQUIRE(at != std::string::npos);
  return key.replace(at, 7, "loads=" + std::to_string(loads));
}

}  // namespace

TEST_SUITE("size_table") {
  TEST_CASE("a histogram configuration served below its measured size takes the loads that keep its blocks nearest "
            "the measured ones, at most one per SM") {
    // 242000: 15 blocks at 4 loads, 30 at 2 (15 x 30 < 64^2: halve), 60 at 1 (30 x 60 < 4096: halve): 1 load.
    CHECK(loads_at(kU16Entry, 242000) == 1);
    // 606000: 37 blocks at 4, 74 at 2 (37 x 74 = 2738 < 4096: halve), 148 at 1 (74 x 148 >= 4096): 2 loads.
    CHECK(loads_at(kU16Entry, 606000) == 2);
    // 1031000, just below the measured size: 63 blocks, 126 at 2 loads (63 x 126 >= 4096): kept as measured.
    CHECK(loads_at(kU16Entry, 1031000) == 4);
    // At and above the measured size nothing changes.
    CHECK(loads_at(kU16Entry, kMeasured) == 4);
    CHECK(loads_at(kU16Entry, 4 * kMeasured) == 4);
    // Measured at 16M: 1024 blocks there, so the target is the 132 SMs; at 1M, 64 blocks at 4 loads, 128 at 2
    // (64 x 128 < 132^2 = 17424: halve), 256 at 1 (128 x 256 >= 17424): 2 loads.
    CHECK(loads_at(kU16Entry, kMeasured, 16 * kMeasured) == 2);
    // One load cannot be halved; clusters and a capped grid keep their grids.
    CHECK(loads_at(with_loads(kU16Entry, 1), 100000) == 1);
    const std::string capped = kU16Entry.substr(0, kU16Entry.size() - 1) + "64";
    CHECK(loads_at(capped, 242000) == 4);
    CHECK(loads_at(kU16Entry + ",cluster=2", 242000) == 4);
  }

  TEST_CASE("the size table's part below a range's measured size is cut where the loads change, each piece running "
            "the family's answer for its sizes") {
    const Problem p = u16_at(606000);
    const auto c = p.family().parse_config(kU16Entry);
    REQUIRE(c);
    SizeRange r;
    r.n_from = 185258, r.n_to = 1678182;  // the range the 1M entry serves in the lookup of this shape
    r.config = *c;
    r.source = ConfigSource::policy;
    r.tuned_n = {kMeasured};
    r.why = "policy";
    SizeRange below = r;  // a range below it, served from 64K with one load: nothing to halve, left alone
    below.config = *p.family().parse_config(with_loads(kU16Entry, 1));
    below.n_from = 0, below.n_to = 185257, below.tuned_n = {65536}, below.why = "policy at 64K";
    std::vector<SizeRange> sizes{below, r};
    keep_grid_by_size(sizes, p, test::h100_device("GPU-grid"));
    REQUIRE(sizes.size() >= 3);
    CHECK(sizes.front().n_from == 0);
    CHECK(sizes.back().n_to == 1678182);
    int last_loads = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      CAPTURE(i);
      if (i > 0) CHECK(sizes[i].n_from == sizes[i - 1].n_to + 1);  // contiguous, ascending
      const int loads = sizes[i].config.as<HistogramConfig>()->loads;
      if (i > 0) CHECK(loads >= last_loads);  // never more work per block at a smaller n
      last_loads = loads;
    }
    auto range_at = [&](std::uint64_t n) -> const SizeRange& {
      for (const SizeRange& s : sizes)
        if (s.contains(n)) return s;
      FAIL("no range holds n");
      return sizes.front();
    };
    CHECK(range_at(100000).config == below.config);  // 100000 lies in the range served from 64K (measured above)
    CHECK(range_at(100000).why == "policy at 64K");
    CHECK(range_at(242000).config.as<HistogramConfig>()->loads == 1);
    CHECK(range_at(242000).why == "policy; loads=1: the blocks of n=1048576 kept");
    CHECK(range_at(606000).config.as<HistogramConfig>()->loads == 2);
    CHECK(range_at(1031000).config == r.config);
    CHECK(range_at(1031000).why == "policy");
    CHECK(range_at(1678182).config == r.config);
    // The first n of each changed piece already takes its loads, the one before it the fewer ones.
    for (std::size_t i = 1; i < sizes.size(); ++i)
      if (sizes[i].n_from > r.n_from && !(sizes[i].config == sizes[i - 1].config))
        CHECK(loads_at(kU16Entry, sizes[i].n_from) > loads_at(kU16Entry, sizes[i].n_from - 1));
  }

  TEST_CASE("a range between two tuned sizes that both timed its configuration keeps it as measured") {
    const Problem p = u16_at(606000);
    const auto c = p.family().parse_config(kU16Entry);
    REQUIRE(c);
    SizeRange r;
    r.n_from = 300000, r.n_to = 900000, r.config = *c, r.source = ConfigSource::nearest_size;
    r.tuned_n = {kMeasured};
    r.why = "tuned for n=1048576";
    std::vector<SizeRange> without{r};
    keep_grid_by_size(without, p, test::h100_device("GPU-grid"));
    REQUIRE(without.size() > 1);  // the rule's own case: fewer loads below the measured 1M
    CHECK(without.front().config.as<HistogramConfig>()->loads < 4);
    r.timed_below = 262144;  // the tuning at 256K timed this configuration too
    std::vector<SizeRange> timed{r};
    keep_grid_by_size(timed, p, test::h100_device("GPU-grid"));
    REQUIRE(timed.size() == 1);
    CHECK(timed[0].config == *c);
    CHECK(timed[0].n_from == 300000);
    CHECK(timed[0].n_to == 900000);
    CHECK(timed[0].why == "tuned for n=1048576");
  }

  TEST_CASE("the grid rule leaves alone a range with no measured size and a family without the rule") {
    const Problem p = u16_at(242000);
    SizeRange r;  // the built-in default: no measured size
    r.config = Config::fallback(p);
    r.why = "built-in default";
    std::vector<SizeRange> sizes{r};
    keep_grid_by_size(sizes, p, test::h100_device("GPU-grid"));
    REQUIRE(sizes.size() == 1);
    CHECK(sizes[0].config == r.config);
    // A reduction measured at 16M served at 64K: the reduce family has no keeping_grid.
    ReduceProblem sum;
    sum.op = ReduceOp::sum;
    sum.type = ValueType::f32;
    sum.n = 65536;
    const Problem q(sum.normalized());
    const auto c = q.family().parse_config(
        "red=warp_shuffle,block=1024,vec=16,loads=4,acc=1,finish=last_block,grid=0");
    REQUIRE(c);
    SizeRange s;
    s.n_from = 0, s.n_to = 16777216, s.config = *c, s.tuned_n = {16777216}, s.why = "policy";
    std::vector<SizeRange> reduce_sizes{s};
    keep_grid_by_size(reduce_sizes, q, test::h100_device("GPU-grid"));
    REQUIRE(reduce_sizes.size() == 1);
    CHECK(reduce_sizes[0].config == *c);
    CHECK(reduce_sizes[0].n_to == 16777216);
  }
}
