// Shared by the NVRTC suites (test_nvrtc.cpp, test_nvrtc_reduce.cpp, ...): compile many variants on all cores, and
// a pairwise-covering subset of a space for the cases where compiling all of it again would add little.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <map>
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

/// A section of a cubin (NVRTC's ELF64 output), its name resolved.
struct ElfSection {
  std::string name;
  std::uint32_t type = 0, link = 0;
  std::uint64_t offset = 0, size = 0, entsize = 0;
};

/// Reads the value at byte `at` of `cubin` (throws on a truncated image).
template <class T>
T read_at(const std::vector<char>& cubin, std::size_t at) {
  T value{};
  if (at + sizeof value > cubin.size()) throw std::runtime_error("cubin: truncated");
  std::memcpy(&value, cubin.data() + at, sizeof value);
  return value;
}

/// The NUL-terminated string at byte `at` of `cubin`.
inline std::string string_at(const std::vector<char>& cubin, std::size_t at) {
  if (at >= cubin.size()) throw std::runtime_error("cubin: bad string offset");
  return std::string(cubin.data() + at, strnlen(cubin.data() + at, cubin.size() - at));
}

/// The sections of a cubin. Written here rather than with a library: the few lines of the ELF64 header walk, for
/// the attribute format below that is CUDA's own (no ELF package decodes .nv.info).
inline std::vector<ElfSection> elf_sections(const std::vector<char>& cubin) {
  if (!is_elf(cubin) || cubin.size() < 64 || cubin[4] != 2) throw std::runtime_error("cubin: not an ELF64 image");
  const auto shoff = read_at<std::uint64_t>(cubin, 0x28);
  const auto shentsize = read_at<std::uint16_t>(cubin, 0x3A), shnum = read_at<std::uint16_t>(cubin, 0x3C),
             shstrndx = read_at<std::uint16_t>(cubin, 0x3E);
  std::vector<ElfSection> sections;
  std::vector<std::uint32_t> names;
  for (std::size_t i = 0; i < shnum; ++i) {
    const std::size_t h = shoff + i * shentsize;
    names.push_back(read_at<std::uint32_t>(cubin, h));
    sections.push_back({"", read_at<std::uint32_t>(cubin, h + 4), read_at<std::uint32_t>(cubin, h + 40),
                        read_at<std::uint64_t>(cubin, h + 24), read_at<std::uint64_t>(cubin, h + 32),
                        read_at<std::uint64_t>(cubin, h + 56)});
  }
  if (shstrndx >= sections.size()) throw std::runtime_error("cubin: bad section name table");
  for (std::size_t i = 0; i < sections.size(); ++i)
    sections[i].name = string_at(cubin, sections[shstrndx].offset + names[i]);
  return sections;
}

/// The machine code of kernel `name` in a cubin: its section ".text.<name>"; empty when there is none.
inline std::vector<char> kernel_code(const std::vector<char>& cubin, const std::string& name) {
  for (const ElfSection& s : elf_sections(cubin))
    if (s.name == ".text." + name) {
      if (s.offset + s.size > cubin.size()) throw std::runtime_error("cubin: truncated section");
      return std::vector<char>(cubin.begin() + static_cast<std::ptrdiff_t>(s.offset),
                               cubin.begin() + static_cast<std::ptrdiff_t>(s.offset + s.size));
    }
  return {};
}

/// The registers per thread of `kernel` in a cubin: the EIATTR_REGCOUNT attribute (0x2f) of the cubin's .nv.info
/// sections, whose value names the kernel by its symbol index. -1 when the cubin has none for it. Tests use it to keep
/// a tuned variant's occupancy from regressing.
inline int registers_of(const std::vector<char>& cubin, const std::string& kernel) {
  const std::vector<ElfSection> sections = elf_sections(cubin);
  // The kernel's symbol index in the symbol table (SHT_SYMTAB = 2, 24-byte entries, names in its linked table).
  std::int64_t symbol = -1;
  for (const ElfSection& s : sections)
    if (s.type == 2 && s.entsize == 24 && s.link < sections.size())
      for (std::size_t k = 0; k * 24 < s.size; ++k)
        if (string_at(cubin, sections[s.link].offset + read_at<std::uint32_t>(cubin, s.offset + k * 24)) == kernel)
          symbol = static_cast<std::int64_t>(k);
  if (symbol < 0) return -1;
  // .nv.info*: records of (format u8, attribute u8, then 2 bytes for formats 1-3, or u16 size + payload for 4).
  for (const ElfSection& s : sections) {
    if (s.name.rfind(".nv.info", 0) != 0) continue;
    for (std::size_t p = s.offset; p + 4 <= s.offset + s.size;) {
      const auto format = static_cast<unsigned char>(cubin[p]), attribute = static_cast<unsigned char>(cubin[p + 1]);
      if (format != 4) {
        p += 4;
        continue;
      }
      const auto size = read_at<std::uint16_t>(cubin, p + 2);
      if (attribute == 0x2f && size == 8 && read_at<std::uint32_t>(cubin, p + 4) == symbol)
        return static_cast<int>(read_at<std::uint32_t>(cubin, p + 8));
      p += 4 + size;
    }
  }
  return -1;
}

/// Every parameter value that occurs in `space`.
template <class C>
std::set<std::string> value_set(const std::vector<C>& space) {
  std::set<std::string> values;
  for (const auto& c : space)
    for (auto& f : key_fields(c)) values.insert(std::move(f));
  return values;
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

/// A greedy pairwise covering of candidates given by their parameter values: `fields[k]` lists the "name=value"
/// strings of candidate k, `group[k]` the problem it belongs to. Returns the chosen candidates' indices, in the order
/// chosen: every pair of values that occurs together in some candidate occurs together in a chosen one, and every
/// group gets at least one. Each step takes the first candidate that covers the most missing pairs (lazily: a
/// candidate's gain only falls as pairs get covered, so a stale gain bounds the true one from above); a group left
/// without a candidate then gets its first one.
inline std::vector<std::size_t> pairwise_cover(const std::vector<std::vector<std::string>>& fields,
                                               const std::vector<std::size_t>& group) {
  if (group.size() != fields.size()) throw std::invalid_argument("pairwise_cover: one group per candidate");
  std::map<std::string, std::uint32_t> value_ids;
  std::map<std::uint64_t, std::uint32_t> pair_ids;
  std::vector<std::vector<std::uint32_t>> pairs_of(fields.size());
  auto id_of = [](auto& ids, const auto& key) {  // a dense id, the next one for a key not seen before
    return ids.emplace(key, static_cast<std::uint32_t>(ids.size())).first->second;
  };
  for (std::size_t k = 0; k < fields.size(); ++k) {
    std::vector<std::uint32_t> v;
    for (const auto& f : fields[k]) v.push_back(id_of(value_ids, f));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t j = i + 1; j < v.size(); ++j)
        pairs_of[k].push_back(id_of(pair_ids, (std::uint64_t{v[i]} << 32) | v[j]));
  }
  std::vector<char> missing(pair_ids.size(), 1);
  std::size_t left = pair_ids.size();
  auto gain_of = [&](std::size_t k) {
    std::size_t g = 0;
    for (std::uint32_t p : pairs_of[k]) g += missing[p];
    return g;
  };
  // Max-heap on (gain, -index): the first of the candidates with the largest (stale) gain on top.
  auto lower = [](const std::pair<std::size_t, std::size_t>& a, const std::pair<std::size_t, std::size_t>& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  };
  std::vector<std::pair<std::size_t, std::size_t>> heap;
  for (std::size_t k = 0; k < fields.size(); ++k) heap.emplace_back(pairs_of[k].size(), k);
  std::make_heap(heap.begin(), heap.end(), lower);
  std::vector<std::size_t> chosen;
  while (left > 0 && !heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), lower);
    auto top = heap.back();
    heap.pop_back();
    top.first = gain_of(top.second);
    if (top.first == 0) continue;
    if (!heap.empty() && lower(top, heap.front())) {  // another's bound is higher: look at it first
      heap.push_back(top);
      std::push_heap(heap.begin(), heap.end(), lower);
      continue;
    }
    chosen.push_back(top.second);
    for (std::uint32_t p : pairs_of[top.second]) left -= missing[p], missing[p] = 0;
  }
  std::set<std::size_t> served;
  for (std::size_t k : chosen) served.insert(group[k]);
  for (std::size_t k = 0; k < fields.size(); ++k)
    if (served.insert(group[k]).second) chosen.push_back(k);
  return chosen;
}

/// A deterministic subset of `space` in which every pair of parameter values of the space occurs (greedy pairwise
/// covering, pairwise_cover): where a compile failure would come from a construct meeting one or two parameters
/// (another architecture, another sample type of a space compiled whole for its main types), at a fraction of the
/// time.
template <class C>
std::vector<C> pairwise_subset(const std::vector<C>& space) {
  std::vector<std::vector<std::string>> fields;
  for (const auto& c : space) fields.push_back(key_fields(c));
  std::vector<C> subset;
  if (space.empty()) return subset;
  for (std::size_t k : pairwise_cover(fields, std::vector<std::size_t>(space.size(), 0))) subset.push_back(space[k]);
  return subset;
}

/// A deterministic subset of `space` in which every parameter value of the space occurs at least once (greedy: each
/// step takes the first configuration with the most values not yet taken). For a second architecture beside a
/// pairwise covering of the first: what differs between architectures is whether one construct compiles there (a
/// cluster, a __reduce_*_sync, a float atomic), each the choice of one configuration value, while how values combine
/// is the source's business, checked by the first architecture's covering.
template <class C>
std::vector<C> each_value_subset(const std::vector<C>& space) {
  std::vector<std::vector<std::string>> fields;
  for (const auto& c : space) fields.push_back(key_fields(c));
  std::set<std::string> missing = value_set(space);
  std::vector<C> subset;
  while (!missing.empty()) {
    std::size_t best = 0, best_gain = 0;
    for (std::size_t k = 0; k < space.size(); ++k) {
      const auto gain = static_cast<std::size_t>(
          std::count_if(fields[k].begin(), fields[k].end(), [&](const std::string& f) { return missing.count(f) > 0; }));
      if (gain > best_gain) best = k, best_gain = gain;
    }
    for (const auto& f : fields[best]) missing.erase(f);
    subset.push_back(space[best]);
  }
  return subset;
}

/// The fields of a problem's shape key ("reduce/sum/f32/acc=f32/dist=uniform"), each marked as the problem's
/// ("problem:sum", ...) so that they never equal a configuration's field of the same spelling.
inline std::vector<std::string> problem_fields(const std::string& shape_key) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= shape_key.size();) {
    const std::size_t slash = std::min(shape_key.find('/', start), shape_key.size());
    out.push_back("problem:" + shape_key.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

/// A pairwise covering of several problems' spaces at once, for a suite that checks each problem on every variant it
/// is given: item i of the result is what problem i verifies. The parameters are the problems' shape-key fields and
/// the configurations' key fields together, so every pair of values of the joint space, of a problem and a
/// configuration parameter (each type with each block size, ...) or of two configuration parameters, meets in one
/// verified variant, and every problem gets at least one. A covering per problem verifies every pair of
/// configuration values again for each problem: the GPU suites' reductions, 34 problems, compiled 2,427 variants
/// that way (bench/results/2026-12-02-h200-gpu-quick-tier-final.log).
template <class P, class C>
std::vector<std::vector<C>> joint_pairwise_subsets(const std::vector<P>& problems,
                                                   const std::vector<std::vector<C>>& spaces) {
  if (problems.size() != spaces.size()) throw std::invalid_argument("joint_pairwise_subsets: one space per problem");
  std::vector<std::vector<std::string>> fields;
  std::vector<std::size_t> group, index;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const auto pf = problem_fields(problems[i].shape_key());
    for (std::size_t k = 0; k < spaces[i].size(); ++k) {
      auto f = key_fields(spaces[i][k]);
      f.insert(f.end(), pf.begin(), pf.end());
      fields.push_back(std::move(f));
      group.push_back(i), index.push_back(k);
    }
  }
  std::vector<std::vector<C>> out(problems.size());
  auto chosen = pairwise_cover(fields, group);
  std::sort(chosen.begin(), chosen.end());  // each problem's variants in its space's order
  for (std::size_t c : chosen) out[group[c]].push_back(spaces[group[c]][index[c]]);
  return out;
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

/// What an NVRTC suite compiles of `configs` for a second architecture: all of them under nvrtc_full(), else
/// each_value_subset (every configuration value at least once).
template <class C>
std::vector<C> value_coverage(const std::vector<C>& configs) {
  return nvrtc_full() ? configs : each_value_subset(configs);
}

/// Whether a cubin holds the code of kernel `name`: its section ".text.<name>", which NVRTC emits for every kernel
/// it compiles (and for no kernel the source does not define).
inline bool holds_kernel(const std::vector<char>& cubin, const std::string& name) {
  const std::string section = ".text." + name;
  return std::search(cubin.begin(), cubin.end(), section.c_str(), section.c_str() + section.size() + 1) != cubin.end();
}

/// Compiles source(i) for i in [0, count) for `arch` on all cores; the failures as text, each named label(i) (a
/// compile error with NVRTC's log, or an entry point of `kernels` missing from the cubin), empty when none failed.
template <class Source, class Label>
std::string compile_each(std::size_t count, Source&& source, Label&& label, const std::string& arch,
                         const std::vector<std::string>& kernels) {
  std::vector<std::string> failures(count);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < count;) {
      const auto r = jit::compile(source(i), "variant.cu", arch);
      if (!r.ok || !is_elf(r.cubin)) failures[i] = label(i) + ":\n" + r.log;
      else
        for (const std::string& k : kernels)
          if (!holds_kernel(r.cubin, k)) failures[i] += label(i) + ": no entry point " + k + "\n";
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

/// Compiles kernel_source(problem, c) for every c of `configs` (all of them) for `arch` on all cores; the failures as
/// text (configuration key and NVRTC log, or the entry points of `kernels` a cubin lacks: those the launcher loads),
/// empty when every one compiled to a cubin that holds them all.
template <class P, class C>
std::string compile_listed(const P& problem, const std::vector<C>& configs, const std::string& arch,
                           const std::vector<std::string>& kernels = {}) {
  return compile_each(
      configs.size(), [&](std::size_t i) { return kernel_source(problem, configs[i]); },
      [&](std::size_t i) { return configs[i].key(); }, arch, kernels);
}

/// compile_listed for every c of coverage(configs): a pairwise-covering subset, all of them under nvrtc_full().
template <class P, class C>
std::string compile_all(const P& problem, const std::vector<C>& all_configs, const std::string& arch,
                        const std::vector<std::string>& kernels = {}) {
  return compile_listed(problem, coverage(all_configs), arch, kernels);
}

/// compile_listed for every c of value_coverage(configs), for a second architecture: every configuration value at
/// least once, all of them under nvrtc_full().
template <class P, class C>
std::string compile_each_value(const P& problem, const std::vector<C>& all_configs, const std::string& arch,
                               const std::vector<std::string>& kernels = {}) {
  return compile_listed(problem, value_coverage(all_configs), arch, kernels);
}

/// compile_all for several problems of one family at once: every configuration of each under nvrtc_full(), else one
/// pairwise covering of their joint space (joint_pairwise_subsets: every pair of a problem field and a configuration
/// field, or of two configuration fields, meets in one compiled variant, and every problem gets one). The failures
/// as text, each line naming its problem; empty when all compiled to cubins that hold `kernels`. Says how many it
/// compiles (a MESSAGE).
template <class P, class C>
std::string compile_all_joint(const std::vector<P>& problems, const std::vector<std::vector<C>>& spaces,
                              const std::string& arch, const std::vector<std::string>& kernels = {}) {
  const auto picked = nvrtc_full() ? spaces : joint_pairwise_subsets(problems, spaces);
  std::vector<std::pair<std::size_t, std::size_t>> jobs;
  std::size_t total = 0;
  for (std::size_t i = 0; i < picked.size(); ++i) {
    total += spaces[i].size();
    for (std::size_t k = 0; k < picked[i].size(); ++k) jobs.emplace_back(i, k);
  }
  MESSAGE(jobs.size(), " of ", total, " variants of ", problems.size(), " problems compiled for ", arch);
  auto config = [&](std::size_t j) -> const C& { return picked[jobs[j].first][jobs[j].second]; };
  return compile_each(
      jobs.size(), [&](std::size_t j) { return kernel_source(problems[jobs[j].first], config(j)); },
      [&](std::size_t j) { return problems[jobs[j].first].shape_key() + " " + config(j).key(); }, arch, kernels);
}

}  // namespace autotune::test
