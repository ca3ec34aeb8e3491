#include "kernel_templates/histogram_range/space.hpp"

#include "kernel_templates/histogram_spaces.hpp"

namespace autotune {

namespace {

using namespace space_decl;
using C = HistogramRangeConfig;
using P = Privatization;
using B = RangeBinning;

bool several_channels(const HistogramRangeProblem& p) { return p.active > 1; }
constexpr auto small_n = histogram_spaces::small_n<HistogramRangeProblem>;
constexpr auto streams = histogram_spaces::streams<HistogramRangeProblem>;

constexpr auto kBlocks = values(&C::block, {256, 512, 1024});
constexpr auto kLoads = values(&C::loads, {2, 4});

// Fields a group leaves out keep HistogramRangeConfig's defaults: shared counters, one copy, 256 threads, 16-byte
// loads, 2 loads, a resident grid, the atomic merge.
constexpr auto kSpace = space(
    histogram_range_violation,
    // 1. 8-bit samples: the 256 values counted as the even u8 histogram counts them (R = 32 lane-interleaved copies:
    //    every lane its own bank, measured the fastest there), mapped to bins once per block. Pixels of several
    //    active channels hold 256 counters per channel in each copy (3 channels x 32 copies: 96 KiB, two 512-thread
    //    blocks per SM), so fewer copies are tried too.
    group(fixed(&C::binning, B::values), values(&C::replicas, {16, 32}), kBlocks, values(&C::loads, {1, 2, 4})),
    group(fixed(&C::binning, B::values), values(&C::replicas, {4, 8}), kBlocks, kLoads).only_if(several_channels),
    // 2. 8- and 16-bit samples (halves too): the sample bits -> counter table in shared memory, then the counters.
    // 3. Binary search over the levels in shared memory, and the pre-bin table with a short walk.
    group(values(&C::binning, {B::lut, B::search, B::prebin}), values(&C::replicas, {1, 8, 32}), kBlocks, kLoads),
    // 4. Global atomics (any number of bins), and the levels read from global memory when they fit no shared memory.
    group(values(&C::binning, {B::lut, B::search, B::prebin, B::search_global}), fixed(&C::privatization, P::global),
          values(&C::block, {256, 512}), kLoads),
    group(fixed(&C::binning, B::search_global), values(&C::replicas, {1, 8}), values(&C::block, {256, 512}), kLoads),
    // 5. One launch (self_zero: the first block zeroes the output, no memset launch), for the shapes the atomic merge
    //    measured fastest (README.md, "The variant space").
    group(fixed(&C::binning, B::values), fixed(&C::replicas, 32), values(&C::block, {512, 1024}), kLoads,
          fixed(&C::merge, Merge::self_zero)),
    group(fixed(&C::binning, B::values), fixed(&C::replicas, 16), values(&C::block, {256, 512}), fixed(&C::loads, 4),
          fixed(&C::merge, Merge::self_zero)),
    group(fixed(&C::binning, B::values), values(&C::replicas, {8, 16}), values(&C::block, {512, 1024}),
          fixed(&C::loads, 4), fixed(&C::merge, Merge::self_zero))
        .only_if(several_channels),
    group(values(&C::binning, {B::lut, B::search, B::prebin}),
          fields(&C::block, &C::loads).rows({{1024, 2}, {1024, 4}, {512, 2}}), fixed(&C::merge, Merge::self_zero)),
    // 6. Small n: one block, one launch, its counts stored without atomics outside it.
    group(fields(&C::binning, &C::replicas).rows({{B::values, 32}, {B::lut, 1}, {B::search, 1}, {B::prebin, 1}}),
          values(&C::block, {512, 1024}), kLoads, fixed(&C::grid_blocks, 1))
        .only_if(small_n),
    // 7. Evict-first sample loads (ld=cs) for inputs of 8 MiB and more, in the shapes of groups 1, 3 and 5 that
    //    count shared copies with 512 or 1024 threads (in the even histogram's and the reductions' tunings,
    //    evict-first loads ran 8-11 % faster at 32-128 MiB: bench/results/2026-12-05-streaming-evidence.md).
    group(fixed(&C::load_cs, true), fixed(&C::binning, B::values), values(&C::replicas, {16, 32}),
          values(&C::block, {512, 1024}), kLoads, values(&C::merge, {Merge::atomic, Merge::self_zero}))
        .only_if(streams),
    group(fixed(&C::load_cs, true), values(&C::binning, {B::lut, B::search, B::prebin}), values(&C::replicas, {1, 8}),
          values(&C::block, {512, 1024}), kLoads)
        .only_if(streams));

}  // namespace

std::vector<HistogramRangeConfig> histogram_range_space(const HistogramRangeProblem& problem) {
  return space_decl::expand(kSpace, problem);
}

}  // namespace autotune
