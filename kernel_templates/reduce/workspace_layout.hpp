// The reduction kernel's workspace, defined once: ReduceKernel (launcher.cpp) sizes and presets each stream's
// workspace from it, and kernel_source() (source.cpp) emits its offsets into the preamble, where reduce.cu reads
// them. Internal to the reduction family.
#pragma once

#include <string>

#include "kernel_templates/preamble.hpp"

namespace autotune::reduce_detail {

/// The ticket at 0 (Finish::last_block) and one accumulator-type partial per block at 256 (last_block, two_pass)
/// (preamble::TicketWordPartials); the family's word is kIdentityOffset.
struct ReduceWorkspace : preamble::TicketWordPartials<8> {
  /// The identity's bits (accumulator width), written once by the host: the atomic finish's preset of `out` is
  /// copied from here when the identity is no byte pattern.
  static constexpr int kIdentityOffset = 8;
  /// Finish::atomic_last: the blocks' running result (accumulator width), the identity between launches (written
  /// with the identity's bits by the host, put back by the last block).
  static constexpr int kAtomicWordOffset = 16;
  static_assert(kAtomicWordOffset >= kIdentityOffset + 8 && kAtomicWordOffset + 8 <= kPartialsOffset,
                "the atomic word after the identity, before the partials");

  /// The layout as the template sees it (in namespace at).
  static std::string preamble() {
    return constants("kIdentityOffset") + preamble::int_constants({{"kAtomicWordOffset", kAtomicWordOffset}});
  }
};

}  // namespace autotune::reduce_detail
