// Shared by the NVRTC suites (test_nvrtc.cpp, test_nvrtc_reduce.cpp, ...): compile many variants on all cores, and
// a pairwise-covering subset of a space for the cases where compiling all of it again would add little.
#pragma once

#include <algorithm>
#include <atomic>
#include <set>
#include <utility>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "autotune/problem.hpp"
#include "core/jit.hpp"

namespace autotune::test {

inline bool is_elf(const std::vector<char>& image) {
  return image.size() > 4 && std::memcmp(image.data(), "\x7f" "ELF", 4) == 0;
}

/// The "name=value" fields of a configuration's key: the parameters a compile can depend on.
template <class C>
std::vector<std::string> key_fields(const C& c) {
  std::vector<std::string> out;
  const std::string key = c.key();
  for (std::size_t start = 0; start <= key.size();) {
    const std::size_t comma = std::min(key.find(',', start), key.size());
    out.push_back(key.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

/// The registers per thread of `kernel` in a cubin (NVRTC's ELF output): the EIATTR_REGCOUNT attribute (0x2f) of the
/// cubin's .nv.info sections, whose value names the kernel by its symbol index. -1 when the cubin has none for it.
/// Written here rather than with a library: the attribute format is CUDA's own (no ELF package decodes .nv.info), and
/// the ELF walk it needs is the few lines below. Tests use it to keep a tuned variant's occupancy from regressing.
inline int registers_of(const std::vector<char>& cubin, const std::string& kernel) {
  auto read = [&](std::size_t at, auto value) {
    if (at + sizeof value > cubin.size()) throw std::runtime_error("registers_of: truncated cubin");
    std::memcpy(&value, cubin.data() + at, sizeof value);
    return value;
  };
  if (!is_elf(cubin) || cubin.size() < 64 || cubin[4] != 2) throw std::runtime_error("registers_of: not an ELF64 cubin");
  const auto shoff = read(0x28, std::uint64_t{});
  const auto shentsize = read(0x3A, std::uint16_t{}), shnum = read(0x3C, std::uint16_t{}),
             shstrndx = read(0x3E, std::uint16_t{});
  struct Section { std::uint32_t name, type, link; std::uint64_t offset, size, entsize; };
  std::vector<Section> sections;
  for (std::size_t i = 0; i < shnum; ++i) {
    const std::size_t h = shoff + i * shentsize;
    sections.push_back({read(h, std::uint32_t{}), read(h + 4, std::uint32_t{}), read(h + 40, std::uint32_t{}),
                        read(h + 24, std::uint64_t{}), read(h + 32, std::uint64_t{}), read(h + 56, std::uint64_t{})});
  }
  auto string_at = [&](const Section& table, std::uint32_t offset) {
    const std::size_t begin = table.offset + offset;
    if (begin >= cubin.size()) throw std::runtime_error("registers_of: bad string offset");
    return std::string(cubin.data() + begin, strnlen(cubin.data() + begin, cubin.size() - begin));
  };
  // The kernel's symbol index in the symbol table (SHT_SYMTAB = 2, 24-byte entries, names in its linked table).
  std::int64_t symbol = -1;
  for (const Section& s : sections)
    if (s.type == 2 && s.entsize == 24 && s.link < sections.size())
      for (std::size_t k = 0; k * 24 < s.size; ++k)
        if (string_at(sections[s.link], read(s.offset + k * 24, std::uint32_t{})) == kernel) symbol = k;
  if (symbol < 0) return -1;
  // .nv.info*: records of (format u8, attribute u8, then 2 bytes for formats 1-3, or u16 size + payload for 4).
  for (const Section& s : sections) {
    if (string_at(sections[shstrndx], s.name).rfind(".nv.info", 0) != 0) continue;
    for (std::size_t p = s.offset; p + 4 <= s.offset + s.size;) {
      const auto format = static_cast<unsigned char>(cubin[p]), attribute = static_cast<unsigned char>(cubin[p + 1]);
      if (format != 4) {
        p += 4;
        continue;
      }
      const auto size = read(p + 2, std::uint16_t{});
      if (attribute == 0x2f && size == 8 && read(p + 4, std::uint32_t{}) == symbol)
        return static_cast<int>(read(p + 8, std::uint32_t{}));
      p += 4 + size;
    }
  }
  return -1;
}

/// Every pair of parameter values that occurs together in `space`.
template <class C>
std::set<std::pair<std::string, std::string>> value_pairs(const std::vector<C>& space) {
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& c : space) {
    const auto f = key_fields(c);
    for (std::size_t i = 0; i < f.size(); ++i)
      for (std::size_t j = i + 1; j < f.size(); ++j) pairs.emplace(f[i], f[j]);
  }
  return pairs;
}

/// A deterministic subset of `space` in which every pair of parameter values of the space occurs (greedy pairwise
/// covering): where a compile failure would come from a construct meeting one or two parameters (another
/// architecture, another sample type of a space compiled whole for its main types), at a fraction of the time.
template <class C>
std::vector<C> pairwise_subset(const std::vector<C>& space) {
  auto missing = value_pairs(space);
  std::vector<std::set<std::pair<std::string, std::string>>> pairs_of;
  for (const auto& c : space) pairs_of.push_back(value_pairs(std::vector<C>{c}));
  std::vector<C> subset;
  while (!missing.empty()) {
    std::size_t best = 0, best_gain = 0;  // the first configuration that covers the most missing pairs
    for (std::size_t k = 0; k < space.size(); ++k) {
      std::size_t gain = 0;
      for (const auto& pair : pairs_of[k]) gain += missing.count(pair);
      if (gain > best_gain) best = k, best_gain = gain;
    }
    subset.push_back(space[best]);
    for (const auto& pair : pairs_of[best]) missing.erase(pair);
  }
  return subset;
}

/// Whether the NVRTC suites compile whole spaces: AUTOTUNE_NVRTC_FULL=1 in the environment (the `nvrtc_full.*` CTest
/// tests of a build configured with -DAUTOTUNE_TEST_NVRTC_FULL=ON set it). Without it they compile coverage(space).
inline bool nvrtc_full() {
  const char* v = std::getenv("AUTOTUNE_NVRTC_FULL");
  return v != nullptr && std::string(v) == "1";
}

/// What an NVRTC suite compiles of `configs`: all of them under nvrtc_full(), else a pairwise-covering subset (every
/// pair of parameter values still meets in one compiled variant). The whole spaces took CI's CPU tests past a
/// quarter of an hour on 2 cores (cpu.nvrtc alone 781 s in a clean-clone run of 35d8350).
template <class C>
std::vector<C> coverage(const std::vector<C>& configs) {
  return nvrtc_full() ? configs : pairwise_subset(configs);
}

/// Whether a cubin holds the code of kernel `name`: its section ".text.<name>", which NVRTC emits for every kernel
/// it compiles (and for no kernel the source does not define).
inline bool holds_kernel(const std::vector<char>& cubin, const std::string& name) {
  const std::string section = ".text." + name;
  return std::search(cubin.begin(), cubin.end(), section.c_str(), section.c_str() + section.size() + 1) != cubin.end();
}

/// Compiles kernel_source(problem, c) for every c of coverage(configs) for `arch` on all cores; the failures as text
/// (configuration key and NVRTC log, or the entry points of `kernels` a cubin lacks: those the launcher loads),
/// empty when every one compiled to a cubin that holds them all.
template <class P, class C>
std::string compile_all(const P& problem, const std::vector<C>& all_configs, const std::string& arch,
                        const std::vector<std::string>& kernels = {}) {
  const std::vector<C> configs = coverage(all_configs);
  std::vector<std::string> failures(configs.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < configs.size();) {
      const auto r = jit::compile(kernel_source(problem, configs[i]), "variant.cu", arch);
      if (!r.ok || !is_elf(r.cubin)) failures[i] = configs[i].key() + ":\n" + r.log;
      else
        for (const std::string& k : kernels)
          if (!holds_kernel(r.cubin, k)) failures[i] += configs[i].key() + ": no entry point " + k + "\n";
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
