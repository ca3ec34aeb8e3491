#include "tuner/timing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace autotune {

SampleStats summarize(std::vector<double> samples) {
  SampleStats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.count = static_cast<int>(n);
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
  s.min = samples.front();
  s.max = samples.back();
  s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0.0;
  if (n >= 2 && s.median > 0) {
    const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
    double var = 0;
    for (double x : samples) var += (x - mean) * (x - mean);
    const double stddev = std::sqrt(var / static_cast<double>(n - 1));
    // The standard error of a median is about sqrt(pi / 2) = 1.2533 times that of a mean.
    s.noise = 1.2533 * stddev / std::sqrt(static_cast<double>(n)) / s.median;
  }
  return s;
}

bool enough_samples(const std::vector<double>& samples, double elapsed_ms, const StoppingRule& rule) {
  const int n = static_cast<int>(samples.size());
  if (n >= rule.max_samples) return true;
  if (rule.cut_ms > 0 && n >= 2 && *std::min_element(samples.begin(), samples.end()) > rule.cut_ms) return true;
  if (n < rule.min_samples) return false;
  if (elapsed_ms >= rule.max_ms) return true;
  return summarize(samples).noise <= rule.target_noise;
}

int drop_throttled(std::vector<double>& samples, double tolerance) {
  if (samples.size() < 4) return 0;
  const double limit = summarize(samples).median * (1.0 + tolerance);
  std::vector<double> kept;
  for (double x : samples)
    if (x <= limit) kept.push_back(x);
  if (kept.size() * 2 < samples.size()) return 0;  // most samples slow: that is the speed, not throttling
  const int dropped = static_cast<int>(samples.size() - kept.size());
  samples.swap(kept);
  return dropped;
}

std::size_t pick_winner(const std::vector<Candidate>& c) {
  if (c.empty()) throw std::invalid_argument("pick_winner: no candidates");
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < c.size(); ++i)
    if (c[i].median_ms < c[fastest].median_ms) fastest = i;
  std::size_t winner = fastest;
  auto cheaper = [&](std::size_t a, std::size_t b) {
    return std::tie(c[a].launches, c[a].shared_bytes, c[a].block, c[a].key) <
           std::tie(c[b].launches, c[b].shared_bytes, c[b].block, c[b].key);
  };
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double tol = 2.0 * std::max({c[i].noise, c[fastest].noise, 0.0025});
    if (c[i].median_ms <= c[fastest].median_ms * (1.0 + tol) && cheaper(i, winner)) winner = i;
  }
  return winner;
}

}  // namespace autotune
