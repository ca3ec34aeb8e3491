// The lookup's size rule for evict-first input loads (include/autotune/resolution.hpp): a handle's size table made
// to load its input evict-first (ld.global.cs, `ld=cs` in histogram and reduction keys) where the input's size says
// so, not where the evidence it was served from happened to be measured.
//
// The measurement (bench/results/2026-12-05-streaming-evidence.md, made by scripts/streaming_evidence.py from the
// tuning logs in bench/results/): on an H200 (60 MiB of L2), for each of 99 tuned problems (31 histograms up to 256
// MiB of input, 68 reductions up to 2 GiB), the ten fastest configurations with plain 16-byte loads against the same
// configurations with ld=cs. The problems' median ratios: 0.89-0.92 at inputs of 32-128 MiB (evict-first 8-11 %
// faster), 0.97 at 16 MiB, 0.99 at 256 MiB, 1.035-1.055 at 512 MiB to 2 GiB (slower; reductions only: no histogram
// was tuned there with both), 1.00 for histograms of global atomics at any size. By these ratios a configuration tuned
// at 16M f32 samples (64 MiB: it loads evict-first) loses about 5 % served to 200M samples, and one tuned at 16M u8
// samples (16 MiB: plain loads) 7-10 % at 64-128M: on photo-like samples at 100M, the policy's plain u8/256 entry ran
// 38.3 us where the same configuration with ld=cs ran 34.1 (bench/results/2026-12-04f-h200-untuned-histograms-
// preset-compare-3689e9b.md). The bands below are those sizes as multiples of the L2 (measured on one GPU model: on
// another, the L2 is what scales them, a hypothesis until measured there).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/resolution.hpp"

namespace autotune {

/// Where an input size lies for evict-first loads.
enum class StreamBand {
  neutral,  ///< no clear gain or loss: below L2 / 2, or between 4x and 8x the L2
  helps,    ///< from L2 / 2 to 4x the L2 (30-240 MiB on an H200): evict-first measured faster
  hurts,    ///< from 8x the L2 (480 MiB on an H200): evict-first measured slower
};

/// Whether the rule applies: unless the environment sets AUTOTUNE_LOADS_AS_MEASURED=1 (every configuration loads as
/// it was measured; for an A/B of the rule, e.g. `shape_bench --compare-measured-loads`). Read at every lookup.
bool evict_first_rule_enabled();

/// The band of a call reading `input_bytes` on a GPU with `l2_bytes` of L2; neutral when the L2 is unknown (0).
StreamBand stream_band(std::uint64_t input_bytes, std::uint64_t l2_bytes);

/// What a range's `why` adds where the rule changed its loads in `band`: "ld=cs: evict-first loads for inputs of 30
/// MiB to 240 MiB", "plain loads for inputs from 480 MiB"; empty for neutral.
std::string stream_note(StreamBand band, std::uint64_t l2_bytes);

/// Applies the rule to `sizes`, a handle's size table for `problem` (ranges ascending and contiguous): where a range
/// reaches into the helps or hurts band, and none of the sizes it was measured at (SizeRange::tuned_n, taken at the
/// problem's bytes per element; the built-in default has none) lies in that band, that part of the range runs its
/// configuration with evict-first loads (helps) or plain ones (hurts), if the family's configuration has the choice
/// and stays valid (KernelFamily::with_evict_first). A part that changes becomes a range of its own, its `why` saying
/// so. Nothing changes when `l2_bytes` is 0 (the GPU's L2 unknown: a lookup by model key in a cache without that
/// model's device row). The lookup applies it under Requirement::any only: `tuned` and `exact` run what was measured.
void stream_by_size(std::vector<SizeRange>& sizes, const Problem& problem, std::uint64_t l2_bytes,
                    const DeviceInfo* device);

}  // namespace autotune
