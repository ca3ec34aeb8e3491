// The lookup's size rule for evict-first input loads (include/autotune/resolution.hpp): a handle's size table made
// to load its input evict-first (ld.global.cs, `ld=cs` in histogram and reduction keys) where the input's size says
// so, not where the evidence it was served from happened to be measured.
//
// The measurement (bench/results/2026-12-05i-streaming-evidence.md, made by scripts/streaming_evidence.py from the
// tuning logs and exact-tuning caches in bench/results/): for each of 209 problems tuned on an H200 (60 MiB of L2)
// or an H100 (50 MiB), the ten fastest configurations with plain 16-byte loads against the same configurations with
// ld=cs. The problems' median ratios by input as a multiple of the GPU's L2: 0.995 at 1/8 to 1/4 (no difference),
// 0.956 at 1/4 to 1/2, 0.933 at 1/2 to 1, 0.890 at 1 to 2, 0.915 at 2 to 4 (no problem's median above 1.004 from
// 1/4 to 4), 0.999 at 4 to 8, 1.034 at 8 to 16 and 1.053 from 16 (slower), 1.00 for histograms of global atomics at
// any size. By these ratios a configuration tuned at 16M f32 samples (64 MiB: it loads evict-first) loses about 5 %
// served to 200M samples, and one tuned at 16M u8 samples (16 MiB: plain loads) 7-10 % at 64-128M: on photo-like
// samples at 100M, the policy's plain u8/256 entry ran 38.3 us where the same configuration with ld=cs ran 34.1
// (bench/results/2026-12-04f-h200-untuned-histograms-preset-compare-3689e9b.md). Within a band the plain or
// evict-first choice a tuning made is noise next to that (the twins' medians differ by 1-5 % at 1/4 to 1/2 of the
// L2), so the band decides but at the sizes the problem itself was measured at (where it runs as measured). The bands
// below are the sizes as multiples of the L2.
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
  neutral,  ///< no clear gain or loss: below L2 / 4, or between 4x and 8x the L2
  helps,    ///< from L2 / 4 to 4x the L2 (15-240 MiB on an H200): evict-first measured faster
  hurts,    ///< from 8x the L2 (480 MiB on an H200): evict-first measured slower
};

/// Whether the rule applies: unless the environment sets AUTOTUNE_LOADS_AS_MEASURED=1 (every configuration loads as
/// it was measured; for an A/B of the rule, e.g. `shape_bench --compare-measured-loads`). Read at every lookup.
bool evict_first_rule_enabled();

/// The band of a call reading `input_bytes` on a GPU with `l2_bytes` of L2; neutral when the L2 is unknown (0).
StreamBand stream_band(std::uint64_t input_bytes, std::uint64_t l2_bytes);

/// What a range's `why` adds where the rule changed its loads in `band`: "ld=cs: evict-first loads for inputs of 15
/// MiB to 240 MiB", "plain loads for inputs from 480 MiB"; empty for neutral.
std::string stream_note(StreamBand band, std::uint64_t l2_bytes);

/// Applies the rule to `sizes`, a handle's size table for `problem` (ranges ascending and contiguous): where a range
/// reaches into the helps or hurts band, that part of the range runs its configuration with evict-first loads (helps)
/// or plain ones (hurts), if the family's configuration has the choice and stays valid
/// (KernelFamily::with_evict_first), but at the sizes the problem itself was measured at on this model (a range of
/// its own tuned sizes, or of policy entries of its own shape: SizeRange::tuned_shape_key), which keep the loads
/// measured; a configuration measured on another shape (a similar problem, another shape's policy entry: perhaps of
/// another type, another byte count at the same n) or another GPU model takes the band's loads at every size. A part that
/// changes becomes a range of its own, its `why` saying so. Nothing changes when
/// `l2_bytes` is 0 (the GPU's L2 unknown: a lookup by model key in a cache without that model's device row). The
/// lookup applies it under Requirement::any only: `tuned` and `exact` run what was measured.
void stream_by_size(std::vector<SizeRange>& sizes, const Problem& problem, std::uint64_t l2_bytes,
                    const DeviceInfo* device);

}  // namespace autotune
