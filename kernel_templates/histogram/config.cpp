#include "autotune/histogram_problem.hpp"

#include <fmt/format.h>

#include "core/config_fields.hpp"
#include "core/enum_text.hpp"
#include "core/key_text.hpp"
#include "core/launch_limits.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/histogram/enums.hpp"
#include "kernel_templates/histogram_samples.hpp"
#include "kernel_templates/histogram/value_bins.hpp"
#include "kernel_templates/histogram/workspace_layout.hpp"
#include "kernel_templates/histogram_spaces.hpp"
#include "kernel_templates/preamble.hpp"

namespace autotune {

std::string_view to_string(Privatization p) { return enum_text::name_of(histogram_detail::kPrivatizationNames, p); }
std::string_view to_string(Partitioning p) { return enum_text::name_of(histogram_detail::kPartitioningNames, p); }
std::string_view to_string(Aggregation a) { return enum_text::name_of(histogram_detail::kAggregationNames, a); }
std::string_view to_string(Merge m) { return enum_text::name_of(histogram_detail::kMergeNames, m); }
std::string_view to_string(Binning b) { return enum_text::name_of(histogram_detail::kBinningNames, b); }

namespace {

using key_text::Fields;
using key_text::split;
using key_text::to_int;

constexpr auto& kPrivs = histogram_detail::kPrivatizations;
constexpr auto& kParts = histogram_detail::kPartitionings;
constexpr auto& kAggs = histogram_detail::kAggregations;
constexpr auto& kMerges = histogram_detail::kMerges;
constexpr auto& kBinnings = histogram_detail::kBinnings;

// Schema 1 keys: "priv=shared,block=256,ipt=4,agg=0,part=interleaved" (scalar loads, ipt of them per tile).
std::optional<HistogramConfig> parse_v1(const Fields& f) {
  if (f.size() != 5 || !f.count("priv") || !f.count("block") || !f.count("ipt") || !f.count("agg") || !f.count("part"))
    return std::nullopt;
  const auto priv = enum_text::parse(histogram_detail::kPrivatizationNames, f.at("priv"));
  const auto part = enum_text::parse(histogram_detail::kPartitioningNames, f.at("part"));
  const auto block = to_int(f.at("block")), ipt = to_int(f.at("ipt"));
  if (!priv || *priv == Privatization::warp || !part || !block || !ipt) return std::nullopt;
  if (f.at("agg") != "0" && f.at("agg") != "1") return std::nullopt;
  return HistogramConfig{.privatization = *priv, .replicas = 1, .counter_bits = 32, .block = *block, .vec_bytes = 0,
                         .loads = *ipt, .aggregation = f.at("agg") == "1" ? Aggregation::run : Aggregation::none,
                         .partitioning = *part, .merge = Merge::atomic};
}

// The key's fields in order; cluster (1) and bin (direct) are left out at their defaults, so keys from before they
// existed still name the same configurations. Their constants in the preamble (source.cpp): part 1 kBlock, then
// kVecBytes, part 2 kLoads, part 3 kPriv and kReplicas, then kCounter16, the main part the rest.
constexpr auto kHistogramFields = std::tuple{
    config_fields::choice("priv", &HistogramConfig::privatization, kPrivs)
        .constant("kPriv", "Privatization")
        .in_part(3),
    config_fields::number("R", &HistogramConfig::replicas, 1).constant("kReplicas").in_part(3),
    config_fields::number("cbits", &HistogramConfig::counter_bits, 1),
    config_fields::number("block", &HistogramConfig::block, 1).constant("kBlock").in_part(1),
    config_fields::number("vec", &HistogramConfig::vec_bytes, 0),
    config_fields::number("loads", &HistogramConfig::loads, 1).constant("kLoads").in_part(2),
    config_fields::choice("agg", &HistogramConfig::aggregation, kAggs).constant("kAggregation", "Aggregation"),
    config_fields::choice("part", &HistogramConfig::partitioning, kParts)
        .constant("kPartitioning", "Partitioning"),
    config_fields::choice("merge", &HistogramConfig::merge, kMerges).constant("kMerge", "Merge"),
    config_fields::number("grid", &HistogramConfig::grid_blocks, HistogramConfig::kCoverGrid),
    config_fields::number("cluster", &HistogramConfig::cluster, 1).omitted_at(1).constant("kCluster"),
    config_fields::choice("bin", &HistogramConfig::binning, kBinnings)
        .omitted_at(Binning::direct)
        .constant("kBinning", "Binning"),
    config_fields::flag("ld", &HistogramConfig::load_cs, "cs").constant("kLoadCs"),
    config_fields::flag("lay", &HistogramConfig::striped, "striped").constant("kStriped"),
    config_fields::number("chunk", &HistogramConfig::chunk, 0).omitted_at(0).constant("kChunk"),
    config_fields::number("win", &HistogramConfig::window, 0).omitted_at(0).constant("kWindow")};

}  // namespace

AUTOTUNE_CONFIG_PREAMBLE_AND_KEY(HistogramConfig, histogram_detail, kHistogramFields)

std::optional<HistogramConfig> HistogramConfig::parse(std::string_view key) {
  if (const auto fields = split(key); fields && fields->count("ipt")) return parse_v1(*fields);
  return config_fields::parse(key, kHistogramFields);
}

int HistogramConfig::load_bytes(const HistogramProblem& p) const { return histogram_samples::load_bytes(*this, p); }
std::uint64_t HistogramConfig::tile_samples(const HistogramProblem& p) const { return histogram_samples::tile_samples(*this, p); }

unsigned HistogramConfig::grid_for(const HistogramProblem& problem, std::uint64_t n, unsigned resident_blocks) const {
  // (past 2^31 samples the single-block path splits too)
  return histogram_samples::grid_for(*this, problem, n, resident_blocks, grid_blocks == kCoverGrid, cluster);
}

namespace {

// u8 samples of one channel whose bins are not the byte values: the u8/256 winner at 512 MiB (R = 32 lane-interleaved
// copies, 512 threads x 4 loads of 16 bytes, one launch) counting the byte values (why: README.md, "The
// value-counting fallback"). 16-byte loads take any pointer for one channel (the unaligned head is counted a sample
// at a time); 32 KiB of copies and the bins' totals stay within the 48 KiB every GPU gives a block.
std::optional<HistogramConfig> values_fallback(const HistogramProblem& problem) {
  if ((problem.type != SampleType::u8 && problem.type != SampleType::i8) || problem.channels != 1 ||
      histogram_detail::values_are_bins(problem))
    return std::nullopt;
  HistogramConfig c;  // the defaults (shared 32-bit copies, 16-byte loads, a resident grid) and the winner's fields
  c.replicas = 32, c.block = 512, c.loads = 4, c.merge = Merge::self_zero, c.binning = Binning::values;
  if (c.shared_bytes(problem) > 48 * 1024) return std::nullopt;
  return c;
}

// Counters of one shared copy: the bins, or with value counting the 256 byte values of each active channel.
std::size_t counted_slots(const HistogramProblem& problem, const HistogramConfig& config) {
  return config.binning == Binning::values ? static_cast<std::size_t>(problem.active) * 256
                                           : static_cast<std::size_t>(problem.counters());
}

// The rules of clusters (cluster > 1), part of histogram_violation.
std::string cluster_violation(const HistogramConfig& c) {
  if (c.cluster == 1) return {};
  if (c.cluster != 2 && c.cluster != 4 && c.cluster != 8 && c.cluster != 16)
    return fmt::format("cluster {} is not 1, 2, 4, 8 or 16 blocks", c.cluster);
  if (c.privatization == Privatization::global) return "clusters share shared-memory histograms: not with global atomics";
  if (c.counter_bits == 16) return "clusters sum 32-bit counters: not with 16-bit counters";
  if (c.grid_blocks > 0 && c.grid_blocks % c.cluster != 0)
    return fmt::format("grid cap {} is not a whole number of {}-block clusters", c.grid_blocks, c.cluster);
  return {};
}

// The rules of a global histogram's copies (priv=global with R > 1), part of histogram_violation. A handle allocates
// its first 8 streams' workspaces at once (core/workspace.hpp), so the copies of one are held to 16 MiB.
std::string global_copies_violation(const HistogramProblem& problem, const HistogramConfig& c) {
  if (c.privatization != Privatization::global || c.replicas == 1)
    return c.striped    ? "striped copies (lay=striped) are copies of a global histogram: priv=global with R > 1"
           : c.chunk > 0 ? "interleaved copies (chunk=N) are copies of a global histogram: priv=global with R > 1"
                         : std::string();
  if (c.chunk != 0 && (c.chunk < 32 || c.chunk > 65536 || (c.chunk & (c.chunk - 1)) != 0))
    return fmt::format("chunk {} is not a power of two from 32 to 65536 counters", c.chunk);
  if (c.chunk != 0 && c.striped) return "copies are striped (lay=striped) or interleaved in chunks (chunk=N), not both";
  if (c.merge != Merge::atomic)
    return fmt::format("copies of a global histogram are merged by their own kernel: merge=atomic, not {}",
                       to_string(c.merge));
  constexpr std::size_t kMostBytes = 16u << 20;
  const std::size_t bytes = histogram_detail::HistogramWorkspace::copies_bytes(problem, c);
  if (bytes > kMostBytes)
    return fmt::format("{} {}copies of {} counters take {} bytes per stream, more than {}", c.replicas,
                       c.striped ? "striped " : "", problem.counters(), bytes, kMostBytes);
  return {};
}

// The rules of a window of shared counters beside a global histogram (win=N), part of histogram_violation. Any
// bins: where the window holds them all, it starts at bin 0 and is the block's whole histogram.
std::string window_violation(const HistogramConfig& c) {
  if (c.window == 0) return {};
  if (c.privatization != Privatization::global)
    return "a window of shared counters (win=N) sits beside a global histogram: priv=global";
  if (c.window < 1024 || c.window > 32768 || (c.window & (c.window - 1)) != 0)
    return fmt::format("window {} is not a power of two from 1024 to 32768 counters", c.window);
  return {};
}

// The rules of value counting (bin=values), part of histogram_violation.
std::string values_violation(const HistogramProblem& problem, const HistogramConfig& c) {
  if (c.binning != Binning::values) return {};
  if (problem.type != SampleType::u8 && problem.type != SampleType::i8)
    return "value counting (bin=values) counts the 256 values of u8 or i8 samples only";
  if (c.privatization == Privatization::global)
    return "value counting (bin=values) maps a block's shared value counts to bins: not with global atomics";
  if (c.counter_bits != 32) return "value counting (bin=values) takes 32-bit shared counters";
  return {};
}

// The device's limits, part of histogram_violation: threads per block, thread-block clusters (sm_90), and shared
// memory, with the kernel's one small static shared variable (the last-block flag).
std::string device_violation(const HistogramProblem& problem, const HistogramConfig& c, const DeviceInfo& device) {
  if (std::string why = launch_limits::block_violation(c.block, device); !why.empty()) return why;
  if (c.cluster > 1 && device.cc_major < 9)
    return fmt::format("thread-block clusters need sm_90 or newer; the device is {}", device.arch());
  if (c.shared_bytes(problem) + 16 > static_cast<std::size_t>(device.shared_per_block_optin))
    return fmt::format("{} bins need {} bytes of shared memory; the device allows {} per block", problem.counters(),
                       c.shared_bytes(problem), device.shared_per_block_optin);
  return {};
}

}  // namespace

std::size_t HistogramConfig::shared_bytes(const HistogramProblem& problem) const {
  if (privatization == Privatization::global) return static_cast<std::size_t>(window) * sizeof(unsigned);
  const std::size_t per_word = counter_bits == 16 ? 2 : 1;
  const std::size_t words_per_copy = (counted_slots(problem, *this) + per_word - 1) / per_word;
  const std::size_t copies = privatization == Privatization::shared ? replicas : static_cast<std::size_t>(block / 32);
  // The block's per-bin totals: what the peers of a cluster read, and where value counts are mapped to.
  const bool totals_row = cluster > 1 || binning == Binning::values;
  const std::size_t totals = totals_row ? static_cast<std::size_t>(problem.counters()) : 0;
  return (words_per_copy * copies + totals) * sizeof(unsigned);
}

std::string histogram_violation(const HistogramProblem& problem, const HistogramConfig& c, const DeviceInfo* device) {
  if (std::string why = histogram_spaces::shape_violation(problem, c); !why.empty()) return why;
  if (c.replicas != 1 && c.privatization == Privatization::warp) return "replicas apply to shared or global privatization";
  if (std::string why = global_copies_violation(problem, c); !why.empty()) return why;
  if (c.counter_bits != 32 && c.counter_bits != 16)
    return fmt::format("counter width {} is not 16 or 32", c.counter_bits);
  if (c.counter_bits == 16 && c.privatization == Privatization::global)
    return "16-bit counters exist only in shared memory";
  if (c.load_cs && c.vec_bytes != 16)
    return fmt::format("ld=cs applies to 16-byte loads, not {}", c.vec_bytes ? fmt::format("{}-byte ones", c.vec_bytes)
                                                                          : std::string("one sample per load"));
  if (c.grid_blocks < HistogramConfig::kCoverGrid)
    return fmt::format("grid {} is not -1 (cover n), 0 (resident blocks) or a positive cap", c.grid_blocks);
  if (c.privatization == Privatization::warp && (c.block / 32 & (c.block / 32 - 1)) != 0)
    return "per-warp copies need a power-of-two number of warps";
  if (c.merge == Merge::self_zero && c.privatization == Privatization::global)
    return "self_zero merging needs a shared histogram (global atomics would add into the output before it is zeroed)";
  if (c.merge == Merge::self_zero && c.counter_bits == 16)
    return "self_zero merging does not take 16-bit counters (their wraps spill into the output mid-run)";
  if (std::string why = cluster_violation(c); !why.empty()) return why;
  if (std::string why = values_violation(problem, c); !why.empty()) return why;
  if (std::string why = window_violation(c); !why.empty()) return why;
  return device ? device_violation(problem, c, *device) : std::string();
}

AUTOTUNE_INVALID_REASON(HistogramConfig, HistogramProblem, histogram_violation)

HistogramConfig HistogramConfig::fallback(const HistogramProblem& problem) {
  if (auto values = values_fallback(problem)) return *values;
  // 48 KiB is the shared memory every block gets without opting in, on every architecture we target: above it
  // only global atomics are safe.
  const bool fits = problem.counters() * sizeof(unsigned) <= 48 * 1024;
  HistogramConfig c{.privatization = fits ? Privatization::shared : Privatization::global, .replicas = 1,
                    .counter_bits = 32, .block = 256, .vec_bytes = 0, .loads = 4, .aggregation = Aggregation::none,
                    .partitioning = Partitioning::interleaved, .merge = Merge::atomic};
  // Pixels of several channels: one sample per load, which takes any sample-aligned pointer (vectors of whole pixels
  // need a pixel-aligned one). One channel: 16-byte loads, whose unaligned head the kernel counts a sample at a
  // time. On the H200's standard preset (bench/results/2026-12-03d-data/preset-measurements.db.xz, every variant of
  // the 53 problems of shapes that fit shared memory), one shared copy with 512 threads and two 16-byte loads ran at
  // a median 1.081x of each problem's best (p90 1.251, worst 1.607), one-sample loads at 1.190x (p90 2.029, worst
  // 2.608); for f32/262144 bins, one 16-byte load with warp aggregation ran within 1.67x on narrow samples, where
  // one-sample loads took 3.72x (bench/results/2026-12-04i-summary.md).
  if (problem.channels == 1) {
    c.vec_bytes = 16;
    if (fits) c.block = 512, c.loads = 2;
    else c.loads = 1, c.aggregation = Aggregation::warp;
  }
  return c;
}

}  // namespace autotune
