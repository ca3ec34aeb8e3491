// The command-line problem options the histogram families share: entries of their option tables
// (core/problem_options.hpp) for --type, --counters and --channels, and what their per-channel readers share:
// --channels C and --active A, and the options that take one value for every active channel or a list of one per
// active channel (--bins 256,64,17); the parts of their problem keys (core/problem_key.hpp) that spell the
// channels; and what both families answer alike (PixelFamily). Internal to the library.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/error.hpp"
#include "core/family.hpp"
#include "core/option_text.hpp"
#include "core/problem_key.hpp"
#include "core/problem_options.hpp"
#include "kernel_templates/histogram_samples.hpp"
#include "kernel_templates/sample_types.hpp"

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

/// Channel c's bins from --bins (`texts`: its per_channel_texts), `fallback` where --bins is not given, which only u8
/// samples may leave out; UsageError "--bins: B is outside 1..MAX" and `note` (" for u16") outside 1..max.
inline int channel_bins(const std::vector<std::string>& texts, int c, SampleType type, int fallback, int max,
                        std::string_view note = {}) {
  if (texts.empty() && type != SampleType::u8) throw UsageError("--bins is required for sample types other than u8");
  if (texts.empty()) return fallback;
  const long long b = option_text::to_integer("bins", channel_text(texts, c));
  if (b < 1 || b > max) throw UsageError(fmt::format("--bins: {} is outside 1..{}{}", b, max, note));
  return static_cast<int>(b);
}

/// A per-channel option's value as printed: `first` (channel 0's), then, where the active channels differ, ","
/// and `value(c)` of each active channel c after it ("256,64,17").
template <class P, class T, class F>
std::string channel_list(const P& p, const T& first, F value) {
  std::string out = fmt::format("{}", first);
  if (!p.uniform_channels())
    for (int c = 1; c < p.active; ++c) out += fmt::format(",{}", value(c));
  return out;
}

/// " --channels C --active A" for pixels of several channels, else nothing.
template <class P>
void print_channel_counts(std::string& out, const P& problem) {
  if (problem.channels != 1) out += fmt::format(" --channels {} --active {}", problem.channels, problem.active);
}

inline constexpr enum_text::Name<int> kCounterBits[] = {{32, "32"}, {64, "64"}};

/// --type (`type_help` lists the types), --counters and --channels (read by the family's --bins entry, which needs
/// the channels first; printed with --active) of a histogram problem P.
template <class P>
constexpr auto type_option(std::string_view type_help) {
  return problem_options::choice("type", "T", type_help, &P::type, kSampleTypes, "sample type");
}
template <class P>
constexpr auto counters_option() {
  return problem_options::choice("counters", "BITS", "output counter width: 32 (default) or 64", &P::counter_bits,
                                 kCounterBits)
      .omitted_at(32)
      .after_size();
}
template <class P>
constexpr auto channels_option() {
  return problem_options::custom<P>("channels", "C",
                                    "interleaved channels per pixel, 1..4 (default 1); --n then counts pixels",
                                    nullptr, print_channel_counts<P>);
}

/// The key's "/channels=C/active=A" of a pixel problem P: both, or neither for one channel; 1 <= A <= C <= 4.
template <class P>
constexpr auto channels_key_part() {
  constexpr auto print = [](problem_key::Writer& w, const P& p) {
    if (p.channels == 1 && p.active == 1) return;
    w.add("channels", std::to_string(p.channels));
    w.add("active", std::to_string(p.active));
  };
  constexpr auto read = [](problem_key::Reader& r, P& p) {
    const auto channels = r.take("channels"), active = r.take("active");
    if (!channels && !active) return true;
    constexpr problem_key::Decimal<int> kCount{1, 4};
    const auto c = channels ? kCount.value(*channels) : std::nullopt, a = active ? kCount.value(*active) : std::nullopt;
    if (!c || !a || *a > *c) return false;
    p.channels = *c;
    p.active = *a;
    return true;
  };
  return problem_key::custom<P>("channels", +print, +read);
}

/// A key's "/ch1=.../ch2=..." parts of a pixel problem P: the levels (an L, spelled by `codec`) of the active channels
/// after the first, as its member function `channel` gives them, all of them or none where every channel has the
/// first one's. Read back (after the channels part) into its per-channel list `list`, led by channel 0's; none
/// leaves the list as it is; any other set of parts, or a text that the codec refuses, is not a key.
template <class P, class L, class Codec>
struct ChannelParts {
  std::string_view name = "ch1";
  std::vector<L> P::*list = nullptr;
  L (P::*channel)(int) const = nullptr;
  Codec codec;
  bool in_shape = true;

  constexpr bool is_positional() const { return false; }
  void print(problem_key::Writer& w, const P& p) const {
    if (p.uniform_channels()) return;
    for (int c = 1; c < p.active; ++c) w.add(fmt::format("ch{}", c), codec.text((p.*channel)(c)));
  }
  bool read(problem_key::Reader& r, P& p) const {
    std::vector<std::string> texts;
    for (int c = 1; c < 4; ++c)
      if (auto text = r.take(fmt::format("ch{}", c))) {
        if (c >= p.active) return false;
        texts.push_back(std::move(*text));
      }
    if (texts.empty()) return true;
    if (texts.size() != static_cast<std::size_t>(p.active - 1)) return false;
    std::vector<L> out{(p.*channel)(0)};
    for (const std::string& text : texts) {
      const std::optional<L> v = codec.value(text);
      if (!v) return false;
      out.push_back(*v);
    }
    p.*list = std::move(out);
    return true;
  }
};
template <class P, class L, class Codec>
constexpr ChannelParts<P, L, Codec> channel_parts(std::vector<L> P::*list, L (P::*channel)(int) const, Codec codec) {
  return {"ch1", list, channel, codec};
}

/// The members both histogram families define alike, over their TypedFamily (Base): keys name the sample type after
/// the family ("histogram/u8/..."), the distributions are the samples' (tuned robustly across them), a call writes
/// every counter, and the tuner times 1D calls.
template <class Base>
class PixelFamily : public Base {
 public:
  using Base::Base;
  std::vector<std::string> key_part_names() const override { return {"type"}; }
  std::vector<std::string> distributions() const override { return histogram_distributions(); }
  bool robust_across_distributions() const override { return true; }
  std::uint64_t output_bytes(const Problem& p) const override { return counts_bytes(this->problem_of(p)); }
  // The 1D entry alone (kernel_source_1d); a problem of rows (a HistogramProblem's row_pixels) is tuned on its 2D
  // entry, every entry point's source.
  std::string tuning_source(const Problem& p, const Config& c) const override {
    const auto& problem = this->problem_of(p);
    if constexpr (requires { problem.row_pixels; })
      if (problem.row_pixels != 0) return this->kernel_source(p, c);
    return kernel_source_1d(problem, this->config_of(c));
  }
};

}  // namespace autotune::histogram_samples
