// RAII owners for the CUDA runtime handles autotune uses, and the one check macro for CUDA calls.
//
// autotune links the CUDA runtime statically and never links libcuda: the runtime loads the driver when the first
// call needs it, so a machine without a driver gets cudaErrorInsufficientDriver / cudaErrorNoDevice as a value.
// Kernels come from NVRTC cubins loaded with the runtime's library API (cudaLibraryLoadData), which is
// context-independent: it respects whatever context the application made current.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "autotune/error.hpp"

namespace autotune::cuda {

/// Throws CudaError with the expression, file, line, and the error's name and text.
[[noreturn]] void throw_error(cudaError_t code, const char* expr, const char* file, int line);
/// The error's name and text, e.g. "cudaErrorNoDevice: no CUDA-capable device is detected".
std::string describe(cudaError_t code);

#define AUTOTUNE_CUDA(expr)                                                          \
  do {                                                                               \
    const cudaError_t autotune_status_ = (expr);                                     \
    if (autotune_status_ != cudaSuccess)                                             \
      ::autotune::cuda::throw_error(autotune_status_, #expr, __FILE__, __LINE__);    \
  } while (0)

/// Device memory of `bytes` bytes on the current device. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// A CUDA event with timing enabled. Move-only.
class Event {
 public:
  Event();
  ~Event();
  Event(Event&& o) noexcept : ev_(std::exchange(o.ev_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(ev_, o.ev_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return ev_; }
  void record(cudaStream_t s) { AUTOTUNE_CUDA(cudaEventRecord(ev_, s)); }
  /// Milliseconds from `start` to this event; both must have completed.
  float elapsed_since(const Event& start) const;

 private:
  cudaEvent_t ev_ = nullptr;
};

/// A non-blocking stream. Move-only.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void synchronize() const { AUTOTUNE_CUDA(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

/// A loaded cubin (cudaLibrary_t) and one kernel from it. Move-only; the cubin is unloaded with the last Module of
/// it (entry() gives another kernel of the same load: a cubin with two entry points is loaded once, not twice).
class Module {
 public:
  Module() = default;
  /// Loads `image` (a cubin) and looks up `kernel_name`. Throws CudaError when the image does not load.
  Module(const std::vector<char>& image, const char* kernel_name);
  /// `kernel_name` of the cubin this Module loaded, sharing its load. Throws CudaError when the cubin has no such
  /// kernel, or when this Module holds nothing.
  Module entry(const char* kernel_name) const;
  Module(Module&& o) noexcept : lib_(std::move(o.lib_)), kernel_(std::exchange(o.kernel_, nullptr)) {}
  Module& operator=(Module&& o) noexcept {
    std::swap(lib_, o.lib_);
    std::swap(kernel_, o.kernel_);
    return *this;
  }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  cudaKernel_t kernel() const { return kernel_; }
  explicit operator bool() const { return kernel_ != nullptr; }
  /// Resident blocks per SM for `block` threads and `shared_bytes` dynamic shared memory on the current device.
  int blocks_per_sm(int block, std::size_t shared_bytes) const;
  /// Allows `shared_bytes` of dynamic shared memory (needed above 48 KiB).
  void set_max_dynamic_shared(std::size_t shared_bytes) const;
  /// Allows clusters above the portable 8 blocks (16 on sm_90); the launch still fails where the GPU has none.
  void allow_non_portable_clusters() const;
  /// Clusters of `cluster` blocks (the kernel's compile-time cluster size) that can be resident at once on the
  /// current device; 0 when none can be scheduled.
  int active_clusters(int cluster, int block, std::size_t shared_bytes) const;
  /// `kernel_name` of the same cubin, or an empty Module where the cubin has none (a cubin compiled from an older
  /// template); no CUDA error is left behind.
  Module find_entry(const char* kernel_name) const;
  /// How a launch follows the work before it on its stream: once that work has completed (CUDA's stream order), or,
  /// with programmatic dependent launch (sm_90+), once the kernel before it has let it start (griddepcontrol: the
  /// kernel launched so waits for the one before, where it must, with griddepcontrol.wait).
  enum class Order { after_completion, after_trigger };
  /// Launches the kernel on `stream`: `grid` blocks of `block` threads with `shared_bytes` of dynamic shared memory,
  /// `args` its arguments. Throws CudaError when the launch is refused.
  void launch(unsigned grid, int block, void** args, std::size_t shared_bytes, cudaStream_t stream,
              Order order = Order::after_completion) const;
  /// The same, the whole grid one thread-block cluster (a cluster size chosen at launch, not compiled in).
  void launch_cluster(unsigned grid, int block, void** args, std::size_t shared_bytes, cudaStream_t stream) const;

 private:
  struct Unload {
    void operator()(cudaLibrary_t lib) const noexcept;
  };
  using Library = std::shared_ptr<std::remove_pointer_t<cudaLibrary_t>>;
  Module(Library lib, const char* kernel_name);

  Library lib_;
  cudaKernel_t kernel_ = nullptr;
};

/// Whether a call's output is zeroed by a kernel of the variant's own cubin that lets the work launch after it start at
/// once (Module::Order::after_trigger: programmatic dependent launch, sm_90 and later), rather than by a memset that
/// the work launch waits for: on a device of compute capability `cc_major` 9 or more, unless the environment sets
/// AUTOTUNE_ZERO_WITH_MEMSET=1 (shape_bench --compare-memset-zero times the two). The even histogram's merge=atomic
/// uses it; the range histograms and the reductions measured no gain from it (kernel_templates/histogram/README.md).
bool zero_with_kernel(int cc_major);

}  // namespace autotune::cuda
