// GPU suite entry point. Without an NVIDIA driver or a CUDA device it runs nothing and exits 77, which CTest reports
// as "skipped" (SKIP_RETURN_CODE): a GPU test that did not run must never look like a pass. A driver that is there
// and fails is a failure (exit 1), and so is any skip under AUTOTUNE_REQUIRE_GPU=1. Listing test cases still works,
// so CTest can discover them on a machine without a GPU.
//
// The suites run with AUTOTUNE_LOADS_AS_MEASURED=1: their cases check the size tables of what they measured or
// planted (switch points, configurations, cubins from the cache), which the lookup's evict-first size rule
// (runtime/streaming.hpp) would split at the L2 bands of the GPU they run on. The rule's own case in gpu_api turns it
// back on (test_runtime_api.cpp); its table logic is tested on the CPU (tests/cpu/test_streaming.cpp). So with
// AUTOTUNE_SELF_ZERO_AS_MEASURED=1 (runtime/one_launch.hpp, tested on the CPU in tests/cpu/test_one_launch.cpp; its
// handles run the merge=atomic kernels the suites check, and the held-out grids check them against the CPU).
//
// At exit it prints one line with the tier, the suites run, the NVRTC compile time of the test fixtures, the rest of
// the wall time, the variants compiled and the skipped cases (tests/gpu/tier.hpp):
//   gpu-suite tier=quick suite=gpu_histogram compile=12.3s run=20.1s variants=180 skipped=0
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "tier.hpp"

namespace {

bool listing(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--list", 0) == 0 || a == "-ltc" || a == "-lts" || a == "-h" || a == "--help") return true;
  }
  return false;
}

std::string suites_named(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    for (const char* flag : {"--test-suite=", "-ts="})
      if (a.rfind(flag, 0) == 0) return a.substr(std::string(flag).size());
  }
  return "all";
}

// 0 when the suites can run here, else the exit code: 77 (skipped) without a driver or device, 1 when the driver
// fails or when AUTOTUNE_REQUIRE_GPU=1 forbids the skip, 2 for a bad AUTOTUNE_GPU_TIER.
int cannot_run() {
  using namespace autotune;
  try {
    testing::gpu_tier();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "autotune_gpu_tests: %s\n", e.what());
    return 2;
  }
  try {
    device_count();
  } catch (const NoDeviceError& e) {
    if (testing::gpu_required()) {
      std::printf("GPU suite FAILED: AUTOTUNE_REQUIRE_GPU=1 and %s\n", e.what());
      return 1;
    }
    std::printf("GPU suite skipped: %s\n", e.what());
    return 77;
  } catch (const Error& e) {
    std::printf("GPU suite FAILED: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool list = listing(argc, argv);
  // The suite's clock starts here, not at its first use (after the first compile, which then counted as negative run
  // time: gpu_histrange's first quick-tier run printed run=-1.1s).
  auto& clock = autotune::testing::suite_clock();
  if (!list)
    if (const int code = cannot_run(); code != 0) return code;
  ::setenv("AUTOTUNE_LOADS_AS_MEASURED", "1", 1);
  ::setenv("AUTOTUNE_SELF_ZERO_AS_MEASURED", "1", 1);
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (list || context.shouldExit()) return rc;
  const double wall = clock.elapsed();
  for (const std::string& why : clock.skipped) std::printf("gpu-suite skipped case: %s\n", why.c_str());
  std::printf("gpu-suite tier=%s suite=%s compile=%.1fs run=%.1fs variants=%zu skipped=%zu\n",
              autotune::testing::tier_name(autotune::testing::gpu_tier()), suites_named(argc, argv).c_str(),
              clock.compile_seconds, wall - clock.compile_seconds, clock.variants, clock.skipped.size());
  return rc;
}
