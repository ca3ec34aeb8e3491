// The command-line options of pixels that the histogram families share: --channels C and --active A, and the
// options that take one value for every active channel or a list of one per active channel (--bins 256,64,17).
// Read by the families' per-channel option hooks (their option tables, core/problem_options.hpp, declare the help).
// Internal to the library.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <vector>

#include "autotune/error.hpp"
#include "core/family.hpp"
#include "core/option_text.hpp"

namespace autotune::histogram_samples {

/// Interleaved channels per pixel and the first ones counted.
struct ChannelCounts {
  int channels = 1;
  int active = 1;
};

/// --channels (1..4, default 1) and --active (1..channels, default all); UsageError names the option.
inline ChannelCounts channel_counts(const ProblemOptions& o) {
  ChannelCounts out;
  if (o.count("channels") != 0) {
    const long long c = option_text::to_integer("channels", o.at("channels"));
    if (c < 1 || c > 4) throw UsageError(fmt::format("--channels: {} is outside 1..4", c));
    out.channels = out.active = static_cast<int>(c);
  }
  if (o.count("active") != 0) {
    const long long a = option_text::to_integer("active", o.at("active"));
    if (a < 1 || a > out.channels)
      throw UsageError(fmt::format("--active: {} is outside 1..{} (--channels)", a, out.channels));
    out.active = static_cast<int>(a);
  }
  return out;
}

/// The texts of a per-channel option: empty when not given, else one (for every active channel) or one per active
/// channel; UsageError for another count.
inline std::vector<std::string> per_channel_texts(const ProblemOptions& o, const std::string& name, int active) {
  if (o.count(name) == 0) return {};
  std::vector<std::string> v = option_text::split_list(o.at(name));
  if (v.size() != 1 && v.size() != static_cast<std::size_t>(active))
    throw UsageError(fmt::format("--{}: {} values for {} active channels (give one for all, or one per active "
                                 "channel)",
                                 name, v.size(), active));
  return v;
}

/// Channel c's text of per_channel_texts(), which is not empty.
inline const std::string& channel_text(const std::vector<std::string>& texts, int c) {
  return texts.size() == 1 ? texts[0] : texts[static_cast<std::size_t>(c)];
}

/// " --channels C --active A" for pixels of several channels, else nothing.
inline void print_channel_counts(std::string& out, int channels, int active) {
  if (channels != 1) out += fmt::format(" --channels {} --active {}", channels, active);
}

}  // namespace autotune::histogram_samples
