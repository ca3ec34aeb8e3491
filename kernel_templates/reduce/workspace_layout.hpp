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

  /// The layout as the template sees it (in namespace at).
  static std::string preamble() { return constants("kIdentityOffset"); }
};

}  // namespace autotune::reduce_detail
