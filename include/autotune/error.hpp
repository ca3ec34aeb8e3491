// Exceptions thrown by autotune. Every error keeps what failed and why, as text a user can act on.
//
// The hierarchy is small on purpose: callers catch autotune::Error, tools map the subclasses to exit codes
// (UsageError -> 2, everything else -> 1).
#pragma once

#include <stdexcept>
#include <string>

namespace autotune {

/// Base of every exception autotune throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input from the caller (a flag, a problem description, a pointer): nothing was done.
class UsageError : public Error {
 public:
  using Error::Error;
};

/// No usable CUDA device or driver on this machine (the normal situation on a CPU-only host).
class NoDeviceError : public Error {
 public:
  using Error::Error;
};

/// A CUDA runtime call failed. Keeps the raw cudaError_t value as an int so the header needs no CUDA include.
class CudaError : public Error {
 public:
  CudaError(int code, const std::string& what) : Error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// A handle was asked for tuned data (Options::require or $AUTOTUNE_REQUIRE) and the cache has none that qualifies.
/// The message says what the lookup found and the `autotune tune` command that would tune the problem.
class NotTunedError : public Error {
 public:
  using Error::Error;
};

/// The SQLite cache could not be opened, read or written. The message names the file.
class CacheError : public Error {
 public:
  using Error::Error;
};

}  // namespace autotune
