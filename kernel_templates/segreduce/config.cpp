// The segmented reduction configuration: key, validity and the fallback.
#include <fmt/format.h>

#include <bit>

#include "autotune/segmented_reduce_problem.hpp"
#include "core/config_fields.hpp"

namespace autotune {

namespace {

constexpr auto kSegReduceFields = std::tuple{config_fields::number("block", &SegReduceConfig::block, 0),
                                             config_fields::number("group", &SegReduceConfig::group, 0),
                                             config_fields::number("small", &SegReduceConfig::small_max, 0),
                                             config_fields::number("vec", &SegReduceConfig::vec_bytes, 0),
                                             config_fields::number("loads", &SegReduceConfig::loads, 0),
                                             config_fields::number("chunk", &SegReduceConfig::chunk, 0)};

}  // namespace

std::string SegReduceConfig::key() const { return config_fields::key(*this, kSegReduceFields); }

std::optional<SegReduceConfig> SegReduceConfig::parse(std::string_view key) {
  return config_fields::parse(key, kSegReduceFields);
}

std::size_t SegReduceConfig::shared_bytes(const SegReduceProblem&) const {
  // One 16-byte slot per warp for the block fold (value and index of the widest type), static in the template.
  return static_cast<std::size_t>(block / 32) * 16;
}

std::string SegReduceConfig::invalid_reason(const SegReduceProblem& problem) const {
  if (block < 64 || block > 1024 || block % 32 != 0)
    return fmt::format("block {} is not a multiple of 32 in 64..1024", block);
  if (group != block && (group < 1 || group > 32 || !std::has_single_bit(static_cast<unsigned>(group))))
    return fmt::format("group {} is not 1, 2, 4, 8, 16 or 32 lanes, nor the block's {}", group, block);
  if (small_max < 0 || small_max > 65536) return fmt::format("small {} is outside 0..65536 (0: no limit)", small_max);
  if (vec_bytes != 0 && vec_bytes != 16) return fmt::format("vector width {} is not 0 or 16 bytes", vec_bytes);
  if (vec_bytes != 0 && static_cast<std::size_t>(vec_bytes) < size_of(problem.type))
    return "vectors narrower than the element";
  if (loads != 1 && loads != 2 && loads != 4 && loads != 8) return fmt::format("loads {} is not 1, 2, 4 or 8", loads);
  if (chunk < 1024 || chunk > (1 << 20) || !std::has_single_bit(static_cast<unsigned>(chunk)))
    return fmt::format("chunk {} is not a power of two in 1K..1M", chunk);
  if (chunk < small_max) return fmt::format("chunk {} is shorter than small {}", chunk, small_max);
  return {};
}

SegReduceConfig SegReduceConfig::fallback(const SegReduceProblem&) {
  // Eight lanes of 16-byte loads cover a 32-element f32 segment in one load each; segments above 256 elements go to
  // blocks of 256 threads in 16K-element chunks. Valid for every problem on sm_70 and newer.
  return SegReduceConfig{};
}

}  // namespace autotune
