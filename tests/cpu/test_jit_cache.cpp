// The on-disk compile cache (jit::compile_cached) trusts a file by the SHA-256 it carries, never by its name: a
// file planted or damaged under the right name is compiled again and replaced. NVRTC runs on the CPU; no GPU needed.
#include <doctest/doctest.h>

#include <string>

#include "core/jit.hpp"
#include "tests/cpu/cache_fixtures.hpp"

using namespace autotune;
using namespace autotune::test;

TEST_SUITE("jit_cache") {

TEST_CASE("a cubin planted in the compile cache under the right name is not used, and is replaced") {
  TempPath dir;
  const std::string source = "extern \"C\" __global__ void planted_probe(int* p) { if (p) *p = 42; }\n";
  const std::string file = jit::compile_cache_file(source, "sm_90", dir.str());
  fs::create_directories(dir.path);
  SUBCASE("a bare ELF file, as an older autotune wrote them or an attacker plants them") {
    write_bytes(file, std::string("\x7f" "ELF", 4) + std::string(4096, 'A'));
  }
  SUBCASE("a header whose hash does not match what follows") {
    write_bytes(file, "autotune-cubin 1 " + std::string(64, '0') + "\n" + std::string("\x7f" "ELF", 4) +
                          std::string(4096, 'A'));
  }
  const std::string planted = read_bytes(file);
  const jit::CompileResult first = jit::compile_cached(source, "probe.cu", "sm_90", dir.str());
  REQUIRE_MESSAGE(first.ok, first.log);
  CHECK_FALSE(first.from_cache);
  CHECK(std::string(first.cubin.begin(), first.cubin.end()).find(std::string(64, 'A')) == std::string::npos);
  CHECK(read_bytes(file) != planted);
  // What compile_cached wrote itself is trusted: the next call compiles nothing and gets the same cubin.
  const jit::CompileResult second = jit::compile_cached(source, "probe.cu", "sm_90", dir.str());
  CHECK(second.from_cache);
  CHECK(second.cubin == first.cubin);
  // One flipped byte of the stored cubin makes it a miss again.
  std::string bytes = read_bytes(file);
  bytes.back() = static_cast<char>(bytes.back() ^ 1);
  write_bytes(file, bytes);
  const jit::CompileResult third = jit::compile_cached(source, "probe.cu", "sm_90", dir.str());
  CHECK_FALSE(third.from_cache);
  CHECK(third.cubin == first.cubin);
}

}  // TEST_SUITE("jit_cache")
