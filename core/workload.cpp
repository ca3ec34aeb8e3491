#include "core/workload.hpp"

#include <algorithm>

namespace autotune {

cuda::DeviceBuffer upload(const std::vector<unsigned char>& host) {
  cuda::DeviceBuffer buf(std::max<std::size_t>(host.size(), 16));
  if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(buf.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  return buf;
}

}  // namespace autotune
