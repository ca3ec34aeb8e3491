// Per-stream device workspaces for kernels that keep state between launches: the ticket and histogram of a
// last-block merge (Merge::last_block), a reduction's partials. A kernel that finishes in the last block to retire
// needs memory that is zero when it starts and that no concurrent launch shares, so one workspace per handle would
// make two streams race. The pool gives each stream its own.
//
// Contract:
//   - Slots are allocated in blocks of kSlotsPerBlock, one cudaMalloc per block, initialized before any stream can
//     see them: zero, or a given prefix followed by zeros (a reduction's identity value, say). The first block is
//     allocated at construction. A kernel must leave its slot as it found it: the pool never writes a slot again.
//   - acquire(stream) returns the slot the stream owns, claiming the first free slot with an atomic
//     compare-exchange on the stream's first call. A slot is never released: a stream keeps it for the pool's
//     lifetime. The steady state (the stream owns a slot) is a scan of a few atomics: no lock, no allocation,
//     no CUDA call.
//   - When every slot is owned, the next new stream allocates another block under a mutex (the slow path, the
//     "allocation on a new stream" of the API's documentation). It switches to the pool's device and to relaxed
//     stream-capture mode for the allocation, so a first call made while a stream is being captured works too.
//   - Streams are told apart by their handle. The legacy default stream (nullptr or cudaStreamLegacy: autotune is
//     compiled without per-thread default streams, so the null stream is the legacy one) is one stream.
//     cudaStreamPerThread is a different stream in every host thread, so it is keyed by the calling thread. A handle
//     that CUDA reuses for a new stream after cudaStreamDestroy (it releases a stream only once its work is done)
//     inherits the old stream's slot, which is then idle; a thread that exits with calls on its cudaStreamPerThread
//     still running must not be replaced by a new thread calling the same pool before they finish (its key, the
//     address of a thread-local object, may be reused).
//
// Thread-safety: acquire() may be called from any number of threads at once. Work captured into a CUDA graph keeps
// the slot of the stream it was captured on: the graph's launches share that slot with the stream's own calls.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/cuda.hpp"

namespace autotune {

/// The lock-free part of the pool, without CUDA: owner keys of slots in blocks of kSlotsPerBlock, each block
/// carrying an opaque base pointer. Blocks are appended (by one thread at a time) and never removed; slots go from
/// free to owned once. Every key that claims ends in exactly one slot: slots are scanned in one fixed order and an
/// owned slot never changes hands, so two threads claiming for one key stop at the same first slot that is free
/// or theirs.
class SlotTable {
 public:
  static constexpr std::size_t kSlotsPerBlock = 8;
  /// A key no stream has: a free slot.
  static constexpr std::uintptr_t kFree = 0;

  struct Slot {
    void* base = nullptr;     ///< the base pointer of the slot's block
    std::size_t in_block = 0;  ///< index of the slot in its block
    std::size_t index = 0;     ///< index of the slot in the table (block * kSlotsPerBlock + in_block)
  };

  /// A table of one block whose base is `first_base`.
  explicit SlotTable(void* first_base);
  ~SlotTable();
  SlotTable(const SlotTable&) = delete;
  SlotTable& operator=(const SlotTable&) = delete;

  /// The slot `key` (not kFree) owns, else the first free slot, claimed for it; nullopt when every slot is owned by
  /// other keys. Lock-free.
  std::optional<Slot> claim(std::uintptr_t key);
  /// Adds a block of free slots whose base is `base`. Calls must not overlap (the caller holds a lock); claim()
  /// may run concurrently and sees the block once it is linked.
  void append(void* base);
  /// Slots in the table.
  std::size_t capacity() const { return blocks_.load(std::memory_order_acquire) * kSlotsPerBlock; }
  /// Slots owned by some key.
  std::size_t owned() const;

 private:
  struct Block {
    void* base = nullptr;
    std::array<std::atomic<std::uintptr_t>, kSlotsPerBlock> owners{};
    std::atomic<Block*> next{nullptr};
  };
  Block first_;
  Block* last_ = &first_;               // touched by append() only
  std::atomic<std::size_t> blocks_{1};
  std::vector<std::unique_ptr<Block>> more_;  // owns the blocks after the first; touched by append() only
};

/// Device workspaces of one size and initial contents, one per stream, on the device current at construction.
/// Not movable (other threads may hold its address); own it through a pointer.
class WorkspacePool {
 public:
  static constexpr std::size_t kSlotsPerBlock = SlotTable::kSlotsPerBlock;
  /// Slots start at multiples of this many bytes: enough for any atomic and vector type.
  static constexpr std::size_t kAlignment = 256;

  /// Allocates the first kSlotsPerBlock slots of `bytes` each (rounded up to kAlignment) on the current device,
  /// each holding `initial` (at most `bytes`; UsageError otherwise) followed by zeros. Throws CudaError when the
  /// memory cannot be allocated.
  explicit WorkspacePool(std::size_t bytes, std::vector<unsigned char> initial = {});
  WorkspacePool(const WorkspacePool&) = delete;
  WorkspacePool& operator=(const WorkspacePool&) = delete;

  /// The workspace of `stream` (see the contract above): slot_bytes() of device memory, initialized before the
  /// stream's first kernel. Throws CudaError only on the slow path, when a new block cannot be allocated.
  void* acquire(cudaStream_t stream);

  std::size_t slot_bytes() const { return slot_bytes_; }
  /// Slots allocated so far (a multiple of kSlotsPerBlock).
  std::size_t capacity() const { return table_.capacity(); }
  /// Slots owned by a stream.
  std::size_t owned() const { return table_.owned(); }

  /// The key acquire() files `stream` under (exposed for tests): the handle; one key for the legacy default
  /// stream, whether written nullptr or cudaStreamLegacy; one per calling thread for cudaStreamPerThread.
  static std::uintptr_t stream_key(cudaStream_t stream);

 private:
  void* address(const SlotTable::Slot& slot) const {
    return static_cast<char*>(slot.base) + slot.in_block * slot_bytes_;
  }
  void* acquire_slow(std::uintptr_t key);
  /// kSlotsPerBlock initialized slots on device_, whatever the calling thread's device and capture mode.
  cuda::DeviceBuffer allocate_block() const;

  std::size_t slot_bytes_;
  std::vector<unsigned char> initial_;  // every slot's first bytes; the rest is zero
  int device_ = 0;
  std::mutex grow_;                         // the slow path: one allocation at a time
  std::vector<cuda::DeviceBuffer> memory_;  // one buffer per block of slots; appended under grow_
  SlotTable table_;                         // the blocks' bases, in memory_'s order
};

}  // namespace autotune
