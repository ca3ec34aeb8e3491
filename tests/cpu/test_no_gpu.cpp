// The no-GPU path: on a machine without a driver or device, every entry point says so clearly instead of crashing.
// (On a GPU machine these tests check the other branch: the same calls succeed.)
#include <doctest/doctest.h>

#include <sstream>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/histogram.hpp"
#include "cli/commands.hpp"

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
