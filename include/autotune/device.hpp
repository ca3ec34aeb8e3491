// Devices: the GPUs in this machine and the fingerprint that says which tuning results apply to them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace autotune {

/// What the cache records about a GPU. Results apply to a GPU *model* (model_key), not to one card (uuid).
struct DeviceInfo {
  int ordinal = -1;              ///< CUDA device ordinal on this machine (not persisted as identity)
  std::string name;              ///< e.g. "NVIDIA H100 80GB HBM3"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  int shared_per_block_optin = 0;  ///< bytes of shared memory a block may opt in to
  int max_threads_per_block = 0;
  int clock_khz = 0;               ///< SM clock
  int memory_clock_khz = 0;
  int driver_version = 0;          ///< e.g. 13000
  int nvrtc_version = 0;           ///< major * 1000 + minor * 10, like the driver's
  std::string uuid;                ///< the card's UUID, for provenance only

  /// "sm_90" for compute capability 9.0: the architecture NVRTC compiles for.
  std::string arch() const;
  /// Identity of the model: name, compute capability, SM count, memory size in MiB.
  /// Two cards of one model share it; a cut-down part with fewer SMs does not.
  std::string model_key() const;
};

/// Number of CUDA devices; throws NoDeviceError with the driver's reason when there is no driver or no device, and
/// CudaError when a driver is installed but fails (too old for this build's CUDA, or not initializable).
int device_count();

/// Fingerprint of one device (ordinal from 0). Throws NoDeviceError / UsageError for a bad ordinal.
DeviceInfo query_device(int ordinal);

/// All devices; throws NoDeviceError when there are none.
std::vector<DeviceInfo> list_devices();

/// NVRTC version as major * 1000 + minor * 10 (works without a GPU); 0 when NVRTC cannot be loaded, which is no
/// error: NVRTC is loaded at run time and needed only to compile (core/nvrtc.hpp).
int nvrtc_version();

}  // namespace autotune
