// Configurations (variants): one point of a kernel family's parameter space.
//
// A HistogramConfig is the single source of truth for a variant: the same value produces the kernel's
// compile-time constants (kernel_source) and the host's launch dimensions (launch_block), it is persisted
// field by field in the cache through key()/parse(), and it is what the tuner enumerates.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "autotune/problem.hpp"

namespace autotune {

/// Where a block accumulates its counts.
enum class Privatization {
  global,  ///< atomicAdd straight into the output histogram (the seed's first kernel; any number of bins)
  shared,  ///< a shared-memory histogram per block, `replicas` lane-interleaved copies, merged at the end
  warp,    ///< one shared-memory copy per warp
};

/// How a thread's loads are laid out inside a tile of grid * block * loads vectors.
enum class Partitioning {
  interleaved,  ///< load k of thread t is tile_base + k * threads + t: coalesced across the warp
  contiguous,   ///< thread t owns loads [t * loads, (t + 1) * loads) of the tile: runs stay in one thread
};

/// How equal bins are merged before they reach a counter.
enum class Aggregation {
  none,
  run,   ///< a run of equal bins seen by one thread is counted in a register, one atomic per run
  warp,  ///< lanes of a warp with equal bins are merged with __match_any_sync, one atomic per group
};

/// How the per-block histograms reach the output.
enum class Merge {
  atomic,      ///< the output is zeroed (cudaMemsetAsync) and every block adds into it with atomics: two operations
  last_block,  ///< blocks add into a workspace histogram (zero between calls); the last block to finish moves it
               ///< into the output and zeroes it: one launch, no zeroing launch
};

std::string_view to_string(Privatization p);
std::string_view to_string(Partitioning p);
std::string_view to_string(Aggregation a);
std::string_view to_string(Merge m);

struct HistogramConfig {
  Privatization privatization = Privatization::shared;
  int replicas = 1;       ///< lane-interleaved shared copies (shared only): power of two in 1..32
  int counter_bits = 32;  ///< shared counter width: 32, or 16 (two per word, wraps carried exactly into the output)
  int block = 256;        ///< threads per block
  int vec_bytes = 16;     ///< bytes per load: 0 = one sample per load, else a power of two up to 16
  int loads = 2;          ///< loads in flight per thread per tile (the coarsening factor)
  Aggregation aggregation = Aggregation::none;
  Partitioning partitioning = Partitioning::interleaved;
  Merge merge = Merge::atomic;
  int grid_blocks = 0;    ///< at most this many blocks (1 = the small-n single-block path); 0 = all resident blocks

  bool operator==(const HistogramConfig&) const = default;

  /// Canonical text, e.g.
  /// "priv=shared,R=32,cbits=32,block=512,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0".
  /// Stable: it is stored in the cache.
  std::string key() const;
  /// Inverse of key(). Also reads the first schema's keys ("priv=shared,block=256,ipt=4,agg=0,part=interleaved":
  /// one sample per load, ipt loads). nullopt for anything else.
  static std::optional<HistogramConfig> parse(std::string_view key);

  /// Bytes per load for `problem`'s sample type (vec_bytes, or the sample size when vec_bytes is 0).
  int load_bytes(const HistogramProblem& problem) const;
  /// Dynamic shared memory the kernel needs for this problem, in bytes.
  std::size_t shared_bytes(const HistogramProblem& problem) const;
  /// Why this configuration is not well formed for `problem` (independent of any device), or empty.
  std::string invalid_reason(const HistogramProblem& problem) const;

  /// The safe configuration used when nothing was tuned: valid for every problem and every GPU of sm_70 or newer.
  static HistogramConfig fallback(const HistogramProblem& problem);
};

/// Name of the kernel entry point in every histogram variant.
inline constexpr const char* kHistogramKernelName = "autotune_histogram";

/// Complete CUDA source of one variant: a generated preamble of compile-time constants followed by the
/// embedded template kernel_templates/histogram.cu. The preamble is the only place parameters enter the kernel.
std::string kernel_source(const HistogramProblem& problem, const HistogramConfig& config);

}  // namespace autotune

template <>
struct std::hash<autotune::HistogramConfig> {
  std::size_t operator()(const autotune::HistogramConfig& c) const noexcept {
    return std::hash<std::string>{}(c.key());
  }
};
