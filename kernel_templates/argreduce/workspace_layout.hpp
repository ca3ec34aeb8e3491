// The arg-reduction kernel's workspace, defined once: ArgReduceKernel (launcher.cpp) sizes each stream's workspace
// from it and kernel_source() (source.cpp) emits its offsets into the preamble, where argreduce.cu reads them.
// Internal to the family.
#pragma once

#include <cstddef>
#include <string>

#include "kernel_templates/preamble.hpp"

namespace autotune::argreduce_detail {

/// The ticket at 0 and the partials at 256 (preamble::TicketWordPartials); the family's word is kKeyOffset.
struct ArgReduceWorkspace : preamble::TicketWordPartials<128> {
  /// pack=u64: the running maximum of the blocks' 64-bit keys (0 between launches: the last block takes it with an
  /// atomicExch); in its own 128-byte line, away from the ticket's
  static constexpr int kKeyOffset = 128;
  static constexpr int kPartialBytes = 16;  ///< one (value bits, index) pair per block

  /// Bytes of one stream's workspace: partials for up to `max_grid` blocks.
  static std::size_t bytes(unsigned max_grid) { return TicketWordPartials::bytes(max_grid, kPartialBytes); }

  /// The layout as the template sees it (in namespace at).
  static std::string preamble() { return constants("kKeyOffset"); }
};

}  // namespace autotune::argreduce_detail
