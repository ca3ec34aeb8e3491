// What produced a cubin, as the tuner records it with a winner (Cache::finish_run): the cache stores what it is
// told and generates no code of its own.
#pragma once

#include <string>

#include "autotune/cache.hpp"
#include "autotune/problem.hpp"

namespace autotune {

/// The origin of the cubin this process compiles for `config` of `problem` on `arch`: the SHA-256 of its kernel
/// source (kernel_source), the NVRTC options (jit::options_for) and this process's NVRTC version.
CubinOrigin cubin_origin(const Problem& problem, const Config& config, const std::string& arch);

}  // namespace autotune
