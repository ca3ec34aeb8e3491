#include "core/cuda.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace autotune::cuda {

std::string describe(cudaError_t code) {
  return fmt::format("{}: {}", cudaGetErrorName(code), cudaGetErrorString(code));
}

void throw_error(cudaError_t code, const char* expr, const char* file, int line) {
  // A sticky error (illegal address and the like) poisons the context: say so, the caller cannot continue.
  throw CudaError(static_cast<int>(code), fmt::format("{} failed: {} ({}:{})", expr, describe(code), file, line));
}

namespace {

// Destructors must not throw: report and carry on.
void log_release_failure(cudaError_t code, const char* what) noexcept {
  if (code != cudaSuccess && code != cudaErrorCudartUnloading)
    std::fprintf(stderr, "autotune: %s failed: %s\n", what, cudaGetErrorString(code));
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const cudaError_t e = cudaMalloc(&ptr_, bytes);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky; clear it
    throw CudaError(static_cast<int>(e), fmt::format("not enough device memory for {} bytes ({:.1f} MiB)", bytes,
                                                     bytes / 1048576.0));
  }
  if (e != cudaSuccess) throw_error(e, "cudaMalloc", __FILE__, __LINE__);
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) log_release_failure(cudaFree(ptr_), "cudaFree");
}

Event::Event() { AUTOTUNE_CUDA(cudaEventCreate(&ev_)); }
Event::~Event() {
  if (ev_) log_release_failure(cudaEventDestroy(ev_), "cudaEventDestroy");
}
float Event::elapsed_since(const Event& start) const {
  float ms = 0;
  AUTOTUNE_CUDA(cudaEventElapsedTime(&ms, start.ev_, ev_));
  return ms;
}

Stream::Stream() { AUTOTUNE_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (s_) log_release_failure(cudaStreamDestroy(s_), "cudaStreamDestroy");
}

void Module::Unload::operator()(cudaLibrary_t lib) const noexcept {
  log_release_failure(cudaLibraryUnload(lib), "cudaLibraryUnload");
}

Module::Module(Library lib, const char* kernel_name) : lib_(std::move(lib)) {
  if (!lib_) throw_error(cudaErrorInvalidResourceHandle, "cudaLibraryGetKernel", __FILE__, __LINE__);
  AUTOTUNE_CUDA(cudaLibraryGetKernel(&kernel_, lib_.get(), kernel_name));
}

Module::Module(const std::vector<char>& image, const char* kernel_name)
    : Module(
          [&] {
            cudaLibrary_t lib = nullptr;
            AUTOTUNE_CUDA(cudaLibraryLoadData(&lib, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
            return Library(lib, Unload{});
          }(),
          kernel_name) {}

Module Module::entry(const char* kernel_name) const { return Module(lib_, kernel_name); }

Module Module::find_entry(const char* kernel_name) const {
  cudaKernel_t kernel = nullptr;
  if (!lib_ || cudaLibraryGetKernel(&kernel, lib_.get(), kernel_name) != cudaSuccess) {
    (void)cudaGetLastError();  // a missing symbol is an answer here, not an error for the next call to find
    return Module();
  }
  Module m;
  m.lib_ = lib_;
  m.kernel_ = kernel;
  return m;
}

int Module::blocks_per_sm(int block, std::size_t shared_bytes) const {
  int blocks = 0;
  AUTOTUNE_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reinterpret_cast<const void*>(kernel_), block,
                                                              shared_bytes));
  return blocks;
}

void Module::allow_non_portable_clusters() const {
  AUTOTUNE_CUDA(
      cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel_), cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}

namespace {

// A launch of `grid` blocks of `block` threads in clusters of `cluster` blocks (its attribute in `attribute`).
cudaLaunchConfig_t cluster_launch(unsigned grid, int block, std::size_t shared_bytes, unsigned cluster,
                                  cudaLaunchAttribute& attribute) {
  attribute = {};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(static_cast<unsigned>(block));
  config.dynamicSmemBytes = shared_bytes;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

}  // namespace

int Module::active_clusters(int cluster, int block, std::size_t shared_bytes) const {
  cudaLaunchAttribute attribute;
  const auto c = static_cast<unsigned>(cluster);
  const cudaLaunchConfig_t config = cluster_launch(c, block, shared_bytes, c, attribute);
  int clusters = 0;
  AUTOTUNE_CUDA(cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(kernel_), &config));
  return clusters;
}

void Module::launch(unsigned grid, int block, void** args, std::size_t shared_bytes, cudaStream_t stream,
                    Order order) const {
  if (order == Order::after_completion) {
    AUTOTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(grid),
                                   dim3(static_cast<unsigned>(block)), args, shared_bytes, stream));
    return;
  }
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(static_cast<unsigned>(block));
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  AUTOTUNE_CUDA(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel_), args));
}

void Module::launch_cluster(unsigned grid, int block, void** args, std::size_t shared_bytes,
                            cudaStream_t stream) const {
  cudaLaunchAttribute attribute;
  cudaLaunchConfig_t config = cluster_launch(grid, block, shared_bytes, grid, attribute);
  config.stream = stream;
  AUTOTUNE_CUDA(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel_), args));
}

void Module::set_max_dynamic_shared(std::size_t shared_bytes) const {
  AUTOTUNE_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel_),
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
}

bool zero_with_kernel(int cc_major) {
  const char* memset = std::getenv("AUTOTUNE_ZERO_WITH_MEMSET");
  return cc_major >= 9 && !(memset != nullptr && std::string_view(memset) == "1");
}

}  // namespace autotune::cuda
