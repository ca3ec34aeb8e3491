// The reduction kernel's workspace, defined once: ReduceKernel (launcher.cpp) sizes and presets each stream's
// workspace from it, and kernel_source() (source.cpp) emits its offsets into the preamble, where reduce.cu reads
// them. Internal to the reduction family.
#pragma once

#include <cstddef>
#include <string>

#include "kernel_templates/preamble.hpp"

namespace autotune::reduce_detail {

struct ReduceWorkspace {
  // Byte offsets.
  static constexpr int kTicketOffset = 0;  ///< Finish::last_block: blocks retired (unsigned; the last resets it)
  /// The identity's bits (accumulator width), written once by the host: the atomic finish's preset of `out` is
  /// copied from here when the identity is no byte pattern.
  static constexpr int kIdentityOffset = 8;
  static constexpr int kPartialsOffset = 256;  ///< one accumulator-type partial per block (last_block, two_pass)

  static_assert(kTicketOffset + 4 <= kIdentityOffset, "the ticket comes before the identity");
  static_assert(kIdentityOffset % 8 == 0 && kIdentityOffset + 8 <= kPartialsOffset,
                "the identity (up to 8 bytes, aligned) comes before the partials");
  static_assert(kPartialsOffset % 16 == 0, "the partials are aligned for any accumulator");

  /// Bytes of one stream's workspace: partials for up to `max_grid` blocks of `acc_bytes` each.
  static std::size_t bytes(unsigned max_grid, std::size_t acc_bytes) {
    return static_cast<std::size_t>(kPartialsOffset) + static_cast<std::size_t>(max_grid) * acc_bytes;
  }

  /// The layout as the template sees it (in namespace at).
  static std::string preamble() {
    return preamble::int_constants({{"kTicketOffset", kTicketOffset},
                                     {"kIdentityOffset", kIdentityOffset},
                                     {"kPartialsOffset", kPartialsOffset}});
  }
};

}  // namespace autotune::reduce_detail
