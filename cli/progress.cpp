#include "cli/progress.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <cstdio>
#include <ostream>

namespace autotune::cli {

namespace {
constexpr const char* kRed = "\033[31m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kReset = "\033[0m";
constexpr const char* kClearLine = "\r\033[K";
constexpr int kBarWidth = 30;

}  // namespace

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string ProgressScope::text() const {
  return fmt::format("{:.3f},{},{},{},{}", started, done_before, sizes_after, number, sizes);
}

std::optional<ProgressScope> ProgressScope::parse(const std::string& text) {
  ProgressScope s;
  unsigned long long done = 0, after = 0, number = 0, sizes = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%lf,%llu,%llu,%llu,%llu%n", &s.started, &done, &after, &number, &sizes, &used) != 5 ||
      used != static_cast<int>(text.size()) || !std::isfinite(s.started))
    return std::nullopt;
  s.done_before = done, s.sizes_after = after, s.number = number, s.sizes = sizes;
  return s;
}

bool use_colour(bool is_tty, const char* no_color_env) { return is_tty && !(no_color_env && *no_color_env); }

std::string format_duration(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

Progress::Progress(std::ostream& out, bool is_tty, bool colour, Clock clock)
    : out_(out), tty_(is_tty), colour_(is_tty && colour), clock_(clock ? std::move(clock) : Clock(steady_seconds)) {
  start();
}

void Progress::start() { start(ProgressScope{}); }

void Progress::start(const ProgressScope& scope) {
  started_ = clock_();
  scope_ = scope;
  best_gbps_ = 0.0;
  drawn_ = false;
}

std::string Progress::bar(std::size_t done, std::size_t total, double elapsed) const {
  if (scope_.sizes > 1) {  // the whole ladder: its fill and ETA; this size's count
    const std::size_t all_done = scope_.done_before + done;
    const std::size_t all = scope_.done_before + total + scope_.sizes_after * total;
    const double frac = all ? static_cast<double>(all_done) / static_cast<double>(all) : 1.0;
    const int filled = static_cast<int>(frac * kBarWidth);
    const double spent = clock_() - scope_.started;
    std::string eta = "?";
    if (all_done > 0) eta = format_duration(spent / static_cast<double>(all_done) * static_cast<double>(all - all_done));
    std::string s = fmt::format("[{}{}] size {}/{}: {}/{}  all {:3.0f}%  ETA {}", std::string(filled, '#'),
                                std::string(kBarWidth - filled, '-'), scope_.number, scope_.sizes, done, total,
                                frac * 100.0, eta);
    if (best_gbps_ > 0) s += fmt::format("  best {:.1f} GB/s", best_gbps_);
    return s;
  }
  const double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int filled = static_cast<int>(frac * kBarWidth);
  std::string eta = "?";
  if (done > 0) eta = format_duration(elapsed / static_cast<double>(done) * static_cast<double>(total - done));
  std::string s = fmt::format("[{}{}] {}/{} {:3.0f}%  ETA {}", std::string(filled, '#'),
                              std::string(kBarWidth - filled, '-'), done, total, frac * 100.0, eta);
  if (best_gbps_ > 0) s += fmt::format("  best {:.1f} GB/s", best_gbps_);
  return s;
}

void Progress::update(std::size_t done, std::size_t total, const Measurement& m) {
  const bool ok = m.status == MeasurementStatus::ok;
  const std::string line =
      ok ? fmt::format("[{:>3}/{}] {:<52} ok  {:>9.4f} ms  {:>8.1f} GB/s", done, total, m.config.key(), m.median_ms,
                       m.gbps)
         : fmt::format("[{:>3}/{}] {:<52} {}: {}", done, total, m.config.key(), to_string(m.status),
                       m.log.substr(0, m.log.find('\n')));
  if (!tty_) {
    out_ << line << "\n";
    out_.flush();
    return;
  }
  if (ok && m.gbps > best_gbps_) best_gbps_ = m.gbps;
  out_ << kClearLine;
  if (!ok) out_ << (colour_ ? kRed : "") << line << (colour_ ? kReset : "") << "\n";  // failures stay visible
  out_ << bar(done, total, clock_() - started_);
  drawn_ = true;
  out_.flush();
}

void Progress::finish() {
  if (!tty_ || !drawn_) return;
  out_ << kClearLine << (colour_ ? kGreen : "") << fmt::format("done in {}", format_duration(clock_() - started_))
       << (colour_ ? kReset : "") << "\n";
  drawn_ = false;
  out_.flush();
}

}  // namespace autotune::cli
