// The checks a handle makes on the device pointers and the types of every call, before anything is launched: each
// failure a UsageError naming the handle and the pointer or type, worded alike for every family.
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
  /// "HANDLE: T input passed to KEY, whose input is W" when a typed call's element type `given` is not the type
  /// `wanted` of `problem` (an enum that to_string names).
  template <class T, class P>
  void input_type(T given, T wanted, const P& problem) const {
    if (given != wanted)
      throw UsageError(fmt::format("{}: {} input passed to {}, whose input is {}", handle, to_string(given),
                                   problem.key(), to_string(wanted)));
  }
  /// "HANDLE: a T output passed to KEY, whose result is W" when a typed call's result type `given` is not `wanted`.
  template <class T, class P>
  void output_type(T given, T wanted, const P& problem) const {
    if (given != wanted)
      throw UsageError(fmt::format("{}: a {} output passed to {}, whose result is {}", handle, to_string(given),
                                   problem.key(), to_string(wanted)));
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
