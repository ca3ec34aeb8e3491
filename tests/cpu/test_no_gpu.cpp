// The no-GPU path: on a machine without a driver or device, every entry point says so clearly instead of crashing.
// (On a GPU machine these tests check the other branch: the same calls succeed.)
#include <doctest/doctest.h>

#include <sstream>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/histogram.hpp"
#include "cli/commands.hpp"
#include "core/workload.hpp"

using namespace autotune;

namespace {
bool have_gpu() {
  try {
    return device_count() > 0;
  } catch (const NoDeviceError&) {
    return false;
  }
}
}  // namespace

TEST_SUITE("no_gpu") {
  TEST_CASE("device_count either counts devices or throws NoDeviceError with a clear reason") {
    try {
      const int count = device_count();
      CHECK(count >= 1);
    } catch (const NoDeviceError& e) {
      const std::string what = e.what();
      CHECK(what.rfind("no CUDA device", 0) == 0);
      CHECK(what.size() > std::string("no CUDA device: ").size());  // carries the driver's reason
    }
  }

  TEST_CASE("`autotune devices` without a GPU throws NoDeviceError (exit 1), with one prints a table") {
    cli::CommandLine cl;
    cl.command = cli::DevicesCommand{};
    std::ostringstream out, err;
    if (have_gpu()) {
      CHECK(cli::run(cl, out, err) == 0);
      CHECK(out.str().find("sm_") != std::string::npos);
    } else {
      CHECK_THROWS_AS(cli::run(cl, out, err), NoDeviceError);
      CHECK(out.str().empty());
    }
  }

  TEST_CASE("creating a Histogram handle without a GPU is a NoDeviceError, not a crash") {
    if (have_gpu()) return;
    HistogramProblem p;
    p.n = 1000;
    CHECK_THROWS_AS(Histogram(p, Histogram::Options{0, ":memory:"}), NoDeviceError);
  }

  TEST_CASE("NVRTC reports its version without a GPU") { CHECK(nvrtc_version() >= 12000); }
}

TEST_SUITE("no_gpu") {
  TEST_CASE("tuning a problem larger than the GPU's free memory is a clear error, computed before allocating") {
    using namespace autotune;
    HistogramProblem h;  // u8, 256 bins, 32-bit counters
    h.n = 8ull << 30;    // 8 GiB of u8 samples
    const Problem p(h);
    const DeviceMemoryNeed need = device_memory_need(p, 300ull << 20);
    CHECK(need.input == (8ull << 30));
    CHECK(need.output == 256 * 4);
    CHECK(need.extra == (300ull << 20));
    CHECK(need.total() == (8ull << 30) + 1024 + (300ull << 20) + (64ull << 20));
    const std::string why = device_memory_shortfall(p, 1, need, 4ull << 30, 80ull << 30);
    CAPTURE(why);
    CHECK(why.find("not enough GPU memory") != std::string::npos);
    CHECK(why.find("needs 8.4 GiB") != std::string::npos);  // (8 GiB + 364 MiB + 1 KiB) / 2^30 = 8.36
    CHECK(why.find("input 8.0 GiB") != std::string::npos);
    CHECK(why.find("GPU 1 has 4.0 GiB free of 80.0 GiB") != std::string::npos);
    CHECK(why.find(p.key()) != std::string::npos);
    CHECK(device_memory_shortfall(p, 0, need, 9ull << 30, 80ull << 30).empty());
    ReduceProblem r;
    r.n = 1000;
    CHECK(device_memory_need(Problem(r), 0).output == 16);
  }
}
