#include "autotune/device.hpp"

#include <fmt/format.h>
#include <dlfcn.h>

#include <map>
#include <mutex>

#include "core/cuda.hpp"
#include "core/device_probe.hpp"
#include "core/nvrtc.hpp"

namespace autotune {

std::string DeviceInfo::arch() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

std::string DeviceInfo::model_key() const {
  return fmt::format("{}|sm_{}{}|{}SM|{}MiB", name, cc_major, cc_minor, sm_count, memory_bytes >> 20);
}

namespace {

// Distinguishes "no driver installed" from "driver too old", which cudart reports with the same error code.
bool driver_library_present() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

}  // namespace

DeviceProbe classify_device_probe(int cuda_error, int count, bool driver_library_present) {
  const auto e = static_cast<cudaError_t>(cuda_error);
  // cudart reports a missing driver and a driver too old for it with the same code: only the first is "no driver".
  if (e == cudaErrorInsufficientDriver && !driver_library_present) return DeviceProbe::no_driver;
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count <= 0)) return DeviceProbe::no_device;
  if (e == cudaSuccess) return DeviceProbe::devices;
  return DeviceProbe::driver_failed;
}

int device_count() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  switch (classify_device_probe(e, count, e == cudaErrorInsufficientDriver && driver_library_present())) {
    case DeviceProbe::devices: return count;
    case DeviceProbe::no_driver:
      throw NoDeviceError("no CUDA device: no NVIDIA driver is installed (libcuda.so.1 was not found)");
    case DeviceProbe::no_device:
      throw NoDeviceError(e == cudaSuccess ? std::string("no CUDA device: the driver reports 0 devices")
                                           : fmt::format("no CUDA device: {}", cuda::describe(e)));
    case DeviceProbe::driver_failed: break;
  }
  throw CudaError(static_cast<int>(e),
                  fmt::format("the NVIDIA driver is installed but CUDA cannot use it: {} (a driver older than this "
                              "build's CUDA, or one that does not match its kernel module?)",
                              cuda::describe(e)));
}

int nvrtc_version() {
  // Loads NVRTC if it can but never requires it: a handle served a cubin from the cache runs without it.
  const nvrtc::Api* api = nvrtc::find();
  int major = 0, minor = 0;
  if (!api || api->version(&major, &minor) != NVRTC_SUCCESS) return 0;
  return major * 1000 + minor * 10;
}

namespace {

// What query_device reads of device `ordinal`, from the driver.
DeviceInfo read_device(int ordinal) {
  cudaDeviceProp p{};
  AUTOTUNE_CUDA(cudaGetDeviceProperties(&p, ordinal));
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.memory_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  d.shared_per_block_optin = static_cast<int>(p.sharedMemPerBlockOptin);
  d.max_threads_per_block = p.maxThreadsPerBlock;
  // clockRate / memoryClockRate left cudaDeviceProp in CUDA 13: read them as attributes.
  AUTOTUNE_CUDA(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, ordinal));
  AUTOTUNE_CUDA(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  AUTOTUNE_CUDA(cudaDriverGetVersion(&d.driver_version));
  d.nvrtc_version = nvrtc_version();
  std::string uuid = "GPU-";
  for (int i = 0; i < 16; ++i) {
    uuid += fmt::format("{:02x}", static_cast<unsigned char>(p.uuid.bytes[i]));
    if (i == 3 || i == 5 || i == 7 || i == 9) uuid += '-';
  }
  d.uuid = uuid;
  return d;
}

}  // namespace

DeviceInfo query_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw UsageError(fmt::format("device {} does not exist (this machine has {} CUDA device{}: 0..{})", ordinal, count,
                                 count == 1 ? "" : "s", count - 1));
  // Read once per process and device: nothing it holds changes while a process runs, and every handle's
  // construction asks for it; cudaGetDeviceProperties reads every attribute of the device.
  static std::mutex mutex;
  static std::map<int, DeviceInfo> known;
  const std::lock_guard lock(mutex);
  auto at = known.find(ordinal);
  if (at == known.end()) at = known.emplace(ordinal, read_device(ordinal)).first;
  return at->second;
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> all;
  const int count = device_count();
  for (int i = 0; i < count; ++i) all.push_back(query_device(i));
  return all;
}

}  // namespace autotune
