// Histogram samples as both histogram families (kernel_templates/histogram/, kernel_templates/histogram_range/) use
// them: how a sample type crosses into a kernel template (the preamble generators, source.cpp), the host type of a
// sample and its dispatch, the generated test inputs and the comparison of counts (histogram_samples.cpp), a
// configuration's loads of samples, and the checks both handles make of a call's sample type and counter width.
// NVRTC compiles the templates without the toolkit's headers, so f16 and bf16 samples are loaded as their bits
// (unsigned short) and converted to float by kernel_templates/common.cuh's half_bits_to_float<kHalfKind>.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "kernel_templates/half_float.hpp"

namespace autotune {

/// n pixels (n * problem.channels samples) of problem.type following problem.distribution, reproducible from `seed`,
/// as raw bytes. The interleaved samples of several channels are one stream of the distribution, except `image`,
/// which is a colour photograph (each channel its own tint, a mostly opaque alpha as the fourth).
///   uniform:  every bin equally likely (values drawn over [lower, upper))
///   constant: every sample equals one value inside the range
///   narrow:   uniform over 16 consecutive bins in the middle of the range (a hot band)
///   runs:     runs of 1000 equal samples, each run's value uniform over the range
///   image:    a smooth grey-scale field (gradients and blobs, 4096 samples per row) with a little noise
std::vector<unsigned char> generate_samples(const HistogramProblem& problem, std::uint64_t n, std::uint64_t seed);

/// Empty when equal, else a one-line description of the first differing bins.
std::string compare_histograms(const std::vector<std::uint64_t>& expected, const std::vector<std::uint64_t>& got);

}  // namespace autotune

namespace autotune::histogram_samples {

// Floats and the 16-bit floats (binned in float: histogram_problem.hpp).
template <class T>
inline constexpr bool kFloatLike = std::is_floating_point_v<T> || is_half_v<T>;
// The arithmetic type a sample is binned in: float for the halves, the sample type otherwise.
template <class T>
using binned_t = std::conditional_t<is_half_v<T>, float, T>;

// v as a sample of type T (halves: rounded to nearest from float) and back.
template <class T>
inline T sample_from(double v) {
  if constexpr (std::is_same_v<T, F16>) return f16_from_float(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, BF16>) return bf16_from_float(static_cast<float>(v));
  else return static_cast<T>(v);
}
template <class T>
inline binned_t<T> binned(T s) {
  if constexpr (is_half_v<T>) return to_float(s);
  else return s;
}
// A float-like sample drawn as v: kept when it lies below `upper` as the sample type holds it, else `lower` (a
// rounding up to the upper bound would leave the range).
template <class T>
inline T below_upper(double v, double lower, double upper) {
  const T t = sample_from<T>(v);
  return binned(t) < binned(sample_from<T>(upper)) ? t : sample_from<T>(lower);
}

/// Calls f with a value of the host type of a sample of `t` (F16 and BF16 for the halves: half_float.hpp).
template <class F>
decltype(auto) dispatch(SampleType t, F&& f) {
  switch (t) {
    case SampleType::u8: return f(std::uint8_t{});
    case SampleType::u16: return f(std::uint16_t{});
    case SampleType::i32: return f(std::int32_t{});
    case SampleType::u32: return f(std::uint32_t{});
    case SampleType::f32: return f(float{});
    case SampleType::f64: return f(double{});
    case SampleType::f16: return f(F16{});
    case SampleType::bf16: return f(BF16{});
    case SampleType::i8: return f(std::int8_t{});
    case SampleType::i16: return f(std::int16_t{});
  }
  throw UsageError("unknown sample type");
}

/// The C++ type of one sample in a kernel.
inline std::string_view cuda_type(SampleType t) {
  switch (t) {
    case SampleType::u8: return "unsigned char";
    case SampleType::u16: return "unsigned short";
    case SampleType::i32: return "int";
    case SampleType::u32: return "unsigned int";
    case SampleType::f32: return "float";
    case SampleType::f64: return "double";
    case SampleType::f16: return "unsigned short";  // the bits of a __half
    case SampleType::bf16: return "unsigned short";  // the bits of a __nv_bfloat16
    case SampleType::i8: return "signed char";
    case SampleType::i16: return "short";
  }
  throw UsageError("unknown sample type");
}

/// kHalfKind of the preamble: 0 for every type but the halves, 1 for f16, 2 for bf16 (common.cuh's numbering).
inline int half_kind(SampleType t) { return t == SampleType::f16 ? 1 : t == SampleType::bf16 ? 2 : 0; }
/// The preamble's sample_t and kHalfKind lines for samples of `t`.
inline std::string sample_constants(SampleType t) {
  return fmt::format("typedef {} sample_t;\nconstexpr int kHalfKind = {};\n", cuda_type(t), half_kind(t));
}
/// The C++ type of the counters of problem `p` (a HistogramProblem or HistogramRangeProblem): out_t of the preamble.
template <class P>
std::string_view counter_type(const P& p) {
  return p.counter_bits == 64 ? "unsigned long long" : "unsigned int";
}

/// The preamble's constants of each of the four channels a pixel may hold (`p` a HistogramProblem or
/// HistogramRangeProblem): its bins and first counter (kChBins0, kChOffset0, ...), then the family's own `more(c,
/// k)`; channels past the active ones repeat channel 0's (k = 0), never used. The templates select among them by
/// channel.
template <class P, class More>
std::string channel_constants(const P& p, More more) {
  std::string text;
  for (int c = 0; c < 4; ++c) {
    const int k = c < p.active ? c : 0;
    // Channel k's bins: its counters, up to channel k + 1's first.
    text += fmt::format("constexpr int kChBins{0} = {1};\nconstexpr int kChOffset{0} = {2};\n", c,
                        p.channel_offset(k + 1) - p.channel_offset(k), p.channel_offset(k)) +
            more(c, k);
  }
  return text;
}

/// A histogram handle's checks of a call's sample type (when given) and counter width against its problem `p` (a
/// HistogramProblem or HistogramRangeProblem); UsageError beginning with `handle` ("autotune::Histogram").
template <class P>
void check_call_types(std::string_view handle, const P& p, std::optional<SampleType> sample_type, int counter_bits) {
  if (sample_type && *sample_type != p.type)
    throw UsageError(fmt::format("{}: {} samples passed to a handle of {} samples ({})", handle,
                                 to_string(*sample_type), to_string(p.type), p.key()));
  if (counter_bits != p.counter_bits)
    throw UsageError(fmt::format("{}: {}-bit counters passed to a problem with {}-bit counters", handle, counter_bits,
                                 p.counter_bits));
}

/// The checks both histogram problems' validate() make of their pixels (`p` a HistogramProblem or
/// HistogramRangeProblem): 1..4 channels, the first 1..channels of them counted, and the levels of their own (`list`,
/// the member `name`) none or one per active channel, the first of them channel 0's (`first`, the problem's
/// `members`; `show` prints an entry) and each other one valid by `check`, whose UsageError this prefixes with
/// "channel c: "; UsageError otherwise.
template <class P, class L, class Show, class Check>
void check_channels(const P& p, const std::vector<L>& list, std::string_view name, const L& first,
                    std::string_view members, Show show, Check check) {
  if (p.channels < 1 || p.channels > 4) throw UsageError(fmt::format("channels must be 1..4 (got {})", p.channels));
  if (p.active < 1 || p.active > p.channels)
    throw UsageError(fmt::format("active channels must be 1..{} (the channels; got {})", p.channels, p.active));
  if (list.empty()) return;
  if (list.size() != static_cast<std::size_t>(p.active))
    throw UsageError(fmt::format("{} has {} entries for {} active channels (one per active channel)", name,
                                 list.size(), p.active));
  if (!(list[0] == first))
    throw UsageError(fmt::format("{}[0] ({}) must equal {} ({})", name, show(list[0]), members, show(first)));
  for (int c = 1; c < p.active; ++c) {
    try {
      check(list[static_cast<std::size_t>(c)]);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("channel {}: {}", c, e.what()));
    }
  }
}
/// Channel c's entry of a problem's per-channel list (`list`: none, or one per active channel), `first` (what the
/// problem's own members say, channel 0's) where the list has none: HistogramProblem::channel, and the range
/// problem's channel_bins.
template <class L>
L channel_entry(const std::vector<L>& list, int c, const L& first) {
  return c >= 0 && static_cast<std::size_t>(c) < list.size() ? list[static_cast<std::size_t>(c)] : first;
}
/// The first counter of channel c of problem `p`: the bins of the channels before it (`bins_of(k)`), p.bins each
/// where `list` is empty.
template <class P, class L, class F>
int channel_offset(const P& p, const std::vector<L>& list, int c, F bins_of) {
  if (list.empty()) return p.bins * c;
  int offset = 0;
  for (int k = 0; k < c; ++k) offset += bins_of(k);
  return offset;
}
/// Whether every entry of a per-channel list is `first` (so that the list says nothing the problem does not).
template <class L>
bool all_first(const std::vector<L>& list, const L& first) {
  return std::all_of(list.begin(), list.end(), [&](const L& e) { return e == first; });
}
/// `p` (channel 0's levels set) with `channels` per pixel, the first list.size() of them active, and their levels
/// `list` in p's per-channel member `list_member`: left empty where every channel has channel 0's.
template <class P, class L>
P with_channel_list(P p, int channels, std::vector<L> P::*list_member, std::vector<L> list) {
  p.channels = channels;
  p.active = static_cast<int>(list.size());
  p.*list_member = std::move(list);
  if (p.uniform_channels()) (p.*list_member).clear();
  return p;
}
/// ... and of their counters: 32 or 64 bits wide.
template <class P>
void check_counter_bits(const P& p) {
  if (p.counter_bits != 32 && p.counter_bits != 64)
    throw UsageError(fmt::format("counters must be 32 or 64 bits wide (got {})", p.counter_bits));
}

/// Whether tuned problem `b` counts the same samples as wanted problem `a` (HistogramProblem or HistogramRangeProblem):
/// type, counter width, distribution and channels; the families' shape distances compare nothing else.
template <class P>
bool same_samples(const P& a, const P& b) {
  return a.type == b.type && a.counter_bits == b.counter_bits && a.distribution == b.distribution &&
         a.channels == b.channels && a.active == b.active;
}
/// The distances' term for `tuned` bins (or counters) where `wanted` are wanted: |log2 of their ratio|, counted twice
/// when the tuned shape has more (measured: HistogramFamily::shape_distance).
inline double bins_distance(double wanted, double tuned) {
  const double more = std::log2(tuned / wanted);
  return more > 0 ? 2.0 * more : -more;
}

/// Bytes one load of configuration `c` reads for problem `p` (HistogramConfig::load_bytes, HistogramRangeConfig's):
/// vec_bytes, or one sample where vec_bytes is 0.
template <class C, class P>
int load_bytes(const C& c, const P& p) {
  return c.vec_bytes == 0 ? static_cast<int>(size_of(p.type)) : c.vec_bytes;
}
/// Samples one block of `c` reads per tile: block * loads * samples per load.
template <class C, class P>
std::uint64_t tile_samples(const C& c, const P& p) {
  return static_cast<std::uint64_t>(c.block) * static_cast<std::uint64_t>(c.loads) *
         static_cast<std::uint64_t>(c.load_bytes(p) / static_cast<int>(size_of(p.type)));
}
/// Blocks to launch for n samples (HistogramConfig::grid_for, HistogramRangeConfig's): enough to cover n with one tile
/// each, at most c.grid_blocks (N > 0), and at most the resident blocks but for a cover-n grid (`cover_grid`: then
/// gridDim.x's limit, which at one tile of at least 32 samples per block is only reached past 2^36 samples; from
/// there on blocks loop over tiles as in a resident grid). With clusters of `cluster` blocks the grid is a whole
/// number of them: the resident cap is rounded down (to one cluster at least), everything else up (the extra blocks
/// of the last cluster find no tile and add zeros). No block may see 2^31 samples, so that its 32-bit shared
/// counters (and their per-bin sums) stay exact; this overrides every cap: extra blocks only run in later waves.
template <class C, class P>
unsigned grid_for(const C& c, const P& p, std::uint64_t n, unsigned resident_blocks, bool cover_grid = false,
                  int cluster = 1) {
  constexpr std::uint64_t kMaxGridX = 0x7FFFFFFF;
  const std::uint64_t tile = c.tile_samples(p);
  std::uint64_t grid = std::max<std::uint64_t>(1, (n + tile - 1) / tile);  // cover n
  if (c.grid_blocks > 0) grid = std::min<std::uint64_t>(grid, static_cast<std::uint64_t>(c.grid_blocks));
  const auto k = static_cast<std::uint64_t>(std::max(1, cluster));
  const std::uint64_t resident = std::max<std::uint64_t>(k, resident_blocks / k * k);
  grid = std::min<std::uint64_t>(grid, cover_grid ? kMaxGridX / k * k : resident);
  grid = std::max<std::uint64_t>(grid, (n >> 31) + 1);
  return static_cast<unsigned>((grid + k - 1) / k * k);
}

/// Bytes of the counts a kernel writes for problem `p` (a HistogramProblem or HistogramRangeProblem): every counter,
/// counter_bits wide. The output the tuner checks, the handle's zeroing and the last-block merge's partials.
template <class P>
std::size_t counts_bytes(const P& p) {
  return static_cast<std::size_t>(p.counters()) * (p.counter_bits / 8);
}

/// The counters a kernel wrote at `raw` (counter_bits wide) for problem `p`, widened to 64 bits.
template <class P>
std::vector<std::uint64_t> widen_counts(const P& p, const void* raw) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(p.counters()));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = p.counter_bits == 64 ? static_cast<const std::uint64_t*>(raw)[i]
                                  : static_cast<const std::uint32_t*>(raw)[i];
  return out;
}
/// The CPU reference's counts of both histogram families (`p` a HistogramProblem or HistogramRangeProblem): `n`
/// pixels of p.channels interleaved samples of host type T at `samples`, active channel c's sample s counted into
/// counter p.channel_offset(c) + bin(s), where bin = `binner(c)` (the family's rule for channel c) and a negative bin
/// counts nowhere. 8- and 16-bit samples are counted per bit pattern first, then each pattern binned once (the same
/// rule, far fewer bin computations).
template <class T, class P, class MakeBinner>
std::vector<std::uint64_t> count_pixels(const P& p, const void* samples, std::uint64_t n, MakeBinner binner) {
  std::vector<std::uint64_t> h(static_cast<std::size_t>(p.counters()), 0);
  const auto stride = static_cast<std::uint64_t>(p.channels);
  for (int c = 0; c < p.active; ++c) {
    const auto bin = binner(c);
    const T* s = static_cast<const T*>(samples) + c;
    std::uint64_t* out = h.data() + p.channel_offset(c);
    if constexpr (sizeof(T) <= 2) {
      std::vector<std::uint64_t> per_value(std::size_t{1} << (8 * sizeof(T)), 0);
      for (std::uint64_t i = 0; i < n; ++i) {
        std::uint16_t bits = 0;
        std::memcpy(&bits, &s[i * stride], sizeof(T));
        ++per_value[bits];
      }
      for (std::size_t v = 0; v < per_value.size(); ++v) {
        if (per_value[v] == 0) continue;
        T sample{};
        const auto bits = static_cast<std::uint16_t>(v);
        // little-endian: the low bytes; T is trivially copyable (F16/BF16 only have a default member initializer)
        std::memcpy(static_cast<void*>(&sample), &bits, sizeof(T));
        if (const auto b = bin(sample); b >= 0) out[b] += per_value[v];
      }
    } else {
      for (std::uint64_t i = 0; i < n; ++i)
        if (const auto b = bin(s[i * stride]); b >= 0) ++out[b];
    }
  }
  return h;
}

/// `counts` as counters of p.counter_bits hold them: 32-bit counters wrap.
template <class P>
std::vector<std::uint64_t> counts_as_written(const P& p, std::vector<std::uint64_t> counts) {
  if (p.counter_bits == 32)
    for (auto& c : counts) c &= 0xFFFFFFFFull;
  return counts;
}

}  // namespace autotune::histogram_samples

/// Defines a histogram family's kernel_source (every entry point: what the cache stores) and kernel_source_1d (the
/// 1D entry alone) from its source.cpp's variant_source(problem, config, entry_2d). At namespace autotune's scope.
#define AUTOTUNE_HISTOGRAM_KERNEL_SOURCES(PROBLEM, CONFIG)                           \
  std::string kernel_source(const PROBLEM& problem, const CONFIG& config) {         \
    return variant_source(problem, config, true);                                    \
  }                                                                                  \
  std::string kernel_source_1d(const PROBLEM& problem, const CONFIG& config) {      \
    return variant_source(problem, config, false);                                   \
  }
