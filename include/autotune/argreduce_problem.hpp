// The arg-reduction family's vocabulary: the problem (arg-min or arg-max of n values) and the configuration (one
// variant of the kernel). As ReduceConfig for reductions, an ArgReduceConfig is the single source of truth for a
// variant: the kernel's compile-time constants, the launch dimensions, the cache key and what the tuner enumerates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/reduce_problem.hpp"  // ValueType, BlockReduce, Finish

namespace autotune {

enum class ArgOp { argmin, argmax };
std::string_view to_string(ArgOp op);
std::optional<ArgOp> parse_arg_op(std::string_view text);

/// What an arg-reduction writes: the extreme value and the smallest index at which it occurs. In device memory it
/// is this struct: the value at byte 0 (1, 2, 4 or 8 bytes), the index at byte 8, 16 bytes for every T (__half and
/// __nv_bfloat16 included: include cuda_fp16.h / cuda_bf16.h to name ArgResult<__half>).
template <class T>
struct ArgResult {
  T value;
  std::uint64_t index;
};
static_assert(sizeof(ArgResult<float>) == 16 && sizeof(ArgResult<double>) == 16 &&
                  sizeof(ArgResult<signed char>) == 16 && sizeof(ArgResult<std::int16_t>) == 16,
              "value at 0, index at 8");

/// Arg-min or arg-max of n elements of `type`: any ValueType (f16 and bf16 compare as their float values, exactly;
/// i8 and i16 as int).
///
/// Semantics (the reference: kernel_templates/argreduce/reference.cpp; CUB: cub::ArgMin / cub::ArgMax on
/// KeyValuePair, `b < a || (a == b && b.key < a.key)`):
///   - the result is the smallest index i at which the extreme value occurs, and the value is in[i] bit for bit;
///     as CUB, ties (equal values by ==) go to the smaller index, so -0.0 and +0.0 are equal and the first of them
///     wins, its sign kept;
///   - NaN: if any element is NaN, the result is the first NaN (smallest index), for arg-min and arg-max alike, as
///     numpy.argmin/argmax and torch do: NaN counts as more extreme than every number. CUB leaves NaN undefined (a
///     NaN is never `<` or `>` anything, so which element wins depends on where its reduction tree meets the NaN);
///     where the input has no NaN our result equals CUB's;
///   - n = 0: index 1 and the value CUB writes for an empty input: std::numeric_limits<T>::lowest() for arg-max,
///     max() for arg-min (-FLT_MAX, not -inf, for f32; -65504 / 65504 for f16, bits 0xfbff / 0x7bff; bf16's
///     0xff7f / 0x7f7f: cuda::std::numeric_limits<__half> and <__nv_bfloat16>), as CUB's ArgMax/ArgMin do;
///   - indices are 64-bit, n below 2^37 (kArgReduceMaxN, kernel_templates/argreduce/launcher.hpp: a call of 2^37
///     elements or more throws UsageError); the result is deterministic (exactly defined, whatever the kernel's order).
struct ArgReduceProblem {
  static constexpr std::string_view kFamily = "argreduce";

  ArgOp op = ArgOp::argmax;
  ValueType type = ValueType::f32;
  std::uint64_t n = 0;                   ///< elements: the size tuned; for a handle, a hint (0 = none)
  std::string distribution = "uniform";  ///< input the tuner measures on (argreduce_distributions())

  bool operator==(const ArgReduceProblem&) const = default;

  /// Throws UsageError for an unknown distribution.
  void validate() const;
  /// Canonical text used as a cache key, e.g. "argreduce/argmax/f32/n=1048576/dist=uniform".
  std::string key() const;
  /// The same without n (every size of one arg-reduction shares it).
  std::string shape_key() const;
  /// Input bytes read by one call.
  std::uint64_t bytes() const { return n * size_of(type); }
};

/// Input distributions the tuner can generate: "uniform" (any value of an integer type; floats in [-1, 1)),
/// "constant" (one value repeated: every element ties, the answer is index 0), "sorted" (ascending), "skewed"
/// (a random walk with a drift, as a time series: the running extreme moves often early and rarely late).
const std::vector<std::string>& argreduce_distributions();

struct ArgReduceConfig {
  static constexpr std::string_view kFamily = "argreduce";

  /// warp_shuffle, shared_tree, or warp_reduce (sm_80+): the warps fold (value, index) pairs by __reduce_max_sync and
  /// __reduce_min_sync on the values' order keys and the indices (argreduce.cu's warp_fold_redux), packed keys by two
  /// __reduce_max_sync
  BlockReduce block_reduce = BlockReduce::warp_shuffle;
  int block = 256;         ///< threads per block: 64..1024, a multiple of 32
  int vec_bytes = 16;      ///< bytes per load: 0 = one element per load, else 4, 8 or 16 (>= the element size)
  int loads = 2;           ///< loads in flight per thread per iteration (unrolled), 1..16
  int accumulators = 1;    ///< independent (value, index) pairs per thread (1, 2, 4), combined at the end
  /// last_block (one launch), two_pass, or atomic (one launch, sm_90+): each block's winner as one 128-bit key
  /// (order bits of the value << 64 | ~index) kept by a compare-and-swap maximum in the workspace, which the last
  /// block decodes (no partials to fold); the pair path's counterpart of `pack`, for every type
  Finish finish = Finish::last_block;
  /// 0 = all resident blocks, -1 = cover n (one tile per block, capped), 1 = one block, 8 or 16 = one thread-block
  /// cluster of that many blocks (sm_90+; 16 is a non-portable size) that combine their winners through distributed
  /// shared memory (kArgReduceClusterGrid, kArgReduceLargeClusterGrid)
  int grid_blocks = 0;
  /// Types of up to 32 bits (not i64, u64, f64): after each thread's scan, a candidate travels as one 64-bit key, (order bits of the value)
  /// << 32 | ~index, whose unsigned maximum is the answer (NaN on top, equal values to the smaller index): the block
  /// reduction is a u64 max (warp_shuffle, or warp_reduce: two __reduce_max_sync), the grid finish one atomicMax per
  /// block into the workspace and a ticket, the last block decoding the key (no partials to fold). Printed in the key
  /// as ",pack=u64" only when set. For n >= 2^32 the same kernel takes the (value, index) pair path.
  bool pack = false;

  bool operator==(const ArgReduceConfig&) const = default;

  /// Canonical text, e.g. "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0" (and
  /// ",pack=u64" after it for a packed variant).
  std::string key() const;
  /// Inverse of key(); nullopt for anything else.
  static std::optional<ArgReduceConfig> parse(std::string_view key);

  /// Elements of problem.type one load reads.
  int elems_per_load(const ArgReduceProblem& problem) const;
  /// Dynamic shared memory the kernel needs, in bytes.
  std::size_t shared_bytes(const ArgReduceProblem& problem) const;
  /// Why this configuration is not well formed for `problem` (independent of any device), or empty.
  std::string invalid_reason(const ArgReduceProblem& problem) const;
  /// The configuration used when nothing was tuned: valid for every problem and every GPU of sm_75 or newer.
  static ArgReduceConfig fallback(const ArgReduceProblem& problem);
};

/// grid_blocks of the cluster paths: the blocks of its one cluster (8, the largest portable cluster size; 16, the
/// largest an sm_90 device allows with the non-portable attribute).
inline constexpr int kArgReduceClusterGrid = 8;
inline constexpr int kArgReduceLargeClusterGrid = 16;
inline constexpr bool is_argreduce_cluster_grid(int grid_blocks) {
  return grid_blocks == kArgReduceClusterGrid || grid_blocks == kArgReduceLargeClusterGrid;
}
/// `pack` variants take the 64-bit key path below this n (the key holds a 32-bit ~index); at and above it the pair path.
inline constexpr std::uint64_t kArgReducePackMaxN = 1ull << 32;

/// Name of the kernel entry point in every variant (a two_pass variant also has kArgReduceFinishKernelName).
inline constexpr const char* kArgReduceKernelName = "autotune_argreduce";
inline constexpr const char* kArgReduceFinishKernelName = "autotune_argreduce_finish";

/// Complete CUDA source of one variant: a generated preamble followed by kernel_templates/argreduce/argreduce.cu.
/// Throws UsageError when config.invalid_reason(problem) is not empty.
std::string kernel_source(const ArgReduceProblem& problem, const ArgReduceConfig& config);

}  // namespace autotune

template <>
struct std::hash<autotune::ArgReduceConfig> {
  std::size_t operator()(const autotune::ArgReduceConfig& c) const noexcept {
    return std::hash<std::string>{}(c.key());
  }
};
