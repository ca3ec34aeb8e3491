// `autotune bench`: the tuned configuration (as the C++ API resolves it) against CUB on this GPU, with the tuner's
// timing harness, and the read roof measured in the same run. What the benchmark tables are made of.
#pragma once

#include <iosfwd>
#include <string>

#include "cli/options.hpp"

namespace autotune::cli {

/// Runs the benchmark, prints a listing, records CUB's times in the cache (table baselines, for `report`).
/// Throws NoDeviceError without a GPU, Error when this build has no CUB baselines (no nvcc at build time).
int run_bench(const BenchCommand& cmd, const std::string& cache_path, std::ostream& out, std::ostream& err);

}  // namespace autotune::cli
