// The on-disk compile cache (jit::compile_cached) trusts a file by the HMAC it carries, keyed with the user's own
// secret key file beside it, never by its name or a hash anyone can compute: a file planted, damaged or renamed
// under the right name is compiled again and replaced. NVRTC runs on the CPU; no GPU needed.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <string>

#include "autotune/problem.hpp"
#include "core/integrity.hpp"
#include "core/jit.hpp"
#include "tests/cpu/cache_fixtures.hpp"
#include "tests/families/fill/fill.hpp"
#include "tuner/ahead_compile.hpp"

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
  SUBCASE("a header with the payload's own SHA-256, which anyone can compute") {
    const std::string payload = std::string("\x7f" "ELF", 4) + std::string(4096, 'A');
    write_bytes(file, "autotune-cubin 1 " + integrity::sha256_hex(payload) + "\n" + payload);
  }
  SUBCASE("the current format with an HMAC made without the user's key") {
    const std::string payload = std::string("\x7f" "ELF", 4) + std::string(4096, 'A');
    write_bytes(file, "autotune-cubin 2 " + integrity::hmac_sha256_hex("guessed", payload.data(), payload.size()) +
                          "\n" + payload);
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

TEST_CASE("the compile cache's key is created 0600; a file written under one name is a miss under another") {
  TempPath dir;
  const std::string a = "extern \"C\" __global__ void renamed_a(int* p) { if (p) *p = 1; }\n";
  const std::string b = "extern \"C\" __global__ void renamed_b(int* p) { if (p) *p = 2; }\n";
  const jit::CompileResult first = jit::compile_cached(a, "a.cu", "sm_90", dir.str());
  REQUIRE_MESSAGE(first.ok, first.log);
  struct stat st {};
  REQUIRE(::stat((dir.path / "hmac-key").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(st.st_uid == ::geteuid());
  // A's file, valid under A's name, copied to B's name: B's source would run A's kernel. It is a miss.
  const std::string file_b = jit::compile_cache_file(b, "sm_90", dir.str());
  fs::copy_file(jit::compile_cache_file(a, "sm_90", dir.str()), file_b);
  const jit::CompileResult second = jit::compile_cached(b, "b.cu", "sm_90", dir.str());
  REQUIRE_MESSAGE(second.ok, second.log);
  CHECK_FALSE(second.from_cache);
  CHECK(second.cubin != first.cubin);
  CHECK(jit::compile_cached(b, "b.cu", "sm_90", dir.str()).from_cache);
}

TEST_CASE("a compile-cache key readable by others, or not a regular file, disables the directory") {
  TempPath dir;
  const std::string source = "extern \"C\" __global__ void loose_key(int* p) { if (p) *p = 3; }\n";
  REQUIRE(jit::compile_cached(source, "k.cu", "sm_90", dir.str()).ok);
  REQUIRE(jit::compile_cached(source, "k.cu", "sm_90", dir.str()).from_cache);
  const fs::path key = dir.path / "hmac-key";
  SUBCASE("mode 0644") { fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write |
                                               fs::perms::group_read | fs::perms::others_read); }
  SUBCASE("a directory in its place") {
    fs::remove(key);
    fs::create_directory(key);
  }
  const std::string file = jit::compile_cache_file(source, "sm_90", dir.str());
  const std::string stored = read_bytes(file);
  const jit::CompileResult r = jit::compile_cached(source, "k.cu", "sm_90", dir.str());
  REQUIRE(r.ok);
  CHECK_FALSE(r.from_cache);
  CHECK(read_bytes(file) == stored);  // nothing written with a key that cannot be trusted
  CHECK(integrity::private_file_problem(key.string()) != "");
}

// tuner/ahead_compile.hpp with the fill test family (tests/families/fill): its space is 3 blocks x 2 items, and only
// the items reach the source, so a problem's 6 configurations are 2 distinct sources.
TEST_CASE("compiling ahead puts each distinct valid source of the later ladders in the compile cache, once") {
  register_fill_family();
  TempPath dir;
  DeviceInfo dev = h100();
  dev.max_threads_per_block = 256;  // the fill family refuses block=512 here: 2 configurations of 6
  auto fill = [](std::uint32_t value, std::uint64_t n) { return Problem(FillProblem{value, n, "uniform"}); };
  // Two ladders (value 1 and value 2, each at two sizes): the first is the tuner's own.
  const std::vector<Problem> order = compile_ahead_order({fill(1, 1024), fill(2, 1024), fill(2, 4096), fill(1, 4096)});
  REQUIRE(order == std::vector<Problem>{fill(2, 1024), fill(2, 4096)});
  {
    AheadCompiler ahead(order, dev, dir.str(), 2);
    ahead.wait();
    const AheadCompiler::Counts c = ahead.counts();
    CHECK(c.invalid == 4);
    CHECK(c.compiled == 2);
    CHECK(c.cached == 0);
    CHECK(c.failed == 0);
  }
  // What the tuner compiles for those problems is there, for either size (the source does not depend on n).
  for (int items : {1, 4})
    for (std::uint64_t n : {1024, 4096}) {
      const std::string source = tuning_source(fill(2, n), Config(FillConfig{128, items}));
      const jit::CompileResult r = jit::compile_cached(source, "tuner.cu", dev.arch(), dir.str());
      CHECK(r.from_cache);
    }
  // Again: every source found in the cache, nothing compiled.
  AheadCompiler again(order, dev, dir.str(), 1);
  again.wait();
  CHECK(again.counts().cached == 2);
  CHECK(again.counts().compiled == 0);
  // Nothing is started without a cache directory or without problems.
  AheadCompiler none(order, dev, "", 2);
  none.wait();
  CHECK(none.counts().compiled + none.counts().cached + none.counts().invalid == 0);
}

}  // TEST_SUITE("jit_cache")
