#include "kernel_templates/histogram_range/space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/launch_limits.hpp"

namespace autotune {

namespace {

constexpr std::size_t kMaxSharedAnyGpu = 227 * 1024;  // sm_90 opt-in; the device check is exact
constexpr std::uint64_t kSmallN = 4u << 20;            // the single-block path is measured up to here

struct Builder {
  const HistogramRangeProblem& problem;
  std::vector<HistogramRangeConfig> out;
  void add(RangeBinning bin, Privatization p, int r, int block, int loads, int grid = 0, Merge merge = Merge::atomic) {
    HistogramRangeConfig c;
    c.binning = bin, c.privatization = p, c.replicas = r, c.block = block, c.vec_bytes = 16, c.loads = loads;
    c.grid_blocks = grid, c.merge = merge;
    if (!c.invalid_reason(problem).empty() || c.shared_bytes(problem) > kMaxSharedAnyGpu) return;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
};

}  // namespace

std::vector<HistogramRangeConfig> histogram_range_space(const HistogramRangeProblem& problem) {
  Builder b{problem, {}};
  using P = Privatization;
  using B = RangeBinning;
  // 1. 8-bit samples: the 256 values counted as the even u8 histogram counts them (R = 32 lane-interleaved copies:
  //    every lane its own bank, measured the fastest there), mapped to bins once per block. Pixels of several active
  //    channels hold 256 counters per channel in each copy (3 channels x 32 copies: 96 KiB, two 512-thread blocks
  //    per SM), so fewer copies are tried too.
  for (int r : {16, 32})
    for (int block : {256, 512, 1024})
      for (int loads : {1, 2, 4}) b.add(B::values, P::shared, r, block, loads);
  if (problem.active > 1)
    for (int r : {4, 8})
      for (int block : {256, 512, 1024})
        for (int loads : {2, 4}) b.add(B::values, P::shared, r, block, loads);
  // 2. 8- and 16-bit samples (halves too): the sample bits -> counter table in shared memory, then the counters.
  for (int r : {1, 8, 32})
    for (int block : {256, 512, 1024})
      for (int loads : {2, 4}) b.add(B::lut, P::shared, r, block, loads);
  // 3. Binary search over the levels in shared memory, and the pre-bin table with a short walk.
  for (B bin : {B::search, B::prebin})
    for (int r : {1, 8, 32})
      for (int block : {256, 512, 1024})
        for (int loads : {2, 4}) b.add(bin, P::shared, r, block, loads);
  // 4. Global atomics (any number of bins), and the levels read from global memory when they fit no shared memory.
  for (B bin : {B::lut, B::search, B::prebin, B::search_global})
    for (int block : {256, 512})
      for (int loads : {2, 4}) b.add(bin, P::global, 1, block, loads);
  for (int r : {1, 8})
    for (int block : {256, 512})
      for (int loads : {2, 4}) b.add(B::search_global, P::shared, r, block, loads);
  // 5. One launch (self_zero: the first block zeroes the output, no memset launch), for the shapes the atomic merge
  //    measured fastest: the even u8 histogram's winner at 512 MiB is this merge with R = 32, 512 threads and 4
  //    loads (bench/results/2026-12-01b-h200-size-bench-u8.md), and the range winners of
  //    2026-12-01d-h200-histrange-bench.md are values R = 32 and lut/search/prebin R = 1 with 1024 threads.
  for (int block : {512, 1024})
    for (int loads : {2, 4}) b.add(B::values, P::shared, 32, block, loads, 0, Merge::self_zero);
  for (int block : {256, 512}) b.add(B::values, P::shared, 16, block, 4, 0, Merge::self_zero);
  if (problem.active > 1)
    for (int r : {8, 16})
      for (int block : {512, 1024}) b.add(B::values, P::shared, r, block, 4, 0, Merge::self_zero);
  for (B bin : {B::lut, B::search, B::prebin}) {
    for (int loads : {2, 4}) b.add(bin, P::shared, 1, 1024, loads, 0, Merge::self_zero);
    b.add(bin, P::shared, 1, 512, 2, 0, Merge::self_zero);
  }
  if (problem.n > kSmallN) return b.out;
  // 6. Small n: one block, one launch, its counts stored without atomics outside it.
  for (B bin : {B::values, B::lut, B::search, B::prebin})
    for (int block : {512, 1024})
      for (int loads : {2, 4}) b.add(bin, P::shared, bin == B::values ? 32 : 1, block, loads, 1);
  return b.out;
}

std::vector<HistogramRangeConfig> histogram_range_space_any_n(const HistogramRangeProblem& problem) {
  HistogramRangeProblem small = problem, large = problem;
  small.n = 0;
  large.n = std::numeric_limits<std::uint64_t>::max();
  std::vector<HistogramRangeConfig> all = histogram_range_space(small);
  for (const auto& c : histogram_range_space(large))
    if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
  return all;
}

std::string histogram_range_constraint_violation(const HistogramRangeProblem& problem,
                                                 const HistogramRangeConfig& config, const DeviceInfo& device) {
  if (std::string why = config.invalid_reason(problem); !why.empty()) return why;
  return launch_limits::block_violation(config.block, config.shared_bytes(problem), device);
}

}  // namespace autotune
