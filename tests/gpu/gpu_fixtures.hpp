// Helpers shared by the GPU suites: the compiles (timed into the suite clock, tier.hpp), device buffers filled from
// host vectors, counters and references.
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/tuner.hpp"
#include "core/cuda.hpp"
#include "core/jit.hpp"
#include "generators.hpp"
#include "kernel_templates/histogram/reference.hpp"
#include "tests/forced_winner.hpp"
#include "tier.hpp"
#include "../scoped_env.hpp"

namespace autotune::testing {

/// Which entry points a case compiles: the ones it runs. A case that counts one row at a time compiles what the
/// tuner compiles (tuning_source: a histogram or range variant without its 2D entry, about a quarter of the NVRTC
/// time); the 1D entry's machine code is the same bytes either way (tests/cpu/test_nvrtc.cpp and
/// test_histogram_range.cpp compare it), so nothing the case checks changes. A case that runs 2D regions compiles
/// kernel_source, both entries.
enum class Entries { one_row, all };

/// One configuration of a family and its cubin for the device under test; `entry_2d`: the cubin holds the 2D entry
/// (the launchers' constructor argument of that name).
template <class C>
struct CompiledVariant {
  C config;
  std::vector<char> cubin;
  bool entry_2d = true;
};

/// The source a case compiles for `config` of `problem` (Entries).
template <class P, class C>
std::string test_source(const P& problem, const C& config, Entries entries) {
  return entries == Entries::all ? kernel_source(problem, config) : tuning_source(Problem(problem), Config(config));
}

/// NVRTC for the suites: behind the on-disk compile cache (jit::compile_cached) in $AUTOTUNE_GPU_TEST_CUBINS when set
/// (bench/gpu_check.sh sets it: a space compiled by one suite or case is not compiled again by another of the run),
/// else a plain compile.
inline jit::CompileResult test_compile(const std::string& source, const std::string& arch) {
  static const char* dir = std::getenv("AUTOTUNE_GPU_TEST_CUBINS");
  return dir && *dir ? jit::compile_cached(source, "variant.cu", arch, dir) : jit::compile(source, "variant.cu", arch);
}

/// Compiles source(i) for i in [0, count) for `dev` on all cores, timed into the suite's clock (tier.hpp).
template <class Source>
std::vector<jit::CompileResult> compile_sources(std::size_t count, Source&& source, const DeviceInfo& dev) {
  return timed_compile(count, [&] {
    std::vector<jit::CompileResult> r(count);
    std::atomic<std::size_t> next{0};
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t)
      pool.emplace_back([&] {
        for (std::size_t i; (i = next++) < count;) r[i] = test_compile(source(i), dev.arch());
      });
    pool.clear();  // joins
    return r;
  });
}

/// Compiles `configs` for `dev` on all cores, timed into the suite's clock (tier.hpp), failing the test on any
/// compile error.
template <class P, class C>
std::vector<CompiledVariant<C>> compile_variants(const P& problem, const std::vector<C>& configs, const DeviceInfo& dev,
                                                 Entries entries) {
  std::vector<jit::CompileResult> results = compile_sources(
      configs.size(), [&](std::size_t i) { return test_source(problem, configs[i], entries); }, dev);
  std::vector<CompiledVariant<C>> out;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    INFO(configs[i].key(), "\n", results[i].log);
    REQUIRE(results[i].ok);
    out.push_back({configs[i], std::move(results[i].cubin), entries == Entries::all});
  }
  return out;
}

/// The configurations of `space` that the device can run (`violation(c)` empty); `pruned` counts the others.
template <class C, class Violation>
std::vector<C> runnable(const std::vector<C>& space, Violation&& violation, int& pruned) {
  std::vector<C> configs;
  pruned = 0;
  for (const auto& c : space) {
    if (violation(c).empty()) configs.push_back(c);
    else ++pruned;
  }
  return configs;
}

/// Compiles every configuration of `space` that the device can run (a list a case chose: all of it, whatever the
/// tier); `pruned` counts the ones the device's limits left out.
template <class P, class C, class Violation>
std::vector<CompiledVariant<C>> compile_runnable(const P& problem, const std::vector<C>& space, const DeviceInfo& dev,
                                                 Violation&& violation, int& pruned, Entries entries) {
  return compile_variants(problem, runnable(space, violation, pruned), dev, entries);
}

/// Compiles, whatever the tier, the configurations of the family's `space(problem)` that `keep(c)` selects (a case
/// about one construct, e.g. one finish) and that `violation(problem, c, &dev)` lets the device run, with every entry
/// point; `selected` counts what `keep` took, `pruned` what the device's limits then left out.
template <class P, class Space, class Violation, class Keep>
auto compile_selected(const P& problem, Space&& space, Violation&& violation, Keep&& keep, const DeviceInfo& dev,
                      std::size_t& selected, int& pruned) {
  using C = typename decltype(space(problem))::value_type;
  std::vector<C> chosen;
  for (const C& c : space(problem))
    if (keep(c)) chosen.push_back(c);
  selected = chosen.size();
  return compile_runnable(
      problem, chosen, dev, [&](const C& c) { return violation(problem, c, &dev); }, pruned, Entries::all);
}

/// Compiles what the tier verifies of a family's space (tier.hpp): the runnable configurations, all of them in the
/// full tier, a pairwise-covering subset of them in the quick tier. `pruned` counts what the device's limits left out.
template <class P, class C, class Violation>
std::vector<CompiledVariant<C>> compile_tier(const P& problem, const std::vector<C>& space, const DeviceInfo& dev,
                                             Violation&& violation, int& pruned, Entries entries) {
  return compile_variants(problem, test_space(runnable(space, violation, pruned)), dev, entries);
}

/// Compiles what the tier verifies of several problems of a family (tier_spaces: the quick tier covers their joint
/// space once), all of them in one pool: item i holds problem i's variants. `space(p)` gives a problem's space,
/// `violation(p, c)` why the device cannot run c (empty: it can).
template <class P, class Space, class Violation>
auto compile_tier_joint(const std::vector<P>& problems, Space&& space, const DeviceInfo& dev, Violation&& violation) {
  using C = typename std::decay_t<decltype(space(problems.front()))>::value_type;
  std::vector<std::vector<C>> runnable_spaces;
  int pruned = 0;
  for (const P& p : problems) {
    int n = 0;
    runnable_spaces.push_back(runnable(space(p), [&](const C& c) { return violation(p, c); }, n));
    pruned += n;
  }
  const auto picked = tier_spaces(problems, runnable_spaces, gpu_tier());
  std::vector<std::pair<std::size_t, std::size_t>> jobs;  // (problem, configuration)
  for (std::size_t i = 0; i < picked.size(); ++i)
    for (std::size_t k = 0; k < picked[i].size(); ++k) jobs.emplace_back(i, k);
  std::vector<jit::CompileResult> results = compile_sources(
      jobs.size(),
      [&](std::size_t j) { return kernel_source(problems[jobs[j].first], picked[jobs[j].first][jobs[j].second]); }, dev);
  std::vector<std::vector<CompiledVariant<C>>> out(problems.size());
  std::size_t total = 0, whole = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const C& c = picked[jobs[j].first][jobs[j].second];
    INFO(problems[jobs[j].first].shape_key(), " ", c.key(), "\n", results[j].log);
    REQUIRE(results[j].ok);
    out[jobs[j].first].push_back({c, std::move(results[j].cubin)});
  }
  for (std::size_t i = 0; i < problems.size(); ++i) total += picked[i].size(), whole += runnable_spaces[i].size();
  MESSAGE(fmt::format("{} problems: {} variants of {} runnable on {} ({} pruned by device limits, {} tier)",
                      problems.size(), total, whole, dev.name, pruned, tier_name(gpu_tier())));
  return out;
}

/// Each variant of the tier for `problems` (compile_tier_joint, on the uniform distribution) at n = one and a half of
/// its tile plus 3 elements (block x loads x elements per load: a scalar head, a partial second tile, a scalar tail),
/// the n a reduction family's host runs in one block (kOneBlockTiles, kernel_templates/reduction_launch.hpp):
/// `check(problem, kernel, n, seed)` with the variant loaded as a K (ReduceKernel, ArgReduceKernel), after checking
/// that its grid is that one block. Variants of a fixed grid of several blocks (the arg-reductions' one cluster of 8
/// or 16, grid=8 and grid=16) launch it whatever n, so they are not of this path and are left out.
template <class K, class P, class Space, class Violation, class Check>
void at_two_tiles(std::vector<P> problems, Space&& space, Violation&& violation, Check&& check) {
  const DeviceInfo dev = query_device(0);
  AUTOTUNE_CUDA(cudaSetDevice(0));
  for (P& p : problems) p.distribution = "uniform";
  const auto variants = compile_tier_joint(problems, space, dev, [&](const P& p, const auto& c) {
    return violation(p, c, &dev);
  });
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const P& p = problems[i];
    CHECK(!variants[i].empty());
    int one_block = 0;
    for (const auto& v : variants[i]) {
      if (v.config.grid_blocks > 1) continue;
      ++one_block;
      const std::uint64_t tile = static_cast<std::uint64_t>(v.config.block) * v.config.loads *
                                 static_cast<std::uint64_t>(v.config.elems_per_load(p));
      const std::uint64_t n = tile + tile / 2 + 3;
      INFO(p.shape_key(), " n=", n, " ", v.config.key());
      const K kernel(p, v.config, dev, v.cubin);
      CHECK(kernel.grid_for(n) == 1);
      check(p, kernel, n, 31 + i);
    }
    CHECK_MESSAGE(one_block > 0, p.shape_key(), ": no variant of the tier takes the one-block path");
  }
}

/// What the tier verifies of `problem`, one of a suite's `problems` whose cases each check one of them: the quick
/// tier's covering is of the joint space of all of them (tier_spaces), computed once per suite and device and
/// shared by its cases. `space(p)` gives a problem's space, `violation(p, c)` why the device cannot run c.
template <class P, class Space, class Violation>
auto tier_share(const std::vector<P>& problems, const P& problem, Space&& space, const DeviceInfo& dev,
                Violation&& violation) {
  using C = typename std::decay_t<decltype(space(problem))>::value_type;
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::vector<C>>> computed;  // by the problems' keys and the device
  std::string id = dev.name + "#" + dev.arch();
  for (const P& p : problems) id += "|" + p.key();
  const std::lock_guard lock(mutex);
  auto it = computed.find(id);
  if (it == computed.end()) {
    std::vector<std::vector<C>> runnable_spaces;
    for (const P& p : problems) {
      int pruned = 0;
      runnable_spaces.push_back(runnable(space(p), [&](const C& c) { return violation(p, c); }, pruned));
    }
    it = computed.emplace(id, tier_spaces(problems, runnable_spaces, gpu_tier())).first;
  }
  for (std::size_t i = 0; i < problems.size(); ++i)
    if (problems[i].key() == problem.key()) return it->second[i];
  throw std::logic_error("tier_share: " + problem.key() + " is not one of the suite's problems");
}

/// One compile for `dev`, timed into the suite's clock; fails the test on a compile error.
template <class P, class C>
std::vector<char> compile_one(const P& problem, const C& config, const DeviceInfo& dev) {
  const auto r = timed_compile(1, [&] { return test_compile(kernel_source(problem, config), dev.arch()); });
  INFO(config.key(), "\n", r.log);
  REQUIRE(r.ok);
  return r.cubin;
}

/// Blocks of `block` threads with `shared_bytes` of dynamic shared memory that fit on one multiprocessor at once, for
/// kernel `name` of `cubin`: the CUDA runtime's occupancy calculator on a library loaded here, apart from the
/// launchers' own module (the expectation of their resident grids).
inline int resident_blocks_per_sm(const std::vector<char>& cubin, const char* name, int block, std::size_t shared_bytes) {
  cudaLibrary_t library = nullptr;
  AUTOTUNE_CUDA(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t kernel = nullptr;
  int blocks = 0;
  const cudaError_t got = cudaLibraryGetKernel(&kernel, library, name);
  const cudaError_t counted = got == cudaSuccess ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                                       &blocks, reinterpret_cast<const void*>(kernel), block, shared_bytes)
                                                 : got;
  AUTOTUNE_CUDA(cudaLibraryUnload(library));
  AUTOTUNE_CUDA(counted);
  return blocks;
}

/// Host bytes copied to a device buffer starting `offset_elems` elements in (to test unaligned pointers).
struct DeviceSamples {
  cuda::DeviceBuffer buffer;
  const void* ptr = nullptr;
  DeviceSamples(const std::vector<unsigned char>& host, std::size_t elem_size, std::size_t offset_elems)
      : buffer(host.size() + (offset_elems + 1) * elem_size) {
    auto* base = buffer.as<unsigned char>() + offset_elems * elem_size;
    if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(base, host.data(), host.size(), cudaMemcpyHostToDevice));
    // A pageable copy may return before its DMA lands: wait before a non-blocking stream reads it.
    AUTOTUNE_CUDA(cudaDeviceSynchronize());
    ptr = base;
  }
};

/// Fills `buffer` with `byte` and waits for it. cudaMemset of device memory may return before the fill lands, and
/// the handles run on non-blocking streams, which do not wait for the legacy stream: without the wait a poison fill
/// can land after a launch's own zeroing (gpu_api's full tier saw counts of c - 1: 0xFFFFFFFF + c).
inline void fill_and_wait(const cuda::DeviceBuffer& buffer, int byte) {
  AUTOTUNE_CUDA(cudaMemset(buffer.get(), byte, buffer.bytes()));
  AUTOTUNE_CUDA(cudaDeviceSynchronize());
}

/// Whether `dev` has programmatic dependent launch (sm_90+), where a call's output is zeroed or preset by a kernel
/// that the work launch overlaps (cuda::zero_with_kernel); else the case is reported skipped.
inline bool overlaps_zeroing_or_skip(const DeviceInfo& dev) {
  if (dev.cc_major >= 9) return true;
  skip_case(fmt::format("{} (sm_{}{}) has no programmatic dependent launch: outputs are zeroed or preset by a memset",
                        dev.name, dev.cc_major, dev.cc_minor));
  return false;
}

/// The ordering check of a launcher that zeroes or presets its output with a kernel the work launch overlaps:
/// `make()` loads the variant twice, as this device runs it (the overlapping kernel) and with
/// AUTOTUNE_ZERO_WITH_MEMSET=1 (a memset or copy the work waits for); for each, `out` poisoned with the byte
/// `poison` and `in` filled with `stale`, two calls `call(kernel, stream)` on a created stream, each just after a
/// memset of `in` to `fresh` on that stream, then `check(label)` ("kernel" or "memset") once the stream is done.
template <class Make, class Call, class Check>
void check_zeroing_after_stream_work(Make make, const cuda::DeviceBuffer& in, int stale, int fresh,
                                     const cuda::DeviceBuffer& out, int poison, Call call, Check check) {
  CHECK(cuda::zero_with_kernel(9));
  const auto overlapped = make();
  std::optional<decltype(make())> by_memset;
  {
    const test::ScopedEnv memset("AUTOTUNE_ZERO_WITH_MEMSET", "1");
    CHECK_FALSE(cuda::zero_with_kernel(9));
    by_memset.emplace(make());
  }
  const cuda::Stream stream;
  const std::pair<const decltype(overlapped)*, const char*> kernels[] = {{&overlapped, "kernel"},
                                                                         {&*by_memset, "memset"}};
  for (const auto& [kernel, label] : kernels) {
    fill_and_wait(out, poison);
    fill_and_wait(in, stale);
    for (int c = 0; c < 2; ++c) {
      AUTOTUNE_CUDA(cudaMemsetAsync(in.get(), fresh, in.bytes(), stream.get()));
      call(*kernel, stream.get());
    }
    stream.synchronize();
    check(label);
  }
}

/// Device counters for `p` (32- or 64-bit).
inline cuda::DeviceBuffer counter_buffer(const HistogramProblem& p) {
  return cuda::DeviceBuffer(static_cast<std::size_t>(p.counters()) * (p.counter_bits / 8));
}

/// The counters as 64-bit values, whatever their width on the device.
inline std::vector<std::uint64_t> download(const HistogramProblem& p, const cuda::DeviceBuffer& counts) {
  std::vector<unsigned char> raw(counts.bytes());
  AUTOTUNE_CUDA(cudaMemcpy(raw.data(), counts.get(), raw.size(), cudaMemcpyDeviceToHost));
  return widen_counts(p, raw.data());
}

/// The reference counts as the device's counters hold them.
inline std::vector<std::uint64_t> expected_counts(const HistogramProblem& p, const std::vector<unsigned char>& host,
                                                  std::uint64_t n) {
  return counts_as_written(p, reference_histogram(p, host.data(), n));
}

/// Records `config` as the winner of `problem` on GPU 0 in the cache file at `path` (created if missing), with its
/// cubin (compiled here) or without one: what `autotune tune` leaves when `config` wins, without measuring anything.
inline void record_forced_winner(const std::string& path, const Problem& problem, const Config& config,
                                 bool with_cubin = true) {
  const DeviceInfo dev = query_device(0);
  std::vector<char> cubin;
  if (with_cubin) {
    cubin = compile_one(problem, config, dev);
  }
  write_forced_winner(path, dev, problem, config, cubin, "test");
}

/// The histogram problem of the tuner's cases at `n` samples. Full tier: u8 samples into 256 bins, the space of 513
/// variants users tune most. Quick tier: u32 samples into 2^20 bins, whose space (global and clustered shared
/// counters) is a few dozen variants: the same engine, strategies, worker processes and watchdog at a tenth of the
/// measuring and compiling.
inline HistogramProblem tuner_problem(std::uint64_t n) {
  HistogramProblem p;
  if (gpu_tier() == Tier::quick) p.type = SampleType::u32, p.bins = 1 << 20, p.lower = 0, p.upper = 1 << 20;
  p.n = n;
  return p;
}

/// `autotune tune` flags naming tuner_problem's shape (the size is added by the caller).
inline std::string tuner_problem_flags(const HistogramProblem& p) {
  return fmt::format("--type {} --bins {} --lower {} --upper {}", to_string(p.type), p.bins, p.lower, p.upper);
}

/// Options for a case that needs a tuned winner rather than a measured space: every variant in the full tier, a
/// seeded random draw of 8 (the built-in default among them) in the quick tier.
inline TuneOptions tier_tune_options(int samples) {
  TuneOptions o;
  o.samples = samples;
  if (gpu_tier() == Tier::quick) o.strategy = "random", o.budget = 8;
  return o;
}

}  // namespace autotune::testing
