// How device_count() reads cudaGetDeviceCount's answer (core/device.cpp): a machine without an NVIDIA driver or
// without a device (a CPU-only host: NoDeviceError, and the GPU suites skip) against a driver that is there and fails
// (CudaError: a broken GPU machine must not look like a host without a GPU).
#pragma once

namespace autotune {

enum class DeviceProbe {
  devices,        ///< at least one device
  no_driver,      ///< cudaErrorInsufficientDriver and libcuda.so.1 cannot be loaded: no NVIDIA driver installed
  no_device,      ///< cudaErrorNoDevice, or the driver counts 0 devices
  driver_failed,  ///< any other error: the driver is installed and fails (too old, mismatched, not initializable)
};

/// The outcome of cudaGetDeviceCount returning `cuda_error` (a cudaError_t) and `count`, where
/// `driver_library_present` says whether libcuda.so.1 can be loaded.
DeviceProbe classify_device_probe(int cuda_error, int count, bool driver_library_present);

}  // namespace autotune
