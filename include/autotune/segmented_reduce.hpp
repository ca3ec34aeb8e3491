// The runtime API for segmented reductions: the tuned launcher of a per-segment sum / min / max / argmin / argmax, or
// of an operator of the user's own.
//
//   autotune::SegReduceProblem p{.op = autotune::SegReduceOp::sum, .type = autotune::ValueType::f32,
//                                .n = n, .distribution = "fixed:32"};   // what the lengths look like (a hint)
//   autotune::SegmentedReduce sum(p);                         // looks the winner up in the cache, loads it once
//   sum(d_values, n, num_segments, d_offsets, d_sums, stream);          // offsets: num_segments + 1 ints
//   sum(d_values, n, num_segments, d_begin, d_end, d_sums, stream);     // CUB's begin / end arrays
//   // with p.offset_bits = 64 the offsets are std::int64_t (CUB's OffsetT), and n may pass 2^31
//   p.op = autotune::SegReduceOp::user;                                  // an operator of your own (UserOp)
//   p.user = {.op = "a > b ? a : b", .identity = "-INFINITY"};
//   autotune::SegmentedReduce max(p);                         // one p.accumulator_type() value per segment
//
// Results: one accumulator value per segment (float for an f32 sum, int64_t for an i32 sum), or for argmin/argmax a
// SegmentedArg<T> ({int key; T value;}, the layout of cub::KeyValuePair<int, T>) per segment; semantics and empty
// segments in segmented_reduce_problem.hpp. n (the total elements) picks the size-table range, as for
// autotune::Reduce; problem.distribution picks which tuned segment-length distribution's winner runs (a robust one
// when tuned with --dists). Thread-safety and streams as autotune::Reduce: any threads, any streams, two launches a
// call, no allocation after a stream's first call.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "autotune/reduce.hpp"
#include "autotune/resolution.hpp"
#include "autotune/segmented_reduce_problem.hpp"

namespace autotune {

/// The offset types a call takes: `int` (CUB's usual) or `std::int64_t` (a problem of offset_bits = 64).
template <class T>
concept SegmentOffset = std::same_as<T, int> || std::same_as<T, std::int64_t>;

/// An argmin / argmax result: cub::KeyValuePair<int, T>'s layout.
template <class T>
struct SegmentedArg {
  int key;  ///< the index relative to the segment's begin (1 for an empty segment, as CUB)
  T value;
};

class SegmentedReduce {
 public:
  struct Options {
    int device = -1;         ///< CUDA ordinal; -1 = the calling thread's current device
    std::string cache_path;  ///< empty = Cache::default_path()
    std::optional<Requirement> require;  ///< as Reduce::Options::require
  };

  /// Resolves the configuration and loads the kernel. Throws UsageError for an invalid problem (a user operator that
  /// does not compile included, with NVRTC's log; checked before a device is looked for), NoDeviceError without a
  /// GPU, CacheError for an unreadable cache file.
  explicit SegmentedReduce(const SegReduceProblem& problem, const Options& options);
  explicit SegmentedReduce(const SegReduceProblem& problem) : SegmentedReduce(problem, Options{}) {}
  ~SegmentedReduce();
  SegmentedReduce(SegmentedReduce&&) noexcept;
  SegmentedReduce& operator=(SegmentedReduce&&) noexcept;

  /// Untyped: `d_in` holds problem().type values, `d_out` num_segments results of problem().result_bytes(). Segment
  /// s is [d_begin[s], d_end[s]). The offsets are `int` for a problem of 32-bit offsets and `std::int64_t` for one of
  /// problem().offset_bits = 64 (else UsageError). UsageError for null or misaligned pointers, or 2^32 segments or
  /// more. Asynchronous on `stream`.
  void run(const void* d_in, std::uint64_t n, std::uint64_t num_segments, const int* d_begin, const int* d_end,
           void* d_out, cudaStream_t stream = nullptr) const {
    launch(d_in, n, num_segments, d_begin, d_end, 32, d_out, stream);
  }
  void run(const void* d_in, std::uint64_t n, std::uint64_t num_segments, const std::int64_t* d_begin,
           const std::int64_t* d_end, void* d_out, cudaStream_t stream = nullptr) const {
    launch(d_in, n, num_segments, d_begin, d_end, 64, d_out, stream);
  }
  /// The offsets form: num_segments + 1 offsets, segment s = [d_offsets[s], d_offsets[s + 1]).
  void run(const void* d_in, std::uint64_t n, std::uint64_t num_segments, const int* d_offsets, void* d_out,
           cudaStream_t stream = nullptr) const {
    run(d_in, n, num_segments, d_offsets, d_offsets + 1, d_out, stream);
  }
  void run(const void* d_in, std::uint64_t n, std::uint64_t num_segments, const std::int64_t* d_offsets, void* d_out,
           cudaStream_t stream = nullptr) const {
    run(d_in, n, num_segments, d_offsets, d_offsets + 1, d_out, stream);
  }

  /// Typed sum / min / max / user: the input must be problem().type and the output problem().accumulator_type().
  template <ReduceValue In, ReduceValue Acc, SegmentOffset Off>
  void operator()(const In* d_in, std::uint64_t n, std::uint64_t num_segments, const Off* d_begin, const Off* d_end,
                  Acc* d_out, cudaStream_t stream = nullptr) const {
    check_types(value_type_of<In>(), value_type_of<Acc>(), false);
    run(d_in, n, num_segments, d_begin, d_end, d_out, stream);
  }
  template <ReduceValue In, ReduceValue Acc, SegmentOffset Off>
  void operator()(const In* d_in, std::uint64_t n, std::uint64_t num_segments, const Off* d_offsets, Acc* d_out,
                  cudaStream_t stream = nullptr) const {
    (*this)(d_in, n, num_segments, d_offsets, d_offsets + 1, d_out, stream);
  }
  /// Typed argmin / argmax.
  template <ReduceValue In, SegmentOffset Off>
  void operator()(const In* d_in, std::uint64_t n, std::uint64_t num_segments, const Off* d_begin, const Off* d_end,
                  SegmentedArg<In>* d_out, cudaStream_t stream = nullptr) const {
    check_types(value_type_of<In>(), value_type_of<In>(), true);
    run(d_in, n, num_segments, d_begin, d_end, d_out, stream);
  }
  template <ReduceValue In, SegmentOffset Off>
  void operator()(const In* d_in, std::uint64_t n, std::uint64_t num_segments, const Off* d_offsets,
                  SegmentedArg<In>* d_out, cudaStream_t stream = nullptr) const {
    (*this)(d_in, n, num_segments, d_offsets, d_offsets + 1, d_out, stream);
  }

  const SegReduceProblem& problem() const;
  const Resolution& resolution() const;
  const Config& config_for(std::uint64_t n) const;

 private:
  void check_types(ValueType input, ValueType output, bool arg) const;
  void launch(const void* d_in, std::uint64_t n, std::uint64_t num_segments, const void* d_begin, const void* d_end,
              int offset_bits, void* d_out, cudaStream_t stream) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autotune
