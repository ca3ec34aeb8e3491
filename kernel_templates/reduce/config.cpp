// The reduction configuration: names, keys (parse and print), validity and the fallback.
#include <fmt/format.h>

#include "autotune/reduce_problem.hpp"
#include "core/config_fields.hpp"
#include "kernel_templates/preamble.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "kernel_templates/reduction_fields.hpp"
#include "kernel_templates/reduction_space.hpp"
#include "kernel_templates/reduce/enums.hpp"
#include "kernel_templates/value_types.hpp"

namespace autotune {

// --- the configuration -----------------------------------------------------------------------------------------------

std::string_view to_string(BlockReduce b) { return enum_text::name_of(reduce_detail::kBlockReduceNames, b); }
std::string_view to_string(Finish f) { return enum_text::name_of(reduce_detail::kFinishNames, f); }

namespace {

// The key's fields in order: the reductions' shared ones (kernel_templates/reduction_fields.hpp), then ld. Their
// constants in the preamble (source.cpp): part 1 kBlock, then kVecBytes, part 2 kLoads and kAccumulators, the main
// part kBlockReduce, kFinish and kLoadCs, then kSingleBlock.
constexpr auto kReduceFields =
    std::tuple_cat(reduction_fields::shared<ReduceConfig>(reduce_detail::kBlockReduces, reduce_detail::kFinishes),
                   std::tuple{config_fields::flag("ld", &ReduceConfig::load_cs, "cs").constant("kLoadCs")});

}  // namespace

AUTOTUNE_CONFIG_FROM_TABLE(ReduceConfig, reduce_detail, kReduceFields)

int ReduceConfig::elems_per_load(const ReduceProblem& problem) const {
  return vec_bytes == 0 ? 1 : vec_bytes / static_cast<int>(size_of(problem.type));
}

std::size_t ReduceConfig::shared_bytes(const ReduceProblem& problem) const {
  // Shared memory holds work-type values (float for a min of halves, int for one of i8).
  const std::size_t acc = size_of(reduce_detail::work_type(problem));
  switch (block_reduce) {
    case BlockReduce::atomic: return 0;
    case BlockReduce::shared_tree: return static_cast<std::size_t>(block) * acc;  // one slot per thread
    case BlockReduce::warp_shuffle:
    case BlockReduce::warp_reduce: return static_cast<std::size_t>(block / 32) * acc;  // one slot per warp
  }
  return 0;
}

std::string reduce_violation(const ReduceProblem& problem, const ReduceConfig& c, const DeviceInfo* device) {
  const ReduceProblem p = problem.normalized();
  const ValueType acc = *p.accumulator;
  if (std::string why = reduction_space::shape_violation(c, p.type); !why.empty()) return why;
  if (c.load_cs && c.vec_bytes != 16)
    return fmt::format("ld=cs applies to 16-byte loads, not {}", c.vec_bytes ? fmt::format("{}-byte ones", c.vec_bytes)
                                                                          : std::string("one element per load"));
  if (c.grid_blocks < -1 || c.grid_blocks > 1)
    return fmt::format("grid {} is not -1 (cover n), 0 (resident blocks) or 1 (one block)", c.grid_blocks);
  const ValueType work = reduce_detail::work_type(p);
  if (c.block_reduce == BlockReduce::warp_reduce && (is_float(work) || size_of(work) != 4))
    return fmt::format("warp_reduce (__reduce_*_sync) exists for 32-bit integers only, not a {} accumulator",
                       to_string(work));
  if (c.block_reduce == BlockReduce::warp_reduce && p.op == ReduceOp::user)
    return "warp_reduce (__reduce_*_sync) adds, takes a min or a max: a user operator folds by shuffles";
  if ((c.finish == Finish::atomic || c.block_reduce == BlockReduce::atomic) && !reduce_detail::takes_atomics(p))
    return fmt::format("the result of {} is not combined with atomics (a user operator, a root, or a result "
                       "converted from the work type): it needs finish=last_block, two_pass or atomic_last",
                       p.shape_key());
  if (c.finish == Finish::atomic_last && !reduce_detail::takes_word_atomics(p))
    return fmt::format("the work values of {} are not combined with atomics (a user operator): it needs "
                       "finish=last_block or two_pass",
                       p.shape_key());
  const bool atomic_finish = c.finish == Finish::atomic || c.finish == Finish::atomic_last;
  if (c.block_reduce == BlockReduce::atomic && c.finish != Finish::atomic)
    return "per-thread atomics (red=atomic) combine straight into the output: they need finish=atomic";
  // One block writes its result directly, whatever the finish: one spelling keeps one key per kernel.
  if (c.grid_blocks == 1 && c.finish != Finish::last_block)
    return "the single-block path (grid=1) writes its result directly and is spelled finish=last_block";
  if (p.deterministic && is_additive(p.op) && is_float(acc) &&
      (atomic_finish || c.block_reduce == BlockReduce::atomic))
    return "float atomics add in no fixed order: a deterministic float sum cannot finish with atomics (mode=fast can)";
  // The device: threads and shared memory per block, with the kernel's one static shared variable (the last-block
  // flag) and room for its alignment (16 bytes); __reduce_*_sync from sm_80.
  return device ? reduction_space::device_violation(c, problem, 16, *device) : std::string();
}

AUTOTUNE_INVALID_REASON(ReduceConfig, ReduceProblem, reduce_violation)

ReduceConfig ReduceConfig::fallback(const ReduceProblem&) {
  // Warp shuffles and the last-block finish exist for every type on sm_70 and are deterministic; 16-byte loads work
  // for any pointer aligned to its element (the kernel reads the unaligned head one element at a time); 64 bytes
  // of shared memory and 256 threads fit every GPU. ReduceConfig's defaults (include/autotune/reduce_problem.hpp):
  // warp_shuffle, 256 threads, 16-byte loads, 2 in flight, 1 accumulator, last_block, the resident grid.
  return {};
}

}  // namespace autotune
