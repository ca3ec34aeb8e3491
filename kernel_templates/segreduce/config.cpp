// The segmented reduction configuration: key, validity and the fallback.
#include <fmt/format.h>

#include <bit>

#include "autotune/segmented_reduce_problem.hpp"
#include "core/config_fields.hpp"
#include "core/launch_limits.hpp"
#include "kernel_templates/preamble.hpp"
#include "kernel_templates/segreduce/enums.hpp"
#include "kernel_templates/segreduce/space.hpp"

namespace autotune {

namespace {

// The key's fields in order, each with its constant in the preamble (source.cpp).
constexpr auto kSegReduceFields =
    std::tuple{config_fields::number("block", &SegReduceConfig::block, 0).constant("kBlock"),
               config_fields::number("group", &SegReduceConfig::group, 0).constant("kGroup"),
               config_fields::number("small", &SegReduceConfig::small_max, 0).constant("kSmallMax", "unsigned"),
               config_fields::number("vec", &SegReduceConfig::vec_bytes, 0).constant("kVecBytes"),
               config_fields::number("loads", &SegReduceConfig::loads, 0).constant("kLoads"),
               config_fields::number("chunk", &SegReduceConfig::chunk, 0).constant("kChunk", "unsigned")};

}  // namespace

AUTOTUNE_CONFIG_FROM_TABLE(SegReduceConfig, segreduce_detail, kSegReduceFields)

std::size_t SegReduceConfig::shared_bytes(const SegReduceProblem&) const {
  // One 16-byte slot per warp for the block fold (value and index of the widest type), static in the template.
  return static_cast<std::size_t>(block / 32) * 16;
}

std::string segreduce_violation(const SegReduceProblem& problem, const SegReduceConfig& c, const DeviceInfo* device) {
  if (c.block < 64 || c.block > 1024 || c.block % 32 != 0)
    return fmt::format("block {} is not a multiple of 32 in 64..1024", c.block);
  if (c.group != c.block && (c.group < 1 || c.group > 32 || !std::has_single_bit(static_cast<unsigned>(c.group))))
    return fmt::format("group {} is not 1, 2, 4, 8, 16 or 32 lanes, nor the block's {}", c.group, c.block);
  if (c.small_max < 0 || c.small_max > 65536)
    return fmt::format("small {} is outside 0..65536 (0: no limit)", c.small_max);
  if (c.vec_bytes != 0 && c.vec_bytes != 16) return fmt::format("vector width {} is not 0 or 16 bytes", c.vec_bytes);
  if (c.vec_bytes != 0 && static_cast<std::size_t>(c.vec_bytes) < size_of(problem.type))
    return "vectors narrower than the element";
  if (c.loads != 1 && c.loads != 2 && c.loads != 4 && c.loads != 8)
    return fmt::format("loads {} is not 1, 2, 4 or 8", c.loads);
  if (c.chunk < 1024 || c.chunk > (1 << 20) || !std::has_single_bit(static_cast<unsigned>(c.chunk)))
    return fmt::format("chunk {} is not a power of two in 1K..1M", c.chunk);
  if (c.chunk < c.small_max) return fmt::format("chunk {} is shorter than small {}", c.chunk, c.small_max);
  // The device: threads per block (the kernels' shared memory is a few static slots that fit any block).
  return device ? launch_limits::block_violation(c.block, *device) : std::string();
}

AUTOTUNE_INVALID_REASON(SegReduceConfig, SegReduceProblem, segreduce_violation)

SegReduceConfig SegReduceConfig::fallback(const SegReduceProblem&) {
  // Eight lanes of 16-byte loads cover a 32-element f32 segment in one load each; segments above 256 elements go to
  // blocks of 256 threads in 16K-element chunks. Valid for every problem on sm_70 and newer.
  return SegReduceConfig{};
}

}  // namespace autotune
