// The range-histogram family without a GPU: keys, parsing, the levels' checks, the tuner's levels, the CPU
// reference on hand-counted inputs, the configuration rules and shared-memory layout, and NVRTC compiling one pairwise
// covering of six problems' joint space for sm_90 (every variant under nvrtc_full), both entry points in each cubin.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/histogram_range_problem.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "kernel_templates/histogram_range/handle.hpp"
#include "kernel_templates/histogram_range/reference.hpp"
#include "kernel_templates/histogram_range/space.hpp"
#include "tests/cpu/nvrtc_fixtures.hpp"

using namespace autotune;

namespace {

HistogramRangeProblem make(SampleType t, int bins, EdgeLayout e = EdgeLayout::irregular, std::uint64_t n = 1 << 20) {
  HistogramRangeProblem p;
  p.type = t, p.bins = bins, p.edges = e, p.n = n;
  return p;
}

std::string violation_of(const HistogramRangeProblem& p, const std::vector<float>& levels) {
  return levels_violation(p, levels.data(), levels.size());
}

template <class L>
std::vector<L> as_levels(const std::vector<unsigned char>& bytes) {
  std::vector<L> out(bytes.size() / sizeof(L));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace

// The kernel's own 2D mapping (kernel_templates/histogram_range/region_map.cuh: count_region, which lays out a
// region's rows and reads their leftover samples, and count_region_vectors with its Cursor walk over their vectors)
// compiled for the host, for six sample types, load widths, loads per tile and channels, each in a namespace
// holding what the preamble and histogram_range.cu give it: an __ldg that records each address it reads, a
// count_sample that records the channel it is given. Anonymous: each test file's host copies stay its own.
#define AT_HOST_DEVICE inline
namespace {
std::vector<std::pair<std::uintptr_t, std::size_t>> g_reads;  // (address, bytes) of each __ldg
std::vector<std::pair<std::uintptr_t, int>> g_sample_channels;  // (address, channel) of each leftover sample
#define RANGE_HOST_MAP(NS, T, VEC, LOADS, CHANNELS)                       \
  namespace NS::at {                                                      \
  typedef unsigned long long u64;                                         \
  typedef T sample_t;                                                     \
  struct raw_t {                                                          \
    unsigned char bytes[VEC];                                             \
  };                                                                      \
  constexpr int kVecBytes = VEC, kLoads = LOADS, kChannels = CHANNELS;    \
  constexpr int kElemsPerVec = VEC / static_cast<int>(sizeof(T));         \
  union Vec {                                                             \
    raw_t raw;                                                            \
    sample_t s[kElemsPerVec];                                             \
  };                                                                      \
  struct Binner {};                                                       \
  struct Counter {};                                                      \
  template <class L>                                                      \
  L __ldg(const L* p) {                                                   \
    g_reads.emplace_back(reinterpret_cast<std::uintptr_t>(p), sizeof(L)); \
    return *p;                                                            \
  }                                                                       \
  inline void count_sample(sample_t, int c, const Binner&, const Counter&) { \
    g_sample_channels.emplace_back(g_reads.back().first, c);              \
  }                                                                       \
  }
RANGE_HOST_MAP(u8_16x4, unsigned char, 16, 4, 1)
RANGE_HOST_MAP(rgba_16x2, unsigned char, 16, 2, 4)
RANGE_HOST_MAP(rgb_16x1, unsigned char, 16, 1, 3)
RANGE_HOST_MAP(u16_8x1, unsigned short, 8, 1, 1)
RANGE_HOST_MAP(f32_16x2, float, 16, 2, 1)
RANGE_HOST_MAP(f64_16x3, double, 16, 3, 1)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"  // the fragment's #pragma unroll, for NVRTC
namespace u8_16x4::at {
#include "kernel_templates/histogram_range/region_map.cuh"
}
namespace rgba_16x2::at {
#include "kernel_templates/histogram_range/region_map.cuh"
}
namespace rgb_16x1::at {
#include "kernel_templates/histogram_range/region_map.cuh"
}
namespace u16_8x1::at {
#include "kernel_templates/histogram_range/region_map.cuh"
}
namespace f32_16x2::at {
#include "kernel_templates/histogram_range/region_map.cuh"
}
namespace f64_16x3::at {
#include "kernel_templates/histogram_range/region_map.cuh"
}
#pragma GCC diagnostic pop

// What the grid of `threads` threads reads of a region (`rows` rows of `row_samples` samples, `row_stride` apart)
// from `in` through at::count_region, thread after thread: how often each of the `span` samples from `in` is read.
// Empty when a vector load is misaligned, a read falls outside the span, a vector's first sample as count_region
// reports it (the channel's source) is not where the vector lies in its row, or a leftover sample's channel is not
// its place in its row modulo the channels (rows start on a pixel).
template <class S, class Vec, class Run>
std::vector<int> region_reads(const void* base, std::uint64_t span, std::uint64_t row_stride, int vec_bytes,
                              int channels, std::uint64_t threads, Run run) {
  const S* in = static_cast<const S*>(base);
  const auto from = reinterpret_cast<std::uintptr_t>(in);
  auto place = [&](std::uintptr_t at) { return (at - from) / sizeof(S) % row_stride; };  // within its row
  g_reads.clear();
  g_sample_channels.clear();
  std::vector<std::uint64_t> firsts;  // what count_region gives each vector, in the order it loads them
  for (std::uint64_t tid = 0; tid < threads; ++tid) run(in, tid, [&](const Vec&, unsigned long long first) {
      firsts.push_back(first);
    });
  std::vector<int> reads(span, 0);
  std::size_t vectors = 0;
  for (const auto& [at, bytes] : g_reads) {
    if (at < from || (at - from) % sizeof(S) != 0 || (at - from) / sizeof(S) + bytes / sizeof(S) > span) return {};
    if (bytes != sizeof(S)) {
      if (bytes != static_cast<std::size_t>(vec_bytes) || at % vec_bytes != 0) return {};
      if (vectors >= firsts.size() || firsts[vectors++] != place(at)) return {};
    }
    for (std::size_t k = 0; k < bytes / sizeof(S); ++k) ++reads[(at - from) / sizeof(S) + k];
  }
  if (vectors != firsts.size()) return {};
  for (const auto& [at, channel] : g_sample_channels)
    if (channel != static_cast<int>(place(at) % channels)) return {};
  return reads;
}

#define RANGE_REGION_READS(NS)                                                                                     \
  region_reads<NS::at::sample_t, NS::at::Vec>(                                                                     \
      in, span, row_stride, NS::at::kVecBytes, NS::at::kChannels, threads, [&](const auto* i, auto tid, auto count) { \
        NS::at::count_region(i, row_samples, rows, row_stride, threads, tid, NS::at::Binner{}, NS::at::Counter{},  \
                             count);                                                                               \
      })

// region_reads through the host copy for `type` and `channels` (RANGE_HOST_MAP above).
std::vector<int> region_reads(SampleType type, int channels, const void* in, std::uint64_t span,
                              std::uint64_t row_samples, std::uint64_t rows, std::uint64_t row_stride,
                              std::uint64_t threads) {
  if (type == SampleType::u8 && channels == 4) return RANGE_REGION_READS(rgba_16x2);
  if (type == SampleType::u8 && channels == 3) return RANGE_REGION_READS(rgb_16x1);
  if (channels != 1) FAIL("no host copy of the 2D mapping for ", channels, " channels of ", to_string(type));
  switch (type) {
    case SampleType::u8: return RANGE_REGION_READS(u8_16x4);
    case SampleType::u16: return RANGE_REGION_READS(u16_8x1);
    case SampleType::f32: return RANGE_REGION_READS(f32_16x2);
    case SampleType::f64: return RANGE_REGION_READS(f64_16x3);
    default: FAIL("no host copy of the 2D mapping for ", to_string(type)); return {};
  }
}

}  // namespace

TEST_SUITE("histogram_range") {
  TEST_CASE("keys name type, bins, edges, n, distribution and wide counters, and parse back to the same problem") {
    HistogramRangeProblem p = make(SampleType::f32, 999);
    p.n = 64ull << 20;
    CHECK(p.key() == "histogram_range/f32/bins=999/edges=irregular/n=67108864/dist=uniform");
    CHECK(p.shape_key() == "histogram_range/f32/bins=999/edges=irregular/dist=uniform");
    p.counter_bits = 64;
    p.edges = EdgeLayout::even;
    p.distribution = "narrow";
    CHECK(p.key() == "histogram_range/f32/bins=999/edges=even/n=67108864/dist=narrow/counters=64");
    const auto parsed = Problem::parse(p.key());
    REQUIRE(parsed.has_value());
    REQUIRE(parsed->as<HistogramRangeProblem>() != nullptr);
    CHECK(*parsed->as<HistogramRangeProblem>() == p);
    CHECK(parsed->family_name() == "histogram_range");
    CHECK(parsed->bytes() == (64ull << 20) * 4);
  }

  TEST_CASE("keys that are not canonical range-histogram problems do not parse") {
    for (const char* key : {"histogram_range/u8/bins=255/n=1/dist=uniform",           // no edges
                            "histogram_range/u8/bins=255/edges=wavy/n=1/dist=uniform",  // unknown edges
                            "histogram_range/u8/bins=257/edges=even/n=1/dist=uniform",  // too many bins for u8
                            "histogram_range/u8/bins=0/edges=even/n=1/dist=uniform",
                            "histogram_range/f8/bins=10/edges=even/n=1/dist=uniform",  // no such type
                            "histogram_range/u8/bins=10/edges=even/n=1/dist=uniform/counters=16",
                            "histogram_range/u8/bins=10/edges=even/n=1/dist=uniform/extra=1"})
      CHECK_MESSAGE(!Problem::parse(key).has_value(), key);
  }

  TEST_CASE("configurations round-trip through their keys; foreign keys do not parse") {
    HistogramRangeConfig c;
    c.binning = RangeBinning::prebin, c.privatization = Privatization::shared, c.replicas = 8, c.block = 512;
    c.vec_bytes = 16, c.loads = 4, c.grid_blocks = 1;
    CHECK(c.key() == "bin=prebin,priv=shared,R=8,block=512,vec=16,loads=4,grid=1");
    CHECK(HistogramRangeConfig::parse(c.key()) == c);
    for (const auto& s : space_decl::any_n(make(SampleType::u8, 255), histogram_range_space))
      CHECK(HistogramRangeConfig::parse(s.key()) == s);
    CHECK_FALSE(HistogramRangeConfig::parse("bin=search,priv=warp,R=1,block=256,vec=16,loads=2,grid=0"));
    CHECK_FALSE(HistogramRangeConfig::parse("bin=bisect,priv=shared,R=1,block=256,vec=16,loads=2,grid=0"));
    CHECK_FALSE(HistogramRangeConfig::parse("bin=search,priv=shared,R=1,block=256,vec=16,loads=2"));
    CHECK_FALSE(HistogramRangeConfig::parse("priv=shared,R=32,cbits=32,block=512,vec=16,loads=2,agg=none,"
                                            "part=interleaved,merge=atomic,grid=0"));
    // A one-launch merge is named at the end; a key without it (every key of earlier caches) is the atomic merge,
    // which is never written out, and last_block is the even family's only.
    c.merge = Merge::self_zero, c.grid_blocks = 0;
    CHECK(c.key() == "bin=prebin,priv=shared,R=8,block=512,vec=16,loads=4,grid=0,merge=self_zero");
    CHECK(HistogramRangeConfig::parse(c.key()) == c);
    CHECK(HistogramRangeConfig::parse("bin=prebin,priv=shared,R=8,block=512,vec=16,loads=4,grid=0")->merge ==
          Merge::atomic);
    CHECK_FALSE(HistogramRangeConfig::parse("bin=prebin,priv=shared,R=8,block=512,vec=16,loads=4,grid=0,merge=atomic"));
    CHECK_FALSE(
        HistogramRangeConfig::parse("bin=prebin,priv=shared,R=8,block=512,vec=16,loads=4,grid=0,merge=last_block"));
    CHECK(c.one_launch());
    CHECK(c.workspace_bytes() == 8);
    // Evict-first sample loads are named last, and only 16-byte loads take them.
    c.load_cs = true;
    CHECK(c.key() == "bin=prebin,priv=shared,R=8,block=512,vec=16,loads=4,grid=0,merge=self_zero,ld=cs");
    CHECK(HistogramRangeConfig::parse(c.key()) == c);
    CHECK(c.invalid_reason(make(SampleType::u8, 255)).empty());
    c.vec_bytes = 4;
    CHECK(c.invalid_reason(make(SampleType::u8, 255)) == "ld=cs applies to 16-byte loads");
  }

  TEST_CASE("the space tries evict-first loads from 8 MiB of samples on, and only there") {
    auto evict_first = [](const HistogramRangeProblem& p) {
      const auto space = histogram_range_space(p);
      return std::count_if(space.begin(), space.end(), [](const auto& c) { return c.load_cs; });
    };
    // 8 MiB: 8M u8 samples, 2M f32 ones.
    CHECK(evict_first(make(SampleType::u8, 255, EdgeLayout::irregular, (8ull << 20) - 1)) == 0);
    CHECK(evict_first(make(SampleType::u8, 255, EdgeLayout::irregular, 8ull << 20)) > 0);
    CHECK(evict_first(make(SampleType::f32, 999, EdgeLayout::irregular, (2ull << 20) - 1)) == 0);
    CHECK(evict_first(make(SampleType::f32, 999, EdgeLayout::irregular, 2ull << 20)) > 0);
    for (const auto& c : histogram_range_space(make(SampleType::u8, 255, EdgeLayout::irregular, 64ull << 20)))
      if (c.load_cs) CHECK(c.vec_bytes == 16);
  }

  TEST_CASE("problems out of bounds are refused with the reason") {
    CHECK_NOTHROW(make(SampleType::u8, 256).validate());
    CHECK_THROWS_WITH_AS(make(SampleType::u8, 257).validate(), doctest::Contains("1..256"), UsageError);
    CHECK_THROWS_WITH_AS(make(SampleType::f32, 0).validate(), doctest::Contains("bins must be in"), UsageError);
    HistogramRangeProblem p = make(SampleType::f32, 10);
    p.distribution = "zipf";
    CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("unknown distribution 'zipf'"), UsageError);
    p = make(SampleType::f32, 10);
    p.counter_bits = 16;
    CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("32 or 64"), UsageError);
  }

  TEST_CASE("level types, spans and bin limits by sample type, as histogram_range_problem.hpp documents them") {
    // Each type's level type, its name and bytes, the tuner's span and the most bins.
    struct Row {
      SampleType type;
      std::string_view level;
      std::size_t bytes;
      double lo, hi;
      int max_bins;
    };
    const Row rows[] = {{SampleType::u8, "int", 4, 0, 256, 256},
                        {SampleType::i8, "int", 4, -128, 128, 256},
                        {SampleType::u16, "int", 4, 0, 65536, 65536},
                        {SampleType::i16, "int", 4, -32768, 32768, 65536},
                        {SampleType::i32, "int", 4, 0, 16777216, 1 << 20},
                        {SampleType::u32, "unsigned int", 4, 0, 16777216, 1 << 20},
                        {SampleType::f32, "float", 4, 0, 1, 1 << 20},
                        {SampleType::f16, "float", 4, 0, 1, 1 << 20},
                        {SampleType::bf16, "float", 4, 0, 1, 1 << 20},
                        {SampleType::f64, "double", 8, 0, 1, 1 << 20}};
    for (const Row& r : rows) {
      INFO(to_string(r.type));
      CHECK(level_type_name(r.type) == r.level);
      CHECK(level_size(r.type) == r.bytes);
      CHECK(make(r.type, 1).span() == std::pair{r.lo, r.hi});
      CHECK(HistogramRangeProblem::max_bins(r.type) == r.max_bins);
    }
    CHECK(with_level_type(SampleType::f16, [](auto l) { return std::is_same_v<decltype(l), float>; }));
    CHECK(with_level_type(SampleType::u32, [](auto l) { return std::is_same_v<decltype(l), unsigned>; }));
    CHECK(with_level_type(SampleType::i8, [](auto l) { return std::is_same_v<decltype(l), int>; }));
  }

  TEST_CASE("channels' own bins: each channel's, their counters and levels, and no list where they are all alike") {
    const HistogramRangeProblem rgb = make(SampleType::u8, 7).with_channel_bins(4, {255, 63, 16});
    CHECK(rgb.channels == 4);
    CHECK(rgb.active == 3);
    CHECK(rgb.bins == 255);
    CHECK(rgb.channel_bins(1) == 63);
    CHECK(rgb.channel_bins(2) == 16);
    CHECK(rgb.channel_bins(3) == 255);  // past the active channels: channel 0's
    CHECK(rgb.channel_offset(2) == 318);
    CHECK(rgb.counters() == 334);
    CHECK(rgb.level_offset(2) == 320);
    CHECK(rgb.levels() == 337);
    CHECK_FALSE(rgb.uniform_channels());
    const HistogramRangeProblem alike = make(SampleType::u8, 7).with_channel_bins(3, {64, 64, 64});
    CHECK(alike.per_channel_bins.empty());
    CHECK(alike.bins == 64);
    CHECK(alike.active == 3);
    CHECK(alike.counters() == 192);
    CHECK(alike.uniform_channels());
    CHECK_THROWS_AS(make(SampleType::u8, 7).with_channel_bins(2, {}), UsageError);
    // The even histogram's channels through the same helpers (histogram_samples.hpp).
    const HistogramProblem h = HistogramProblem::multi_channel(SampleType::u8, 3, {{10, 0, 100}, {20, 5, 9}});
    CHECK(h.active == 2);
    CHECK(h.channel(1) == HistogramChannel{20, 5, 9});
    CHECK(h.channel(2) == HistogramChannel{10, 0, 100});
    CHECK(h.channel_offset(2) == 30);
    CHECK(HistogramProblem::multi_channel(SampleType::u8, 3, {{10, 0, 100}, {10, 0, 100}}).per_channel.empty());
  }

  TEST_CASE("levels: a wrong count, NaN or infinite edges and edges that are not strictly ascending are refused") {
    const HistogramRangeProblem p = make(SampleType::f32, 3);
    CHECK(violation_of(p, {0.f, 1.f, 2.f, 3.f}).empty());
    CHECK(violation_of(p, {0.f, 1.f, 2.f}) == "3 bins take 4 levels (bins + 1), not 3");
    CHECK(violation_of(p, {0.f, 1.f, 2.f, 3.f, 4.f}) == "3 bins take 4 levels (bins + 1), not 5");
    CHECK(violation_of(p, {0.f, std::nanf(""), 2.f, 3.f}) == "level 1 is NaN");
    CHECK(violation_of(p, {-std::numeric_limits<float>::infinity(), 1.f, 2.f, 3.f}).find("level 0 is infinite") == 0);
    CHECK(violation_of(p, {0.f, 2.f, 1.f, 3.f}) ==
          "the levels are not strictly ascending: level 1 is 2 and level 2 is 1");
    CHECK(violation_of(p, {0.f, 1.f, 1.f, 3.f}).find("not strictly ascending") != std::string::npos);
    const std::vector<float> bad{3.f, 2.f, 1.f, 0.f};
    CHECK_THROWS_WITH_AS(validate_levels(p, bad.data(), bad.size()), doctest::Contains("not strictly ascending"),
                         UsageError);
    // Integer levels (int for u8) are read as int: 256 is a valid upper edge of u8 samples.
    const HistogramRangeProblem u8 = make(SampleType::u8, 2);
    const std::vector<int> ok{0, 128, 256}, equal{0, 5, 5};
    CHECK(levels_violation(u8, ok.data(), ok.size()).empty());
    CHECK(levels_violation(u8, equal.data(), equal.size()).find("not strictly ascending") != std::string::npos);
    CHECK(levels_violation(u8, nullptr, 3) == "the levels pointer is null");
  }

  TEST_CASE("the tuner's levels: bins + 1 strictly ascending values in the span, the same for the same problem") {
    for (SampleType t : all_sample_types())
      for (EdgeLayout e : {EdgeLayout::even, EdgeLayout::irregular})
        for (int bins : {1, 7, 255, 256}) {
          const HistogramRangeProblem p = make(t, bins, e);
          const auto levels = generate_levels(p);
          INFO(p.shape_key());
          CHECK(levels.size() == (static_cast<std::size_t>(bins) + 1) * level_size(t));
          CHECK(levels_violation(p, levels.data(), bins + 1).empty());
          CHECK(generate_levels(p) == levels);
        }
    // u8 with 256 bins has one choice of 257 distinct levels in [0, 256]; even levels over the span are 0..256.
    CHECK(as_levels<int>(generate_levels(make(SampleType::u8, 256))).back() == 256);
    const auto even = as_levels<int>(generate_levels(make(SampleType::u8, 4, EdgeLayout::even)));
    CHECK(even == std::vector<int>{0, 64, 128, 192, 256});
    // Irregular float levels leave part of the span outside them (samples that count nowhere) and differ from even.
    const auto irr = as_levels<float>(generate_levels(make(SampleType::f32, 999)));
    CHECK(irr.front() > 0.0f);
    CHECK(irr.back() < 1.0f);
    CHECK(irr != as_levels<float>(generate_levels(make(SampleType::f32, 999, EdgeLayout::even))));
  }

  TEST_CASE("reference: hand-counted u8 samples over int levels, below, between and above them") {
    const HistogramRangeProblem p = make(SampleType::u8, 3);
    const std::vector<int> levels{5, 10, 20, 100};
    const std::vector<std::uint8_t> s{0, 4, 5, 9, 10, 19, 20, 99, 100, 255, 7};
    // bin 0 [5, 10): 5, 9, 7; bin 1 [10, 20): 10, 19; bin 2 [20, 100): 20, 99; 0, 4, 100, 255 nowhere.
    CHECK(reference_range_histogram(p, s.data(), s.size(), levels.data()) == std::vector<std::uint64_t>{3, 2, 2});
  }

  TEST_CASE("reference of a 2D region: hand-counted rows, the bytes between them unread") {
    const HistogramRangeProblem p = make(SampleType::u8, 2);
    const std::vector<int> levels{0, 10, 20};
    // 3 rows of 2 samples, 4 bytes apart; the 2 bytes after each row (200, 15) lie outside the region.
    const std::vector<std::uint8_t> s{1, 12, 200, 15, 9, 25, 200, 15, 19, 10};
    // bin 0 [0, 10): 1, 9; bin 1 [10, 20): 12, 19, 10; 25 nowhere.
    CHECK(reference_range_histogram_region(p, s.data(), 2, 3, 4, levels.data()) == std::vector<std::uint64_t>{2, 3});
    CHECK(reference_range_histogram_region(p, s.data(), 2, 0, 4, levels.data()) == std::vector<std::uint64_t>{0, 0});
  }

  TEST_CASE("2D regions: the kernel's mapping (region_map.cuh, compiled for the host) reads every sample of the region "
            "once and nothing else, each vector aligned, with each sample's channel, at any start, stride and grid") {
    struct Case {
      SampleType type;
      std::uint64_t row_samples, rows, row_stride;  // samples
      int channels = 1;
    };
    const std::vector<Case> cases = {
        {SampleType::u8, 1000, 31, 1003},    // an odd stride: rows of every alignment
        {SampleType::u8, 1000, 20, 1024},    // a stride of whole vectors: row 0's head in every row
        {SampleType::u8, 3, 100, 5},         // rows narrower than a vector: leftovers only
        {SampleType::u8, 3, 50, 16},         // the same, rows on row 0's alignment (heads past the row's end)
        {SampleType::u8, 15, 40, 32},        // rows of exactly one vector's worth, on one alignment
        {SampleType::u8, 7001, 30, 7006},
        {SampleType::u8, 17, 2, 17},         // packed rows
        {SampleType::u16, 50, 40, 53},       // 8-byte loads, one per tile
        {SampleType::f32, 777, 29, 781},     // 3124-byte strides: off the 16-byte grid
        {SampleType::f32, 1000, 10, 1024},
        {SampleType::f64, 100, 50, 101},     // 808-byte strides: every other row off the 16-byte grid
        {SampleType::f64, 100, 50, 102},     // 816 bytes: on it
        {SampleType::f64, 1, 300, 3},        // one sample per row, narrower than a vector
        {SampleType::u8, 4 * 333, 41, 4 * 335, 4},  // RGBA pixels: rows on a pixel, not on the 16-byte grid
        {SampleType::u8, 4 * 7, 50, 4 * 8, 4},      // short RGBA rows on the 16-byte grid
        {SampleType::u8, 3 * 333, 41, 3 * 335, 3},  // RGB: a vector's first sample of any channel
    };
    int checked = 0;
    for (const Case& k : cases) {
      const std::uint64_t size = size_of(k.type), span = k.rows * k.row_stride + 16;
      std::vector<unsigned char> buffer(span * size + 64);
      const std::uintptr_t aligned = (reinterpret_cast<std::uintptr_t>(buffer.data()) + 15) / 16 * 16;
      for (std::uintptr_t offset = 0; offset < 16; offset += size * static_cast<std::uint64_t>(k.channels))
        for (std::uint64_t threads : {1, 7, 32, 257}) {
          CAPTURE(to_string(k.type));
          CAPTURE(k.row_samples);
          CAPTURE(k.rows);
          CAPTURE(k.row_stride);
          CAPTURE(offset);
          CAPTURE(threads);
          CAPTURE(k.channels);
          const auto reads = region_reads(k.type, k.channels, reinterpret_cast<const void*>(aligned + offset), span,
                                          k.row_samples, k.rows, k.row_stride, threads);
          REQUIRE(!reads.empty());
          std::uint64_t wrong = 0;
          for (std::uint64_t i = 0; i < reads.size(); ++i) {
            const bool in_region = i / k.row_stride < k.rows && i % k.row_stride < k.row_samples;
            wrong += reads[i] != (in_region ? 1 : 0);
          }
          CHECK(wrong == 0);
          ++checked;
        }
    }
    CHECK(checked > 200);
  }

  TEST_CASE("reference: f32 at the edges, NaN and infinities count nowhere; f64 and u32 compare in their types") {
    const HistogramRangeProblem p = make(SampleType::f32, 2);
    const std::vector<float> levels{-1.0f, 0.5f, 2.0f};
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> s{-1.0f, std::nextafter(-1.0f, -2.0f), 0.5f, std::nextafter(0.5f, 0.0f), 2.0f,
                               std::nextafter(2.0f, 0.0f), std::nanf(""), inf, -inf};
    // bin 0 [-1, 0.5): -1, below 0.5; bin 1 [0.5, 2): 0.5, below 2.
    CHECK(reference_range_histogram(p, s.data(), s.size(), levels.data()) == std::vector<std::uint64_t>{2, 2});
    const HistogramRangeProblem u32 = make(SampleType::u32, 1);
    const std::vector<unsigned> ulevels{1u << 31, 0xFFFFFFFFu};
    const std::vector<std::uint32_t> us{0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    CHECK(reference_range_histogram(u32, us.data(), us.size(), ulevels.data()) == std::vector<std::uint64_t>{2});
  }

  TEST_CASE("configuration rules: values is for 8-bit samples in shared memory, lut for 8/16-bit under 65535 bins") {
    HistogramRangeConfig c;
    c.binning = RangeBinning::values;
    CHECK(c.invalid_reason(make(SampleType::u8, 255)).empty());
    CHECK(c.invalid_reason(make(SampleType::u16, 255)) == "counting sample values is for 8-bit samples (u8, i8)");
    c.privatization = Privatization::global;
    CHECK(c.invalid_reason(make(SampleType::u8, 255)) == "counting sample values needs shared counters");
    c = HistogramRangeConfig{};
    c.binning = RangeBinning::lut;
    CHECK(c.invalid_reason(make(SampleType::u16, 65534)).empty());
    CHECK(!c.invalid_reason(make(SampleType::u16, 65535)).empty());
    CHECK(c.invalid_reason(make(SampleType::f32, 10)) == "a lookup table is for 8- and 16-bit samples");
    c = HistogramRangeConfig{};
    c.privatization = Privatization::global;
    c.grid_blocks = 1;
    CHECK(!c.invalid_reason(make(SampleType::f32, 10)).empty());
    c.privatization = Privatization::warp;
    c.grid_blocks = 0;
    CHECK(!c.invalid_reason(make(SampleType::f32, 10)).empty());
    c = HistogramRangeConfig{};
    c.merge = Merge::self_zero;
    CHECK(c.invalid_reason(make(SampleType::f32, 10)).empty());
    c.privatization = Privatization::global;
    CHECK(c.invalid_reason(make(SampleType::f32, 10)) == "self_zero merges shared counters: not with global atomics");
    c.privatization = Privatization::shared, c.merge = Merge::last_block;
    CHECK(c.invalid_reason(make(SampleType::f32, 10)) == "range histograms merge by atomic or self_zero");
  }

  TEST_CASE("shared memory: counters times replicas, then the levels or the table, each 8-byte aligned") {
    HistogramRangeConfig c;
    c.binning = RangeBinning::search, c.replicas = 8;
    CHECK(c.shared_bytes(make(SampleType::f32, 999)) == 999 * 8 * 4 + 1000 * 4);
    c.binning = RangeBinning::values, c.replicas = 32;
    CHECK(c.shared_bytes(make(SampleType::u8, 255)) == (256 * 32 + 255 + 1) * 4 + 256 * 4);  // totals, levels
    c.binning = RangeBinning::lut, c.replicas = 1;
    CHECK(c.shared_bytes(make(SampleType::u16, 1000)) == 1000 * 4 + 65536 * 2);
    c.binning = RangeBinning::search_global, c.privatization = Privatization::global;
    CHECK(c.shared_bytes(make(SampleType::f64, 1 << 20)) == 0);
    c.binning = RangeBinning::prebin, c.privatization = Privatization::shared;
    CHECK(c.shared_bytes(make(SampleType::f64, 3)) == 3 * 4 + 4 + 4 * 8 + 64 * 4);  // 64 buckets at least
  }

  TEST_CASE("the family's one-block bound (the lookup's): the largest n one block covers, every n below 2^31 samples "
            "for a grid of one block") {
    const KernelFamily& family = family_named("histogram_range");
    const HistogramRangeProblem f32 = make(SampleType::f32, 999);
    HistogramRangeConfig c;
    c.block = 256, c.loads = 2, c.vec_bytes = 16;  // tiles of 256 x 2 x 4 floats
    CHECK(family.one_block_up_to(Problem(f32), Config(c)) == 2048);
    CHECK(c.grid_for(f32, 2048, 264) == 1);
    CHECK(c.grid_for(f32, 2049, 264) == 2);
    c.grid_blocks = 1;
    CHECK(family.one_block_up_to(Problem(f32), Config(c)) == 2147483647ull);
  }

  TEST_CASE("the space: every configuration well formed and within 227 KiB; the fallback runs anything") {
    for (SampleType t : all_sample_types())
      for (int bins : {1, 255, 4096, 65534}) {
        if (bins > HistogramRangeProblem::max_bins(t)) continue;
        const HistogramRangeProblem p = make(t, bins);
        const auto space = space_decl::any_n(p, histogram_range_space);
        INFO(p.shape_key());
        CHECK(!space.empty());
        for (const auto& c : space) {
          CHECK(c.invalid_reason(p).empty());
          CHECK(c.shared_bytes(p) <= 227u * 1024);
        }
        const auto f = HistogramRangeConfig::fallback(p);
        CHECK(f.invalid_reason(p).empty());
        CHECK(f.shared_bytes(p) <= 48u * 1024);
      }
    // The u8 space holds value counting, tables and searches; f32's only searches.
    auto has = [](const std::vector<HistogramRangeConfig>& s, RangeBinning b) {
      return std::any_of(s.begin(), s.end(), [b](const auto& c) { return c.binning == b; });
    };
    const auto u8 = histogram_range_space(make(SampleType::u8, 255));
    for (RangeBinning b : {RangeBinning::values, RangeBinning::lut, RangeBinning::search, RangeBinning::prebin,
                           RangeBinning::search_global})
      CHECK(has(u8, b));
    const auto f32 = histogram_range_space(make(SampleType::f32, 999));
    CHECK_FALSE(has(f32, RangeBinning::values));
    CHECK_FALSE(has(f32, RangeBinning::lut));
  }

  TEST_CASE("the family: command-line options make the problem, and name it back") {
    const KernelFamily& f = family_named("histogram_range");
    ProblemOptions o{{"type", "f32"}, {"bins", "999"}, {"n", "64M"}};
    const Problem p = f.make_problem(o);
    CHECK(p.key() == "histogram_range/f32/bins=999/edges=irregular/n=67108864/dist=uniform");
    CHECK(f.command_options(p) == "--type f32 --bins 999 --edges irregular");
    ProblemOptions e{{"type", "f32"}, {"n", "1M"}};
    CHECK_THROWS_WITH_AS(f.make_problem(e), "--bins is required for sample types other than u8", UsageError);
    ProblemOptions bad_edges{{"edges", "wavy"}, {"n", "1M"}};
    CHECK_THROWS_WITH_AS(f.make_problem(bad_edges), "--edges: 'wavy' is not irregular or even", UsageError);
    ProblemOptions u8{{"n", "1M"}, {"edges", "even"}};
    CHECK(f.make_problem(u8).key() == "histogram_range/u8/bins=255/edges=even/n=1048576/dist=uniform");
    CHECK(f.baseline_name() == "CUB HistogramRange");
    CHECK(f.launches(HistogramRangeConfig{}) == 2);
  }

  TEST_CASE("a handle's call checks: sample type, counter width, null and unaligned pointers") {
    const HistogramRangeProblem p = make(SampleType::f32, 10);
    alignas(8) static float buf[4];
    CHECK_NOTHROW(check_histogram_range_call(p, buf, SampleType::f32, 4, buf, buf, 32));
    CHECK_THROWS_WITH_AS(check_histogram_range_call(p, buf, SampleType::u8, 4, buf, buf, 32),
                         doctest::Contains("u8 samples passed to a handle of f32 samples"), UsageError);
    CHECK_THROWS_WITH_AS(check_histogram_range_call(p, buf, SampleType::f32, 4, buf, buf, 64),
                         doctest::Contains("64-bit counters"), UsageError);
    CHECK_THROWS_WITH_AS(check_histogram_range_call(p, buf, SampleType::f32, 4, nullptr, buf, 32),
                         doctest::Contains("levels pointer is null"), UsageError);
    CHECK_THROWS_WITH_AS(
        check_histogram_range_call(p, reinterpret_cast<const char*>(buf) + 2, SampleType::f32, 4, buf, buf, 32),
        doctest::Contains("not aligned"), UsageError);
  }
}

TEST_SUITE("nvrtc_histrange") {
  const std::vector<std::string> kEntryPoints{kHistogramRangeKernelName, kHistogramRange2dKernelName};
  // One pairwise covering of the six problems' joint space (tests/cpu/nvrtc_fixtures.hpp, compile_all_joint): every
  // problem at least once, every pair of a problem's value and a configuration value (u8 with each binning, f32 with
  // each block size, ...) or of two configuration values meets in a compiled variant; every variant in the
  // nvrtc_full.* tests. The GPU suite compiles and runs every variant.
  TEST_CASE("the u8 (values, lut, search, prebin, search_global), f32 (999 bins), u16, i32, u32 and f64 variants "
            "compile for sm_90 with the 1D and the 2D entry point, 64-bit counters too: one pairwise covering of the "
            "six problems' joint space, every variant under nvrtc_full") {
    std::vector<HistogramRangeProblem> problems;
    std::vector<std::vector<HistogramRangeConfig>> spaces;
    for (auto [t, bins] : {std::pair{SampleType::u8, 255}, std::pair{SampleType::f32, 999},
                           std::pair{SampleType::u16, 4096}, std::pair{SampleType::i32, 100},
                           std::pair{SampleType::u32, 1000}, std::pair{SampleType::f64, 1000}}) {
      auto p = make(t, bins);
      p.counter_bits = t == SampleType::u16 ? 64 : 32;
      problems.push_back(p);
      spaces.push_back(space_decl::any_n(p, histogram_range_space));
    }
    CHECK(test::compile_all_joint(problems, spaces, "sm_90", kEntryPoints) == "");
  }
  TEST_CASE("what the tuner compiles (tuning_source, kernel_source_1d) holds the 1D entry point and not the 2D one; "
            "what the cache stores (kernel_source) holds both") {
    const auto p = make(SampleType::u8, 255);
    const HistogramRangeConfig c = HistogramRangeConfig::fallback(p);
    const std::string tuned = tuning_source(Problem(p), Config(c));
    CHECK(tuned == kernel_source_1d(p, c));
    CHECK(tuned != kernel_source(p, c));
    const jit::CompileResult t = jit::compile(tuned, "tuned.cu", "sm_90");
    REQUIRE(t.ok);
    CHECK(test::holds_kernel(t.cubin, kHistogramRangeKernelName));
    CHECK_FALSE(test::holds_kernel(t.cubin, kHistogramRange2dKernelName));
    // The tuner times the machine code the cache ships: the 1D entry's code is the same bytes without the 2D entry.
    const jit::CompileResult full = jit::compile(kernel_source(p, c), "full.cu", "sm_90");
    REQUIRE(full.ok);
    CHECK(test::holds_kernel(full.cubin, kHistogramRangeKernelName));  // kernel_source: both
    CHECK(test::holds_kernel(full.cubin, kHistogramRange2dKernelName));
    const std::vector<char> timed = test::kernel_code(t.cubin, kHistogramRangeKernelName);
    CHECK(timed.size() > 64);
    CHECK(timed == test::kernel_code(full.cubin, kHistogramRangeKernelName));
  }
  TEST_CASE("the fallback compiles for sm_80 at the largest bin count") {
    const auto p = make(SampleType::f64, 1 << 20);
    CHECK(test::compile_all(p, std::vector{HistogramRangeConfig::fallback(p)}, "sm_80", kEntryPoints) == "");
  }
}
