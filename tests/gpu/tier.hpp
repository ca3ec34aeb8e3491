// The GPU suites' tier, their skips and their clock (host code only: tests/cpu/test_gpu_tier.cpp checks it without a
// GPU).
//
// Tier (AUTOTUNE_GPU_TIER): "quick" (the default) runs every case on a pairwise-covering subset of each space (every
// pair of parameter values of the runnable space meets in at least one variant that is verified exactly, as the
// NVRTC suites of tests/cpu/ compile them; where a case checks several problems of a family, one covering of their
// joint space, tier_spaces), and the slow cases in a cheaper form; "full" runs every variant. CTest
// runs both as gpu_quick.SUITE and gpu_full.SUITE (tests/CMakeLists.txt).
//
// Skips: a case that cannot run here (too little GPU memory) calls skip_case(): a failure under
// AUTOTUNE_REQUIRE_GPU=1 (bench/gpu_check.sh sets it), else a message and a counted skip in the summary line.
//
// Clock: the compile helpers of gpu_fixtures.hpp add their wall time and variant count; main.cpp prints
// "gpu-suite tier=... suite=... compile=...s run=...s variants=... skipped=..." at exit.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/cpu/nvrtc_fixtures.hpp"  // test::pairwise_subset, shared with the NVRTC suites

namespace autotune::testing {

enum class Tier { quick, full };

/// The tier named by `text` (AUTOTUNE_GPU_TIER's value; unset or empty: quick); std::invalid_argument naming the
/// variable for anything else.
inline Tier parse_tier(const char* text) {
  const std::string t = text ? text : "";
  if (t.empty() || t == "quick") return Tier::quick;
  if (t == "full") return Tier::full;
  throw std::invalid_argument("AUTOTUNE_GPU_TIER='" + t + "': expected quick or full");
}

inline Tier gpu_tier() {
  static const Tier tier = parse_tier(std::getenv("AUTOTUNE_GPU_TIER"));
  return tier;
}

inline const char* tier_name(Tier t) { return t == Tier::quick ? "quick" : "full"; }

/// Picks between a case's quick and full form.
template <class T>
T by_tier(T quick, T full) {
  return gpu_tier() == Tier::quick ? quick : full;
}

/// What a suite verifies of a space under `tier`: all of it (full) or a pairwise-covering subset (quick).
template <class C>
std::vector<C> tier_space(const std::vector<C>& space, Tier tier) {
  return tier == Tier::full ? space : test::pairwise_subset(space);
}

template <class C>
std::vector<C> test_space(const std::vector<C>& space) {
  return tier_space(space, gpu_tier());
}

/// What a suite verifies of several problems' spaces under `tier` (item i for problem i): each whole space (full),
/// or a pairwise covering of their joint space (quick; test::joint_pairwise_subsets: every pair of values of a
/// problem field and a configuration field, or of two configuration fields, meets in one variant, and every problem
/// gets one).
template <class P, class C>
std::vector<std::vector<C>> tier_spaces(const std::vector<P>& problems, const std::vector<std::vector<C>>& spaces,
                                        Tier tier) {
  return tier == Tier::full ? spaces : test::joint_pairwise_subsets(problems, spaces);
}

/// AUTOTUNE_REQUIRE_GPU=1: a GPU run where nothing may be skipped.
inline bool gpu_required() {
  const char* v = std::getenv("AUTOTUNE_REQUIRE_GPU");
  return v != nullptr && std::string(v) == "1";
}

/// The suite's compile time, compiled variants and skipped cases, summed over the process.
struct SuiteClock {
  std::mutex mutex;
  double compile_seconds = 0;
  std::size_t variants = 0;
  std::vector<std::string> skipped;
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  void add_compile(double seconds, std::size_t count) {
    const std::lock_guard lock(mutex);
    compile_seconds += seconds, variants += count;
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

inline SuiteClock& suite_clock() {
  static SuiteClock clock;
  return clock;
}

/// Times `compile` (NVRTC work of `count` variants) into the suite's clock; returns what it returns.
template <class F>
auto timed_compile(std::size_t count, F&& compile) {
  const auto t0 = std::chrono::steady_clock::now();
  auto result = compile();
  suite_clock().add_compile(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), count);
  return result;
}

/// A case that cannot run on this machine (`why`): FAIL under AUTOTUNE_REQUIRE_GPU=1, else a message and a counted
/// skip (main.cpp lists the skips at exit). The caller returns after it.
inline void skip_case(const std::string& why) {
  if (gpu_required()) FAIL("not run, and AUTOTUNE_REQUIRE_GPU=1 allows no skip: " << why);
  MESSAGE("SKIPPED: " << why);
  const std::lock_guard lock(suite_clock().mutex);
  suite_clock().skipped.push_back(why);
}

}  // namespace autotune::testing
