// The benchmarks that time every variant of a family's space (bench/reduce_bench.cpp, bench/argreduce_bench.cpp,
// bench/segreduce_bench.cpp): the configurations compiled with NVRTC in parallel, then each loaded into the family's
// kernel wrapper. A configuration that does not compile or load keeps its reason instead of a kernel.
#pragma once

#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
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
          compiled[i] = jit::compile(kernel_source(problem, s.configs[i]), file_name, device.arch());
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

}  // namespace autotune::bench
