// Code identity: which kernel source, compiler and driver produced a tuning result.
//
// A winner is only worth serving while the code that was measured is the code that would run: a changed kernel
// template can change what a configuration means (its cubin no longer matches the source), a new NVRTC or driver can
// change which variant is fastest. The cache records this identity with every run and marks runs whose identity
// differs from the current one as stale (Cache::mark_stale) instead of serving or deleting them.
#pragma once

#include <string>
#include <string_view>

namespace autotune {

struct CodeIdentity {
  std::string template_hash;  ///< template_hash() of the family's code (current_identity); empty = unknown
  int nvrtc_version = 0;      ///< nvrtc_version(): major * 1000 + minor * 10; 0 = unknown
  int driver_version = 0;     ///< cudaDriverGetVersion(), e.g. 13000; 0 = unknown
  std::string family;          ///< the kernel family whose code template_hash identifies

  bool operator==(const CodeIdentity&) const = default;
};

/// A stable 64-bit hash of a kernel template's text as 16 lowercase hex digits (XXH3-64 with seed 0, in every build).
/// The same text gives the same hash on every machine and in every later version, because the hash is stored in
/// cache files.
std::string template_hash(std::string_view source);

/// Name of the algorithm template_hash() uses: "xxh3_64".
std::string_view template_hash_algorithm();

/// The identity of this build for a family: the hash of its code (the embedded kernel template and the source
/// that generates its preamble: KernelFamily::code_text), this process's NVRTC version, and `driver_version`
/// (DeviceInfo::driver_version of the GPU in question; pass 0 when there is no GPU, which means "unknown" and is
/// not compared). UsageError for a family that is not registered.
CodeIdentity current_identity(std::string_view family, int driver_version);

}  // namespace autotune
