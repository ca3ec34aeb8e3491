// What `autotune tune` prints while it measures. On a terminal: a progress bar with the ETA, redrawn in place, with
// failed variants printed above it (in colour unless NO_COLOR is set); elsewhere (a pipe, a file, CI logs): one
// plain line per variant, as before, so logs stay greppable. The stream and the flags are passed in, and the clock
// can be replaced, so that both modes are unit-tested.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "autotune/cache.hpp"

namespace autotune::cli {

/// Colour only on a terminal, and never when NO_COLOR is set to a non-empty value (https://no-color.org).
bool use_colour(bool is_tty, const char* no_color_env);

/// Where a problem stands in a command that tunes several sizes (a ladder): the bar's fill and ETA then cover the
/// whole command. `started` is on the steady clock (CLOCK_MONOTONIC, the same in every process of the machine, so a
/// worker continues its parent's ETA); the sizes still to come are assumed to measure as many variants as this one.
struct ProgressScope {
  double started = 0.0;          ///< when the command started (steady clock seconds)
  std::size_t done_before = 0;   ///< variants measured by the command's earlier steps
  std::size_t sizes_after = 0;   ///< sizes still to tune after this step
  std::size_t number = 0;        ///< this step's size, 1-based
  std::size_t sizes = 0;         ///< sizes of the command (0 or 1: no scope, the bar covers this problem)
  /// "STARTED,DONE,AFTER,NUMBER,SIZES", as a worker gets it (--progress-scope).
  std::string text() const;
  /// The inverse of text(); nullopt for anything else.
  static std::optional<ProgressScope> parse(const std::string& text);
};

/// Seconds on the steady clock (what Progress measures with by default).
double steady_seconds();

class Progress {
 public:
  using Clock = std::function<double()>;  ///< seconds since any fixed point
  /// `is_tty`: draw a bar (else plain lines); `colour`: ANSI colours (only used with is_tty).
  Progress(std::ostream& out, bool is_tty, bool colour, Clock clock = {});
  /// Starts a problem: resets the count and the ETA's start time.
  void start();
  /// Starts one step of a ladder: the bar's fill and ETA cover the whole command (see ProgressScope).
  void start(const ProgressScope& scope);
  /// One measured variant: `done` of `total`, as TuneOptions::on_measurement reports it.
  void update(std::size_t done, std::size_t total, const Measurement& m);
  /// Ends a problem: on a terminal, replaces the bar by its final state and a newline.
  void finish();

 private:
  std::string bar(std::size_t done, std::size_t total, double elapsed) const;
  std::ostream& out_;
  bool tty_;
  bool colour_;
  Clock clock_;
  double started_ = 0.0;
  ProgressScope scope_;
  double best_gbps_ = 0.0;
  bool drawn_ = false;
};

/// "1h02m", "3m05s", "42s".
std::string format_duration(double seconds);

}  // namespace autotune::cli
