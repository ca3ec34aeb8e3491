// The lookup's evict-first size rule (runtime/streaming.hpp) on the CPU: its bands on an H200's 60 MiB L2, the
// ranges it splits and the loads it gives each part, what it leaves alone (a winner at a size the problem was tuned
// at, a family without the choice, an unknown L2), and a handle's table and hint answer built with it. The byte edges
// below are the measurement's (16-128 MiB faster, 512 MiB-2 GiB slower on an H200, 0.27-4 L2 faster on an H100 too;
// the rule's edges L2 / 4, 4 L2 and 8 L2 fall between them), converted to elements by hand.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/argreduce_problem.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/resolution.hpp"
#include "core/family.hpp"
#include "runtime/size_table.hpp"
#include "runtime/streaming.hpp"

using namespace autotune;

namespace {

constexpr std::uint64_t kMebi = std::uint64_t(1) << 20;
constexpr std::uint64_t kL2 = 60 * kMebi;  // an H200's
constexpr std::uint64_t kLast = ~std::uint64_t(0);

bool evict_first(const Config& c) { return c.key().find("ld=cs") != std::string::npos; }

Problem f32_histogram() {
  HistogramProblem h = HistogramProblem::with_defaults(SampleType::f32, 1024);
  h.n = 16ull << 20;
  return Problem(h);
}

Problem f32_sum() {
  ReduceProblem r;
  r.op = ReduceOp::sum;
  r.type = ValueType::f32;
  r.n = 16ull << 20;
  return Problem(r.normalized());
}

SizeRange whole_range(const Config& c, std::vector<std::uint64_t> tuned_n, ConfigSource source) {
  SizeRange r;
  r.n_from = 0;
  r.n_to = kLast;
  r.config = c;
  r.source = source;
  r.tuned_n = std::move(tuned_n);
  r.why = "given";
  return r;
}

// The table as "FROM..TO NAME | ...": NAME "plain" or "cs" for the two configurations a case compares, else the key.
std::string spans(const std::vector<SizeRange>& t, const Config& plain, const Config& cs) {
  std::string out;
  for (const SizeRange& r : t) {
    const std::string name = r.config == plain ? "plain" : r.config == cs ? "cs" : r.config.key();
    const std::string to = r.n_to == kLast ? "max" : std::to_string(r.n_to);
    out += (out.empty() ? "" : " | ") + std::to_string(r.n_from) + ".." + to + " " + name;
  }
  return out;
}

Config parsed(const Problem& p, const std::string& key) {
  auto c = p.family().parse_config(key);
  REQUIRE(c);
  REQUIRE(p.family().violation(p, *c, nullptr).empty());
  return *c;
}

}  // namespace

TEST_SUITE("streaming") {
  TEST_CASE("on a 60 MiB L2 evict-first loads help from 15 to 240 MiB and hurt from 480 MiB") {
    CHECK(stream_band(8 * kMebi, kL2) == StreamBand::neutral);
    CHECK(stream_band(15 * kMebi - 1, kL2) == StreamBand::neutral);
    CHECK(stream_band(15 * kMebi, kL2) == StreamBand::helps);
    CHECK(stream_band(16 * kMebi, kL2) == StreamBand::helps);
    CHECK(stream_band(64 * kMebi, kL2) == StreamBand::helps);
    CHECK(stream_band(240 * kMebi, kL2) == StreamBand::helps);
    CHECK(stream_band(256 * kMebi, kL2) == StreamBand::neutral);
    CHECK(stream_band(480 * kMebi - 1, kL2) == StreamBand::neutral);
    CHECK(stream_band(480 * kMebi, kL2) == StreamBand::hurts);
    CHECK(stream_band(2048 * kMebi, kL2) == StreamBand::hurts);
    CHECK(stream_band(64 * kMebi, 0) == StreamBand::neutral);  // the L2 unknown
  }

  TEST_CASE("a winner measured at 64 MiB of f32 samples with ld=cs loads plainly from 480 MiB, unchanged below") {
    const Problem p = f32_histogram();
    const Config cs = parsed(p, "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,"
                                "merge=self_zero,grid=0,ld=cs");
    std::vector<SizeRange> t{whole_range(cs, {16ull << 20}, ConfigSource::policy)};
    stream_by_size(t, p, kL2, nullptr);
    REQUIRE(t.size() == 2);
    // 480 MiB of 4-byte samples: 125829120 of them.
    CHECK(t[0].n_from == 0);
    CHECK(t[0].n_to == 125829119);
    CHECK(t[0].config == cs);
    CHECK(t[0].why == "given");
    CHECK(t[1].n_from == 125829120);
    CHECK(t[1].n_to == kLast);
    CHECK_FALSE(evict_first(t[1].config));
    CHECK(t[1].config.key() == "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,"
                               "merge=self_zero,grid=0");
    CHECK(t[1].why == "given; plain loads for inputs from 480 MiB");
    CHECK(t[1].source == ConfigSource::policy);
    CHECK(t[1].tuned_n == std::vector<std::uint64_t>{16ull << 20});
  }

  TEST_CASE("the built-in default of an f32 sum loads evict-first from 15 to 240 MiB of input, plainly elsewhere") {
    const Problem p = f32_sum();
    const Config fallback = Config::fallback(p);
    REQUIRE_FALSE(evict_first(fallback));
    std::vector<SizeRange> t{whole_range(fallback, {}, ConfigSource::fallback)};
    stream_by_size(t, p, kL2, nullptr);
    REQUIRE(t.size() == 3);
    // 15 MiB and 240 MiB of 4-byte values: 3932160 and 62914560 of them (the latter the band's last n).
    CHECK(t[0].n_to == 3932159);
    CHECK(t[0].config == fallback);
    CHECK(t[1].n_from == 3932160);
    CHECK(t[1].n_to == 62914560);
    CHECK(evict_first(t[1].config));
    CHECK(t[1].why == "given; ld=cs: evict-first loads for inputs of 15 MiB to 240 MiB");
    CHECK(t[2].n_from == 62914561);
    CHECK(t[2].config == fallback);
  }

  TEST_CASE("plain loads measured at 64 MiB stay at that very size; the rest of the band loads evict-first") {
    const Problem p = f32_sum();
    const Config plain = Config::fallback(p);
    const Config cs = *p.family().with_evict_first(p, plain, true, nullptr);
    // Measured at 16M f32 (64 MiB, where evict-first helps) with plain loads, and at 256M (1 GiB, where it hurts).
    std::vector<SizeRange> t{whole_range(plain, {16ull << 20, 256ull << 20}, ConfigSource::nearest_size)};
    stream_by_size(t, p, kL2, nullptr);
    // Below 15 MiB as given; the measured size itself as measured; from 240 MiB as given, 1 GiB included.
    CHECK(spans(t, plain, cs) == "0..3932159 plain | 3932160..16777215 cs | 16777216..16777216 plain | "
                                 "16777217..62914560 cs | 62914561..max plain");
    REQUIRE(t.size() == 5);
    CHECK(t[2].why == "given");
    CHECK(t[3].why == "given; ld=cs: evict-first loads for inputs of 15 MiB to 240 MiB");
    CHECK(t[4].why == "given");
  }

  TEST_CASE("a policy entry of another shape measured at 64 MiB gives way to the band there; one of its own does not") {
    const Problem p = f32_sum();
    const Config plain = Config::fallback(p);
    const Config cs = *p.family().with_evict_first(p, plain, true, nullptr);
    // Another shape's entry (an f32 max, or u8 samples: another byte count at the same n) measured at 16M.
    std::vector<SizeRange> t{whole_range(plain, {16ull << 20}, ConfigSource::policy)};
    t[0].tuned_shape_key = "reduce/max/f32/acc=f32/dist=uniform";
    stream_by_size(t, p, kL2, nullptr);
    CHECK(spans(t, plain, cs) == "0..3932159 plain | 3932160..62914560 cs | 62914561..max plain");

    // An entry of the f32 sum itself at 16M: measured on this very problem, it runs as measured there.
    std::vector<SizeRange> own{whole_range(plain, {16ull << 20}, ConfigSource::policy)};
    own[0].tuned_shape_key = "reduce/sum/f32/acc=f32/dist=uniform";
    REQUIRE(own[0].tuned_shape_key == p.shape_key());
    stream_by_size(own, p, kL2, nullptr);
    CHECK(spans(own, plain, cs) == "0..3932159 plain | 3932160..16777215 cs | 16777216..16777216 plain | "
                                   "16777217..62914560 cs | 62914561..max plain");
  }

  TEST_CASE("evict-first loads measured at 1 GiB stay at that very size; the rest of the hurts band loads plainly") {
    const Problem p = f32_sum();
    const Config cs = *p.family().with_evict_first(p, Config::fallback(p), true, nullptr);
    const Config plain = Config::fallback(p);
    std::vector<SizeRange> t{whole_range(cs, {256ull << 20}, ConfigSource::nearest_size)};
    stream_by_size(t, p, kL2, nullptr);
    // Up to 480 MiB (125829120 values) evict-first as given; 1 GiB itself as measured.
    CHECK(spans(t, plain, cs) == "0..125829119 cs | 125829120..268435455 plain | 268435456..268435456 cs | "
                                 "268435457..max plain");
    REQUIRE(t.size() == 4);
    CHECK(t[1].why == "given; plain loads for inputs from 480 MiB");
  }

  TEST_CASE("nothing changes without the L2 or for a family whose loads have no evict-first choice") {
    const Problem p = f32_sum();
    std::vector<SizeRange> t{whole_range(Config::fallback(p), {}, ConfigSource::fallback)};
    stream_by_size(t, p, 0, nullptr);
    REQUIRE(t.size() == 1);
    CHECK(t[0].config == Config::fallback(p));

    ArgReduceProblem a;
    a.type = ValueType::f32;
    a.n = 16ull << 20;
    const Problem arg(a);
    std::vector<SizeRange> u{whole_range(Config::fallback(arg), {}, ConfigSource::fallback)};
    stream_by_size(u, arg, kL2, nullptr);
    REQUIRE(u.size() == 1);
    CHECK(u[0].config == Config::fallback(arg));
    CHECK_FALSE(arg.family().with_evict_first(arg, Config::fallback(arg), true, nullptr));
  }

  TEST_CASE("a histogram configuration of one-sample loads takes no evict-first loads") {
    const Problem p = f32_histogram();
    const Config scalar = parsed(p, "priv=shared,R=1,cbits=32,block=256,vec=0,loads=4,agg=none,part=interleaved,"
                                    "merge=atomic,grid=0");
    CHECK_FALSE(p.family().with_evict_first(p, scalar, true, nullptr));
    std::vector<SizeRange> t{whole_range(scalar, {}, ConfigSource::fallback)};
    stream_by_size(t, p, kL2, nullptr);
    REQUIRE(t.size() == 1);
    CHECK(t[0].config == scalar);
  }

  TEST_CASE("a table from the policy loads evict-first at 100M u8 samples and plainly at 1G; the hint agrees") {
    DeviceInfo d;
    d.name = "NVIDIA H200";
    d.cc_major = 9;
    d.sm_count = 132;
    d.memory_bytes = 143155ull << 20;
    d.l2_bytes = kL2;
    d.shared_per_block_optin = 232448;
    d.max_threads_per_block = 1024;
    const LookupTarget target{d.model_key(), d.arch(), d.sm_count, 0, d};
    for (const std::uint64_t n : {100ull << 20, 1ull << 30}) {
      HistogramProblem h = HistogramProblem::with_defaults(SampleType::u8, 256);
      h.n = n;
      const SizeLookup s = untuned_sizes(target, Problem(h));
      const SizeRange* held = nullptr;
      for (const SizeRange& r : s.sizes)
        if (r.contains(n)) held = &r;
      REQUIRE(held);
      CHECK(held->config == s.at_hint.config);
      CAPTURE(s.at_hint.config.key());
      // 100 MiB lies where evict-first helps, 1 GiB where it hurts; the policy holds u8/256 up to 16M only, measured
      // at neither size, so the rule decides both, for a 16-byte-load configuration.
      REQUIRE(s.at_hint.config.key().find("vec=16") != std::string::npos);
      CHECK(evict_first(s.at_hint.config) == (n == 100ull << 20));
      // A tuned or exact requirement runs what was measured: without measured data it ranks everything (the policy),
      // as measured.
      for (const Requirement strict : {Requirement::tuned, Requirement::exact}) {
        const SizeLookup m = untuned_sizes(target, Problem(h), strict);
        CHECK_FALSE(evict_first(m.at_hint.config));
        for (const SizeRange& r : m.sizes) CHECK(r.why.find("ld=cs") == std::string::npos);
      }
    }
  }
}
