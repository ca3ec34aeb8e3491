// The benchmarks that time every variant of a family's space (bench/reduce_bench.cpp, bench/argreduce_bench.cpp,
// bench/segreduce_bench.cpp): the configurations compiled with NVRTC in parallel (behind the compile cache,
// jit::default_compile_cache_dir()), then each loaded into the family's kernel wrapper. A configuration that does
// not compile or load keeps its reason instead of a kernel.
//
// And what every benchmark that compiles spaces offers as --compile-only (compile_ahead): its rows' variants
// compiled into the compile cache and nothing run, so that the benchmark itself then spends its time measuring.
// bench/gpu_check.sh runs it while the GPU suites hold the GPU; with --arch it needs no GPU at all.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/jit.hpp"

namespace autotune::bench {

template <class Config, class Kernel>
struct CompiledSpace {
  std::vector<Config> configs;
  std::vector<std::optional<Kernel>> kernels;  ///< nullopt: did not compile or load (the reason in `errors`)
  std::vector<std::string> errors;
};

/// Compiles `configs` of `problem` (the family's kernel_source, found by argument-dependent lookup) for `device` on
/// every core, then constructs Kernel(problem, config, device, cubin) for each one that compiled.
template <class Kernel, class Problem, class Config>
CompiledSpace<Config, Kernel> compile_space(const Problem& problem, std::vector<Config> configs,
                                            const DeviceInfo& device, const char* file_name) {
  CompiledSpace<Config, Kernel> s;
  s.configs = std::move(configs);
  std::vector<jit::CompileResult> compiled(s.configs.size());
  std::atomic<std::size_t> next{0};
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t)
      pool.emplace_back([&] {
        for (std::size_t i; (i = next++) < s.configs.size();)
          compiled[i] = jit::compile_cached(kernel_source(problem, s.configs[i]), file_name, device.arch(),
                                            jit::default_compile_cache_dir());
      });
  }
  s.kernels.resize(s.configs.size());
  s.errors.resize(s.configs.size());
  for (std::size_t i = 0; i < s.configs.size(); ++i) {
    if (!compiled[i].ok) {
      s.errors[i] = "compile error: " + compiled[i].log;
      continue;
    }
    try {
      s.kernels[i].emplace(problem, s.configs[i], device, compiled[i].cubin);
    } catch (const Error& e) {
      s.errors[i] = e.what();
    }
  }
  return s;
}

/// The sources the tuner compiles for `configs` of `problem` (tuning_source: without entry points the problem's calls
/// never run), appended to `out` in the order the benchmark will want them.
template <class P, class C>
void add_sources(std::vector<std::string>& out, const P& problem, const std::vector<C>& configs) {
  const autotune::Problem p(problem);
  for (const C& c : configs) out.push_back(autotune::tuning_source(p, autotune::Config(c)));
}

/// --compile-only: compiles `sources` for `arch` into the compile cache (jit::default_compile_cache_dir(), i.e.
/// $AUTOTUNE_CUBIN_CACHE when set) on every core, and says what it did on stdout. 0 when every source compiled, 1
/// when one did not (the benchmark would record it as a compile error), 2 when there is no cache to fill.
inline int compile_ahead(const std::vector<std::string>& sources, const std::string& arch, const char* bench_name) {
  const std::string dir = jit::default_compile_cache_dir();
  if (dir.empty()) {
    std::fprintf(stderr, "%s --compile-only: no compile cache directory (set AUTOTUNE_CUBIN_CACHE)\n", bench_name);
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<const std::string*> list;  // each source once, in the order given (a benchmark's first cases first)
  std::set<std::string_view> seen;
  for (const std::string& text : sources)
    if (seen.insert(text).second) list.push_back(&text);
  std::atomic<std::size_t> next{0}, cached{0}, failed{0};
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t)
      pool.emplace_back([&] {
        for (std::size_t i; (i = next++) < list.size();) {
          const jit::CompileResult r = jit::compile_cached(*list[i], "bench.cu", arch, dir);
          if (!r.ok) ++failed;
          else if (r.from_cache) ++cached;
        }
      });
  }
  std::printf("%s --compile-only: %zu variants for %s in %.1f s (%zu already in the cache, %zu failed) into %s\n",
              bench_name, list.size(), arch.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), cached.load(),
              failed.load(), dir.c_str());
  return failed ? 1 : 0;
}

}  // namespace autotune::bench
