// A family's problem made ready on the GPU for the tuner: its search space and device constraints, its input in
// device memory, the CPU reference's answer, and variants loaded to run on that input. The tuner's loop (timing,
// strategies, finalists, recording) is the same for every family; a family implements this interface
// (KernelFamily::make_workload, core/family.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "core/cuda.hpp"

namespace autotune {

/// One loaded variant bound to the workload's input and output buffers.
class LoadedVariant {
 public:
  virtual ~LoadedVariant() = default;
  /// The timed call: the whole operation as applications call it (zeroing or identity-setting included).
  virtual void run(cudaStream_t stream) const = 0;
  /// Poisons the output, runs once, compares with the CPU reference: empty when exact (or within the family's
  /// documented tolerance), else a one-line description of the difference. Synchronizes `stream`.
  virtual std::string check(cudaStream_t stream) const = 0;
};

/// An address no allocation has: a variant reading it faults with an illegal address, as a broken kernel would
/// (Workload::load's poison_input).
inline const void* poison_address() { return reinterpret_cast<const void*>(std::uintptr_t{1} << 47); }

/// A device copy of `host` (at least 16 bytes, so that an empty input still has an address).
cuda::DeviceBuffer upload(const std::vector<unsigned char>& host);

class Workload {
 public:
  virtual ~Workload() = default;
  /// The configurations to consider, in a fixed order, every one well formed for the problem.
  virtual std::vector<Config> space() const = 0;
  /// Why `config` cannot run on the device, or empty.
  virtual std::string violation(const Config& config) const = 0;
  /// Loads `cubin` (compiled from kernel_source(problem, config)) bound to the input. With `poison_input`, the
  /// variant reads from an invalid address instead (TuneOptions::inject_fault). Throws UsageError / CudaError.
  virtual std::unique_ptr<LoadedVariant> load(const Config& config, const std::vector<char>& cubin,
                                              bool poison_input) const = 0;

  /// The device input every variant reads, and the output it writes (for a reference implementation's call, e.g.
  /// CUB's in `autotune bench`, bound to the same buffers).
  virtual const void* input() const = 0;
  virtual void* output() const = 0;
  /// Poisons the output, makes `call`, compares with the CPU reference within the family's default tolerance:
  /// empty when it agrees, else one line. Synchronizes `stream`.
  virtual std::string check_call(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) const = 0;
};

/// Device memory the tuner holds at once for `problem` (checked with cudaMemGetInfo before anything is allocated,
/// so that a large n fails with a clear message instead of a CUDA out-of-memory error half-way): the input, the
/// output, `extra_bytes` (the L2 flush buffer and the read roof's buffer) and a margin for what the CUDA context
/// allocates by itself (loaded modules, per-launch workspaces).
struct DeviceMemoryNeed {
  std::uint64_t input = 0, output = 0, extra = 0, margin = 64ull << 20;
  std::uint64_t total() const { return input + output + extra + margin; }
};
DeviceMemoryNeed device_memory_need(const Problem& problem, std::uint64_t extra_bytes);
/// Empty when `need` fits in `free_bytes` of GPU `device`, else the message of the error: what is needed, what is
/// free, and what to do. `action` names what needed it ("tune", "benchmark").
std::string device_memory_shortfall(const Problem& problem, int device, const DeviceMemoryNeed& need,
                                    std::uint64_t free_bytes, std::uint64_t total_bytes,
                                    std::string_view action = "tune");

}  // namespace autotune
