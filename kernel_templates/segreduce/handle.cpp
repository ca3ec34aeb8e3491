#include <fmt/format.h>

#include <limits>

#include "autotune/error.hpp"
#include "autotune/segmented_reduce.hpp"
#include "kernel_templates/segreduce/launcher.hpp"
#include "kernel_templates/user_op.hpp"
#include "runtime/call_checks.hpp"
#include "runtime/loaded_table.hpp"

namespace autotune {

// A user operator's own compile errors, with NVRTC's log, before any variant is compiled and before a device is
// looked for (kernel_templates/user_op.hpp).
AUTOTUNE_LOADED_HANDLE(SegmentedReduce, SegReduceKernel, SegReduceProblem, with_checked_user_op<SegReduceProblem>)

void SegmentedReduce::check_types(ValueType input, ValueType output, bool arg) const {
  const SegReduceProblem& p = impl_->problem;
  const PointerChecks check{"autotune::SegmentedReduce"};
  check.input_type(input, p.type, p);
  if (arg != is_arg(p.op))
    throw UsageError(fmt::format("autotune::SegmentedReduce: {} results passed to {}", arg ? "SegmentedArg" : "plain",
                                 p.key()));
  if (!arg) check.output_type(output, p.accumulator_type(), p);
}

void SegmentedReduce::launch(const void* d_in, std::uint64_t n, std::uint64_t num_segments, const void* d_begin,
                             const void* d_end, int offset_bits, void* d_out, cudaStream_t stream) const {
  const SegReduceProblem& p = impl_->problem;
  if (offset_bits != p.offset_bits)
    throw UsageError(fmt::format("autotune::SegmentedReduce: {}-bit offsets passed to {}, whose offsets are {}",
                                 offset_bits, p.key(), p.offset_bits == 64 ? "std::int64_t" : "int"));
  if (num_segments == 0) return;
  if (num_segments >= (1ull << 32))
    throw UsageError(fmt::format("autotune::SegmentedReduce: {} segments; at most 2^32 - 1 per call", num_segments));
  const PointerChecks check{"autotune::SegmentedReduce"};
  check.not_null("begin offsets", d_begin);
  check.not_null("end offsets", d_end);
  check.input_output(d_in, n, size_of(p.type), d_out, std::min<std::size_t>(8, p.result_bytes()));
  if (p.offset_bits == 32 && n > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw UsageError(fmt::format("autotune::SegmentedReduce: n = {} does not fit int offsets; use offset_bits = 64", n));
  impl_->kernel_for(n).run(d_in, num_segments, d_begin, d_end, d_out, stream);
}

}  // namespace autotune
