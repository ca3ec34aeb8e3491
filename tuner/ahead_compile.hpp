// Compiling ahead (issue #26, "keep the GPU busy while the next problem compiles"). A tuning of a new shape is
// compile-bound (NVRTC on every core while the GPU waits); the other sizes of the shape compile next to nothing and
// are GPU-bound, with the cores idle. The standard preset on an H200 (2026-12-04, 152 runs: 261 s in runs that
// compiled, 151 s in runs that only loaded from the compile cache) could hide up to 122 s of the next shapes'
// compiles behind those GPU-bound runs (bench/results/2026-12-04d-h200-preset-standard-e9bd981.log.gz).
//
// AheadCompiler compiles the variants of the problems a command will tune later into the compile cache
// (core/jit.hpp) on background threads at the lowest CPU priority Linux has (SCHED_IDLE: a thread of it runs only on
// a core no other thread wants, so it never delays the tuner's compiles, its timing thread or its CPU reference).
// When the tuner reaches one of those problems its compile pool finds the cubins there (tuner.cpp). It compiles
// exactly what the tuner would: each configuration of the family's declared space (KernelFamily::space) that is
// valid on the device, as tuning_source(problem, config), each distinct source once. A variant that fails to
// compile is left for the tuner to meet and report.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"

namespace autotune {

/// The problems whose variants a command of `problems` can compile ahead, in the order run_ladders tunes them:
/// every ladder's sizes but the first ladder's (the tuner compiles that one at once, at full priority).
std::vector<Problem> compile_ahead_order(const std::vector<Problem>& problems);

class AheadCompiler {
 public:
  /// Starts `threads` threads (0: one per core) compiling the variants of `problems`, in order, for `device` into
  /// the compile cache `dir`. Nothing is started when `dir` is empty or `problems` is.
  AheadCompiler(std::vector<Problem> problems, const DeviceInfo& device, std::string dir, unsigned threads = 0);
  /// Stops taking new variants, lets the compiles in flight end, and joins.
  ~AheadCompiler();
  AheadCompiler(const AheadCompiler&) = delete;
  AheadCompiler& operator=(const AheadCompiler&) = delete;

  /// Waits until every variant has been compiled or found in the cache.
  void wait();

  struct Counts {
    std::size_t compiled = 0;  ///< compiled now and written to the cache
    std::size_t cached = 0;    ///< already in the cache
    std::size_t failed = 0;    ///< did not compile (the tuner records why)
    std::size_t invalid = 0;   ///< not valid on the device: the tuner does not compile them either
  };
  Counts counts() const;

 private:
  struct Item {
    std::size_t problem = 0;
    Config config;
  };
  bool next(Item& item);  // the next configuration to consider; false when none is left or stop_ is set
  void work();

  std::vector<Problem> problems_;
  DeviceInfo device_;
  std::string dir_;
  mutable std::mutex mutex_;
  std::size_t problem_ = 0;               // under mutex_: the next problem whose space is taken
  std::size_t loaded_ = 0, config_ = 0;   // under mutex_: configs_ is the space of problems_[loaded_], config_ its next
  std::vector<Config> configs_;
  std::unordered_set<std::size_t> seen_;  // under mutex_: hashes of the sources taken
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> compiled_{0}, cached_{0}, failed_{0}, invalid_{0};
  std::vector<std::thread> threads_;
};

}  // namespace autotune
