// NVRTC, loaded with dlopen the first time something must be compiled; never linked.
//
// An application whose cache holds the winner's cubin never compiles, so it must start and run on a GPU node that
// has a driver but no CUDA toolkit, and the toolkit ships NVRTC only as a shared library. Loading it on demand keeps
// libnvrtc off every binary's NEEDED list (tests/linkage_check.sh checks it).
//
// The library looked for, in order: $AUTOTUNE_NVRTC_LIBRARY alone when it is set (a file or a soname; tests set it
// to a missing file to make NVRTC unloadable), else libnvrtc.so.13, libnvrtc.so.12 and libnvrtc.so through the
// dynamic loader's search (LD_LIBRARY_PATH, ld.so.cache), then the library of the toolkit this build was configured
// with (its directory is baked in: on the build machine the toolkit need not be on the loader's path).
//
// Thread-safety: the first call loads the library once for the process (a function-local static); afterwards the
// entry points are read-only. The library is never unloaded.
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

namespace autotune::nvrtc {

/// The NVRTC entry points autotune uses (core/jit.cpp, nvrtc_version()).
struct Api {
  decltype(&::nvrtcVersion) version = nullptr;
  decltype(&::nvrtcGetErrorString) error_string = nullptr;
  decltype(&::nvrtcCreateProgram) create_program = nullptr;
  decltype(&::nvrtcDestroyProgram) destroy_program = nullptr;
  decltype(&::nvrtcCompileProgram) compile_program = nullptr;
  decltype(&::nvrtcGetProgramLogSize) program_log_size = nullptr;
  decltype(&::nvrtcGetProgramLog) program_log = nullptr;
  decltype(&::nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&::nvrtcGetCUBIN) cubin = nullptr;
  decltype(&::nvrtcGetPTXSize) ptx_size = nullptr;
  decltype(&::nvrtcGetPTX) ptx = nullptr;
  std::string library;  ///< the candidate that loaded, as it was named
};

/// The loaded entry points, or nullptr when no candidate loads (it never throws: nvrtc_version() returns 0 then).
const Api* find() noexcept;

/// The loaded entry points; throws Error naming the libraries tried, each with the loader's reason, and how to fix it.
const Api& require();

/// The candidates find() tries, in order (see above).
std::vector<std::string> candidates();

}  // namespace autotune::nvrtc
