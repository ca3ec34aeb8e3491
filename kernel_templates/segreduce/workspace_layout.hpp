// The segmented reduction's workspace, defined once: SegReduceKernel (launcher.cpp) sizes each stream's workspace
// from it, and kernel_source() (source.cpp) emits it into the preamble, where segreduce.cu reads it. Internal to the
// family.
//
// Between launches the whole workspace is zero: the first kernel fills the queue of long segments, the second
// empties it (each segment's chunk ticket is reset by the block that finishes the segment, the queue counter and
// the grid ticket by the last block to retire).
#pragma once

#include <cstddef>
#include <string>

#include <fmt/format.h>

namespace autotune::segreduce_detail {

struct SegReduceWorkspace {
  /// u64: queued segments in the high 32 bits, chunks reserved in the low 32 (one atomicAdd gives both, so queue
  /// slots and chunk bases rise together and the second kernel finds a chunk's segment by binary search).
  static constexpr int kCounterOffset = 0;
  static constexpr int kGridTicketOffset = 8;  ///< u32: blocks of the second kernel retired
  static constexpr int kEntriesOffset = 256;   ///< kQueueCapacity entries {segment, chunk base, chunks, ticket}
  static constexpr int kEntryBytes = 16;
  /// Long segments the queue holds; past it the first kernel reduces a long segment with its group (correct, slow).
  static constexpr unsigned kQueueCapacity = 1u << 18;
  /// Chunk partials (value + index, 16 bytes each) of multi-chunk segments; a segment whose chunks would pass it is
  /// reduced by the first kernel's group as well.
  static constexpr unsigned kPartialCapacity = 1u << 18;
  static constexpr int kPartialBytes = 16;
  static constexpr std::size_t kPartialsOffset =
      static_cast<std::size_t>(kEntriesOffset) + static_cast<std::size_t>(kQueueCapacity) * kEntryBytes;
  static constexpr std::size_t kBytes = kPartialsOffset + static_cast<std::size_t>(kPartialCapacity) * kPartialBytes;

  static std::string preamble() {
    return fmt::format(
        "constexpr int kCounterOffset = {};\n"
        "constexpr int kGridTicketOffset = {};\n"
        "constexpr int kEntriesOffset = {};\n"
        "constexpr unsigned kQueueCapacity = {}u;\n"
        "constexpr unsigned kPartialCapacity = {}u;\n"
        "constexpr unsigned long long kPartialsOffset = {}ull;\n",
        kCounterOffset, kGridTicketOffset, kEntriesOffset, kQueueCapacity, kPartialCapacity, kPartialsOffset);
  }
};

}  // namespace autotune::segreduce_detail
