// The machine code of every variant of some problems' spaces, without a GPU: each configuration of each problem's
// space (the family's space(), what the tuner walks) compiled with NVRTC for --arch (default sm_90), one line each:
//
//   PROBLEM_KEY CONFIG_KEY CODE_HASH
//
// CODE_HASH is a 64-bit FNV-1a over the cubin's code sections (.text.*, in file order, each with its name): the
// instructions of every entry point, and nothing that a change of names or of unused constants moves (symbol tables,
// constant banks of namespace-scope constants). A change meant to leave existing kernels alone (a new configuration
// field whose default compiles to the old code, a refactoring of the template) is checked by running this on the
// binaries before and after and comparing the lines of the configurations both have:
//
//   variant_code KEY... > before.txt   (old build)     variant_code KEY... > after.txt   (new build)
//   join <(sort before.txt) <(sort after.txt)          (key pairs with their two hashes)
//
// A variant that does not compile prints "FAILED" and the first line of NVRTC's log instead of a hash (exit 1).
//
//   variant_code [--arch sm_XY] [--jobs N] [--cubins DIR] [--count] PROBLEM_KEY...
//
// --count compiles nothing and prints "PROBLEM_KEY N", the size of each problem's space. --cubins DIR also writes each variant's cubin as DIR/CODE_HASH.cubin, for reading its machine code
// (`cuobjdump -sass DIR/CODE_HASH.cubin`).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "core/jit.hpp"

namespace {

using namespace autotune;

std::uint64_t fnv1a(std::uint64_t h, const char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

template <class T>
T read_at(const std::vector<char>& b, std::size_t at) {
  if (at + sizeof(T) > b.size()) throw Error("variant_code: a cubin ends inside its ELF headers");
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

// The hash of an ELF64 cubin's .text.* sections. Four fields of the section headers are all it reads (by hand: a
// library for ELF would be a new dependency for these few lines).
std::uint64_t code_hash(const std::vector<char>& cubin) {
  if (cubin.size() < 64 || std::memcmp(cubin.data(), "\x7f" "ELF\x02", 5) != 0)
    throw Error("variant_code: NVRTC's output is not a 64-bit ELF cubin");
  const auto shoff = read_at<std::uint64_t>(cubin, 0x28);
  const auto shentsize = read_at<std::uint16_t>(cubin, 0x3A), shnum = read_at<std::uint16_t>(cubin, 0x3C),
             shstrndx = read_at<std::uint16_t>(cubin, 0x3E);
  auto header = [&](std::size_t i) { return static_cast<std::size_t>(shoff + i * shentsize); };
  const auto names = read_at<std::uint64_t>(cubin, header(shstrndx) + 0x18);  // sh_offset of the name table
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < shnum; ++i) {
    const auto name_at = static_cast<std::size_t>(names + read_at<std::uint32_t>(cubin, header(i)));
    if (name_at >= cubin.size()) throw Error("variant_code: a section name lies outside the cubin");
    const std::string_view name(cubin.data() + name_at, strnlen(cubin.data() + name_at, cubin.size() - name_at));
    if (!name.starts_with(".text.")) continue;
    const auto offset = read_at<std::uint64_t>(cubin, header(i) + 0x18);
    const auto size = read_at<std::uint64_t>(cubin, header(i) + 0x20);
    if (offset + size > cubin.size()) throw Error("variant_code: a code section lies outside the cubin");
    h = fnv1a(fnv1a(h, name.data(), name.size()), cubin.data() + offset, static_cast<std::size_t>(size));
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string arch = "sm_90", cubins;
  bool count = false;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::pair<Problem, Config>> work;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--arch" && i + 1 < argc) {
      arch = argv[++i];
    } else if (a == "--count") {
      count = true;
    } else if (a == "--cubins" && i + 1 < argc) {
      cubins = argv[++i];
    } else if (a == "--jobs" && i + 1 < argc) {
      jobs = static_cast<unsigned>(std::max(1, std::stoi(argv[++i])));
    } else if (a.starts_with("--")) {
      std::fprintf(stderr, "usage: variant_code [--arch sm_XY] [--jobs N] [--cubins DIR] [--count] PROBLEM_KEY...\n");
      return 2;
    } else {
      const std::optional<Problem> p = Problem::parse(a);
      if (!p) throw UsageError(fmt::format("variant_code: '{}' is not a problem key", a));
      const std::vector<Config> space = p->family().space(*p);
      if (count) std::printf("%s %zu\n", p->key().c_str(), space.size());
      else for (const Config& c : space) work.emplace_back(*p, c);
    }
  }
  if (count) return 0;
  if (work.empty()) throw UsageError("variant_code: no problem key given");
  std::vector<std::string> lines(work.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto compile = [&] {
    for (std::size_t i; (i = next++) < work.size();) {
      const auto& [problem, config] = work[i];
      const jit::CompileResult r = jit::compile(problem.family().kernel_source(problem, config), "variant.cu", arch);
      std::string result;
      if (r.ok) {
        result = fmt::format("{:016x}", code_hash(r.cubin));
        if (!cubins.empty()) {
          const std::string path = fmt::format("{}/{}.cubin", cubins, result);
          std::FILE* f = std::fopen(path.c_str(), "wb");
          const bool written = f && std::fwrite(r.cubin.data(), 1, r.cubin.size(), f) == r.cubin.size();
          if ((f && std::fclose(f) != 0) || !written) failed = true, result += " FAILED to write " + path;
        }
      } else {
        failed = true;
        result = "FAILED " + r.log.substr(0, r.log.find('\n'));
      }
      lines[i] = fmt::format("{} {} {}", problem.key(), config.key(), result);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::min<std::size_t>(jobs, work.size()); ++t) threads.emplace_back(compile);
  for (auto& t : threads) t.join();
  for (const auto& line : lines) std::printf("%s\n", line.c_str());
  return failed ? 1 : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
