// The runtime API for arg-min / arg-max: ask for the tuned launcher on a GPU, then call it.
//
//   autotune::ArgReduceProblem p{.op = autotune::ArgOp::argmax, .type = autotune::ValueType::f32, .n = n};
//   autotune::ArgReduce argmax(p);                          // looks the winners up in the cache, loads them once
//   argmax(d_values, n, d_result, stream);                  // const float*, ArgResult<float>*: device memory
//   autotune::ArgResult<float> r = argmax.result(d_values, n, d_result, stream);  // the same, copied back
//
// The semantics (ties, NaN, n = 0) are ArgReduceProblem's (argreduce_problem.hpp). Size-adaptive as autotune::Reduce:
// problem.n is a hint, the handle loads every tuned size of the problem's shape on this GPU model into a size table
// (resolution().sizes) and each call runs the configuration of the range holding its n. Thread-safety and streams
// as autotune::Reduce: one handle may be called from several host threads on any streams at once; each stream gets
// its own workspace, so a call is one launch (two for a two-pass finish) with no lock and no allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "autotune/argreduce_problem.hpp"
#include "autotune/reduce.hpp"  // ReduceValue, value_type_of
#include "autotune/resolution.hpp"

namespace autotune {

class ArgReduce {
 public:
  struct Options {
    int device = -1;         ///< CUDA ordinal; -1 = the calling thread's current device
    std::string cache_path;  ///< empty = Cache::default_path()
    /// What the lookup must find (include/autotune/resolution.hpp): unset = $AUTOTUNE_REQUIRE, else any.
    std::optional<Requirement> require;
  };

  /// Resolves the configurations and loads the kernels. Throws UsageError for an invalid problem, NoDeviceError
  /// without a GPU, CacheError for an unreadable cache file, Error if NVRTC fails on the fallback.
  explicit ArgReduce(const ArgReduceProblem& problem, const Options& options);
  explicit ArgReduce(const ArgReduceProblem& problem) : ArgReduce(problem, Options{}) {}
  ~ArgReduce();
  ArgReduce(ArgReduce&&) noexcept;
  ArgReduce& operator=(ArgReduce&&) noexcept;

  /// Finds the extreme of `n` elements at `d_in` (device memory, aligned to the element size) and writes it with
  /// its index at `d_out` (device memory, 8-byte aligned). Asynchronous on `stream`. Throws UsageError for null
  /// pointers or an element type other than problem().type.
  template <ReduceValue T>
  void operator()(const T* d_in, std::uint64_t n, ArgResult<T>* d_out, cudaStream_t stream = nullptr) const {
    check_type(value_type_of<T>());
    run(d_in, n, d_out, stream);
  }
  template <class In, std::size_t Extent>
    requires ReduceValue<std::remove_const_t<In>>
  void operator()(std::span<In, Extent> d_in, ArgResult<std::remove_const_t<In>>* d_out,
                  cudaStream_t stream = nullptr) const {
    (*this)(static_cast<const std::remove_const_t<In>*>(d_in.data()), d_in.size(), d_out, stream);
  }
  /// The same, then copies the result to the host and waits for `stream`.
  template <ReduceValue T>
  ArgResult<T> result(const T* d_in, std::uint64_t n, ArgResult<T>* d_out, cudaStream_t stream = nullptr) const {
    (*this)(d_in, n, d_out, stream);
    ArgResult<T> host{};
    copy_to_host(&host, d_out, sizeof host, stream);
    return host;
  }
  /// Untyped: `d_in` must hold problem().type values, `d_out` 16 bytes (value at 0, index at 8).
  void run(const void* d_in, std::uint64_t n, void* d_out, cudaStream_t stream = nullptr) const;

  const ArgReduceProblem& problem() const;
  /// How the configuration for problem().n (the size hint) was found; `sizes` holds the whole size table.
  const Resolution& resolution() const;
  /// The configuration a call with n elements runs.
  const Config& config_for(std::uint64_t n) const;
  /// The size-table range a call with n elements runs.
  const SizeRange& range_for(std::uint64_t n) const;

 private:
  void check_type(ValueType t) const;
  static void copy_to_host(void* host, const void* device, std::size_t bytes, cudaStream_t stream);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autotune
