#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <set>
#include <vector>
#include <string>

#include "autotune/histogram_problem.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/histogram/sparse_values.hpp"
#include "kernel_templates/histogram/workspace_layout.hpp"
#include "tests/test_devices.hpp"

using namespace autotune;

namespace {

HistogramProblem make(SampleType t, int bins, double lo, double hi) {
  HistogramProblem p;
  p.type = t, p.bins = bins, p.lower = lo, p.upper = hi;
  return p;
}

// Why a default configuration edited by `edit` is invalid for `p` (empty when it is well formed).
std::string why_invalid(const HistogramProblem& p, auto edit) {
  HistogramConfig c;
  edit(c);
  return c.invalid_reason(p);
}

// Why `base` edited by `edit` is invalid for `p` (empty when it is well formed).
std::string why_invalid_from(const HistogramConfig& base, const HistogramProblem& p, auto edit) {
  return why_invalid(p, [&](auto& x) {
    x = base;
    edit(x);
  });
}

// Four plain copies of a global histogram, the key the layout fields (lay=striped, chunk=N) are appended to.
const std::string kPlainCopies =
    "priv=global,R=4,cbits=32,block=512,vec=16,loads=1,agg=warp,part=interleaved,merge=atomic,grid=0";

int count_if(const std::vector<HistogramConfig>& space, auto pred) {
  int n = 0;
  for (const auto& c : space) n += pred(c) ? 1 : 0;
  return n;
}

// A number field written ",name=N" after `plain` only when set: `plain` + ",name=value" parses to `value` in `member`
// and prints back the same; `plain` alone keeps the field at 0 (keys written before it existed); a word or a negative
// number is refused. The parsed configuration, for the case's other checks.
HistogramConfig check_optional_number(const std::string& plain, const std::string& name, int HistogramConfig::*member,
                                      int value) {
  const std::string key = fmt::format("{},{}={}", plain, name, value);
  const auto parsed = HistogramConfig::parse(key);
  REQUIRE(parsed);
  CHECK((*parsed).*member == value);
  CHECK(parsed->key() == key);
  CHECK((*HistogramConfig::parse(plain)).*member == 0);
  CHECK_FALSE(HistogramConfig::parse(plain + "," + name + "=x"));
  CHECK_FALSE(HistogramConfig::parse(fmt::format("{},{}=-{}", plain, name, value)));
  return *parsed;
}

}  // namespace

// The kernel's own 2D mapping (kernel_templates/histogram/region_map.cuh: Divider, Rows) compiled for the host, once
// per sample size and load width the cases below use, each in a namespace holding what the preamble and histogram.cu
// give it. raw_t is a probe: a load (Rows::load copies the vector from where it lies) records that address, so the
// test sees exactly what each load reads. Anonymous: each test file's host copies stay its own.
#define AT_HOST_DEVICE inline
namespace {
const void* g_loaded = nullptr;  // the address the last Rows::load read from
template <int B>
struct LoadProbe {
  unsigned char bytes[B];
  LoadProbe() = default;
  LoadProbe(const LoadProbe& from) : bytes{} { g_loaded = &from; }
};
#define HISTOGRAM_HOST_ROWS(NS, T, VEC)                          \
  namespace NS::at {                                             \
  typedef unsigned long long u64;                                \
  typedef T sample_t;                                            \
  typedef LoadProbe<VEC> raw_t;                                  \
  constexpr int kVecBytes = VEC;                                 \
  constexpr int kElemsPerVec = VEC / static_cast<int>(sizeof(T)); \
  }
HISTOGRAM_HOST_ROWS(u8_4, unsigned char, 4)
HISTOGRAM_HOST_ROWS(u8_8, unsigned char, 8)
HISTOGRAM_HOST_ROWS(u8_16, unsigned char, 16)
HISTOGRAM_HOST_ROWS(f32_8, float, 8)
HISTOGRAM_HOST_ROWS(f32_16, float, 16)
namespace u8_4::at {
#include "kernel_templates/histogram/region_map.cuh"
}
namespace u8_8::at {
#include "kernel_templates/histogram/region_map.cuh"
}
namespace u8_16::at {
#include "kernel_templates/histogram/region_map.cuh"
}
namespace f32_8::at {
#include "kernel_templates/histogram/region_map.cuh"
}
namespace f32_16::at {
#include "kernel_templates/histogram/region_map.cuh"
}

// How often the kernel's 2D mapping (Rows::load for vector j, Rows::leftover_at for head/tail sample q), fed with
// HistogramKernel::region_args (the host's half), touches each sample from `in`; empty when a vector is misaligned
// or Rows::first_sample (the channel's source) disagrees with where the vector lies in its row.
template <class Rows, class S>
std::vector<int> region_coverage(const HistogramProblem& p, const HistogramConfig& c, const S* in,
                                 const HistogramKernel::Region& region) {
  typedef decltype(Rows::vecs) Divider;
  const auto a = HistogramKernel::region_args(p, c, in, 0, region);
  const std::uint64_t vec = static_cast<std::uint64_t>(c.load_bytes(p)), e = vec / sizeof(S);
  std::vector<int> touched(a.rows * a.row_stride + a.row_samples, 0);
  if (a.span) {
    // One run of a.samples samples (the 1D path), then each gap sample taken back (gap_sample, as the kernel).
    if (a.samples > touched.size()) return {};
    for (std::uint64_t i = 0; i < a.samples; ++i) ++touched[i];
    const Divider per_gap{a.leftover, a.leftover_magic, a.leftover_shift};
    for (std::uint64_t q = 0; q < (a.rows - 1) * a.leftover; ++q) {
      const std::uint64_t x = gap_sample(q, per_gap, a.leftover, a.row_samples, a.row_stride);  // found by ADL
      if (x >= a.samples) return {};
      --touched[x];
    }
    return touched;
  }
  const Rows map = Rows::make(in, a.row_stride, a.head0, Divider{a.vecs_per_row, a.vecs_magic, a.vecs_shift});
  for (std::uint64_t j = 0; j < a.rows * a.vecs_per_row; ++j) {
    g_loaded = nullptr;
    [[maybe_unused]] const auto loaded = map.load(j);
    const auto at = reinterpret_cast<std::uintptr_t>(g_loaded), from = reinterpret_cast<std::uintptr_t>(in);
    if (at % vec != 0 || at < from || (at - from) % sizeof(S) != 0) return {};
    const std::uint64_t first = (at - from) / sizeof(S);
    if (first + e > touched.size() || map.first_sample(j) != first % a.row_stride) return {};
    for (std::uint64_t k = 0; k < e; ++k) ++touched[first + k];
  }
  const Divider per_row{a.leftover, a.leftover_magic, a.leftover_shift};
  for (std::uint64_t q = 0; q < a.rows * a.leftover; ++q) {
    unsigned long long r = 0;  // the kernel's u64
    const std::uint64_t x = map.leftover_at(q, per_row, a.leftover, a.vecs_per_row * e, r);
    const std::uint64_t i = r * a.row_stride + x;  // histogram.cu: in[r * row_stride + x]
    if (i >= touched.size() || x >= a.row_stride) return {};
    ++touched[i];
  }
  return touched;
}

// The same for the sample type and load width of `p` and `c`, the region from `base` (in a buffer that holds it).
std::vector<int> region_coverage(const HistogramProblem& p, const HistogramConfig& c, const void* base,
                                 const HistogramKernel::Region& region) {
  const int vec = c.load_bytes(p);
  const auto* u8 = static_cast<const unsigned char*>(base);
  const auto* f32 = static_cast<const float*>(base);
  if (p.type == SampleType::u8 && vec == 4) return region_coverage<u8_4::at::Rows>(p, c, u8, region);
  if (p.type == SampleType::u8 && vec == 8) return region_coverage<u8_8::at::Rows>(p, c, u8, region);
  if (p.type == SampleType::u8 && vec == 16) return region_coverage<u8_16::at::Rows>(p, c, u8, region);
  if (p.type == SampleType::f32 && vec == 8) return region_coverage<f32_8::at::Rows>(p, c, f32, region);
  if (p.type == SampleType::f32 && vec == 16) return region_coverage<f32_16::at::Rows>(p, c, f32, region);
  FAIL("no host copy of the 2D mapping for ", p.shape_key(), " with ", vec, "-byte loads");
  return {};
}

}  // namespace


TEST_SUITE("config") {
  TEST_CASE("2D regions: the kernel's row mapping (region_map.cuh, compiled for the host), fed the host's V, heads, "
            "tails and magic numbers, or a span whose gaps gap_sample takes back, counts every sample of the region "
            "once and nothing else, aligned, at any start and stride") {
    struct Case {
      HistogramProblem problem;
      int vec_bytes;
      std::uint64_t row_pixels, rows, stride_bytes;
    };
    HistogramProblem rgba;
    rgba.channels = 4, rgba.active = 3;
    const HistogramProblem u8 = make(SampleType::u8, 256, 0, 256), f32 = make(SampleType::f32, 100, 0, 1);
    HistogramProblem rgb = u8;
    rgb.channels = 3, rgb.active = 3;
    const std::vector<Case> cases = {
        {rgba, 16, 1920, 37, 8192 * 4},  // a padded crop: 16-byte strides
        {rgba, 16, 1919, 23, 1925 * 4},  // stride not a multiple of 16 bytes
        {rgba, 8, 7, 50, 9 * 4},         // short rows
        {u8, 16, 1000, 31, 1003},        // odd stride, bytes
        {u8, 16, 3, 100, 5},             // rows shorter than a vector
        {u8, 4, 10, 5000, 10},           // packed rows, odd stride: V = 1 (no division)
        {u8, 4, 13, 5000, 16},           // V = 3, L = 1 (a small magic divisor, a leftover of one)
        {u8, 16, 100000, 3, 100001},     // long rows
        {rgb, 16, 333, 41, 335 * 3},     // pixels of 3 samples
        {f32, 16, 777, 29, 781 * 4},
        {f32, 8, 1, 300, 12},            // one pixel per row
        {rgba, 16, 1919, 23, 1920 * 4},  // one pixel between rows (1/1920 of the stride): a span, its gaps taken back
        {u8, 16, 1000, 31, 1000},        // rows with no gap: a span of the whole region
        {u8, 4, 3000, 7, 3011},          // 11 bytes between rows, 1/274 of the stride
    };
    int checked = 0, spans = 0;
    for (const Case& k : cases)
      for (const int cbits : {32, 16}) {  // 16-bit counters never take a count back: always the row mapping
        HistogramConfig c;
        c.vec_bytes = k.vec_bytes;
        c.counter_bits = cbits;
        const std::uint64_t size = size_of(k.problem.type);
        const std::uint64_t row = k.problem.samples(k.row_pixels), stride = k.stride_bytes / size;
        std::vector<unsigned char> buffer(k.rows * k.stride_bytes + 64);
        const std::uintptr_t aligned = (reinterpret_cast<std::uintptr_t>(buffer.data()) + 15) / 16 * 16;
        for (std::uintptr_t offset = 0; offset < 16; offset += size) {
          if (HistogramKernel::needs_pixel_alignment(k.problem, c) &&
              offset % (size * static_cast<std::uint64_t>(k.problem.channels)) != 0)
            continue;  // refused by the launcher
          CAPTURE(k.problem.shape_key());
          CAPTURE(k.vec_bytes);
          CAPTURE(k.row_pixels);
          CAPTURE(k.stride_bytes);
          CAPTURE(offset);
          CAPTURE(cbits);
          const void* start = reinterpret_cast<const void*>(aligned + offset);
          const HistogramKernel::Region region{k.row_pixels, k.rows, k.stride_bytes};
          spans += HistogramKernel::region_args(k.problem, c, start, 0, region).span;
        CHECK_FALSE(HistogramKernel::region_args(k.problem, c, start, 0, {k.row_pixels, k.rows, k.stride_bytes, false})
                        .span);  // read_gaps = false: never a span
          const auto touched = region_coverage(k.problem, c, start, region);
          REQUIRE(!touched.empty());
          std::uint64_t wrong = 0;
          for (std::uint64_t i = 0; i < touched.size(); ++i) {
            const bool in_region = i / stride < k.rows && i % stride < row;
            wrong += touched[i] != (in_region ? 1 : 0);
          }
          CHECK(wrong == 0);
          ++checked;
        }
      }
    CHECK(checked > 120);
    // Both ways were taken: gaps of at most 1/256 of the stride (or none) as one span with 32-bit counters.
    CHECK(spans >= 10);
    CHECK(spans < checked / 2);
  }

  TEST_CASE("the u8/256 space holds every family, well formed and without duplicates") {
    const HistogramProblem p = make(SampleType::u8, 256, 0, 256);
    const auto space = histogram_space(p);
    std::set<std::string> keys;
    for (const auto& c : space) {
      CHECK(c.invalid_reason(p) == "");
      keys.insert(c.key());
    }
    CHECK(keys.size() == space.size());
    CHECK(space.size() > 200);
    // Tuning time and the CI's compile time grow with it. Small inputs take more (clusters, self_zero with small
    // blocks): their variants run in microseconds; the large-n space is what `tune` of u8/256/64M must finish in
    // 10 s warm (issue #5).
    CHECK(space.size() <= 500);
    using P = Privatization;
    CHECK(count_if(space, [](auto& c) { return c.privatization == P::shared && c.replicas == 32; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.privatization == P::warp; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.privatization == P::global && c.vec_bytes == 16; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.counter_bits == 16; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.merge == Merge::last_block; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.aggregation == Aggregation::warp; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.vec_bytes == 0 && c.partitioning == Partitioning::contiguous; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.grid_blocks == 1 && c.merge == Merge::last_block; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.merge == Merge::self_zero && c.cluster == 1; }) > 0);
    // Small inputs: one cluster of 4 to 16 blocks, and resident grids of clusters.
    for (int cluster : {4, 8, 16})
      CHECK(count_if(space, [&](auto& c) { return c.cluster == cluster && c.grid_blocks == cluster; }) > 0);
    CHECK(count_if(space, [](auto& c) { return c.cluster > 1 && c.grid_blocks == 0; }) > 0);
    // Issue #3's parameters: 4- and 8-byte loads, blocks of 64 and 128 threads.
    for (int vec : {4, 8}) CHECK(count_if(space, [&](auto& c) { return c.vec_bytes == vec; }) > 0);
    for (int block : {64, 128}) CHECK(count_if(space, [&](auto& c) { return c.block == block; }) > 0);
    // Small inputs: the single-block path, and no cover-n grid (one resident wave already covers n).
    CHECK(count_if(space, [](auto& c) { return c.grid_blocks == HistogramConfig::kCoverGrid; }) == 0);
    HistogramProblem big = p;
    big.n = 64ull << 20;  // large inputs: cover-n grids instead of the single-block path
    const auto big_space = histogram_space(big);
    // 448 of them ran in 5.4 s warm on an H200 (bench/results/2026-12-04a-h200-untuned-tune-82a2316.log.gz), before
    // the evict-first group (ld=cs) added 36: about 0.012 s a variant at 64M, so 500 stay well inside the 10 s.
    CHECK(big_space.size() <= 500);
    CHECK(count_if(big_space, [](auto& c) { return c.load_cs; }) > 0);
    CHECK(count_if(big_space, [](auto& c) { return c.load_cs && c.vec_bytes != 16; }) == 0);
    CHECK(count_if(space, [](auto& c) { return c.load_cs; }) == 0);  // n = 0 here: not a large input
    CHECK(count_if(big_space, [](auto& c) { return c.grid_blocks > 0; }) == 0);
    CHECK(count_if(big_space, [](auto& c) { return c.grid_blocks == HistogramConfig::kCoverGrid; }) > 0);
    CHECK(count_if(big_space, [](auto& c) { return c.grid_blocks == HistogramConfig::kCoverGrid && c.merge == Merge::self_zero; }) > 0);
    CHECK(count_if(big_space, [](auto& c) { return c.cluster > 1; }) == 0);  // one cluster per SM group: small n only
    // The built-in fallback is part of the space, so the tuner always measures it.
    CHECK(keys.count(HistogramConfig::fallback(p).key()) == 1);
  }

  TEST_CASE("narrower loads only where they load more than one sample") {
    // A 4-byte load of a 4-byte sample is the one-sample load (vec 0): the space must not measure it twice.
    const auto f32 = histogram_space(make(SampleType::f32, 1024, -1, 1));
    CHECK(count_if(f32, [](auto& c) { return c.vec_bytes == 4; }) == 0);
    CHECK(count_if(f32, [](auto& c) { return c.vec_bytes == 8; }) > 0);
    const auto u16 = histogram_space(make(SampleType::u16, 4096, 0, 65536));
    CHECK(count_if(u16, [](auto& c) { return c.vec_bytes == 4; }) > 0);
    CHECK(count_if(u16, [](auto& c) { return c.vec_bytes == 2; }) == 0);
  }

  TEST_CASE("the space for any n is the union of the small-n and large-n spaces") {
    HistogramProblem p = make(SampleType::u8, 256, 0, 256);
    const auto any = space_decl::any_n(p, histogram_space);
    std::set<std::string> keys;
    for (const auto& c : any) keys.insert(c.key());
    CHECK(keys.size() == any.size());
    std::set<std::string> expected;
    for (std::uint64_t n : {std::uint64_t{1000}, std::uint64_t{4} << 20, (std::uint64_t{4} << 20) + 1,
                            std::uint64_t{1} << 34}) {
      p.n = n;
      for (const auto& c : histogram_space(p)) expected.insert(c.key());
    }
    CHECK(keys == expected);
    CHECK(count_if(any, [](auto& c) { return c.grid_blocks == 1; }) > 0);
    CHECK(count_if(any, [](auto& c) { return c.grid_blocks == HistogramConfig::kCoverGrid; }) > 0);
  }

  TEST_CASE("grid sizes, by hand") {
    const HistogramProblem u8 = make(SampleType::u8, 256, 0, 256);
    HistogramConfig c;  // 256 threads x 2 loads x 16 u8 samples: tiles of 8192 samples
    CHECK(c.tile_samples(u8) == 8192);
    CHECK(c.grid_for(u8, 0, 100) == 1);
    CHECK(c.grid_for(u8, 8192, 100) == 1);
    CHECK(c.grid_for(u8, 8193, 100) == 2);
    CHECK(c.grid_for(u8, 64ull << 20, 100) == 100);  // a resident grid stops at the resident blocks
    // Past 2^31 samples per block the resident cap gives way: 2^40 samples need 513 blocks of under 2^31.
    CHECK(c.grid_for(u8, 1ull << 40, 100) == 513);
    c.grid_blocks = HistogramConfig::kCoverGrid;
    CHECK(c.grid_for(u8, 8193, 100) == 2);
    CHECK(c.grid_for(u8, 64ull << 20, 100) == 8192);  // one tile per block, 82 waves of 100
    CHECK(c.grid_for(u8, 1ull << 40, 100) == (1u << 27));
    CHECK(c.grid_for(u8, 1ull << 50, 100) == 0x7FFFFFFFu);  // gridDim.x's limit
    c.grid_blocks = 1;
    CHECK(c.grid_for(u8, 64ull << 20, 100) == 1);
    CHECK(c.grid_for(u8, 1ull << 31, 100) == 2);  // one block would see 2^31 samples
    c.grid_blocks = 40;
    CHECK(c.grid_for(u8, 64ull << 20, 100) == 40);
    CHECK(c.grid_for(u8, 64ull << 20, 10) == 10);
    // Tiles of other shapes: 128 threads x 4 loads x 8 u8 samples; one f32 sample per load x 4 x 256.
    c = HistogramConfig{};
    c.block = 128, c.loads = 4, c.vec_bytes = 8, c.grid_blocks = HistogramConfig::kCoverGrid;
    CHECK(c.tile_samples(u8) == 4096);
    CHECK(c.grid_for(u8, 1 << 20, 7) == 256);
    const HistogramProblem f32 = make(SampleType::f32, 1024, 0, 1);
    c.vec_bytes = 0, c.block = 256;
    CHECK(c.tile_samples(f32) == 1024);
    CHECK(c.grid_for(f32, 1 << 20, 7) == 1024);
  }

  TEST_CASE("clusters: whole clusters per grid, by hand") {
    const HistogramProblem u8 = make(SampleType::u8, 256, 0, 256);
    HistogramConfig c;  // tiles of 8192 samples
    c.cluster = 8;
    CHECK(c.grid_for(u8, 0, 100) == 8);         // one cluster even for nothing: it stores the zeros
    CHECK(c.grid_for(u8, 8193, 100) == 8);      // 2 tiles, rounded up to a cluster
    CHECK(c.grid_for(u8, 9 * 8192, 100) == 16);
    CHECK(c.grid_for(u8, 64ull << 20, 100) == 96);  // the resident cap rounds down to whole clusters ...
    CHECK(c.grid_for(u8, 64ull << 20, 5) == 8);     // ... but never below one cluster
    c.grid_blocks = 8;  // the single-cluster path
    CHECK(c.grid_for(u8, 64ull << 20, 100) == 8);
    CHECK(c.grid_for(u8, 1ull << 35, 100) == 24);  // under 2^31 samples per block takes 17 blocks: 3 clusters
    c.grid_blocks = HistogramConfig::kCoverGrid;
    CHECK(c.grid_for(u8, 3 * 8192, 100) == 8);
    CHECK(c.grid_for(u8, 64ull << 20, 100) == 8192);
    CHECK(c.grid_for(u8, 1ull << 50, 100) == 0x7FFFFFF8u);  // gridDim.x's limit, in whole clusters
    // The cluster's totals take one more row of bins in shared memory.
    c = HistogramConfig{};
    c.replicas = 4;
    CHECK(c.shared_bytes(u8) == 4 * 256 * 4);
    c.cluster = 2;
    CHECK(c.shared_bytes(u8) == 5 * 256 * 4);
  }

  TEST_CASE("the family's one-block bound (the lookup's): the largest n one block or one cluster covers; a cap of one "
            "cluster holds every n below 2^31 samples a block; pixels of several channels count their samples") {
    const KernelFamily& family = family_named("histogram");
    auto bound = [&](const HistogramProblem& p, const HistogramConfig& c) {
      return family.one_block_up_to(Problem(p), Config(c));
    };
    const HistogramProblem u8 = make(SampleType::u8, 256, 0, 256);
    HistogramConfig c;  // tiles of 8192 samples
    CHECK(bound(u8, c) == 8192);
    CHECK(c.grid_for(u8, 8192, 264) == 1);
    CHECK(c.grid_for(u8, 8193, 264) == 2);
    // Clusters of 16 (the H200's u16/1024 entry of 64K: one cluster there, two at 110K,
    // bench/results/2026-12-07b-summary.md): 16 tiles.
    c.cluster = 16;
    CHECK(bound(u8, c) == 131072);
    CHECK(c.grid_for(u8, 131072, 264) == 16);
    CHECK(c.grid_for(u8, 131073, 264) == 32);
    c.grid_blocks = 16;  // a cap of one cluster
    CHECK(bound(u8, c) == 34359738367ull);  // 16 x 2^31 - 1
    CHECK(c.grid_for(u8, 34359738367ull, 264) == 16);
    CHECK(c.grid_for(u8, 34359738368ull, 264) == 32);
    c = HistogramConfig{};
    c.grid_blocks = 1;  // the last-block path of one block
    CHECK(bound(u8, c) == 2147483647ull);
    CHECK(c.grid_for(u8, 2147483648ull, 264) == 2);
    c.grid_blocks = 40;  // a cap above one block: tiles decide
    CHECK(bound(u8, c) == 8192);
    // RGBA pixels (4 samples each): a tile of 8192 samples is 2048 pixels.
    HistogramProblem rgba = u8;
    rgba.channels = 4, rgba.active = 3;
    CHECK(bound(rgba, HistogramConfig{}) == 2048);
  }

  TEST_CASE("clusters and self_zero: which combinations are well formed") {
    const HistogramProblem u8 = make(SampleType::u8, 256, 0, 256);
    auto why = [&](auto edit) { return why_invalid(u8, edit); };
    CHECK(why([](auto& c) { c.cluster = 16, c.merge = Merge::self_zero, c.grid_blocks = 16; }) == "");
    CHECK(why([](auto& c) { c.cluster = 2, c.privatization = Privatization::warp; }) == "");
    CHECK(why([](auto& c) { c.cluster = 3; }).find("cluster 3") != std::string::npos);
    CHECK(why([](auto& c) { c.cluster = 32; }) != "");
    CHECK(why([](auto& c) { c.cluster = 4, c.privatization = Privatization::global; }) != "");
    CHECK(why([](auto& c) { c.cluster = 4, c.counter_bits = 16; }) != "");
    CHECK(why([](auto& c) { c.cluster = 8, c.grid_blocks = 12; }).find("whole number") != std::string::npos);
    CHECK(why([](auto& c) { c.merge = Merge::self_zero, c.privatization = Privatization::global; }) != "");
    CHECK(why([](auto& c) { c.merge = Merge::self_zero, c.counter_bits = 16; }) != "");
    CHECK(why([](auto& c) { c.merge = Merge::self_zero, c.privatization = Privatization::warp; }) == "");
  }

  TEST_CASE("the cluster key field is written only for clusters, and old keys mean no cluster") {
    HistogramConfig c;
    CHECK(c.key().find("cluster") == std::string::npos);
    c.cluster = 8, c.merge = Merge::self_zero, c.grid_blocks = 8;
    CHECK(c.key() ==
          "priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,grid=8,"
          "cluster=8");
    const auto back = HistogramConfig::parse(c.key());
    REQUIRE(back.has_value());
    CHECK(*back == c);
    const auto old = HistogramConfig::parse(
        "priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0");
    REQUIRE(old.has_value());
    CHECK(old->cluster == 1);
    CHECK_FALSE(HistogramConfig::parse(
                    "priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0,"
                    "cluster=0")
                    .has_value());
    CHECK_FALSE(HistogramConfig::parse(
                    "priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,"
                    "cluster=4")
                    .has_value());  // grid is still required
    CHECK_FALSE(HistogramConfig::parse(
                    "priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0,"
                    "cluster=1")
                    .has_value());  // key() never spells the default: one key per configuration
  }

  TEST_CASE("evict-first loads: written ld=cs last in the key only when set, 16-byte loads only") {
    const std::string plain =
        "priv=shared,R=32,cbits=32,block=512,vec=16,loads=2,agg=none,part=interleaved,merge=self_zero,grid=0";
    HistogramConfig c = *HistogramConfig::parse(plain);
    CHECK_FALSE(c.load_cs);
    c.load_cs = true;
    CHECK(c.key() == plain + ",ld=cs");
    CHECK(HistogramConfig::parse(plain + ",ld=cs") == c);
    CHECK_FALSE(HistogramConfig::parse(plain + ",ld=nc").has_value());
    CHECK_FALSE(HistogramConfig::parse(plain + ",ld=cs,bin=values").has_value());  // the table's order: bin, then ld
    const HistogramProblem u8 = make(SampleType::u8, 256, 0, 256);
    CHECK(c.invalid_reason(u8) == "");
    c.vec_bytes = 4;
    CHECK(c.invalid_reason(u8) == "ld=cs applies to 16-byte loads, not 4-byte ones");
    c.vec_bytes = 0;
    CHECK(c.invalid_reason(u8).find("one sample per load") != std::string::npos);
    // From 8 MiB of input: 2M f32 samples, 8M u8 ones (and not one sample fewer).
    auto cs = [](HistogramProblem p, std::uint64_t n) {
      p.n = n;
      return count_if(histogram_space(p), [](auto& x) { return x.load_cs; });
    };
    const HistogramProblem f32 = make(SampleType::f32, 1000, 0, 1);
    CHECK(cs(f32, 2u << 20) > 0);
    CHECK(cs(f32, (2u << 20) - 1) == 0);
    CHECK(cs(u8, 8u << 20) > 0);
    CHECK(cs(u8, (8u << 20) - 1) == 0);
  }

  TEST_CASE("bins that fit no shared memory leave only global atomics; last-block merging stops at 65536 bins") {
    const auto huge = histogram_space(make(SampleType::f32, 1 << 20, 0, 1));
    CHECK_FALSE(huge.empty());
    CHECK(count_if(huge, [](auto& c) { return c.privatization != Privatization::global; }) == 0);
    CHECK(count_if(huge, [](auto& c) { return c.merge == Merge::last_block; }) == 0);

    // 65536 bins: 256 KiB of 32-bit counters fit nowhere; 16-bit counters (128 KiB) do, with one copy.
    const HistogramProblem p64k = make(SampleType::u16, 65536, 0, 65536);
    const auto s64k = histogram_space(p64k);
    for (const auto& c : s64k) {
      CAPTURE(c.key());
      if (c.privatization == Privatization::global) continue;
      CHECK(c.counter_bits == 16);
      CHECK(c.replicas == 1);
      CHECK(c.shared_bytes(p64k) == 131072);
    }
    CHECK(count_if(s64k, [](auto& c) { return c.merge == Merge::last_block && c.counter_bits == 16; }) > 0);
  }

  TEST_CASE("copies of a global histogram: only for bins that fit no 48 KiB of shared counters, merged by their own "
            "kernel (merge=atomic), at most 16 MiB of copies per stream's workspace") {
    auto global_copies = [](const auto& c) { return c.privatization == Privatization::global && c.replicas > 1; };
    // 262144 f32 bins: 1 MiB of counters, so R = 4 and 16 (4 and 16 MiB) are measured, R = 32 (32 MiB) is not; each
    const HistogramProblem big = make(SampleType::f32, 262144, 0, 1);
    const auto space = histogram_space(big);
    // with one or two loads in flight, warp aggregation or none, and striped or interleaved in chunks with warp
    // aggregation.
    CHECK(count_if(space, [&](auto& c) { return global_copies(c) && c.replicas == 4; }) == 8);
    CHECK(count_if(space, [&](auto& c) { return global_copies(c) && c.replicas == 16; }) == 8);
    CHECK(count_if(space, [&](auto& c) { return global_copies(c) && c.replicas == 32; }) == 0);
    CHECK(count_if(space, [&](auto& c) { return c.striped; }) == 4);
    CHECK(count_if(space, [&](auto& c) { return c.striped && c.aggregation != Aggregation::warp; }) == 0);
    CHECK(count_if(space, [&](auto& c) { return c.chunk == 256 && c.aggregation == Aggregation::warp; }) == 4);
    // 12288 bins are 48 KiB of 32-bit counters: shared memory holds them, no copies; one bin more: copies.
    CHECK(count_if(histogram_space(make(SampleType::f32, 12288, 0, 1)), global_copies) == 0);
    CHECK(count_if(histogram_space(make(SampleType::f32, 12289, 0, 1)), global_copies) > 0);

    auto why = [&](auto edit) {
      return why_invalid(big, [&](auto& c) {
        c.privatization = Privatization::global, c.replicas = 4, c.merge = Merge::atomic;
        edit(c);
      });
    };
    CHECK(why([](auto&) {}) == "");
    CHECK(why([](auto& c) { c.replicas = 16; }) == "");
    CHECK(why([](auto& c) { c.merge = Merge::last_block; }).find("merge=atomic") != std::string::npos);
    CHECK(why([](auto& c) { c.replicas = 32; }).find("33554432 bytes") != std::string::npos);
    CHECK(why([](auto& c) { c.privatization = Privatization::warp; }).find("replicas") != std::string::npos);

    // The workspace: 64 control words (256 bytes), then the copies, one after the other.
    HistogramConfig c;
    c.privatization = Privatization::global, c.replicas = 16, c.merge = Merge::atomic;
    CHECK(histogram_detail::HistogramWorkspace::bytes(big, c) == 256 + 16 * 262144 * 4);
    c.replicas = 1;
    CHECK(histogram_detail::HistogramWorkspace::bytes(big, c) == 0);  // atomics straight into the zeroed output
  }

  TEST_CASE("striped copies of a global histogram (lay=striped): in the key only when set, only for copies of a "
            "global histogram, each copy 32 stripes of ceil(bins / 32) counters within the 16 MiB") {
    const std::string& plain = kPlainCopies;
    const auto parsed = HistogramConfig::parse(plain + ",lay=striped");
    REQUIRE(parsed);
    CHECK(parsed->striped);
    CHECK(parsed->key() == plain + ",lay=striped");
    REQUIRE(HistogramConfig::parse(plain));
    CHECK_FALSE(HistogramConfig::parse(plain)->striped);  // keys written before the field keep their meaning
    CHECK_FALSE(HistogramConfig::parse(plain + ",lay=plain"));
    CHECK_FALSE(HistogramConfig::parse(plain + ",lay="));

    // 792570 bins (not a multiple of 32): stripes of 24768 counters, 792576 per copy; 4 copies of 32-bit counters.
    const HistogramProblem odd = make(SampleType::f32, 792570, -4, 296);
    HistogramConfig c = *parsed;
    CHECK(histogram_detail::HistogramWorkspace::copy_counters(odd, c) == 32 * 24768);
    CHECK(histogram_detail::HistogramWorkspace::bytes(odd, c) == 256 + 4 * 792576 * 4);
    c.striped = false;
    CHECK(histogram_detail::HistogramWorkspace::bytes(odd, c) == 256 + 4 * 792570 * 4);
    // 64-bit counters: twice the bytes.
    HistogramProblem wide = make(SampleType::u32, 100003, 0, 100003);
    wide.counter_bits = 64;
    c.striped = true;
    CHECK(histogram_detail::HistogramWorkspace::bytes(wide, c) == 256 + 4 * (32 * 3126) * 8);

    auto why = [&](const HistogramProblem& p, auto edit) { return why_invalid_from(*parsed, p, edit); };
    CHECK(why(odd, [](auto&) {}) == "");
    CHECK(why(odd, [](auto& x) { x.replicas = 1; }).find("striped copies") != std::string::npos);
    CHECK(why(odd, [](auto& x) { x.privatization = Privatization::shared; }).find("striped copies") !=
          std::string::npos);
    // 8 striped copies of 792576 counters are 25362432 bytes, past 16 MiB.
    CHECK(why(odd, [](auto& x) { x.replicas = 8; }).find("25362432 bytes") != std::string::npos);
    // A transfer to more bins halves R until the copies fit 16 MiB (runnable); at one histogram nothing is striped.
    const KernelFamily& family = family_named("histogram");
    const DeviceInfo h100 = test::h100_device("GPU-striped-copies");
    const std::string r16 = "priv=global,R=16,cbits=32,block=512,vec=16,loads=2,agg=warp,part=interleaved,"
                            "merge=atomic,grid=0,lay=striped";
    auto a = family.adapt_config(Problem(odd), *Config::parse("histogram", r16), &h100);
    REQUIRE(a.has_value());
    CHECK(a->config.key() == "priv=global,R=4,cbits=32,block=512,vec=16,loads=2,agg=warp,part=interleaved,"
                             "merge=atomic,grid=0,lay=striped");
    CHECK(a->change == "R=4");
    const HistogramProblem huge = make(SampleType::f32, 1 << 24, 0, 1);  // 64 MiB of counters: no copies fit
    a = family.adapt_config(Problem(huge), *Config::parse("histogram", r16), &h100);
    REQUIRE(a.has_value());
    CHECK(a->config.key() == "priv=global,R=1,cbits=32,block=512,vec=16,loads=2,agg=warp,part=interleaved,"
                             "merge=atomic,grid=0");
    CHECK(a->change == "R=1, not striped");
    // Only for bins past 48 KiB of shared counters, as the plain copies.
    CHECK(count_if(histogram_space(make(SampleType::f32, 12288, 0, 1)), [](auto& x) { return x.striped; }) == 0);
    CHECK(count_if(histogram_space(make(SampleType::f32, 12289, 0, 1)), [](auto& x) { return x.striped; }) == 6);
  }

  TEST_CASE("copies interleaved in chunks (chunk=N): in the key only when set, a power of two from 32 to 65536, only "
            "for copies of a global histogram and not striped, each copy padded to whole chunks within the 16 MiB") {
    const std::string& plain = kPlainCopies;
    const std::optional<HistogramConfig> parsed = check_optional_number(plain, "chunk", &HistogramConfig::chunk, 32);

    // 792570 bins: 24768 chunks of 32 (792576 counters per copy), 194 chunks of 4096 (794624).
    const HistogramProblem odd = make(SampleType::f32, 792570, -4, 296);
    HistogramConfig c = *parsed;
    CHECK(histogram_detail::HistogramWorkspace::copy_counters(odd, c) == 792576);
    CHECK(histogram_detail::HistogramWorkspace::bytes(odd, c) == 256 + 4 * 792576 * 4);
    c.chunk = 4096;
    CHECK(histogram_detail::HistogramWorkspace::bytes(odd, c) == 256 + 4 * 794624 * 4);

    auto why = [&](const HistogramProblem& p, auto edit) { return why_invalid_from(*parsed, p, edit); };
    CHECK(why(odd, [](auto&) {}) == "");
    CHECK(why(odd, [](auto& x) { x.chunk = 65536; }) == "");
    for (int bad : {16, 48, 131072})
      CHECK(why(odd, [bad](auto& x) { x.chunk = bad; }).find("not a power of two from 32 to 65536") !=
            std::string::npos);
    CHECK(why(odd, [](auto& x) { x.replicas = 1; }).find("interleaved copies") != std::string::npos);
    CHECK(why(odd, [](auto& x) { x.privatization = Privatization::shared; }).find("interleaved copies") !=
          std::string::npos);
    CHECK(why(odd, [](auto& x) { x.striped = true; }).find("not both") != std::string::npos);
    // 8 copies of 792576 counters are 25362432 bytes, past 16 MiB.
    CHECK(why(odd, [](auto& x) { x.replicas = 8; }).find("25362432 bytes") != std::string::npos);
    // A transfer to more bins halves R until the copies fit; at one histogram nothing is interleaved.
    const KernelFamily& family = family_named("histogram");
    const DeviceInfo h100 = test::h100_device("GPU-chunked-copies");
    const HistogramProblem huge = make(SampleType::f32, 1 << 24, 0, 1);
    auto a = family.adapt_config(Problem(huge), *Config::parse("histogram", plain + ",chunk=32"), &h100);
    REQUIRE(a.has_value());
    CHECK(a->config.key() == "priv=global,R=1,cbits=32,block=512,vec=16,loads=1,agg=warp,part=interleaved,"
                             "merge=atomic,grid=0");
    CHECK(a->change == "R=1, chunk=0");
    // In the space where the plain copies are: bins past 48 KiB of shared counters.
    CHECK(count_if(histogram_space(make(SampleType::f32, 12288, 0, 1)), [](auto& x) { return x.chunk > 0; }) == 0);
    CHECK(count_if(histogram_space(make(SampleType::f32, 12289, 0, 1)), [](auto& x) { return x.chunk > 0; }) == 6);
  }

  TEST_CASE("a window of shared counters beside a global histogram (win=N): in the key only when set, a power of two "
            "from 1024 to 32768 with priv=global only, 4 bytes a counter of shared memory, measured only where the bins "
            "fit no 48 KiB of shared counters") {
    const std::string plain =
        "priv=global,R=1,cbits=32,block=512,vec=16,loads=1,agg=warp,part=interleaved,merge=atomic,grid=0";
    const std::optional<HistogramConfig> parsed = check_optional_number(plain, "win", &HistogramConfig::window, 4096);
    // After the layout fields of global copies.
    const auto copies = HistogramConfig::parse(kPlainCopies + ",chunk=256,win=16384");
    REQUIRE(copies);
    CHECK(copies->key() == kPlainCopies + ",chunk=256,win=16384");

    const HistogramProblem big = make(SampleType::f32, 1 << 20, 0, 1), few = make(SampleType::f32, 100, 0, 1);
    CHECK(parsed->shared_bytes(big) == 16384);
    CHECK(parsed->shared_bytes(few) == 16384);  // the window holds every bin: still its 4096 counters
    HistogramConfig none = *parsed;
    none.window = 0;
    CHECK(none.shared_bytes(big) == 0);

    auto why = [&](const HistogramProblem& p, auto edit) { return why_invalid_from(*parsed, p, edit); };
    CHECK(why(big, [](auto&) {}) == "");
    CHECK(why(few, [](auto&) {}) == "");  // fewer bins than the window: it starts at bin 0 and holds them all
    CHECK(why(big, [](auto& x) { x.window = 1024; }) == "");
    CHECK(why(big, [](auto& x) { x.window = 32768; }) == "");
    for (int bad : {512, 3000, 65536})
      CHECK(why(big, [bad](auto& x) { x.window = bad; }).find("not a power of two from 1024 to 32768") !=
            std::string::npos);
    CHECK(why(big, [](auto& x) { x.privatization = Privatization::shared; }).find("priv=global") != std::string::npos);
    // 32768 counters are 128 KiB: within an H100 block's 227 KiB; a block of 96 KiB (sm_70) does not hold them,
    // and a transfer there drops the window.
    const DeviceInfo h100 = test::h100_device("GPU-window");
    HistogramConfig wide = *parsed;
    wide.window = 32768;
    CHECK(histogram_violation(big, wide, &h100) == "");
    DeviceInfo small = h100;
    small.shared_per_block_optin = 96 * 1024;
    CHECK(histogram_violation(big, wide, &small).find("131072 bytes of shared memory") != std::string::npos);
    const auto a = family_named("histogram").adapt_config(Problem(big), Config(wide), &small);
    REQUIRE(a.has_value());
    CHECK(a->config.key() == plain);
    CHECK(a->change == "win=0");

    // The space: 16 windowed variants (4096 and 16384 counters, 512 and 1024 threads, one or two loads, warp
    // aggregation or none) past 48 KiB of shared counters, 4 more with evict-first loads for inputs from 8 MiB.
    auto windowed = [](const auto& c) { return c.window > 0; };
    CHECK(count_if(histogram_space(make(SampleType::f32, 12288, 0, 1)), windowed) == 0);
    CHECK(count_if(histogram_space(make(SampleType::f32, 12289, 0, 1)), windowed) == 16);
    HistogramProblem streamed = big;
    streamed.n = 64ull << 20;
    const auto space = histogram_space(streamed);
    CHECK(count_if(space, windowed) == 20);
    CHECK(count_if(space, [](auto& c) { return c.window > 0 && c.load_cs; }) == 4);
    CHECK(count_if(space, [](auto& c) { return c.window > 0 && c.privatization != Privatization::global; }) == 0);
  }

  TEST_CASE("a transfer that moves to 16-bit counters takes warp aggregation on runs and constant samples only") {
    // The f16/32768 policy entry at 16M (32-bit counters, no aggregation) for f16 with 71379 bins: 279 KiB of 32-bit
    // counters fit no H100 block, 16-bit ones (140 KiB) do.
    const KernelFamily& family = family_named("histogram");
    const DeviceInfo h100 = test::h100_device("GPU-counters16-runs");
    const std::string entry = "priv=shared,R=1,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,"
                              "merge=self_zero,grid=0,ld=cs";
    const std::string sixteen = "priv=shared,R=1,cbits=16,block=1024,vec=16,loads=2,agg=none,part=interleaved,"
                                "merge=atomic,grid=0,ld=cs";
    HistogramProblem p = make(SampleType::f16, 71379, 0.02, 300.02);
    for (const char* dist : {"runs", "constant", "uniform", "narrow", "image"}) {
      CAPTURE(dist);
      p.distribution = dist;
      const auto a = family.adapt_config(Problem(p), *Config::parse("histogram", entry), &h100);
      REQUIRE(a.has_value());
      const bool concentrated = std::string(dist) == "runs" || std::string(dist) == "constant";
      CHECK(a->config.key() == (concentrated ? "priv=shared,R=1,cbits=16,block=1024,vec=16,loads=2,agg=warp,"
                                               "part=interleaved,merge=atomic,grid=0,ld=cs"
                                             : sixteen));
      CHECK(a->change == (concentrated ? "cbits=16, merge=atomic, agg=warp" : "cbits=16, merge=atomic"));
      // A configuration that has 16-bit counters already was measured with them: left as it is, on runs too.
      CHECK(family.adapt_config(Problem(p), *Config::parse("histogram", sixteen), &h100)->change == "");
    }
    // 32-bit counters that fit keep no aggregation on runs (they were the runs winners at 32768 bins).
    p = make(SampleType::f16, 32768, 0, 1);
    p.distribution = "runs";
    CHECK(family.adapt_config(Problem(p), *Config::parse("histogram", entry), &h100)->change == "");
  }

  TEST_CASE("16-bit float values in a range, by their bit patterns: bf16 holds 16 over [-100, -92), 2 over "
            "[-100, -99.25), 16256 over [0, 1); f16 128 over [-100, -92); other types are not counted") {
    using histogram_detail::float16_values;
    // bf16 keeps 7 mantissa bits: over [64, 128) its step is 64 / 128 = 0.5, so 8 / 0.5 = 16 values in [92, 100);
    // 0.75 / 0.5 rounds to 2 (99.5 and 100 in (99.25, 100]). f16 keeps 10: a step of 64 / 1024, 128 values in 8.
    CHECK(float16_values(SampleType::bf16, -100, -92) == 16);
    CHECK(float16_values(SampleType::bf16, -100, -99.25) == 2);
    CHECK(float16_values(SampleType::f16, -100, -92) == 128);
    CHECK(float16_values(SampleType::f16, 92, 100) == 128);
    // Non-negative values count up with their bit patterns: 1.0f's bf16 pattern is 0x3F80, f16's 0x3C00.
    CHECK(float16_values(SampleType::bf16, 0, 1) == 0x3F80);
    CHECK(float16_values(SampleType::f16, 0, 1) == 0x3C00);
    // A range across 0 counts both sides; past the largest finite value (f16: 65504, pattern 0x7BFF) nothing more.
    CHECK(float16_values(SampleType::f16, -1, 1) == 2 * 0x3C00);
    CHECK(float16_values(SampleType::f16, 0, 1e9) == 0x7BFF);
    CHECK(float16_values(SampleType::f32, -100, -92) == 0);
    CHECK(float16_values(SampleType::u16, 0, 65536) == 0);
  }

  TEST_CASE("sparse bins (more than 8 bins a 16-bit float value in every active channel): windowed global "
            "configurations are replaced by copies on uniform samples and runs, from the n whose input passes twice "
            "the copies' bytes; not on narrow or image-like ones, nor dense bins") {
    using histogram_detail::sparse_bins;
    CHECK(sparse_bins(make(SampleType::bf16, 273541, -100, -92)));
    CHECK(sparse_bins(make(SampleType::bf16, 129, -100, -92)));       // 129 > 8 x 16
    CHECK_FALSE(sparse_bins(make(SampleType::bf16, 128, -100, -92)));
    CHECK_FALSE(sparse_bins(make(SampleType::f32, 273541, -100, -92)));  // 2^20 f32 values in that range
    CHECK_FALSE(sparse_bins(make(SampleType::bf16, 50000, -4, 296)));   // bf16 holds 33813 values there
    HistogramProblem two = make(SampleType::bf16, 273541, -100, -92);  // a second channel of many values: not sparse
    two.channels = two.active = 2;
    two.per_channel = {{273541, -100, -92}, {273541, 0, 1}};
    CHECK(sparse_bins(two) == (273541 > 8 * 0x3F80));

    // The windowed f32/262144 policy entry (H100). Copies of 273541 bins (padded to whole chunks of 256: 273664
    // counters) take 8 x 1 MiB and a bit, 16 of them would pass the 16 MiB workspace; 209217 bins (209408) take 16.
    // With the 256 bytes of control words: 8757504 and 13402368 bytes, and bf16 samples are 2 bytes each, so the
    // copies run from n = 8757504 and 13402368 (twice the copies' bytes of input).
    const KernelFamily& family = family_named("histogram");
    const DeviceInfo h100 = test::h100_device("GPU-sparse-copies");
    const std::string windowed = "priv=global,R=1,cbits=32,block=1024,vec=16,loads=1,agg=warp,part=interleaved,"
                                 "merge=atomic,grid=0,ld=cs,win=4096";
    auto copies = [](int r) {
      return fmt::format("priv=global,R={},cbits=32,block=512,vec=16,loads=2,agg=warp,part=interleaved,merge=atomic,"
                         "grid=0,ld=cs,chunk=256", r);
    };
    const Config w = *Config::parse("histogram", windowed);
    for (const char* dist : {"uniform", "runs", "narrow", "image"}) {
      CAPTURE(dist);
      const bool spread = std::string(dist) == "uniform" || std::string(dist) == "runs";
      HistogramProblem p = make(SampleType::bf16, 273541, -100, -92);
      p.n = 16777216;
      p.distribution = dist;
      // A transfer keeps the window (the rule is the size table's, at the served n).
      CHECK(family.adapt_config(Problem(p), w, &h100)->change == "");
      auto r = family.replaced_from(Problem(p), w, &h100);
      REQUIRE(r.has_value() == spread);
      if (spread) {
        CHECK(r->config.key() == copies(8));
        CHECK(r->n_from == 8757504);
        CHECK(r->why.find("16 values") != std::string::npos);
      }
      p = make(SampleType::bf16, 209217, 0, 1);
      p.distribution = dist;
      r = family.replaced_from(Problem(p), w, &h100);
      REQUIRE(r.has_value() == spread);
      if (spread) {
        CHECK(r->config.key() == copies(16));
        CHECK(r->n_from == 13402368);
      }
      // Dense bins keep the window: f32 over the same range, and bf16 over a range it resolves.
      p = make(SampleType::f32, 273541, -100, -92);
      p.distribution = dist;
      CHECK_FALSE(family.replaced_from(Problem(p), w, &h100));
      p = make(SampleType::bf16, 20000, 0, 1);
      p.distribution = dist;
      CHECK_FALSE(family.replaced_from(Problem(p), w, &h100));
    }
    // Configurations without a window are left as they are (a measured copies or plain global winner).
    HistogramProblem p = make(SampleType::bf16, 273541, -100, -92);
    p.distribution = "runs";
    CHECK_FALSE(family.replaced_from(Problem(p), *Config::parse("histogram", copies(8)), &h100));
    const std::string plain = "priv=global,R=1,cbits=32,block=1024,vec=16,loads=1,agg=warp,part=interleaved,"
                              "merge=atomic,grid=0";
    CHECK_FALSE(family.replaced_from(Problem(p), *Config::parse("histogram", plain), &h100));
  }

  TEST_CASE("shared memory per configuration, by hand") {
    const HistogramProblem u8 = make(SampleType::u8, 256, 0, 256);
    HistogramConfig c;
    c.privatization = Privatization::shared, c.replicas = 32;
    CHECK(c.shared_bytes(u8) == 256 * 32 * 4);
    c.counter_bits = 16;
    CHECK(c.shared_bytes(u8) == 128 * 32 * 4);
    c = HistogramConfig{};
    c.privatization = Privatization::warp, c.block = 512;  // 16 warps
    CHECK(c.shared_bytes(u8) == 16 * 256 * 4);
    c.privatization = Privatization::global;
    CHECK(c.shared_bytes(u8) == 0);
    const HistogramProblem odd = make(SampleType::u8, 7, 0, 256);
    c = HistogramConfig{};
    c.counter_bits = 16;  // 7 bins: 4 words
    CHECK(c.shared_bytes(odd) == 16);
  }

  TEST_CASE("malformed configurations are named") {
    const HistogramProblem f32 = make(SampleType::f32, 100, 0, 1);
    auto why = [&](auto edit) { return why_invalid(f32, edit); };
    CHECK(why([](auto&) {}) == "");
    CHECK(why([](auto& c) { c.block = 48; }).find("multiple of 32") != std::string::npos);
    CHECK(why([](auto& c) { c.vec_bytes = 2; }).find("do not fit f32") != std::string::npos);
    CHECK(why([](auto& c) { c.vec_bytes = 32; }) != "");
    CHECK(why([](auto& c) { c.replicas = 3; }).find("power of two") != std::string::npos);
    CHECK(why([](auto& c) { c.privatization = Privatization::global, c.counter_bits = 16; }) != "");
    CHECK(why([](auto& c) { c.counter_bits = 16, c.merge = Merge::last_block; }) == "");
    CHECK(why([](auto& c) { c.privatization = Privatization::warp, c.replicas = 4; }) != "");
    CHECK(why([](auto& c) { c.vec_bytes = 8, c.block = 64; }) == "");
    CHECK(why([](auto& c) { c.grid_blocks = HistogramConfig::kCoverGrid; }) == "");
    CHECK(why([](auto& c) { c.grid_blocks = -2; }).find("cover n") != std::string::npos);
  }

  TEST_CASE("every configuration survives key() -> parse()") {
    for (const auto& p : {make(SampleType::u8, 256, 0, 256), make(SampleType::f32, 65536, 0, 1)})
      for (const auto& c : space_decl::any_n(p, histogram_space)) {
        const auto back = HistogramConfig::parse(c.key());
        REQUIRE(back.has_value());
        CHECK(*back == c);
      }
  }

  TEST_CASE("keys of the first schema still parse, as one-sample loads") {
    const auto c = HistogramConfig::parse("priv=shared,block=512,ipt=16,agg=1,part=contiguous");
    REQUIRE(c.has_value());
    CHECK(c->privatization == Privatization::shared);
    CHECK(c->block == 512);
    CHECK(c->loads == 16);
    CHECK(c->vec_bytes == 0);
    CHECK(c->aggregation == Aggregation::run);
    CHECK(c->partitioning == Partitioning::contiguous);
    CHECK(c->merge == Merge::atomic);
    CHECK(c->replicas == 1);
  }

  TEST_CASE("keys written before issue #3 still parse to the same configurations; the new grid reads back") {
    const auto old = HistogramConfig::parse(
        "priv=shared,R=32,cbits=16,block=512,vec=16,loads=4,agg=warp,part=contiguous,merge=last_block,grid=1");
    REQUIRE(old.has_value());
    CHECK(old->privatization == Privatization::shared);
    CHECK(old->replicas == 32);
    CHECK(old->counter_bits == 16);
    CHECK(old->block == 512);
    CHECK(old->vec_bytes == 16);
    CHECK(old->loads == 4);
    CHECK(old->aggregation == Aggregation::warp);
    CHECK(old->partitioning == Partitioning::contiguous);
    CHECK(old->merge == Merge::last_block);
    CHECK(old->grid_blocks == 1);
    const std::string resident = "priv=global,R=1,cbits=32,block=256,vec=0,loads=4,agg=run,part=interleaved,merge=atomic,grid=0";
    REQUIRE(HistogramConfig::parse(resident).has_value());
    CHECK(HistogramConfig::parse(resident)->grid_blocks == HistogramConfig::kResidentGrid);
    CHECK(HistogramConfig::parse(resident)->key() == resident);  // the text written for it is unchanged
    const auto cover = HistogramConfig::parse(
        "priv=shared,R=4,cbits=32,block=128,vec=8,loads=8,agg=none,part=interleaved,merge=atomic,grid=-1");
    REQUIRE(cover.has_value());
    CHECK(cover->grid_blocks == HistogramConfig::kCoverGrid);
    CHECK(cover->block == 128);
    CHECK(cover->vec_bytes == 8);
  }

  TEST_CASE("parse refuses what key() never writes") {
    const std::string good = HistogramConfig{}.key();
    CHECK(HistogramConfig::parse(good).has_value());
    CHECK_FALSE(HistogramConfig::parse("").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared").has_value());
    CHECK_FALSE(HistogramConfig::parse(good + ",extra=1").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=-2").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=local,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,R=1,cbits=32,block=-1,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=sum,part=interleaved,merge=atomic,grid=0").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,R=1,cbits=32,block=256x,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=shared,block=256,ipt=4,agg=2,part=interleaved").has_value());
    CHECK_FALSE(HistogramConfig::parse("priv=warp,block=256,ipt=4,agg=0,part=interleaved").has_value());
  }

  TEST_CASE("device limits prune the space before anything is compiled") {
    DeviceInfo small;
    small.max_threads_per_block = 512;
    small.shared_per_block_optin = 48 * 1024;
    HistogramProblem p;  // 256 bins
    HistogramConfig c;
    c.block = 1024;
    CHECK(histogram_violation(p, c, &small).find("1024 threads") != std::string::npos);
    c.block = 512;
    CHECK(histogram_violation(p, c, &small).empty());
    c.replicas = 32;  // 32 KiB
    CHECK(histogram_violation(p, c, &small).empty());
    p.type = SampleType::u16, p.bins = 16384, p.upper = 65536;  // 64 KiB with one copy
    c.replicas = 1;
    CHECK(histogram_violation(p, c, &small).find("shared memory") != std::string::npos);
    c.privatization = Privatization::global;
    CHECK(histogram_violation(p, c, &small).empty());
  }

  TEST_CASE("the fallback stays within 48 KiB of shared memory, loads 16 bytes for one channel and one sample for "
            "pixels, and aggregates a warp's equal bins into a global histogram") {
    HistogramProblem p = make(SampleType::f32, 12288, 0, 1);  // exactly 48 KiB
    HistogramConfig c = HistogramConfig::fallback(p);
    CHECK(c.key() == "priv=shared,R=1,cbits=32,block=512,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0");
    CHECK(c.invalid_reason(p) == "");
    p.bins = 12289;
    c = HistogramConfig::fallback(p);
    CHECK(c.key() == "priv=global,R=1,cbits=32,block=256,vec=16,loads=1,agg=warp,part=interleaved,merge=atomic,grid=0");
    CHECK(c.invalid_reason(p) == "");
    // Pixels: one sample per load (vectors of whole pixels would need a pixel-aligned pointer).
    HistogramProblem rgba = make(SampleType::u8, 64, 0, 256);
    rgba.channels = 4, rgba.active = 3;
    c = HistogramConfig::fallback(rgba);
    CHECK(c.vec_bytes == 0);
    CHECK(c.invalid_reason(rgba) == "");
    // Every one-channel type takes the 16-byte fallback where it is valid (2 bins of each sample type).
    for (SampleType t : {SampleType::u16, SampleType::i16, SampleType::i32, SampleType::u32, SampleType::f64,
                         SampleType::f16, SampleType::bf16}) {
      CAPTURE(to_string(t));
      HistogramProblem two = make(t, 2, 0, 2);
      CHECK(HistogramConfig::fallback(two).vec_bytes == 16);
      CHECK(HistogramConfig::fallback(two).invalid_reason(two) == "");
    }
  }
}
