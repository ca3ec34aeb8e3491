// Helper process for tests/cpu/test_cache_concurrency.cpp: writes its share of tests/cache_writer_plan.hpp to a
// cache file, through the public API, as a tuner does (one transaction per measurement, then finish_run).
// Usage: cache_writer FILE WRITER
#include <cstdio>
#include <exception>
#include <string>

#include "autotune/cache.hpp"
#include "tests/cache_writer_plan.hpp"

int main(int argc, char** argv) {
  using namespace autotune::test::writer_plan;
  if (argc != 3) {
    std::fprintf(stderr, "usage: cache_writer FILE WRITER\n");
    return 2;
  }
  try {
    const int w = std::stoi(argv[2]);
    autotune::Cache cache(argv[1]);
    for (int r = 0; r <= kRuns; ++r) {
      const auto run = cache.begin_run(device(), problem(w, r), run_info(w));
      for (int i = 0; i < kMeasurements; ++i) cache.add_measurement(run, measurement(w, r, i));
      cache.finish_run(run, measurement(w, r, 0), cubin(w, r));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cache_writer: %s\n", e.what());
    return 1;
  }
  return 0;
}
