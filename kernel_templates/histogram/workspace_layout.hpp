// The histogram kernel's workspace, defined once: HistogramKernel (launcher.cpp) sizes each stream's workspace from
// it, and kernel_source() (source.cpp) emits its constants into the preamble, where histogram.cu reads them.
// Internal to the histogram family.
//
// A workspace is zero when a launch starts and the launch leaves it zero (core/workspace.hpp gives each stream its
// own). It holds 32-bit control words, then, for Merge::last_block, the histogram that blocks add into.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernel_templates/preamble.hpp"

#include "autotune/histogram_problem.hpp"
#include "kernel_templates/histogram_samples.hpp"

namespace autotune::histogram_detail {

struct HistogramWorkspace {
  // Control words (32-bit, indices into the workspace as unsigned*).
  static constexpr int kTicketWord = 0;       ///< Merge::last_block: blocks that have finished (the last resets it)
  static constexpr int kStartTicketWord = 1;  ///< Merge::self_zero: blocks that have started (atomicInc wraps to 0)
  static constexpr int kZeroFlagWord = 2;     ///< Merge::self_zero: counts lent out once `out` is zero, given back
  /// Merge::last_block's histogram (bins counters of the output's width): from byte 256, so that the control words
  /// and the histogram never share a 256-byte segment.
  static constexpr int kHistogramWord = 64;

  static_assert(kTicketWord != kStartTicketWord && kStartTicketWord != kZeroFlagWord && kTicketWord != kZeroFlagWord,
                "each control word has its own place");
  static_assert(kTicketWord < kHistogramWord && kStartTicketWord < kHistogramWord && kZeroFlagWord < kHistogramWord,
                "the control words come before the histogram");
  static_assert(kHistogramWord * 4 % 8 == 0, "64-bit counters of the histogram are aligned");

  /// Copies of a global histogram (Privatization::global with replicas > 1), from kHistogramWord: replicas
  /// histograms one after the other, summed into the output by the merge kernel.
  static bool global_copies(const HistogramConfig& config) {
    return config.privatization == Privatization::global && config.replicas > 1;
  }
  /// Stripes of a striped copy (HistogramConfig::striped): bin b at counter (b % kStripes) * stripe + b / kStripes.
  static constexpr std::uint64_t kStripes = 32;
  /// Counters of one copy: the bins, for striped copies kStripes stripes of ceil(bins / kStripes) counters, for
  /// copies interleaved in chunks (HistogramConfig::chunk) ceil(bins / chunk) chunks (the padding past the last bin
  /// is never counted into).
  static std::uint64_t copy_counters(const HistogramProblem& problem, const HistogramConfig& config) {
    const auto bins = static_cast<std::uint64_t>(problem.counters());
    if (config.chunk > 0) {
      const auto chunk = static_cast<std::uint64_t>(config.chunk);
      return chunk * ((bins + chunk - 1) / chunk);
    }
    return config.striped ? kStripes * ((bins + kStripes - 1) / kStripes) : bins;
  }
  /// Bytes of the copies of one stream's workspace (counters of the output's width).
  static std::size_t copies_bytes(const HistogramProblem& problem, const HistogramConfig& config) {
    return static_cast<std::size_t>(static_cast<std::uint64_t>(config.replicas) * copy_counters(problem, config) *
                                    static_cast<std::uint64_t>(problem.counter_bits / 8));
  }
  /// Bytes of one stream's workspace; 0 for Merge::atomic without global copies, which takes none.
  static std::size_t bytes(const HistogramProblem& problem, const HistogramConfig& config) {
    if (global_copies(config))
      return static_cast<std::size_t>(kHistogramWord) * sizeof(unsigned) + copies_bytes(problem, config);
    if (config.merge == Merge::atomic) return 0;
    const std::size_t histogram =
        config.merge == Merge::last_block ? histogram_samples::counts_bytes(problem) : 0;
    return static_cast<std::size_t>(kHistogramWord) * sizeof(unsigned) + histogram;
  }

  /// The layout as the template sees it (in namespace at).
  static std::string preamble() {
    return preamble::int_constants({{"kTicketWord", kTicketWord},
                                     {"kStartTicketWord", kStartTicketWord},
                                     {"kZeroFlagWord", kZeroFlagWord},
                                     {"kHistogramWord", kHistogramWord},
                                     {"kStripes", static_cast<int>(kStripes)}});
  }
};

}  // namespace autotune::histogram_detail
