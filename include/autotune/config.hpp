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
  global,  ///< atomicAdd straight into the output histogram (the seed's first kernel)
  shared,  ///< one shared-memory histogram per block, merged into the output at the end
};

/// How a thread's items are laid out inside a tile of grid * block * items_per_thread samples.
enum class Partitioning {
  interleaved,  ///< item k of thread t is tile_base + k * threads + t: coalesced across the warp
  contiguous,   ///< thread t owns items [t * ipt, (t + 1) * ipt) of the tile: runs stay in one thread
};

std::string_view to_string(Privatization p);
std::string_view to_string(Partitioning p);

struct HistogramConfig {
  Privatization privatization = Privatization::shared;
  int block = 256;            ///< threads per block
  int items_per_thread = 4;   ///< samples each thread handles per tile (coarsening factor)
  bool aggregation = false;   ///< keep a run of equal bins in a register, one atomic per run
  Partitioning partitioning = Partitioning::interleaved;

  bool operator==(const HistogramConfig&) const = default;

  /// Canonical text, e.g. "priv=shared,block=256,ipt=4,agg=0,part=interleaved". Stable: it is stored in the cache.
  std::string key() const;
  /// Inverse of key(); nullopt for text key() never produces.
  static std::optional<HistogramConfig> parse(std::string_view key);

  /// Shared memory the kernel declares statically for this problem, in bytes.
  std::size_t shared_bytes(const HistogramProblem& problem) const;

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
