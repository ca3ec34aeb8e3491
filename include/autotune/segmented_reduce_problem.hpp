// The segmented reduction family's vocabulary: the problem (what to reduce per segment, and the segment lengths the
// tuner measures on) and the configuration (one variant of the kernel pair).
//
// Segments are given as CUB's DeviceSegmentedReduce takes them: begin and end offsets into the values (segment s is
// [begin[s], end[s]); end[s] <= begin[s] is an empty segment), or one offsets array of num_segments + 1 entries
// (begin = offsets, end = offsets + 1). Offsets are `int` (n < 2^31) or, with offset_bits = 64, `std::int64_t`
// (CUB's OffsetT; any n). The total n and the number of segments are given per call; the
// problem's `distribution` is the distribution of segment *lengths* the tuner measures on (values are always drawn
// as the reduce family's "uniform" input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/reduce_problem.hpp"

namespace autotune {

/// sum, min, max as the reduce family computes them; argmin / argmax give (index within the segment, value) as
/// cub::DeviceSegmentedReduce::ArgMin / ArgMax do; `user` is an operator of the user's own (UserOp, as
/// ReduceOp::user: reduce_problem.hpp).
enum class SegReduceOp { sum, min, max, argmin, argmax, user };
std::string_view to_string(SegReduceOp op);
/// The built-in operations by name; "user" is not a name (a key spells it "user:<hash>").
std::optional<SegReduceOp> parse_segreduce_op(std::string_view text);
bool is_arg(SegReduceOp op);

/// A distribution of segment lengths (the problem's `distribution` text):
///   "fixed:L"         every segment L elements (L >= 1; the last one holds what is left of n)
///   "uniform:A..B"    lengths uniform in [A, B] (0 <= A <= B; A = 0 gives empty segments)
///   "power-law:A..B"  log-uniform lengths in [A, B] (density ~ 1/L, 1 <= A <= B): few long segments carry most of
///                     the elements, many short ones most of the segments
///   "power-law"       power-law:1..1M
///   "uniform"         uniform:1..1K (the default every family can generate)
/// Lengths are written with K = 1024, M = 2^20 suffixes ("fixed:4K", "uniform:1..64K").
struct SegmentSpec {
  enum class Kind { fixed, uniform, power_law };
  Kind kind = Kind::uniform;
  std::uint64_t lo = 1, hi = 1024;
  bool operator==(const SegmentSpec&) const = default;
};
/// The spec, or UsageError saying what is wrong with the text and what is accepted.
SegmentSpec parse_segment_spec(std::string_view text);
/// Canonical text: "uniform", "power-law", else "fixed:4K" etc. parse_segment_spec(format(s)) == s.
std::string format_segment_spec(const SegmentSpec& spec);
/// The named distributions `autotune tune --dists` accepts for the robust winner (other specs tune one at a time).
const std::vector<std::string>& segreduce_distributions();

/// A segmented reduction of n values of `type` in segments whose lengths follow `distribution`.
///
/// Value types: every ValueType (the 32- and 64-bit ones, f16, bf16, i8, i16), with ReduceProblem's rules.
/// Semantics per segment are those of ReduceProblem (reduce_problem.hpp): integer sums wrap in the accumulator
/// (i8, i16 and i32 sum into i64 by default), float sums in the accumulator type (f32 for f16 and bf16;
/// deterministic: the same bits every call for the same offsets on one GPU model), min/max propagate NaN (canonical
/// quiet NaN) and give the input type (halves compared as float, i8/i16 as int: exact), an empty segment gives the
/// identity (0, +inf/-inf for floats, the type's largest/smallest integer). argmin/argmax: the value and its index
/// relative to the segment's begin, written as cub::KeyValuePair<int, T> ({int key; T value;}: the value at offset 4
/// and 8 bytes in all for T of 1, 2 or 4 bytes, at offset 8 and 16 bytes for 8-byte T); ties and equal values
/// (-0.0 == +0.0) give the smallest index, with that element's own bits; a NaN beats every number and the first NaN
/// wins (numpy.argmin's rule); an empty segment gives CUB's {1, numeric_limits<T>::max()} for argmin and
/// {1, numeric_limits<T>::lowest()} for argmax (device_segmented_reduce.cuh; note: max() of float is FLT_MAX, not
/// +inf; of f16 0x7bff, of bf16 0x7f7f).
/// user: the operator of `user`, with ReduceProblem's rules (validation, canonical form, the hash of the key's
/// "user:<16 hex digits>", the accumulator: f32 for f16 and bf16, i32 for i8 and i16, else the type, or any 32- or
/// 64-bit type asked for): the transform lifts each element into the accumulator, the operator combines (in the
/// lanes, the block and the long segments' chunk partials; never with atomics), and an empty segment gives the
/// identity expression's value. One accumulator value per segment; no arg form.
struct SegReduceProblem {
  static constexpr std::string_view kFamily = "segreduce";

  SegReduceOp op = SegReduceOp::sum;
  ValueType type = ValueType::f32;
  /// Sums and user operators only; nullopt = the default: a sum's i8/i16/i32->i64, u32->u64, halves->f32, else the
  /// type; a user operator's halves->f32, i8/i16->i32, else the type.
  std::optional<ValueType> accumulator;
  std::uint64_t n = 0;                   ///< total elements: the size tuned; for a handle, a hint
  std::string distribution = "uniform";  ///< segment lengths the tuner measures on (SegmentSpec)
  /// The offsets' width: 32 (`int`, n < 2^31; keys carry no field) or 64 (`std::int64_t`, any n; "/offsets=64").
  /// argmin/argmax keys stay `int` as CUB's (KeyValuePair<int, T>): their segments must be shorter than 2^31.
  int offset_bits = 32;
  /// op == user: the operator's source. Empty in a problem read back from a cache key, which holds only its hash
  /// (user_hash): such a problem can be looked up and shown, not compiled.
  UserOp user;
  /// op == user: the first 16 hex digits of user_op_hash(user, type, accumulator); normalized() fills it from `user`,
  /// a key's parser from the key.
  std::string user_hash;

  bool operator==(const SegReduceProblem&) const = default;

  ValueType accumulator_type() const;
  /// The accumulator made explicit, the distribution in its canonical spelling and the user operator's hash filled in.
  SegReduceProblem normalized() const;
  /// UsageError for a bad accumulator (as ReduceProblem::validate), a user operator as ReduceProblem::validate
  /// refuses it (empty or not one expression, or no source and no hash) or operator source given to a built-in
  /// operation, a bad segment spec, offset_bits other than 32 or 64, n >= 2^31 with 32-bit offsets.
  void validate() const;
  /// "segreduce/sum/f32/acc=f32/n=67108864/dist=fixed:32", with "/offsets=64" appended for 64-bit offsets; a user
  /// operator's op part is "user:<hash>".
  std::string key() const;
  std::string shape_key() const;
  /// Value bytes read by one call (the offsets are not counted).
  std::uint64_t bytes() const { return n * size_of(type); }
  /// Bytes of one offset (4 or 8).
  std::size_t offset_bytes() const { return offset_bits == 64 ? 8 : 4; }
  /// Bytes of one segment's result: the accumulator, or a KeyValuePair<int, T> for argmin/argmax.
  std::size_t result_bytes() const;
  /// The same reduction as the reduce family states it (sum/min/max/user with its operator; argmin -> min,
  /// argmax -> max).
  ReduceProblem as_reduce() const;
};

/// One variant. Segments of at most `small_max` elements are reduced by a group of `group` lanes in the first
/// kernel (group = 1: a thread per segment, 32: a warp per segment, group = block: a block per segment, the grid
/// covering the segments as CUB's); longer ones are queued (in the workspace, without host synchronization) and the
/// second kernel reduces them in chunks of `chunk` elements, one block per chunk, the last block of a segment folding
/// its chunks' partials in a fixed order. small_max = 0: no limit, nothing is queued and a call is one launch.
struct SegReduceConfig {
  static constexpr std::string_view kFamily = "segreduce";

  int block = 256;        ///< threads per block of both kernels: 64..1024, a multiple of 32
  int group = 8;          ///< lanes per short segment: 1, 2, 4, 8, 16, 32 or `block`
  int small_max = 256;    ///< the longest segment a group reduces (longer ones go to blocks): 1..65536; 0 = any
  int vec_bytes = 16;     ///< bytes per load: 0 (one element) or 16 (unaligned heads read one element at a time)
  int loads = 2;          ///< loads in flight per thread per iteration: 1, 2, 4, 8
  int chunk = 16384;      ///< elements per block work item of a long segment: a power of two, 1K..1M

  bool operator==(const SegReduceConfig&) const = default;

  /// "block=256,group=8,small=256,vec=16,loads=2,chunk=16384"
  std::string key() const;
  static std::optional<SegReduceConfig> parse(std::string_view key);
  std::size_t shared_bytes(const SegReduceProblem& problem) const;
  std::string invalid_reason(const SegReduceProblem& problem) const;
  /// Whether a call is one launch (small_max = 0: the second kernel has nothing to do and is not launched).
  bool one_launch() const { return small_max == 0; }
  static SegReduceConfig fallback(const SegReduceProblem& problem);
};

inline constexpr const char* kSegReduceKernelName = "autotune_segreduce";
inline constexpr const char* kSegReduceLongKernelName = "autotune_segreduce_long";

/// The complete CUDA source of one variant (both kernels). UsageError when the configuration is invalid, or for a user
/// operator whose source is not in the problem.
std::string kernel_source(const SegReduceProblem& problem, const SegReduceConfig& config);

}  // namespace autotune

template <>
struct std::hash<autotune::SegReduceConfig> {
  std::size_t operator()(const autotune::SegReduceConfig& c) const noexcept {
    return std::hash<std::string>{}(c.key());
  }
};
