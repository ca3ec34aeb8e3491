#include "core/workspace.hpp"

#include <algorithm>
#include <utility>

#include "autotune/error.hpp"

namespace autotune {

SlotTable::SlotTable(void* first_base) { first_.base = first_base; }

SlotTable::~SlotTable() = default;

std::optional<SlotTable::Slot> SlotTable::claim(std::uintptr_t key) {
  std::size_t block_index = 0;
  for (Block* b = &first_; b != nullptr; b = b->next.load(std::memory_order_acquire), ++block_index) {
    for (std::size_t i = 0; i < kSlotsPerBlock; ++i) {
      std::uintptr_t owner = b->owners[i].load(std::memory_order_acquire);
      // A failed exchange leaves the winner's key in `owner`: the same key, when two threads claim for one stream.
      if (owner == kFree && b->owners[i].compare_exchange_strong(owner, key, std::memory_order_acq_rel)) owner = key;
      if (owner == key) return Slot{b->base, i, block_index * kSlotsPerBlock + i};
    }
  }
  return std::nullopt;
}

void SlotTable::append(void* base) {
  auto block = std::make_unique<Block>();
  block->base = base;
  Block* const linked = block.get();
  more_.push_back(std::move(block));
  // Release: a thread that reaches the block through `next` sees its base (and, for the pool, zeroed memory).
  last_->next.store(linked, std::memory_order_release);
  last_ = linked;
  blocks_.fetch_add(1, std::memory_order_release);
}

std::size_t SlotTable::owned() const {
  std::size_t n = 0;
  for (const Block* b = &first_; b != nullptr; b = b->next.load(std::memory_order_acquire))
    for (const auto& owner : b->owners) n += owner.load(std::memory_order_acquire) != kFree ? 1 : 0;
  return n;
}

namespace {

int current_device() {
  int device = 0;
  AUTOTUNE_CUDA(cudaGetDevice(&device));
  return device;
}

// Makes `device` current for the scope; restores the caller's device after.
class DeviceScope {
 public:
  explicit DeviceScope(int device) : previous_(current_device()) {
    if (previous_ != device) AUTOTUNE_CUDA(cudaSetDevice(device));
  }
  ~DeviceScope() {
    int now = previous_;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_;
};

// Puts the calling thread in relaxed stream-capture mode for the scope. In the default (global) mode, cudaMalloc
// fails while any thread captures a stream, and a first call on a stream may well be a captured one.
class RelaxedCaptureScope {
 public:
  RelaxedCaptureScope() { AUTOTUNE_CUDA(cudaThreadExchangeStreamCaptureMode(&mode_)); }
  ~RelaxedCaptureScope() { (void)cudaThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCaptureScope(const RelaxedCaptureScope&) = delete;
  RelaxedCaptureScope& operator=(const RelaxedCaptureScope&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

}  // namespace

WorkspacePool::WorkspacePool(std::size_t bytes, std::vector<unsigned char> initial)
    : slot_bytes_((std::max<std::size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment),
      initial_(initial.size() <= bytes ? std::move(initial)
                                       : throw UsageError("a workspace's initial bytes exceed its size")),
      device_(current_device()),
      memory_([this] {
        std::vector<cuda::DeviceBuffer> first;
        first.push_back(allocate_block());
        return first;
      }()),
      table_(memory_.front().get()) {}

cuda::DeviceBuffer WorkspacePool::allocate_block() const {
  const DeviceScope on_device(device_);
  const RelaxedCaptureScope relaxed;
  cuda::DeviceBuffer memory(kSlotsPerBlock * slot_bytes_);
  // Written on a private non-blocking stream, and waited for before any stream can be given a slot. A plain
  // cudaMemset would run on the legacy default stream, which waits for the application's blocking streams and is
  // illegal while one of them is being captured.
  const cuda::Stream stream;
  AUTOTUNE_CUDA(cudaMemsetAsync(memory.get(), 0, memory.bytes(), stream.get()));
  if (!initial_.empty())
    for (std::size_t slot = 0; slot < kSlotsPerBlock; ++slot)
      AUTOTUNE_CUDA(cudaMemcpyAsync(memory.as<char>() + slot * slot_bytes_, initial_.data(), initial_.size(),
                                    cudaMemcpyHostToDevice, stream.get()));
  stream.synchronize();
  return memory;
}

std::uintptr_t WorkspacePool::stream_key(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy) return reinterpret_cast<std::uintptr_t>(cudaStreamLegacy);
  if (stream == cudaStreamPerThread) {
    // Distinct for every live thread, and from every stream handle (both are addresses of live objects).
    thread_local const char token = 0;
    return reinterpret_cast<std::uintptr_t>(&token);
  }
  return reinterpret_cast<std::uintptr_t>(stream);
}

void* WorkspacePool::acquire(cudaStream_t stream) {
  const std::uintptr_t key = stream_key(stream);
  if (const auto slot = table_.claim(key)) return address(*slot);
  return acquire_slow(key);
}

void* WorkspacePool::acquire_slow(std::uintptr_t key) {
  const std::lock_guard lock(grow_);
  for (;;) {
    // Another thread may have added a block while this one waited for the lock, or new streams may have taken
    // the one this thread just added: claim again before (and after) growing.
    if (const auto slot = table_.claim(key)) return address(*slot);
    memory_.push_back(allocate_block());
    table_.append(memory_.back().get());
  }
}

}  // namespace autotune
