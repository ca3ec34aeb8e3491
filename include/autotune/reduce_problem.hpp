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

/// Element types a reduction reads. The first six are the 32- and 64-bit types every reduction family takes; f16
/// (IEEE binary16, CUDA's __half), bf16 (bfloat16, CUDA's __nv_bfloat16), i8 and i16 are read by reductions
/// (autotune::Reduce) and arg-reductions. Values never move: new types are appended.
enum class ValueType { i32, u32, i64, u64, f32, f64, f16, bf16, i8, i16 };
std::string_view to_string(ValueType t);
std::optional<ValueType> parse_value_type(std::string_view text);
std::size_t size_of(ValueType t);
bool is_float(ValueType t);
/// The 32- and 64-bit types (i32, u32, i64, u64, f32, f64): those every reduction family (segmented included) takes.
const std::vector<ValueType>& all_value_types();
/// The 8- and 16-bit types (f16, bf16, i8, i16): reductions, arg-reductions and segmented reductions.
const std::vector<ValueType>& narrow_value_types();

/// What a reduction computes. The transform-reductions (CUB's TransformReduce with a built-in transform) apply
/// their transform to every element in the same pass: absmax = max |x|, sumsq = sum x^2, sumabs = sum |x|,
/// l2norm = sqrt(sum x^2) (the root taken once, at the end). `user` is an operator of the user's own (UserOp).
enum class ReduceOp { sum, min, max, absmax, sumsq, sumabs, l2norm, user };
std::string_view to_string(ReduceOp op);
/// The built-in operations by name ("sum", ..., "l2norm"); "user" is not a name (a key spells it "user:<hash>").
std::optional<ReduceOp> parse_reduce_op(std::string_view text);
/// Whether op adds (sum, sumsq, sumabs, l2norm): the result of a float accumulator depends on the order.
bool is_additive(ReduceOp op);

/// An operator of the user's own: CUDA expressions compiled into the reduction template (kernel_templates/reduce/
/// reduce.cu) exactly as the built-in operators are, and tuned like them.
///
///   transform  an expression in `x` (the element converted to the accumulator type `acc_t`), applied to every
///              element; empty = `x` itself
///   op         an expression in `a` and `b` (acc_t) giving their combination; it must be associative and
///              commutative (the kernel combines each thread's strided elements, then threads, warps and blocks:
///              operands meet in no fixed order of their indices), and free of side effects
///   identity   an expression: op(identity, v) == v for every v (the kernel pads with it; the result for n = 0)
///
/// Each text is one C++ expression: no `;`, braces, `#`, backslashes, quotes, comments or digraphs, parentheses and
/// brackets balanced (validate() refuses the rest), so it cannot leave the expression it is pasted into. It may call device
/// functions (fmaxf, sqrtf, __float_as_uint, ...) and use INFINITY, NAN, FLT_MAX, DBL_MAX, INT_MAX, INT_MIN, UINT_MAX,
/// LLONG_MAX, LLONG_MIN and ULLONG_MAX. NVRTC compiles it when a handle is made or a tune begins; a text that does not
/// compile is a UsageError carrying NVRTC's log. The source lives with the application: the cache holds only its
/// hash (the key's "user:<16 hex digits>"), so no text is ever taken from a cache, imported or not.
struct UserOp {
  std::string op;
  std::string identity;
  std::string transform;

  bool operator==(const UserOp&) const = default;
};

/// The same operator in the form it is hashed in: each text with its leading and trailing whitespace removed and
/// every run of whitespace made one space (so line breaks and indentation do not change the key; "a>b" and "a > b"
/// are different texts and keys), and a transform of "x" written as the empty one.
UserOp canonical(const UserOp& user);

/// A reduction of n elements of `type` to one value of `accumulator` type, written to device memory.
///
/// Semantics:
///   sum: integers add modulo 2^bits of the accumulator (i32, i8 and i16 sum into i64 by default, u32 into u64);
///        floats add in the accumulator type (f32 by default, and for f16 and bf16; ask for f64 to sum in double).
///        NaN and infinities propagate as IEEE addition does.
///   min/max: the result is the input type (f16 in, f16 out: exact; halves and i8/i16 compare as float/int). If any
///        element is NaN the result is NaN (a canonical quiet NaN: 0x7fc00000 for f32, 0x7ff8000000000000 for f64,
///        0x7e00 for f16, 0x7fc0 for bf16), as numpy.min/torch.min do; -0.0 and +0.0 compare equal (either may be
///        returned).
///   absmax: max |x|, exact. Floats: the input type (NaN as for max; the result is never -0.0). Signed integers give
///        an unsigned result so that |lowest| does not overflow: u32 for i8, i16 and i32 (|-2^31| = 2^31), u64 for
///        i64; unsigned integers their own type. n = 0 gives 0.
///   sumsq, sumabs: x^2 and |x| computed in the accumulator (the sum's default accumulator), then summed as sum does:
///        integers wrap modulo 2^64 (an i64 square or |INT64_MIN| wraps too).
///   l2norm: sqrt(sumsq), in a float accumulator: f32 for f16, bf16 and f32, f64 for f64 and every integer type.
///   user: UserOp; the accumulator defaults to f32 for f16 and bf16, i32 for i8 and i16, else the input type.
///   n = 0 gives the identity: 0 for the sums and absmax; for min the largest value (+inf for floats), for max the
///        smallest (-inf for floats); the identity expression of a user operator.
///   deterministic (the default): the same bits on every call on one GPU model for the same n (fixed grid,
///        fixed-order finish). fast: float sums (sum, sumsq, sumabs) may finish with atomics (bits may vary run to
///        run). Only those are affected; for everything else the flag is ignored (normalized to true, see
///        normalized()).
/// Float tolerance (what the CPU and GPU checks allow, reference.hpp): min, max and absmax are exact (no rounding
/// happens in a max); a float sum of n terms t_i within gamma_k * sum|t_i| of the exact sum, gamma_k = k u / (1 - k u),
/// k = ceil(log2 n) + 32, u = 2^-24 for an f32 accumulator (2^-53 for f64), one more k for the rounding of each
/// square of sumsq; l2norm the root of that bound.
struct ReduceProblem {
  static constexpr std::string_view kFamily = "reduce";

  ReduceOp op = ReduceOp::sum;
  ValueType type = ValueType::f32;
  std::optional<ValueType> accumulator;  ///< nullopt = the default for op and type (see accumulator_type())
  std::uint64_t n = 0;                   ///< elements: the size tuned; for a handle, a hint (0 = none)
  bool deterministic = true;
  std::string distribution = "uniform";  ///< input the tuner measures on (reduce_distributions())
  /// op == user: the operator's source. Empty in a problem read back from a cache key, which holds only its hash
  /// (user_hash): such a problem can be looked up and shown, not compiled.
  UserOp user;
  /// op == user: the first 16 hex digits of the operator's SHA-256 (user_op_hash()); normalized() fills it from
  /// `user`, a key's parser from the key.
  std::string user_hash;

  bool operator==(const ReduceProblem&) const = default;

  /// The accumulator actually used, which is also the type of the result: `accumulator` if set, else the default
  /// of op and type described above.
  ValueType accumulator_type() const;
  /// The same problem with the accumulator made explicit, `deterministic` forced to true where it has no effect and
  /// the user operator's hash filled in; key() is computed from this form, so equivalent spellings share one entry.
  ReduceProblem normalized() const;

  /// Throws UsageError when not well formed: min/max/absmax with an accumulator other than their result type, a sum
  /// accumulator that cannot hold the input (float into integer, integer into float, narrower than the input,
  /// signed into unsigned or the reverse, 8 or 16 bits), an l2norm accumulator that is not a float, a user operator
  /// whose text is empty or not one expression (see UserOp), an unknown distribution.
  void validate() const;

  /// Canonical text used as a cache key and in messages, e.g. "reduce/sum/f32/acc=f32/n=1048576/dist=uniform",
  /// with "/mode=fast" appended for a non-deterministic float sum; a user operator's op part is "user:<hash>".
  std::string key() const;
  /// The same without n (every size of one reduction shares it).
  std::string shape_key() const;
  /// Input bytes read by one call.
  std::uint64_t bytes() const { return n * size_of(type); }
  /// Bits of the identity of op in the accumulator type (the result for n = 0), zero-extended to 64 bits. A user
  /// operator's identity is an expression known to the device alone: 0 here (never used for it).
  std::uint64_t identity_bits() const;
};

/// The hash a user operator is keyed by: the first 16 hex digits of the SHA-256 of its canonical form (canonical())
/// together with the input and accumulator types, so two different operators (or one on two types) never share a
/// winner.
std::string user_op_hash(const UserOp& user, ValueType type, ValueType accumulator);

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
  /// each block combines its result with one atomic into a word of its workspace (the identity between launches);
  /// the last block to retire (ticket) writes the word to the output and resets it: one launch, no preset, no
  /// partials to fold. Where atomic is allowed; exact (deterministic) but for float sums. (Arg-reductions spell their
  /// counterpart, 128-bit keys, `atomic`: argreduce_problem.hpp.)
  atomic_last,
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
  bool load_cs = false;    ///< the 16-byte input loads as ld.global.cs (evict-first: the L2 keeps its other
                           ///< lines), key "ld=cs"; else ld.global.nc

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
  /// narrower than the element, atomics where the result cannot take them (a user operator, l2norm, an 8- or
  /// 16-bit result).
  std::string invalid_reason(const ReduceProblem& problem) const;

  /// The safe configuration used when nothing was tuned: valid for every problem and every GPU of sm_70 or newer.
  static ReduceConfig fallback(const ReduceProblem& problem);
};

/// Name of the kernel entry point in every reduction variant (a two_pass variant also has kReduceFinishKernelName).
inline constexpr const char* kReduceKernelName = "autotune_reduce";
inline constexpr const char* kReduceFinishKernelName = "autotune_reduce_finish";

/// Complete CUDA source of one variant: a generated preamble of compile-time constants (and a user operator's
/// functions) followed by the embedded template kernel_templates/reduce/reduce.cu. Throws UsageError when
/// config.invalid_reason(problem) is not empty, or for a user operator whose source is not in the problem.
std::string kernel_source(const ReduceProblem& problem, const ReduceConfig& config);

}  // namespace autotune

template <>
struct std::hash<autotune::ReduceConfig> {
  std::size_t operator()(const autotune::ReduceConfig& c) const noexcept { return std::hash<std::string>{}(c.key()); }
};
