#include "kernel_templates/segreduce/space.hpp"

namespace autotune {

namespace {

using namespace space_decl;
using C = SegReduceConfig;

// Fields a group leaves out keep SegReduceConfig's defaults (the fallback): 256 threads, 8 lanes per segment up to
// 256 elements, 16-byte loads, 2 loads in flight, 16K-element chunks.
constexpr auto kSpace =
    space(
        segreduce_violation,
        // 1. Lanes per short segment and the longest segment they take (the rest goes to blocks).
        group(fields(&C::group, &C::small_max)
                  .rows({{1, 32},
                         {1, 64},
                         {2, 64},
                         {4, 64},
                         {4, 128},
                         {8, 128},
                         {8, 256},
                         {16, 512},
                         {32, 1024},
                         {32, 4096}})),
        // 2. Loads in flight.
        group(fields(&C::group, &C::small_max).rows({{1, 32}, {4, 64}, {8, 256}, {32, 1024}}),
              values(&C::loads, {1, 4})),
        // 3. Block size (both kernels).
        group(fields(&C::group, &C::small_max).rows({{4, 64}, {8, 256}, {32, 1024}}), values(&C::block, {128, 512})),
        // 4. One element per load.
        group(fields(&C::group, &C::small_max).rows({{1, 32}, {8, 256}, {32, 1024}}), fixed(&C::vec_bytes, 0),
              fixed(&C::loads, 4)),
        // 5. The long path's chunk: work items of 4K..256K elements.
        group(fields(&C::group, &C::small_max).rows({{8, 256}, {32, 1024}}), values(&C::chunk, {4096, 65536, 262144})),
        group(fixed(&C::block, 512), fixed(&C::group, 32), fixed(&C::small_max, 1024), fixed(&C::loads, 4),
              values(&C::chunk, {4096, 65536})),
        // 6. The long path with 4-8 loads in flight on 64K-256K chunks (CUB reads 256 threads x 4 float4 loads).
        group(fixed(&C::group, 32), fixed(&C::small_max, 1024), values(&C::loads, {4, 8}),
              values(&C::chunk, {65536, 262144})),
        group(fields(&C::block, &C::group, &C::small_max, &C::loads, &C::chunk)
                  .rows({{512, 32, 1024, 8, 262144}, {256, 32, 4096, 4, 16384}})),
        // 7. A block per segment over a grid covering the segments, nothing queued: one launch, CUB's algorithm;
        //    for long segments of even lengths (1K x 256K) the queue's second launch and search are pure cost.
        group(fields(&C::block, &C::group, &C::loads)
                  .rows({{128, 128, 4},
                         {256, 256, 2},
                         {256, 256, 4},
                         {256, 256, 8},
                         {512, 512, 4},
                         {512, 512, 8},
                         {1024, 1024, 4}}),
              fixed(&C::small_max, 0)),
        // 8. A block per segment, segments past 64K queued: the long tail of a power law split over the grid.
        group(fields(&C::block, &C::group, &C::chunk).rows({{256, 256, 65536}, {256, 256, 262144}, {512, 512, 262144}}),
              fixed(&C::small_max, 65536), fixed(&C::loads, 4)))
        // The built-in default first, so the tuner always measures what an untuned application would run.
        .starting_with(SegReduceConfig::fallback);

}  // namespace

std::vector<SegReduceConfig> segreduce_space(const SegReduceProblem& problem) {
  return space_decl::expand(kSpace, problem);
}

}  // namespace autotune
