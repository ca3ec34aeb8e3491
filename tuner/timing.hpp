// Statistics of timing samples, the stopping rule and the winner's tie-break: plain numbers, so they are unit-tested
// without a GPU (the nvbench habit).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace autotune {

struct SampleStats {
  int count = 0;
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  double spread = 0.0;  ///< (max - min) / median: the relative range of the samples
  double noise = 0.0;   ///< relative standard error of the median: 1.2533 * stddev / sqrt(count) / median
};

/// Median (mean of the middle two for an even count), min, max, relative spread and noise. Empty input: all zeros.
SampleStats summarize(std::vector<double> samples);

/// When to stop taking samples of one variant.
struct StoppingRule {
  int min_samples = 5;        ///< never fewer (after warm-up)
  int max_samples = 60;       ///< never more
  double target_noise = 0.005;  ///< stop once the median is known to this relative standard error (0.5 %)
  double max_ms = 1500.0;     ///< wall-clock cap per variant, in milliseconds of measured kernel time plus overhead
  /// Far-slower cut (0 = none): two samples both above it are enough, whatever the minimum. The tuner sets it to
  /// TuneOptions::slow_cut times the fastest median measured so far: such a variant cannot win, and sampling it to
  /// the minimum spent most of a large tuning run (an H200, u8 at 512 MiB: 45 s for 448 variants, the slow global-
  /// atomic ones run 100 times longer than the winner).
  double cut_ms = 0.0;
};

/// True when `samples` (milliseconds, in the order taken) are enough under `rule`, `elapsed_ms` after the first.
bool enough_samples(const std::vector<double>& samples, double elapsed_ms, const StoppingRule& rule);

/// Samples taken while the GPU clocks were throttled show up as slow outliers: drops samples above
/// median * (1 + tolerance), keeping at least half of them. Returns how many were dropped.
int drop_throttled(std::vector<double>& samples, double tolerance = 0.25);

/// A finished candidate for the tie-break.
struct Candidate {
  double median_ms = 0.0;
  double noise = 0.0;          ///< SampleStats::noise
  std::size_t shared_bytes = 0;
  int block = 0;
  std::string key;             ///< Config::key(), the last resort
  int launches = 1;            ///< operations per call (Config::launches): fewer is cheaper, before anything else
};

/// The documented winner rule. The fastest median wins, unless others are within the measured noise of it
/// (median <= best * (1 + 2 * max(noise of the two, 0.25 %))): among those near-ties the cheapest wins, by fewer
/// operations per call (one launch over a memset + launch), then fewer shared-memory bytes, then a smaller block,
/// then the smaller key. So two runs on one GPU pick the same winner even when the timing order of near-equal
/// variants flips. Returns the index of the winner; `candidates` must not be empty.
std::size_t pick_winner(const std::vector<Candidate>& candidates);

}  // namespace autotune
