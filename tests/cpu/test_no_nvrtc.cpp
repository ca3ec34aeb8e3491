// A machine without NVRTC (core/nvrtc.hpp): compiling fails with an Error that says what was looked for and how
// to fix it, and nothing that a handle built from a cached cubin does needs NVRTC.
//
// CTest runs this suite with AUTOTUNE_NVRTC_LIBRARY pointing at a missing file (tests/CMakeLists.txt, cpu.no_nvrtc);
// NVRTC is loaded once per process, so the suite is skipped in a plain run of autotune_tests, where it is loadable.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "autotune/resolution.hpp"
#include "core/jit.hpp"
#include "core/nvrtc.hpp"
#include "tests/cpu/cache_fixtures.hpp"

using namespace autotune;
using namespace autotune::test;

namespace {

std::string override_path() {
  const char* env = std::getenv("AUTOTUNE_NVRTC_LIBRARY");
  REQUIRE_MESSAGE(env, "run with AUTOTUNE_NVRTC_LIBRARY set to a missing file (ctest -R cpu.no_nvrtc)");
  return env;
}

}  // namespace

TEST_SUITE("no_nvrtc" * doctest::skip()) {
  TEST_CASE("without NVRTC the version is 0 (unknown), not an error") {
    override_path();
    CHECK(nvrtc::candidates() == std::vector<std::string>{override_path()});
    CHECK(nvrtc::find() == nullptr);
    CHECK(nvrtc_version() == 0);
    CHECK(current_identity("histogram", 0).nvrtc_version == 0);
  }

  TEST_CASE("a compile without NVRTC throws an Error saying what was tried and how to fix it") {
    const std::string path = override_path();
    HistogramProblem p;
    p.n = 1000;
    for (int attempt = 0; attempt < 2; ++attempt) {  // the second call reports the same, from the remembered attempt
      try {
        jit::compile(kernel_source(p, HistogramConfig::fallback(p)), "histogram.cu", "sm_90");
        FAIL("compile() returned without NVRTC");
      } catch (const Error& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(contains(what, "NVRTC is needed to compile"));
        CHECK(contains(what, path));                  // the library looked for, with the loader's reason
        CHECK(contains(what, "cubin"));               // that a cached cubin would have avoided it
        CHECK(contains(what, "LD_LIBRARY_PATH"));     // how to fix it
        CHECK(contains(what, "AUTOTUNE_NVRTC_LIBRARY"));  // and that the override is in force
      }
    }
    TempPath dir;  // the on-disk compile cache has nothing either, so it must fail the same way
    CHECK_THROWS_AS(jit::compile_cached(kernel_source(p, HistogramConfig::fallback(p)), "h.cu", "sm_90", dir.str()),
                    Error);
  }

  TEST_CASE("a tuned winner with its cubin is looked up without NVRTC, as a handle's construction does") {
    override_path();
    // Tuned where NVRTC 13.0 was present; looked up here, where the NVRTC version is unknown (0) and not compared.
    Cache cache(":memory:");
    HistogramProblem p = problem(1 << 20);
    DeviceInfo d = h100();
    const RunInfo info = run_info(current_identity("histogram", 0).template_hash, 13000, d.driver_version);
    tune(cache, d, p, config(256, 4), {'\x7f', 'E', 'L', 'F', 1}, info);
    const Lookup l = lookup_config(cache, LookupTarget{d.model_key(), d.arch(), d.sm_count, d.driver_version}, p);
    CHECK(l.source == ConfigSource::exact);
    CHECK(l.stale_skipped == 0);
    REQUIRE(l.winner);
    CHECK(l.winner->cubin.size() == 5);
  }
}
