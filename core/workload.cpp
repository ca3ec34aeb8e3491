#include "core/workload.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/family.hpp"

namespace autotune {

cuda::DeviceBuffer upload(const std::vector<unsigned char>& host) {
  cuda::DeviceBuffer buf(std::max<std::size_t>(host.size(), 16));
  if (!host.empty()) AUTOTUNE_CUDA(cudaMemcpy(buf.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  // A pageable copy may return before its DMA lands: wait before a non-blocking stream reads it.
  AUTOTUNE_CUDA(cudaDeviceSynchronize());
  return buf;
}

DeviceMemoryNeed device_memory_need(const Problem& problem, std::uint64_t extra_bytes) {
  DeviceMemoryNeed need;
  need.input = problem.bytes();
  need.output = problem.family().output_bytes(problem);
  need.extra = extra_bytes;
  return need;
}

namespace {
std::string human_bytes(std::uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", bytes / 1073741824.0);
  if (bytes >= (1ull << 20)) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  return fmt::format("{:.1f} KiB", bytes / 1024.0);
}
}  // namespace

std::string device_memory_shortfall(const Problem& problem, int device, const DeviceMemoryNeed& need,
                                    std::uint64_t free_bytes, std::uint64_t total_bytes,
                                    std::string_view action) {
  if (need.total() <= free_bytes) return {};
  return fmt::format("not enough GPU memory to {} {}: it needs {} (input {}, output {}, L2 flush and read-roof "
                     "buffers {}, margin {}) but GPU {} has {} free of {}; {} a smaller --n",
                     action, problem.key(), human_bytes(need.total()), human_bytes(need.input), human_bytes(need.output),
                     human_bytes(need.extra), human_bytes(need.margin), device, human_bytes(free_bytes),
                     human_bytes(total_bytes), action);
}

}  // namespace autotune
