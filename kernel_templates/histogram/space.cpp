#include "kernel_templates/histogram/space.hpp"

#include "kernel_templates/histogram/value_bins.hpp"
#include "kernel_templates/histogram_spaces.hpp"

namespace autotune {

namespace {

// Last-block merging moves the whole histogram with one block: past this many bins that alone costs more than a
// zeroing launch.
constexpr int kLastBlockMaxBins = 65536;

using namespace space_decl;
using C = HistogramConfig;
using P = Privatization;
using A = Aggregation;
using M = Merge;
constexpr auto kInterleaved = Partitioning::interleaved;
constexpr auto kContiguous = Partitioning::contiguous;

constexpr auto small_n = histogram_spaces::small_n<HistogramProblem>;
constexpr auto large_n = histogram_spaces::large_n<HistogramProblem>;
// Loads of `V` bytes hold more than one sample (a width equal to the sample is the one-sample load of group 1).
template <int V>
bool wider_than_sample(const HistogramProblem& p) {
  return V > static_cast<int>(size_of(p.type));
}
// u8 and i8 samples whose bins are not the byte values: where counting values (group 11) applies.
bool counts_values(const HistogramProblem& p) {
  return (p.type == SampleType::u8 || p.type == SampleType::i8) && !histogram_detail::values_are_bins(p);
}
bool counts_values_small_n(const HistogramProblem& p) { return counts_values(p) && small_n(p); }
// Inputs of 8 MiB and more: where evict-first loads can pay (measured: README.md, "The space's groups").
constexpr auto streams = histogram_spaces::streams<HistogramProblem>;
bool streams_values(const HistogramProblem& p) { return counts_values(p) && streams(p); }
// Valid, but not measured: the last-block merge of more bins than it pays for.
bool too_many_bins_for_last_block(const HistogramProblem& p, const C& c) {
  return c.merge == M::last_block && p.counters() > kLastBlockMaxBins;
}

// (aggregation, partitioning) pairs worth measuring: runs survive only inside one thread's contiguous items.
constexpr auto kAggParts = fields(&C::aggregation, &C::partitioning)
                               .rows({{A::none, kInterleaved}, {A::warp, kInterleaved}, {A::run, kContiguous}});

// 6. Loads of 4 and 8 bytes: fewer samples per load to extract, more loads in flight for the same bytes.
//    Tried where 16-byte loads win (R = 16 and 32 copies, 256 and 512 threads) with the same 32 or 64 bytes in flight
//    per thread as the 16-byte variants, and with 16-bit counters for the bins that need them.
template <int V>
constexpr auto narrow_loads() {
  constexpr auto kLoads = values(&C::loads, {32 / V, 64 / V});  // 32 or 64 bytes in flight per thread
  constexpr auto kMerges = values(&C::merge, {M::atomic, M::last_block});
  return std::tuple{
      group(values(&C::replicas, {16, 32}), values(&C::block, {256, 512}), fixed(&C::vec_bytes, V), kLoads, kMerges)
          .only_if(wider_than_sample<V>),
      group(fixed(&C::counter_bits, 16), fixed(&C::block, 512), fixed(&C::vec_bytes, V), kLoads, kMerges)
          .only_if(wider_than_sample<V>)};
}

// 7. Blocks of 64 and 128 threads, where a small block costs no occupancy: global atomics, few shared
//    copies (R = 1, 4) and per-warp copies (2 or 4 warps), so that 16 to 32 blocks fit on a multiprocessor and small
//    inputs spread over more of them. (R = 32 copies of 256 bins are 32 KiB per block: 64 threads would leave an SM a
//    quarter full.) self_zero only for small n (small blocks are for small n; no globals).
template <std::size_t N>
constexpr auto small_blocks(const Merge (&merges)[N]) {
  return group(
      values(&C::block, {64, 128}), values(&C::loads, {2, 4}), values(&C::merge, merges),
      fields(&C::privatization, &C::replicas).rows({{P::global, 1}, {P::shared, 1}, {P::shared, 4}, {P::warp, 1}}));
}

// 1-5: the seed chapter's kernels, global atomics, shared and per-warp copies, 16-bit counters.
constexpr auto kCommon = std::tuple{
    // 1. The seed chapter's kernels: one sample per load.
    group(values(&C::privatization, {P::global, P::shared}), fixed(&C::vec_bytes, 0), values(&C::loads, {1, 4}),
          values(&C::aggregation, {A::none, A::run}), values(&C::partitioning, {kInterleaved, kContiguous})),
    // 2. Global atomics with 16-byte loads: the path for bins that fit no shared memory (L2-resident histogram).
    group(fixed(&C::privatization, P::global), values(&C::block, {256, 512, 1024}), values(&C::loads, {1, 2, 4}),
          values(&C::aggregation, {A::none, A::warp}), values(&C::merge, {M::atomic, M::last_block})),
    // 3. Shared histograms with R lane-interleaved copies (R = 32: every lane owns its bank), merged with atomics into
    //    the zeroed output or in one launch with self_zero (no zeroing launch, no ticket at the end; it replaced
    //    last_block here: README.md, "The space's groups").
    group(values(&C::replicas, {1, 4, 16, 32}), values(&C::block, {256, 512, 1024}), values(&C::loads, {1, 2, 4}),
          kAggParts, values(&C::merge, {M::atomic, M::self_zero})),
    // 4. One copy per warp.
    group(fixed(&C::privatization, P::warp), values(&C::block, {256, 512}), values(&C::loads, {1, 2, 4}), kAggParts,
          values(&C::merge, {M::atomic, M::last_block})),
    // 5. 16-bit shared counters: twice the bins in the same memory (65536 bins in 128 KiB).
    group(values(&C::replicas, {1, 2}), fixed(&C::counter_bits, 16), values(&C::block, {256, 512, 1024}),
          values(&C::loads, {2, 4}), values(&C::aggregation, {A::none, A::warp}),
          values(&C::merge, {M::atomic, M::last_block}))};

constexpr auto kSmallBlocks = std::tuple{small_blocks({M::atomic, M::last_block, M::self_zero}).only_if(small_n),
                                         small_blocks({M::atomic, M::last_block}).only_if(large_n)};

// 11. u8 (and i8) samples whose bins are not the byte values: count the 256 values and map them to bins once per block
//     (bin=values), the shapes of the u8/256 winners by size: R = 16 and 32 copies with 256..1024 threads and 2 or
//     4 loads, one launch (self_zero) or a zeroing launch, up to 512 MiB; one copy for the sizes around 1M; the
//     4-byte-load variant of 4M; one block for small n. Any bins and range then cost what 256 bins cost, where the
//     direct kernel divides per sample. Not for u16 (README.md, "The space's groups").
constexpr auto kValues = std::tuple{
    group(fixed(&C::binning, Binning::values), values(&C::replicas, {16, 32}), values(&C::block, {256, 512, 1024}),
          values(&C::loads, {2, 4}), values(&C::merge, {M::atomic, M::self_zero}))
        .only_if(counts_values),
    group(fixed(&C::binning, Binning::values), values(&C::block, {256, 1024}), values(&C::loads, {1, 2}))
        .only_if(counts_values),
    group(fixed(&C::binning, Binning::values), fixed(&C::replicas, 16), fixed(&C::block, 512), fixed(&C::vec_bytes, 4),
          fixed(&C::loads, 16))
        .only_if(counts_values),
    group(fixed(&C::binning, Binning::values), values(&C::block, {512, 1024}), values(&C::loads, {2, 4}),
          fixed(&C::merge, M::last_block), fixed(&C::grid_blocks, 1))
        .only_if(counts_values_small_n),
    group(fixed(&C::binning, Binning::values), fixed(&C::privatization, P::warp), fixed(&C::merge, M::last_block))
        .only_if(counts_values_small_n)};

// 8. Cover n, above histogram_spaces::kSmallN: one tile per block, as many waves as n needs, instead of a persistent
//    resident grid. Each block pays its shared setup and merge per tile, so only the cheap ones, with big tiles (4
//    and 8 loads): global atomics, R = 1, 4 or 32 copies, per-warp copies at 256 threads; and one launch (self_zero)
//    for R = 1 and 32.
constexpr auto kCoverN = group(fixed(&C::grid_blocks, C::kCoverGrid), values(&C::loads, {4, 8}),
                               fields(&C::block, &C::privatization, &C::replicas, &C::merge)
                                   .rows({{256, P::global, 1, M::atomic},
                                          {256, P::shared, 1, M::atomic},
                                          {256, P::shared, 4, M::atomic},
                                          {256, P::shared, 32, M::atomic},
                                          {512, P::global, 1, M::atomic},
                                          {512, P::shared, 1, M::atomic},
                                          {512, P::shared, 4, M::atomic},
                                          {512, P::shared, 32, M::atomic},
                                          {256, P::warp, 1, M::atomic},
                                          {256, P::shared, 1, M::self_zero},
                                          {512, P::shared, 1, M::self_zero},
                                          {512, P::shared, 32, M::self_zero}}));

// 9-10, at or below histogram_spaces::kSmallN.
constexpr auto kSmallNPaths = std::tuple{
    // 9. The small-n path: one block, no atomics outside it, one launch. Pointless past a few million samples.
    group(values(&C::block, {256, 512, 1024}), values(&C::loads, {1, 2, 4}),
          values(&C::privatization, {P::shared, P::warp}), fixed(&C::merge, M::last_block), fixed(&C::grid_blocks, 1))
        .only_if(small_n),
    // 10. Thread-block clusters (sm_90+) for small n. One cluster of 4, 8 or 16 blocks (grid = cluster): the blocks
    //     sum their histograms through distributed shared memory and store the answer, one launch with no atomics
    //     outside shared memory and no workspace: the single-block path spread over up to 16 multiprocessors. And
    //     resident grids of clusters of 8 or 16, which add each bin once per cluster into the output zeroed by
    //     self_zero.
    group(fields(&C::cluster, &C::grid_blocks).rows({{4, 4}, {8, 8}, {16, 16}}), values(&C::block, {256, 512, 1024}),
          values(&C::loads, {1, 2, 4}), fixed(&C::merge, M::self_zero))
        .only_if(small_n),
    group(values(&C::cluster, {8, 16}), values(&C::block, {256, 1024}), values(&C::loads, {2, 4}),
          fixed(&C::merge, M::self_zero))
        .only_if(small_n)};

// 13. Copies of a global histogram (priv=global, R = 4, 16, 32 within 16 MiB: histogram_violation), for bins that
//     fit no 48 KiB of shared counters: skewed samples (a hot band of a few bins) put every multiprocessor's atomics
//     on a few addresses of the one global histogram, and R copies spread them over R times as many; a second
//     kernel sums the copies into the output (no zeroing launch).
bool many_bins(const HistogramProblem& p) { return p.counters() * sizeof(unsigned) > 48 * 1024; }
bool many_bins_streams(const HistogramProblem& p) { return many_bins(p) && streams(p); }
//     Striped copies (lay=striped) also spread a hot band's neighbouring bins, which share a cache line (and so an
//     L2 slice) in a plain copy, over as many lines: with warp aggregation, the combination that won on skewed
//     samples. Copies interleaved in chunks of 256 counters (chunk=256) put a hot band's R copies 1 KiB apart in
//     one page instead of a copy (and a page) apart: on an H100 1.3-1.9x faster than plain copies on skewed samples,
//     and as fast on uniform ones, where plain copies ran up to 1.85x apart by where their workspace landed; chunks
//     of one line (32 counters) ran 1.5-2x slower (bench/results/2026-12-05g-summary.md).
constexpr auto kGlobalCopies = std::tuple{
    group(fixed(&C::privatization, P::global), values(&C::replicas, {4, 16, 32}), fixed(&C::block, 512),
          values(&C::loads, {1, 2}), values(&C::aggregation, {A::none, A::warp}))
        .only_if(many_bins),
    group(fixed(&C::privatization, P::global), fixed(&C::striped, true), values(&C::replicas, {4, 16, 32}),
          fixed(&C::block, 512), values(&C::loads, {1, 2}), fixed(&C::aggregation, A::warp))
        .only_if(many_bins),
    group(fixed(&C::privatization, P::global), fixed(&C::chunk, 256), values(&C::replicas, {4, 16, 32}),
          fixed(&C::block, 512), values(&C::loads, {1, 2}), fixed(&C::aggregation, A::warp))
        .only_if(many_bins)};

// 14. A window of shared counters beside the global histogram (win=N), for bins that fit no 48 KiB of shared
//     counters: each block counts the bins around one sample it reads in shared memory (4096 or 16384 of them,
//     16 or 64 KiB) and the rest by global atomics. Skewed samples (a hot band of a few bins) then cost shared
//     atomics, where global atomics or copies of the histogram pile onto a few addresses; on spread samples the
//     window costs a compare per sample.
constexpr auto kWindows = std::tuple{
    group(fixed(&C::privatization, P::global), values(&C::window, {4096, 16384}), values(&C::block, {512, 1024}),
          values(&C::loads, {1, 2}), values(&C::aggregation, {A::none, A::warp}))
        .only_if(many_bins),
    group(fixed(&C::load_cs, true), fixed(&C::privatization, P::global), values(&C::window, {4096, 16384}),
          fixed(&C::block, 512), values(&C::loads, {2, 4}))
        .only_if(many_bins_streams)};

// 12. Evict-first sample loads (ld=cs, 16-byte loads) for inputs of 8 MiB and more: the shapes that win there in
//     groups 2, 3, 5, 8 and 11 (shared copies R = 1, 4, 32 with 512 or 1024 threads, values counted with R = 16 or
//     32, global atomics, 16-bit counters, cover-n grids).
constexpr auto kStreaming = std::tuple{
    group(fixed(&C::load_cs, true), values(&C::replicas, {1, 4, 32}), values(&C::block, {512, 1024}),
          values(&C::loads, {2, 4}), values(&C::merge, {M::atomic, M::self_zero}))
        .only_if(streams),
    group(fixed(&C::load_cs, true), fixed(&C::binning, Binning::values), values(&C::replicas, {16, 32}),
          values(&C::block, {512, 1024}), values(&C::loads, {2, 4}), values(&C::merge, {M::atomic, M::self_zero}))
        .only_if(streams_values),
    group(fixed(&C::load_cs, true), fixed(&C::privatization, P::global), values(&C::block, {256, 512}),
          values(&C::loads, {2, 4}))
        .only_if(streams),
    group(fixed(&C::load_cs, true), fixed(&C::counter_bits, 16), values(&C::block, {512, 1024}),
          values(&C::loads, {2, 4}))
        .only_if(streams),
    group(fixed(&C::load_cs, true), fixed(&C::grid_blocks, C::kCoverGrid), values(&C::loads, {4, 8}),
          fields(&C::block, &C::privatization, &C::replicas, &C::merge)
              .rows({{512, P::shared, 1, M::atomic}, {512, P::shared, 32, M::self_zero}}))
        .only_if(streams)};

constexpr auto kSpace = space(histogram_violation, kCommon, narrow_loads<4>(), narrow_loads<8>(), kSmallBlocks, kValues,
                              kCoverN.only_if(large_n), kSmallNPaths, kStreaming, kGlobalCopies,
                              kWindows)
                            .leaving_out(too_many_bins_for_last_block);

}  // namespace

std::vector<HistogramConfig> histogram_space(const HistogramProblem& problem) {
  return space_decl::expand(kSpace, problem);
}

}  // namespace autotune
