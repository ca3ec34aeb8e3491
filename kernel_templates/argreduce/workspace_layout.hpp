// The arg-reduction kernel's workspace, defined once: ArgReduceKernel (launcher.cpp) sizes each stream's workspace
// from it and kernel_source() (source.cpp) emits its offsets into the preamble, where argreduce.cu reads them.
// Internal to the family.
#pragma once

#include <cstddef>
#include <string>

#include "kernel_templates/preamble.hpp"

namespace autotune::argreduce_detail {

struct ArgReduceWorkspace {
  // Byte offsets.
  static constexpr int kTicketOffset = 0;      ///< last_block: blocks retired (unsigned; the last resets it to 0)
  /// pack=u64: the running maximum of the blocks' 64-bit keys (0 between launches: the last block takes it with an
  /// atomicExch); in its own 128-byte line, away from the ticket's
  static constexpr int kKeyOffset = 128;
  static constexpr int kPartialsOffset = 256;  ///< one 16-byte (value bits, index) pair per block
  static constexpr int kPartialBytes = 16;

  static_assert(kTicketOffset + 4 <= kKeyOffset && kKeyOffset % 8 == 0 && kKeyOffset + 8 <= kPartialsOffset,
                "the ticket, then the 8-byte-aligned key, then the partials");
  static_assert(kPartialsOffset % 16 == 0, "the partials are 16-byte aligned");

  /// Bytes of one stream's workspace: partials for up to `max_grid` blocks.
  static std::size_t bytes(unsigned max_grid) {
    return static_cast<std::size_t>(kPartialsOffset) + static_cast<std::size_t>(max_grid) * kPartialBytes;
  }

  /// The layout as the template sees it (in namespace at).
  static std::string preamble() {
    return preamble::int_constants({{"kTicketOffset", kTicketOffset},
                                     {"kKeyOffset", kKeyOffset},
                                     {"kPartialsOffset", kPartialsOffset}});
  }
};

}  // namespace autotune::argreduce_detail
