#include "kernel_templates/segreduce/space.hpp"

#include "kernel_templates/segreduce/launcher.hpp"

namespace autotune {

std::vector<SegReduceConfig> segreduce_space(const SegReduceProblem& problem) {
  std::vector<SegReduceConfig> out{SegReduceConfig::fallback(problem)};
  auto add = [&](int block, int group, int small, int vec, int loads, int chunk) {
    const SegReduceConfig c{block, group, small, vec, loads, chunk};
    if (!c.invalid_reason(problem).empty()) return;
    for (const auto& e : out)
      if (e == c) return;
    out.push_back(c);
  };
  // 1. Lanes per short segment and the longest segment they take (the rest goes to blocks).
  const std::pair<int, int> groups[] = {{1, 32},  {1, 64},  {2, 64},   {4, 64},    {4, 128},
                                        {8, 128}, {8, 256}, {16, 512}, {32, 1024}, {32, 4096}};
  for (auto [g, small] : groups) add(256, g, small, 16, 2, 16384);
  // 2. Loads in flight.
  for (auto [g, small] : {std::pair{1, 32}, std::pair{4, 64}, std::pair{8, 256}, std::pair{32, 1024}})
    for (int loads : {1, 4}) add(256, g, small, 16, loads, 16384);
  // 3. Block size (both kernels).
  for (auto [g, small] : {std::pair{4, 64}, std::pair{8, 256}, std::pair{32, 1024}})
    for (int block : {128, 512}) add(block, g, small, 16, 2, 16384);
  // 4. One element per load.
  for (auto [g, small] : {std::pair{1, 32}, std::pair{8, 256}, std::pair{32, 1024}}) add(256, g, small, 0, 4, 16384);
  // 5. The long path's chunk: work items of 4K..256K elements.
  for (auto [g, small] : {std::pair{8, 256}, std::pair{32, 1024}})
    for (int chunk : {4096, 65536, 262144}) add(256, g, small, 16, 2, chunk);
  for (int chunk : {4096, 65536}) add(512, 32, 1024, 16, 4, chunk);
  // 6. The long path with 4-8 loads in flight on 64K-256K chunks (CUB reads 256 threads x 4 float4 loads).
  for (int loads : {4, 8})
    for (int chunk : {65536, 262144}) add(256, 32, 1024, 16, loads, chunk);
  add(512, 32, 1024, 16, 8, 262144);
  add(256, 32, 4096, 16, 4, 16384);
  // 7. A block per segment over a grid covering the segments, nothing queued: one launch, CUB's algorithm; for long
  // segments of even lengths (1K x 256K) the queue's second launch and search are pure cost.
  for (auto [block, loads] : {std::pair{128, 4}, std::pair{256, 2}, std::pair{256, 4}, std::pair{256, 8},
                              std::pair{512, 4}, std::pair{512, 8}, std::pair{1024, 4}})
    add(block, block, 0, 16, loads, 16384);
  // 8. A block per segment, segments past 64K queued: the long tail of a power law split over the grid.
  for (int chunk : {65536, 262144}) add(256, 256, 65536, 16, 4, chunk);
  add(512, 512, 65536, 16, 4, 262144);
  return out;
}

std::string segreduce_constraint_violation(const SegReduceProblem& problem, const SegReduceConfig& config,
                                           const DeviceInfo& device) {
  if (std::string why = config.invalid_reason(problem); !why.empty()) return why;
  return segreduce_device_violation(config, device);
}

}  // namespace autotune
