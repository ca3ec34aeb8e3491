// Shared by the NVRTC suites (test_nvrtc.cpp, test_nvrtc_reduce.cpp): compile many variants on all cores.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "autotune/problem.hpp"
#include "core/jit.hpp"

namespace autotune::test {

inline bool is_elf(const std::vector<char>& image) {
  return image.size() > 4 && std::memcmp(image.data(), "\x7f" "ELF", 4) == 0;
}

/// Compiles kernel_source(problem, c) for every c of `configs` for `arch` on all cores; the failures as text
/// (configuration key and NVRTC log), empty when every one compiled to a cubin.
template <class P, class C>
std::string compile_all(const P& problem, const std::vector<C>& configs, const std::string& arch) {
  std::vector<std::string> failures(configs.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < configs.size();) {
      const auto r = jit::compile(kernel_source(problem, configs[i]), "variant.cu", arch);
      if (!r.ok || !is_elf(r.cubin)) failures[i] = configs[i].key() + ":\n" + r.log;
    }
  };
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(work);
  }  // joins
  std::string all;
  for (const auto& f : failures) all += f;
  return all;
}

}  // namespace autotune::test
