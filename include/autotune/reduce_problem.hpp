// The reduction family's vocabulary: the problem (what to reduce) and the configuration (one variant of the kernel).
//
// A ReduceConfig is the single source of truth for a reduction variant, like HistogramConfig for histograms: the
// same value produces the kernel's compile-time constants (kernel_source), the launch dimensions, the cache key
// (key()/parse()) and what the tuner enumerates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autotune {

/// Element types a reduction reads (and accumulates in).
enum class ValueType { i32, u32, i64, u64, f32, f64 };
std::string_view to_string(ValueType t);
std::optional<ValueType> parse_value_type(std::string_view text);
std::size_t size_of(ValueType t);
bool is_float(ValueType t);
const std::vector<ValueType>& all_value_types();

enum class ReduceOp { sum, min, max };
std::string_view to_string(ReduceOp op);
std::optional<ReduceOp> parse_reduce_op(std::string_view text);

/// A reduction of n elements of `type` to one value of `accumulator` type, written to device memory.
///
/// Semantics:
///   sum: integers add modulo 2^bits of the accumulator (i32 input sums into i64 by default, u32 into u64);
///        floats add in the accumulator type (f32 by default; ask for f64 to sum f32 in double). NaN and
///        infinities propagate as IEEE addition does.
///   min/max: the accumulator is the input type. If any element is NaN the result is NaN (a canonical quiet NaN:
///        0x7fc00000 for f32, 0x7ff8000000000000 for f64), as numpy.min/torch.min do; -0.0 and +0.0 compare equal
///        (either may be returned).
///   n = 0 gives the identity: 0 for sum; for min the largest value (+inf for floats), for max the smallest
///        (-inf for floats).
///   deterministic (the default): the same bits on every call on one GPU model for the same n (fixed grid,
///        fixed-order finish). fast: float sums may finish with atomics (bits may vary run to run). Only float
///        sums are affected; integer results and min/max are exact either way, and for them the flag is ignored
///        (normalized to true by validate's caller, see normalized()).
struct ReduceProblem {
  static constexpr std::string_view kFamily = "reduce";

  ReduceOp op = ReduceOp::sum;
  ValueType type = ValueType::f32;
  std::optional<ValueType> accumulator;  ///< nullopt = the default for op and type (see accumulator_type())
  std::uint64_t n = 0;                   ///< elements: the size tuned; for a handle, a hint (0 = none)
  bool deterministic = true;
  std::string distribution = "uniform";  ///< input the tuner measures on (reduce_distributions())

  bool operator==(const ReduceProblem&) const = default;

  /// The accumulator actually used: `accumulator` if set, else i32->i64, u32->u64, others -> type for sum, and
  /// the input type for min/max.
  ValueType accumulator_type() const;
  /// The same problem with the accumulator made explicit and `deterministic` forced to true where it has no
  /// effect; key() is computed from this form, so equivalent spellings share one cache entry.
  ReduceProblem normalized() const;

  /// Throws UsageError when not well formed: min/max with an accumulator other than the input type, a sum
  /// accumulator that cannot hold the input (float into integer, integer into float, narrower than the input,
  /// signed into unsigned or the reverse), an unknown distribution.
  void validate() const;

  /// Canonical text used as a cache key and in messages, e.g. "reduce/sum/f32/acc=f32/n=1048576/dist=uniform",
  /// with "/mode=fast" appended for a non-deterministic float sum.
  std::string key() const;
  /// The same without n (every size of one reduction shares it).
  std::string shape_key() const;
  /// Input bytes read by one call.
  std::uint64_t bytes() const { return n * size_of(type); }
  /// Bits of the identity of op in the accumulator type (the result for n = 0), zero-extended to 64 bits.
  std::uint64_t identity_bits() const;
};

/// Input distributions the tuner can generate for reductions: "uniform" (values in a type-dependent range that
/// cannot overflow the accumulator for n up to 2^32), "constant", "sorted" (ascending).
const std::vector<std::string>& reduce_distributions();

/// How a block combines its threads' partial values.
enum class BlockReduce {
  atomic,        ///< every thread adds its partial to the output with one global atomic (the seed's naive kernel)
  shared_tree,   ///< a shared-memory tree (halving strides, __syncthreads between levels)
  warp_shuffle,  ///< __shfl_down_sync within warps, then one warp combines the warps' results
  warp_reduce,   ///< like warp_shuffle, but __reduce_{add,min,max}_sync for 32-bit integers (sm_80+)
};
std::string_view to_string(BlockReduce b);

/// How the blocks' results become the final value.
enum class Finish {
  atomic,      ///< each block combines its result into the output with one atomic (output reset first by a
               ///< memset: two operations); float sums with this finish are not deterministic
  last_block,  ///< blocks write partials; the last block to retire (ticket) combines them in fixed order: one launch
  two_pass,    ///< blocks write partials; a second launch of one block combines them in fixed order
};
std::string_view to_string(Finish f);

struct ReduceConfig {
  static constexpr std::string_view kFamily = "reduce";

  BlockReduce block_reduce = BlockReduce::warp_shuffle;
  int block = 256;         ///< threads per block: 64..1024, a multiple of 32
  int vec_bytes = 16;      ///< bytes per load: 0 = one element per load, else 4, 8 or 16 (>= the element size)
  int loads = 2;           ///< loads in flight per thread per iteration (unrolled)
  int accumulators = 1;    ///< independent accumulators per thread (1, 2, 4), combined at the end
  Finish finish = Finish::last_block;
  int grid_blocks = 0;     ///< 0 = all resident blocks (persistent waves), -1 = cover n (one tile per block,
                           ///< capped so partials fit the workspace), 1 = the single-block small-n path

  bool operator==(const ReduceConfig&) const = default;

  /// Canonical text, e.g. "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0". Stable:
  /// stored in the cache.
  std::string key() const;
  /// Inverse of key(); nullopt for anything else.
  static std::optional<ReduceConfig> parse(std::string_view key);

  /// Elements of problem.type one load reads (vec_bytes / element size, or 1 when vec_bytes is 0).
  int elems_per_load(const ReduceProblem& problem) const;
  /// Dynamic shared memory the kernel needs, in bytes.
  std::size_t shared_bytes(const ReduceProblem& problem) const;
  /// Why this configuration is not well formed for `problem` (independent of any device), or empty. E.g. a
  /// float sum with Finish::atomic in deterministic mode, warp_reduce for a 64-bit or float type, a vector
  /// narrower than the element.
  std::string invalid_reason(const ReduceProblem& problem) const;

  /// The safe configuration used when nothing was tuned: valid for every problem and every GPU of sm_70 or newer.
  static ReduceConfig fallback(const ReduceProblem& problem);
};

/// Name of the kernel entry point in every reduction variant (a two_pass variant also has kReduceFinishKernelName).
inline constexpr const char* kReduceKernelName = "autotune_reduce";
inline constexpr const char* kReduceFinishKernelName = "autotune_reduce_finish";

/// Complete CUDA source of one variant: a generated preamble of compile-time constants followed by the embedded
/// template kernel_templates/reduce/reduce.cu. Throws UsageError when config.invalid_reason(problem) is not empty.
std::string kernel_source(const ReduceProblem& problem, const ReduceConfig& config);

}  // namespace autotune

template <>
struct std::hash<autotune::ReduceConfig> {
  std::size_t operator()(const autotune::ReduceConfig& c) const noexcept { return std::hash<std::string>{}(c.key()); }
};
