// One loaded segmented-reduction variant and the one way to launch it: shared by the tuner, the runtime API
// (autotune::SegmentedReduce), the benchmark and the tests, so that what is measured is what applications run.
//
// Thread-safety: run() may be called from several host threads on several streams at once; each stream gets its own
// workspace (the queue of long segments, core/workspace.hpp), claimed lock-free on its first call.
#pragma once

#include <cstdint>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "kernel_templates/reduction_launch.hpp"

namespace autotune {

/// Blocks of the first kernel for `segments` segments: enough groups to cover them, at most the resident grid
/// (0 when there are none); a block per segment (group = block) covers them all as CUB's grid does (the hardware
/// balances segments of unequal lengths), at most 2^31 - 1 blocks. A pure function, tested without a GPU.
unsigned segreduce_short_grid(const SegReduceConfig& config, std::uint64_t segments, unsigned resident_grid);

/// The first kernel is LoadedEntries' main entry point, the long segments' kernel its second.
class SegReduceKernel : public LoadedEntries<SegReduceProblem, SegReduceConfig> {
 public:
  /// Loads `cubin` (from kernel_source(problem, config)). UsageError when the configuration is invalid or exceeds the
  /// device, CudaError when the cubin does not load.
  SegReduceKernel(const SegReduceProblem& problem, const SegReduceConfig& config, const DeviceInfo& device,
                  const std::vector<char>& cubin);

  /// Reduces segment s = [begin[s], end[s]) of `in` for s < segments into result s of `out` (result_bytes() each).
  /// `begin` and `end` point to the problem's offsets (int, or std::int64_t with offset_bits = 64). Two launches
  /// (one when config().one_launch()), asynchronous on `stream`, no allocation after a stream's first call.
  void run(const void* in, std::uint64_t segments, const void* begin, const void* end, void* out,
           cudaStream_t stream) const;

 private:
  unsigned short_resident_ = 0, long_resident_ = 0;
};

}  // namespace autotune
