#include "kernel_templates/histogram/space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/launch_limits.hpp"
#include "kernel_templates/histogram/value_bins.hpp"

namespace autotune {

namespace {

// The largest shared memory per block of any GPU we target (sm_90 opt-in: 227 KiB); the device check is exact.
constexpr std::size_t kMaxSharedAnyGpu = 227 * 1024;
// Last-block merging moves the whole histogram with one block: past this many bins that alone costs more than a
// zeroing launch.
constexpr int kLastBlockMaxBins = 65536;
// Up to this many samples the single-block path is worth measuring; above it, grids that cover n with one tile per
// block differ from a resident grid (below it, one wave of resident blocks already holds every tile on a big GPU,
// so a cover-n variant would only measure a resident-grid variant twice).
constexpr std::uint64_t kSmallN = 4u << 20;

struct Builder {
  const HistogramProblem& problem;
  std::vector<HistogramConfig> out;
  void add(const HistogramConfig& c) {
    if (!c.invalid_reason(problem).empty()) return;
    if (c.shared_bytes(problem) > kMaxSharedAnyGpu) return;
    if (c.merge == Merge::last_block && problem.counters() > kLastBlockMaxBins) return;
    for (const auto& e : out)
      if (e == c) return;
    out.push_back(c);
  }
};

HistogramConfig make(Privatization p, int r, int cbits, int block, int vec, int loads, Aggregation a, Partitioning part,
                     Merge m) {
  HistogramConfig c;
  c.privatization = p, c.replicas = r, c.counter_bits = cbits, c.block = block, c.vec_bytes = vec, c.loads = loads;
  c.aggregation = a, c.partitioning = part, c.merge = m;
  return c;
}

HistogramConfig cover(HistogramConfig c) {
  c.grid_blocks = HistogramConfig::kCoverGrid;
  return c;
}

// (aggregation, partitioning) pairs worth measuring: runs survive only inside one thread's contiguous items.
constexpr std::pair<Aggregation, Partitioning> kAggParts[] = {
    {Aggregation::none, Partitioning::interleaved},
    {Aggregation::warp, Partitioning::interleaved},
    {Aggregation::run, Partitioning::contiguous},
};

// 11. u8 (and i8) samples whose bins are not the byte values: count the 256 values and map them to bins once per block
//     (bin=values), the shapes of the u8/256 winners by size (bench/results/2026-12-01b-h200-size-bench-u8.md):
//     R = 16 and 32 copies with 256..1024 threads and 2 or 4 loads, one launch (self_zero) or a zeroing launch,
//     up to 512 MiB; one copy for the sizes around 1M; the 4-byte-load variant of 4M; one block for small n. Any
//     bins and range then cost what 256 bins cost, where the direct kernel divides per sample.
//     Not for u16: its 65536 values need 16-bit counters in 128 KiB (one copy, so one block per SM and bank
//     conflicts on real data, a wrap check per sample) and a 65536-entry map per block, while its direct bin is a
//     32-bit multiply-high and a shift (the compiler folds the exact 64-bit formula with the template's constants
//     where a 16-bit value times the bins fits 32 bits), counted into lane-interleaved copies of few bins without
//     conflicts.
void add_values(Builder& b) {
  const HistogramProblem& p = b.problem;
  if ((p.type != SampleType::u8 && p.type != SampleType::i8) || histogram_detail::values_are_bins(p)) return;
  auto values = [](HistogramConfig c) {
    c.binning = Binning::values;
    return c;
  };
  using P = Privatization;
  constexpr auto kNone = Aggregation::none;
  constexpr auto kInter = Partitioning::interleaved;
  for (int r : {16, 32})
    for (int block : {256, 512, 1024})
      for (int loads : {2, 4})
        for (Merge m : {Merge::atomic, Merge::self_zero})
          b.add(values(make(P::shared, r, 32, block, 16, loads, kNone, kInter, m)));
  for (int block : {256, 1024})
    for (int loads : {1, 2}) b.add(values(make(P::shared, 1, 32, block, 16, loads, kNone, kInter, Merge::atomic)));
  b.add(values(make(P::shared, 16, 32, 512, 4, 16, kNone, kInter, Merge::atomic)));
  if (p.n > kSmallN) return;
  for (int block : {512, 1024})
    for (int loads : {2, 4}) {
      HistogramConfig c = values(make(P::shared, 1, 32, block, 16, loads, kNone, kInter, Merge::last_block));
      c.grid_blocks = 1;
      b.add(c);
    }
  b.add(values(make(P::warp, 1, 32, 256, 16, 2, kNone, kInter, Merge::last_block)));
}


using P = Privatization;

// 1-2: the seed chapter's one-sample loads, and global atomics with 16-byte loads.
void add_global_and_seed(Builder& b) {
  // 1. The seed chapter's kernels: one sample per load.
  for (P p : {P::global, P::shared})
    for (int loads : {1, 4})
      for (Aggregation a : {Aggregation::none, Aggregation::run})
        for (Partitioning part : {Partitioning::interleaved, Partitioning::contiguous})
          b.add(make(p, 1, 32, 256, 0, loads, a, part, Merge::atomic));
  // 2. Global atomics with 16-byte loads: the path for bins that fit no shared memory (L2-resident histogram).
  for (int block : {256, 512, 1024})
    for (int loads : {1, 2, 4})
      for (Aggregation a : {Aggregation::none, Aggregation::warp})
        for (Merge m : {Merge::atomic, Merge::last_block})
          b.add(make(P::global, 1, 32, block, 16, loads, a, Partitioning::interleaved, m));
}

// 3-5: shared copies, per-warp copies, 16-bit shared counters.
void add_shared(Builder& b) {
  // 3. Shared histograms with R lane-interleaved copies (R = 32: every lane owns its bank), merged with atomics
  //    into the zeroed output or in one launch with self_zero (no zeroing launch, no ticket at the end; it replaced
  //    last_block here: where last_block won in this family (u8/256 at 4K samples, H200) the grid was one block,
  //    which self_zero runs the same way, storing the block's histogram).
  for (int r : {1, 4, 16, 32})
    for (int block : {256, 512, 1024})
      for (int loads : {1, 2, 4})
        for (auto [a, part] : kAggParts)
          for (Merge m : {Merge::atomic, Merge::self_zero}) b.add(make(P::shared, r, 32, block, 16, loads, a, part, m));
  // 4. One copy per warp.
  for (int block : {256, 512})
    for (int loads : {1, 2, 4})
      for (auto [a, part] : kAggParts)
        for (Merge m : {Merge::atomic, Merge::last_block}) b.add(make(P::warp, 1, 32, block, 16, loads, a, part, m));
  // 5. 16-bit shared counters: twice the bins in the same memory (65536 bins in 128 KiB).
  for (int r : {1, 2})
    for (int block : {256, 512, 1024})
      for (int loads : {2, 4})
        for (Aggregation a : {Aggregation::none, Aggregation::warp})
          for (Merge m : {Merge::atomic, Merge::last_block})
            b.add(make(P::shared, r, 16, block, 16, loads, a, Partitioning::interleaved, m));
}

// 6-7: 4- and 8-byte loads, and blocks of 64 and 128 threads.
void add_narrow_loads_and_small_blocks(Builder& b, const HistogramProblem& problem) {
  // 6. Loads of 4 and 8 bytes (issue #3): fewer samples per load to extract, more loads in flight for the same
  //    bytes. Only widths above the sample size: a width equal to it is the one-sample load of family 1. Tried
  //    where 16-byte loads win (R = 16 and 32 copies, 256 and 512 threads) with the same 32 or 64 bytes in flight
  //    per thread as the 16-byte variants, and with 16-bit counters for the bins that need them.
  for (int vec : {4, 8}) {
    if (vec <= static_cast<int>(size_of(problem.type))) continue;
    const int min_loads = 32 / vec;  // 32 bytes in flight per thread ...
    for (int r : {16, 32})
      for (int block : {256, 512})
        for (int loads : {min_loads, 2 * min_loads})  // ... or 64
          for (Merge m : {Merge::atomic, Merge::last_block})
            b.add(make(P::shared, r, 32, block, vec, loads, Aggregation::none, Partitioning::interleaved, m));
    for (int loads : {min_loads, 2 * min_loads})
      for (Merge m : {Merge::atomic, Merge::last_block})
        b.add(make(P::shared, 1, 16, 512, vec, loads, Aggregation::none, Partitioning::interleaved, m));
  }
  // 7. Blocks of 64 and 128 threads (issue #3), where a small block costs no occupancy: global atomics, few shared
  //    copies (R = 1, 4) and per-warp copies (2 or 4 warps), so that 16 to 32 blocks fit on a multiprocessor and
  //    small inputs spread over more of them. (R = 32 copies of 256 bins are 32 KiB per block: 64 threads would
  //    leave an SM a quarter full.)
  for (int block : {64, 128})
    for (int loads : {2, 4})
      for (Merge m : {Merge::atomic, Merge::last_block, Merge::self_zero}) {
        if (m == Merge::self_zero && problem.n > kSmallN) continue;  // small blocks are for small n; no globals
        b.add(make(P::global, 1, 32, block, 16, loads, Aggregation::none, Partitioning::interleaved, m));
        for (int r : {1, 4}) b.add(make(P::shared, r, 32, block, 16, loads, Aggregation::none, Partitioning::interleaved, m));
        b.add(make(P::warp, 1, 32, block, 16, loads, Aggregation::none, Partitioning::interleaved, m));
      }
}

// 8: cover-n grids, above kSmallN.
void add_cover_n(Builder& b) {
  // 8. Cover n (issue #3): one tile per block, as many waves as n needs, instead of a persistent resident grid.
  //    Each block pays its shared setup and merge per tile, so only the cheap ones, with big tiles (4 and 8
  //    loads): global atomics, R = 1, 4 or 32 copies, per-warp copies at 256 threads.
  for (int loads : {4, 8}) {
    for (int block : {256, 512}) {
      b.add(cover(make(P::global, 1, 32, block, 16, loads, Aggregation::none, Partitioning::interleaved,
                       Merge::atomic)));
      for (int r : {1, 4, 32})
        b.add(cover(make(P::shared, r, 32, block, 16, loads, Aggregation::none, Partitioning::interleaved,
                         Merge::atomic)));
    }
    b.add(cover(make(P::warp, 1, 32, 256, 16, loads, Aggregation::none, Partitioning::interleaved, Merge::atomic)));
    for (auto [r, block] : {std::pair{1, 256}, std::pair{1, 512}, std::pair{32, 512}})
      b.add(cover(make(P::shared, r, 32, block, 16, loads, Aggregation::none, Partitioning::interleaved,
                       Merge::self_zero)));
  }
}

// 9-10: one block, and thread-block clusters, at or below kSmallN.
void add_small_n(Builder& b) {
  // 9. The small-n path: one block, no atomics outside it, one launch. Pointless past a few million samples.
  for (int block : {256, 512, 1024})
    for (int loads : {1, 2, 4}) {
      HistogramConfig c = make(P::shared, 1, 32, block, 16, loads, Aggregation::none, Partitioning::interleaved,
                               Merge::last_block);
      c.grid_blocks = 1;
      b.add(c);
      c.privatization = P::warp;
      b.add(c);
    }
  // 10. Thread-block clusters (sm_90+) for small n. One cluster of 4, 8 or 16 blocks (grid = cluster): the blocks sum
  //     their histograms through distributed shared memory and store the answer, one launch with no atomics outside
  //     shared memory and no workspace: the single-block path spread over up to 16 multiprocessors. And resident
  //     grids of clusters of 8 or 16, which add each bin once per cluster into the output zeroed by self_zero.
  for (int cluster : {4, 8, 16})
    for (int block : {256, 512, 1024})
      for (int loads : {1, 2, 4}) {
        HistogramConfig c = make(P::shared, 1, 32, block, 16, loads, Aggregation::none, Partitioning::interleaved,
                                 Merge::self_zero);
        c.cluster = cluster;
        c.grid_blocks = cluster;
        b.add(c);
      }
  for (int cluster : {8, 16})
    for (int block : {256, 1024})
      for (int loads : {2, 4}) {
        HistogramConfig c = make(P::shared, 1, 32, block, 16, loads, Aggregation::none, Partitioning::interleaved,
                                 Merge::self_zero);
        c.cluster = cluster;
        b.add(c);
      }
}

}  // namespace

std::vector<HistogramConfig> histogram_space(const HistogramProblem& problem) {
  Builder b{problem, {}};
  add_global_and_seed(b);
  add_shared(b);
  add_narrow_loads_and_small_blocks(b, problem);
  add_values(b);
  if (problem.n > kSmallN) add_cover_n(b);
  else add_small_n(b);
  return b.out;
}

std::vector<HistogramConfig> histogram_space_any_n(const HistogramProblem& problem) {
  HistogramProblem small = problem, large = problem;
  small.n = 0;
  large.n = std::numeric_limits<std::uint64_t>::max();
  std::vector<HistogramConfig> all = histogram_space(small);
  for (const auto& c : histogram_space(large))
    if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
  return all;
}

std::string histogram_constraint_violation(const HistogramProblem& problem, const HistogramConfig& config,
                                           const DeviceInfo& device) {
  if (std::string why = config.invalid_reason(problem); !why.empty()) return why;
  if (std::string why = launch_limits::block_violation(config.block, device); !why.empty()) return why;
  if (config.cluster > 1 && device.cc_major < 9)
    return fmt::format("thread-block clusters need sm_90 or newer; the device is {}", device.arch());
  // The kernel also declares one small static shared variable (the last-block flag).
  if (config.shared_bytes(problem) + 16 > static_cast<std::size_t>(device.shared_per_block_optin))
    return fmt::format("{} bins need {} bytes of shared memory; the device allows {} per block", problem.counters(),
                       config.shared_bytes(problem), device.shared_per_block_optin);
  return {};
}

}  // namespace autotune
