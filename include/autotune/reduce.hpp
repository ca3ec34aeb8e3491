// The runtime API for reductions: ask for the tuned launcher of a reduction on a GPU, then call it.
//
//   autotune::ReduceProblem p{.op = autotune::ReduceOp::sum, .type = autotune::ValueType::f32, .n = n};
//   autotune::Reduce sum(p);                      // looks the winner up in the cache, loads it once
//   sum(d_values, n, d_result, stream);           // const float*, float*: one float in device memory; one launch
//                                                 // (or two)
//   float host = sum.result(d_values, n, d_result, stream);   // the same, then copied back (synchronizes)
//
// The lookup order (exact, nearest tuned size, similar GPU model, built-in default) is include/autotune/resolution.hpp;
// resolution() says which step answered. Size-adaptive, as autotune::Histogram: problem.n is a hint, the handle
// loads every tuned size of the problem's shape on this GPU model into a size table (resolution().sizes) and each
// call runs the configuration of the range holding its n (config_for(n), range_for(n)). Thread-safety and streams: as autotune::Histogram (histogram.hpp): one
// handle may be called from several host threads on any streams at once and captured into CUDA graphs; each stream
// gets its own workspace for the partials (claimed lock-free on its first call), so after construction a call is one
// launch (two for a two-pass finish, a preset copy and a launch for the atomic finish) with no lock and no
// allocation. The application's current device and context are used, never replaced.
#pragma once

#include <cstdint>
#include <memory>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "autotune/reduce_problem.hpp"
#include "autotune/resolution.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // the same declaration as CUDA's driver_types.h
struct __half;         // CUDA's cuda_fp16.h: f16 values (include it to pass or receive them)
struct __nv_bfloat16;  // CUDA's cuda_bf16.h: bf16 values

namespace autotune {

/// The ValueType of a C++ type (int32_t -> i32, double -> f64, __half -> f16, __nv_bfloat16 -> bf16, int8_t -> i8, ...).
template <class T>
constexpr ValueType value_type_of() {
  if constexpr (std::is_same_v<T, float>) return ValueType::f32;
  else if constexpr (std::is_same_v<T, double>) return ValueType::f64;
  else if constexpr (std::is_same_v<T, __half>) return ValueType::f16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return ValueType::bf16;
  else if constexpr (std::is_same_v<T, signed char>) return ValueType::i8;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 2) return ValueType::i16;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 4) return ValueType::i32;
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) == 4) return ValueType::u32;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 8) return ValueType::i64;
  else {
    static_assert(std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) == 8, "no ValueType for this type");
    return ValueType::u64;
  }
}

/// The C++ types of reduction values: 32- and 64-bit signed and unsigned integers, float, double, __half,
/// __nv_bfloat16, signed char (int8_t) and 16-bit signed integers (int16_t). Plain char is not one: its signedness is
/// the platform's.
template <class T>
concept ReduceValue = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, __half> ||
                      std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, signed char> ||
                      (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 2 && !std::is_same_v<T, wchar_t>) ||
                      (std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8) &&
                       !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char32_t>);

class Reduce {
 public:
  struct Options {
    int device = -1;         ///< CUDA ordinal; -1 = the calling thread's current device
    std::string cache_path;  ///< empty = Cache::default_path()
    /// What the lookup must find (include/autotune/resolution.hpp): unset = $AUTOTUNE_REQUIRE, else any. With
    /// tuned or exact, construction throws NotTunedError (with the `autotune tune` command to run) instead of
    /// running the built-in default.
    std::optional<Requirement> require;
  };

  /// Resolves the configuration and loads the kernel. Throws UsageError for an invalid problem (a user operator that
  /// does not compile included: the message carries NVRTC's log), NoDeviceError without a GPU, CacheError for an
  /// unreadable cache file, Error if NVRTC fails on the fallback.
  explicit Reduce(const ReduceProblem& problem, const Options& options);
  explicit Reduce(const ReduceProblem& problem) : Reduce(problem, Options{}) {}
  /// A reduction of `type` values with an operator of the user's own (ReduceProblem::op = user), e.g.
  ///   autotune::Reduce max(autotune::ValueType::f32, {.op = "a > b ? a : b", .identity = "-INFINITY"}, n);
  /// The result type is ReduceProblem::accumulator_type() (f32 for f16/bf16 input, i32 for i8/i16, else the type).
  Reduce(ValueType type, const UserOp& op, std::uint64_t n, const Options& options);
  Reduce(ValueType type, const UserOp& op, std::uint64_t n = 0) : Reduce(type, op, n, Options{}) {}
  ~Reduce();
  Reduce(Reduce&&) noexcept;
  Reduce& operator=(Reduce&&) noexcept;

  /// Reduces `n` elements at `d_in` (device memory, aligned to the element size) into one value of the accumulator
  /// type at `d_out` (device memory), overwriting it. Asynchronous on `stream`. Throws UsageError for null
  /// pointers, an input type other than problem().type (e.g. const double* for an f32 problem) or an output type
  /// other than problem().accumulator_type() (e.g. std::int32_t* for an i32 sum, which accumulates in i64).
  template <ReduceValue In, ReduceValue Acc>
  void operator()(const In* d_in, std::uint64_t n, Acc* d_out, cudaStream_t stream = nullptr) const {
    check_input(value_type_of<In>());
    check_output(value_type_of<Acc>());
    run(d_in, n, d_out, stream);
  }
  /// The same with a span of device memory (n = d_in.size()).
  template <class In, std::size_t Extent, ReduceValue Acc>
    requires ReduceValue<std::remove_const_t<In>>
  void operator()(std::span<In, Extent> d_in, Acc* d_out, cudaStream_t stream = nullptr) const {
    (*this)(static_cast<const std::remove_const_t<In>*>(d_in.data()), d_in.size(), d_out, stream);
  }
  /// The same, then copies the result to the host and waits for `stream`.
  template <ReduceValue In, ReduceValue Acc>
  Acc result(const In* d_in, std::uint64_t n, Acc* d_out, cudaStream_t stream = nullptr) const {
    (*this)(d_in, n, d_out, stream);
    Acc host{};
    copy_to_host(&host, d_out, sizeof(Acc), stream);
    return host;
  }
  template <class In, std::size_t Extent, ReduceValue Acc>
    requires ReduceValue<std::remove_const_t<In>>
  Acc result(std::span<In, Extent> d_in, Acc* d_out, cudaStream_t stream = nullptr) const {
    return result(static_cast<const std::remove_const_t<In>*>(d_in.data()), d_in.size(), d_out, stream);
  }
  /// Untyped input: `d_in` must hold problem().type values (not checked); the output type is checked.
  template <ReduceValue Acc>
  void operator()(const void* d_in, std::uint64_t n, Acc* d_out, cudaStream_t stream = nullptr) const {
    check_output(value_type_of<Acc>());
    run(d_in, n, d_out, stream);
  }
  /// The same, then copies the result to the host and waits for `stream`.
  template <ReduceValue Acc>
  Acc result(const void* d_in, std::uint64_t n, Acc* d_out, cudaStream_t stream = nullptr) const {
    (*this)(d_in, n, d_out, stream);
    Acc host{};
    copy_to_host(&host, d_out, sizeof(Acc), stream);
    return host;
  }
  /// Untyped: `d_out` must hold one value of problem().accumulator_type().
  void run(const void* d_in, std::uint64_t n, void* d_out, cudaStream_t stream = nullptr) const;

  const ReduceProblem& problem() const;
  /// How the configuration for problem().n (the size hint) was found; `sizes` holds the whole size table.
  const Resolution& resolution() const;
  /// The configuration a call with n elements runs: the loaded kernel of the size-table range holding n.
  const Config& config_for(std::uint64_t n) const;
  /// The size-table range (resolution().sizes) a call with n elements runs, with where its configuration came from.
  const SizeRange& range_for(std::uint64_t n) const;

 private:
  void check_input(ValueType t) const;
  void check_output(ValueType t) const;
  static void copy_to_host(void* host, const void* device, std::size_t bytes, cudaStream_t stream);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autotune
