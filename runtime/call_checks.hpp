// The checks a handle makes on the device pointers of every call, before anything is launched: each failure a
// UsageError naming the handle and the pointer, worded alike for every family.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "autotune/error.hpp"

namespace autotune {

struct PointerChecks {
  std::string_view handle;  ///< "autotune::Reduce": the first words of every message

  /// "HANDLE: the WHAT pointer is null" when `pointer` is null and `needed` (false for the input of an empty call).
  void not_null(std::string_view what, const void* pointer, bool needed = true) const {
    if (pointer == nullptr && needed) throw UsageError(fmt::format("{}: the {} pointer is null", handle, what));
  }
  /// "HANDLE: the WHAT pointer is not aligned to A bytes" when `pointer` is not a multiple of `alignment`.
  void aligned(std::string_view what, const void* pointer, std::size_t alignment) const {
    if (reinterpret_cast<std::uintptr_t>(pointer) % alignment != 0)
      throw UsageError(fmt::format("{}: the {} pointer is not aligned to {} bytes", handle, what, alignment));
  }
  /// The pointers of a call that reads `n` elements from `input` into `output`: neither null (the input of an empty
  /// call may be), each aligned to its element (the output checked first for null, then the input).
  void input_output(const void* input, std::uint64_t n, std::size_t input_alignment, const void* output,
                    std::size_t output_alignment) const {
    not_null("output", output);
    not_null("input", input, n > 0);
    aligned("input", input, input_alignment);
    aligned("output", output, output_alignment);
  }
};

}  // namespace autotune
