// The range-histogram configuration: its key, the launch dimensions and shared memory it implies, its rules.
#include <fmt/format.h>

#include "autotune/histogram_range_problem.hpp"
#include "core/config_fields.hpp"
#include "core/enum_text.hpp"
#include "core/launch_limits.hpp"
#include "kernel_templates/histogram_range/space.hpp"
#include "kernel_templates/histogram_spaces.hpp"
#include "kernel_templates/histogram_range/enums.hpp"
#include "kernel_templates/histogram_samples.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune {

std::string_view to_string(RangeBinning b) { return enum_text::name_of(histogram_range_detail::kBinningNames, b); }

namespace {

// The key's fields in order; merge is left out at atomic (keys from before it existed name the same configurations).
// Their constants in the preamble (source.cpp): part 1 kBlock, then kVecBytes, part 2 kLoads, the main part kBinning,
// kPriv and kMerge, part 3 kReplicas.
constexpr auto kRangeFields = std::tuple{
    config_fields::choice("bin", &HistogramRangeConfig::binning, histogram_range_detail::kBinnings)
        .constant("kBinning", "Binning"),
    config_fields::choice("priv", &HistogramRangeConfig::privatization, histogram_range_detail::kPrivatizations)
        .constant("kPriv", "Privatization"),
    config_fields::number("R", &HistogramRangeConfig::replicas, 1).constant("kReplicas").in_part(3),
    config_fields::number("block", &HistogramRangeConfig::block, 1).constant("kBlock").in_part(1),
    config_fields::number("vec", &HistogramRangeConfig::vec_bytes, 0),
    config_fields::number("loads", &HistogramRangeConfig::loads, 1).constant("kLoads").in_part(2),
    config_fields::number("grid", &HistogramRangeConfig::grid_blocks, 0),
    config_fields::choice("merge", &HistogramRangeConfig::merge, histogram_range_detail::kMerges)
        .omitted_at(Merge::atomic)
        .constant("kMerge", "Merge"),
    config_fields::flag("ld", &HistogramRangeConfig::load_cs, "cs").constant("kLoadCs")};

}  // namespace

AUTOTUNE_CONFIG_FROM_TABLE(HistogramRangeConfig, histogram_range_detail, kRangeFields)

int HistogramRangeConfig::load_bytes(const HistogramRangeProblem& p) const { return histogram_samples::load_bytes(*this, p); }
std::uint64_t HistogramRangeConfig::tile_samples(const HistogramRangeProblem& p) const { return histogram_samples::tile_samples(*this, p); }

// n counts samples here (pixels times channels: the launcher's unit).
unsigned HistogramRangeConfig::grid_for(const HistogramRangeProblem& problem, std::uint64_t n,
                                        unsigned resident_blocks) const {
  return histogram_samples::grid_for(*this, problem, n, resident_blocks);
}

std::size_t HistogramRangeConfig::shared_bytes(const HistogramRangeProblem& problem) const {
  // The template's layout (histogram_range.cu checks that its own arithmetic gives this): counters (and, for
  // values, per-bin totals), then the levels, then the table, each part starting at a multiple of 8 bytes.
  auto align8 = [](std::size_t v) { return (v + 7) & ~std::size_t{7}; };
  const bool values = binning == RangeBinning::values;
  const auto active = static_cast<std::size_t>(problem.active);
  const std::size_t slots = values ? 256 * active : static_cast<std::size_t>(problem.counters());
  const std::size_t counters = privatization == Privatization::shared ? slots * replicas : 0;
  const std::size_t totals = values ? static_cast<std::size_t>(problem.counters()) : 0;
  std::size_t bytes = align8((counters + totals) * 4);
  if (binning == RangeBinning::search || binning == RangeBinning::prebin || values)
    bytes = align8(bytes + static_cast<std::size_t>(problem.levels()) * level_size(problem.type));
  if (binning == RangeBinning::lut)
    bytes += static_cast<std::size_t>(histogram_range_detail::lut_size(problem.type)) * active * 2;
  if (binning == RangeBinning::prebin) bytes += static_cast<std::size_t>(histogram_range_detail::prebins(problem.bins)) * 4;
  return bytes;
}

std::string histogram_range_violation(const HistogramRangeProblem& problem, const HistogramRangeConfig& c,
                                      const DeviceInfo* device) {
  if (std::string why = histogram_spaces::shape_violation(problem, c); !why.empty()) return why;
  if (c.privatization != Privatization::global && c.privatization != Privatization::shared)
    return "range histograms privatize in shared memory or not at all (global)";
  if (c.replicas != 1 && c.privatization != Privatization::shared) return "replicas apply to shared privatization only";
  if (c.grid_blocks < 0) return fmt::format("grid {} is not 0 (resident blocks) or a positive cap", c.grid_blocks);
  if (c.grid_blocks == 1 && c.privatization != Privatization::shared)
    return "the single-block path stores shared counters: not with global atomics";
  if (c.merge != Merge::atomic && c.merge != Merge::self_zero) return "range histograms merge by atomic or self_zero";
  if (c.load_cs && c.vec_bytes != 16) return "ld=cs applies to 16-byte loads";
  if (c.merge == Merge::self_zero && c.privatization != Privatization::shared)
    return "self_zero merges shared counters: not with global atomics";
  if (c.binning == RangeBinning::values) {
    if (size_of(problem.type) != 1) return "counting sample values is for 8-bit samples (u8, i8)";
    if (c.privatization != Privatization::shared) return "counting sample values needs shared counters";
  }
  if (c.binning == RangeBinning::lut) {
    if (histogram_range_detail::lut_size(problem.type) == 0) return "a lookup table is for 8- and 16-bit samples";
    if (problem.counters() >= 0xFFFF) return "a lookup table's 16-bit entries hold fewer than 65535 counters";
  }
  if (c.binning == RangeBinning::prebin && problem.active != 1) return "the pre-bin table is for one active channel";
  // The device: threads and shared memory per block.
  return device ? launch_limits::block_violation(c.block, c.shared_bytes(problem), *device) : std::string();
}

AUTOTUNE_INVALID_REASON(HistogramRangeConfig, HistogramRangeProblem, histogram_range_violation)

HistogramRangeConfig HistogramRangeConfig::fallback(const HistogramRangeProblem& problem) {
  // Levels from global memory and global atomics need no shared memory: they run any problem on any GPU. Shared
  // counters and levels when they fit the 48 KiB every block gets without opting in. One-sample loads (vec_bytes 0)
  // take any pointer alignment the API accepts.
  const HistogramRangeConfig s{.binning = RangeBinning::search, .privatization = Privatization::shared,
                               .block = 256, .vec_bytes = 0, .loads = 4};
  if (s.shared_bytes(problem) <= 48 * 1024) return s;
  return {.binning = RangeBinning::search_global, .privatization = Privatization::global, .block = 256,
          .vec_bytes = 0, .loads = 4};
}

}  // namespace autotune
