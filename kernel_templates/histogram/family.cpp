// The histogram family as the family-independent code sees it (core/family.hpp): keys, cache columns, command-line
// options, the default problems and the tuner workload, each delegated to this folder's files.
#include <fmt/format.h>

#include <cmath>
#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "core/config_adapt.hpp"
#include "core/ladder.hpp"
#include "core/problem_key.hpp"
#include "core/option_text.hpp"
#include "core/problem_options.hpp"
#include "core/typed_family.hpp"
#include "kernel_templates/histogram/launcher.hpp"
#include "kernel_templates/histogram_launch.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/histogram/sparse_values.hpp"
#include "kernel_templates/histogram/workspace_layout.hpp"
#include "kernel_templates/histogram/value_bins.hpp"
#include "kernel_templates/histogram_options.hpp"
#include "kernel_templates/histogram_samples.hpp"
#include "kernel_templates/histogram_spaces.hpp"
#include "embedded.hpp"

namespace autotune {

namespace {

// --channels, --active, --bins, --lower and --upper together (the last three one value for every active channel,
// or one per active channel): the levels of each channel.
void read_levels(const ProblemOptions& o, HistogramProblem& p) {
  using namespace histogram_samples;
  const ChannelCounts counts = channel_counts(o);
  const auto bins_text = per_channel_texts(o, "bins", counts.active);
  const auto lower_text = per_channel_texts(o, "lower", counts.active);
  const auto upper_text = per_channel_texts(o, "upper", counts.active);
  std::vector<HistogramChannel> levels;
  for (int c = 0; c < counts.active; ++c) {
    const int bins = channel_bins(bins_text, c, p.type, 256, 1 << 24);
    const double lower = lower_text.empty() ? 0.0 : option_text::to_double("lower", channel_text(lower_text, c));
    const double upper = upper_text.empty() ? default_upper(p.type, bins, lower)
                                            : option_text::to_double("upper", channel_text(upper_text, c));
    levels.push_back({bins, lower, upper});
  }
  p = HistogramProblem::multi_channel(p.type, counts.channels, std::move(levels));
}
void print_levels(std::string& out, const HistogramProblem& h) {
  using histogram_samples::channel_list;
  out += fmt::format(" --bins {} --lower {} --upper {}",
                     channel_list(h, h.bins, [&](int c) { return h.channel(c).bins; }),
                     channel_list(h, h.lower, [&](int c) { return h.channel(c).lower; }),
                     channel_list(h, h.upper, [&](int c) { return h.channel(c).upper; }));
}

// --row-pixels and --row-stride: a 2D region of whole rows of --n pixels (which this reads first).
void read_region(const ProblemOptions& o, HistogramProblem& p) {
  using option_text::to_integer;
  const bool pixels = o.count("row-pixels") != 0, stride = o.count("row-stride") != 0;
  if (!pixels && !stride) return;
  p.n = parse_size(o.at("n"));
  if (!pixels) throw UsageError("--row-stride needs --row-pixels");
  const long long w = to_integer("row-pixels", o.at("row-pixels"));
  if (w < 1) throw UsageError(fmt::format("--row-pixels: {} is not a positive number of pixels", w));
  p.row_pixels = static_cast<std::uint64_t>(w);
  const std::uint64_t row_bytes = p.row_pixels * static_cast<std::uint64_t>(p.channels) * size_of(p.type);
  p.row_stride_bytes = row_bytes;
  if (stride) {
    const long long b = to_integer("row-stride", o.at("row-stride"));
    if (b < 1) throw UsageError(fmt::format("--row-stride: {} is not a positive number of bytes", b));
    p.row_stride_bytes = static_cast<std::uint64_t>(b);
  }
  if (p.n % p.row_pixels != 0)
    throw UsageError(fmt::format("--row-pixels: --n {} is not a whole number of rows of {} pixels", p.n, w));
  if (p.row_stride_bytes < row_bytes || p.row_stride_bytes % (row_bytes / p.row_pixels) != 0)
    throw UsageError(fmt::format("--row-stride: {} bytes do not hold a row of {} bytes in whole pixels of {}",
                                 p.row_stride_bytes, row_bytes, row_bytes / p.row_pixels));
}
void print_region(std::string& out, const HistogramProblem& h) {
  if (h.row_pixels != 0) out += fmt::format(" --row-pixels {} --row-stride {}", h.row_pixels, h.row_stride_bytes);
}

// The problem options besides --n and --dist. --bins reads the levels' options (--channels, --active, --lower,
// --upper) and prints them but --channels and --active; --row-pixels reads and prints --row-stride.
constexpr auto kType = histogram_samples::type_option<HistogramProblem>(
    "sample type: u8 (default), u16, i32, u32, f32, f64, f16, bf16 (binned in float), i8, i16");
constexpr auto kCounters = histogram_samples::counters_option<HistogramProblem>();
constexpr auto kOptions = std::tuple{
    kType,
    problem_options::custom<HistogramProblem>("bins", "N",
                                              "number of bins, 1..16777216 (required unless --type u8: 256); pixels: "
                                              "one for every active channel or a list, one per active channel "
                                              "(256,64,17)",
                                              read_levels, print_levels),
    problem_options::custom<HistogramProblem>("lower", "X",
                                              "lowest value counted (default 0); pixels: one or a list as --bins"),
    problem_options::custom<HistogramProblem>(
        "upper", "X",
        "bound above the highest value counted (default: the whole type for u8/u16, 128 and 32768 for i8/i16, 1 for "
        "floats, lower + bins for 32-bit integers); pixels: one or a list as --bins"),
    kCounters,
    histogram_samples::channels_option<HistogramProblem>(),
    problem_options::custom<HistogramProblem>("active", "A",
                                              "channels counted, the first A of each pixel, 1..C (default: all C); "
                                              "each gets --bins bins over [--lower, --upper), its own where those "
                                              "are lists"),
    problem_options::custom<HistogramProblem>(
        "row-pixels", "W",
        "measure on a 2D region: rows of W pixels (--n pixels in all, whole rows), --row-stride bytes apart",
        read_region, print_region),
    problem_options::custom<HistogramProblem>(
        "row-stride", "BYTES",
        "bytes from one row's start to the next (with --row-pixels; default: the row, no padding); a whole number "
        "of pixels")};

// "bins:[lo,hi)": a channel's levels in the key's "/ch1=64:[0,256)/ch2=17:[10,200)" (histogram_samples::ChannelParts).
struct LevelsCodec {
  std::string text(const HistogramChannel& ch) const {
    return fmt::format("{}:{}", ch.bins, problem_key::Interval{}.text({ch.lower, ch.upper}));
  }
  std::optional<HistogramChannel> value(std::string_view text) const {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const auto bins = problem_key::Decimal<int>{1, 1 << 24}.value(text.substr(0, colon));
    const auto lohi = problem_key::Interval{}.value(text.substr(colon + 1));
    if (!bins || !lohi) return std::nullopt;
    return HistogramChannel{*bins, lohi->first, lohi->second};
  }
};

// "/row=W/stride=B": a 2D region of rows of W pixels, B bytes apart; both or neither (contiguous pixels key as before
// regions existed).
constexpr auto kRegionPart =
    problem_key::both(problem_key::number("row", &HistogramProblem::row_pixels, 1, ~std::uint64_t{0}),
                      problem_key::number("stride", &HistogramProblem::row_stride_bytes, 0, ~std::uint64_t{0}), 0);

// "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform[/counters=64][/channels=4/active=3[/ch1=...]]
// [/row=W/stride=B]": keys of one-channel problems are those written before channels existed, and so are those of
// pixels whose active channels share bins and range.
constexpr auto kKey = std::tuple{problem_key::positional(kType),
                                 problem_key::number("bins", &HistogramProblem::bins, 1, 1 << 24),
                                 problem_key::interval("range", &HistogramProblem::lower, &HistogramProblem::upper),
                                 problem_key::size<HistogramProblem>(),
                                 problem_key::distribution<HistogramProblem>(),
                                 problem_key::option(kCounters),
                                 histogram_samples::channels_key_part<HistogramProblem>(),
                                 histogram_samples::channel_parts(&HistogramProblem::per_channel,
                                                                  &HistogramProblem::channel, LevelsCodec{}),
                                 kRegionPart};

using HistogramBase = histogram_samples::PixelFamily<TypedFamily<HistogramProblem, HistogramConfig>>;
class HistogramFamily final
    : public problem_options::WithOptions<problem_key::WithKey<HistogramBase, kKey>, kOptions> {
 public:
  HistogramFamily()
      : WithOptions({"a histogram", autotune::kernel_source, histogram_violation, histogram_space}) {}

  std::string_view summary() const override {
    return "even-binned histograms of u8, u16, i32, u32, f32, f64, f16, bf16, i8 or i16 samples (CUB's HistogramEven)";
  }

  // The same sample type, counter width and input distribution; the distance is |log2 of the bins ratio|, plus
  // how much the range widths differ relative to the bins for integer types (one value per bin vs many).
  std::optional<double> shape_distance(const Problem& wanted, const Problem& tuned) const override {
    const HistogramProblem& a = problem_of(wanted);
    const HistogramProblem& b = problem_of(tuned);
    if (!histogram_samples::same_samples(a, b)) return std::nullopt;
    // Bins in log2, counted twice when the tuned problem has more bins than the wanted one; 0.5 for another 2D
    // layout (the same kernel over other addresses). Measured: README.md, "Lookup distances".
    const double layout = a.row_pixels == b.row_pixels && a.row_stride_bytes == b.row_stride_bytes ? 0.0 : 0.5;
    if (!a.uniform_channels() || !b.uniform_channels()) {
      // Channels of their own bins and ranges: compared by their counters (what sizes the shared histogram), one
      // more for other levels.
      return layout + histogram_samples::bins_distance(a.counters(), b.counters()) +
             (a.per_channel == b.per_channel ? 0.0 : 1.0);
    }
    return layout + histogram_samples::bins_distance(a.bins, b.bins) +
           (is_float(a.type) ? 0.0
                             : std::abs(std::log2(((a.upper - a.lower) / a.bins) / ((b.upper - b.lower) / b.bins))));
  }
  // Another sample type: 8 (more than any bins distance within a type in the policy) plus the bins distance. The
  // validity check (vector width, shared memory) still applies to the wanted problem.
  std::optional<double> policy_distance(const Problem& wanted, const Problem& tuned) const override {
    if (auto d = shape_distance(wanted, tuned)) return d;
    const HistogramProblem& a = problem_of(wanted);
    const HistogramProblem& b = problem_of(tuned);
    // i8 and u8 (i16 and u16) samples run one kernel: a signed sample binned directly is counted as its bits with
    // the sign bit flipped (one XOR per 32-bit word), and value counting counts the same 256 byte values (i8/256 at
    // 512 MiB ran 137.1 us where u8/256 ran 136.4 on an H200: bench/results/2026-12-02e-h200-i8-keys-and-2d-walk.md).
    // So the other's shape is as near as its own type's would be, plus 1: ahead of every other type (8), and of the
    // built-in fallback, which measured 1.25-1.42x slower than the best at 64K-1M u8 samples
    // (bench/results/2026-12-04i-summary.md).
    if (sign_twins(a.type, b.type)) {
      HistogramProblem twin = b;
      twin.type = a.type;
      if (auto d = shape_distance(wanted, Problem(twin))) return 1.0 + *d;
    }
    if (a.counter_bits != b.counter_bits || a.distribution != b.distribution) return std::nullopt;
    // Pixels of other channels: compared by their counters (active x bins); not measured, so behind any exact shape.
    return (a.type == b.type ? 4.0 : 8.0) + (a.channels != b.channels || a.active != b.active ? 4.0 : 0.0) +
           histogram_samples::bins_distance(a.counters(), b.counters());
  }

  static bool sign_twins(SampleType a, SampleType b) {
    auto twin = [](SampleType t, SampleType u) {
      return (t == SampleType::i8 && u == SampleType::u8) || (t == SampleType::i16 && u == SampleType::u16);
    };
    return twin(a, b) || twin(b, a);
  }

  // First what a sample counts as (bin_counting), then the configuration made runnable (runnable); a value-counting
  // configuration that cannot be made runnable (bins whose totals fit no shared memory) is tried counting bins.
  std::optional<Adapted> adapt_config(const Problem& p, const Config& c, const DeviceInfo* device) const override {
    const HistogramProblem& h = problem_of(p);
    const HistogramConfig& given = config_of(c);
    HistogramConfig hc = given;
    hc.binning = bin_counting(h, given);
    if (hc.binning != given.binning) {
      if (hc.binning == Binning::values) hc = value_counting(h, given);
      if (auto a = runnable(p, hc, changed_fields(given, hc), device)) return a;
      if (hc.binning == Binning::direct) return std::nullopt;
      hc = given;
      hc.binning = Binning::direct;
    }
    if (const HistogramConfig lanes = lane_copies(h, hc); !(lanes == hc) && violation(p, Config(lanes), device).empty())
      return Adapted{Config(lanes), fmt::format("{}", fmt::join(changed_fields(given, lanes), ", "))};
    return runnable(p, hc, {}, device);
  }

  // The copies rule (sparse_copies) from the n whose input passes twice the copies' bytes: below it zeroing the copies
  // and reading them back in the merge cost more than the window's contended atomics (bf16 with 243491 bins over
  // [0, 1) on runs at 7.2M samples, 14.4 MB against 15.6 MB of 16 copies: 39.7 us windowed, 77.1 as copies; f16 with
  // 278820 bins over [-4, -3) at 9.7M, 19.4 MB against 8.9 MB of 8 copies: 192.0 and 146.0 us; H100, 2026-12-07d).
  // The ten rows measured allow a factor from 0.93 to 2.17; 2 is the copies' own traffic, written and read once.
  std::optional<Replacement> replaced_from(const Problem& p, const Config& c, const DeviceInfo* device) const override {
    const HistogramProblem& h = problem_of(p);
    const HistogramConfig copies = sparse_copies(h, config_of(c));
    if (copies == config_of(c)) return std::nullopt;
    const auto made = runnable(p, copies, {}, device);
    if (!made) return std::nullopt;
    const HistogramConfig& m = config_of(made->config);
    const std::uint64_t per_n = size_of(h.type) * static_cast<std::uint64_t>(h.channels);
    const std::uint64_t twice = 2 * histogram_detail::HistogramWorkspace::bytes(h, m);
    const std::uint64_t n_from = (twice + per_n - 1) / per_n;
    const double values = histogram_detail::float16_values(h.type, h.lower, h.upper);
    return Replacement{n_from, made->config,
                       fmt::format("copies (R={}) in place of a window: {} bins, {:.0f} values of the type in the "
                                   "range; from n={}, twice the copies' bytes",
                                   m.replicas, h.bins, values, n_from)};
  }

  // A window of shared counters (win=N) pays where a block's samples stay near the bin of its first one. Where a
  // 16-bit float type holds few values in the range (histogram_detail::sparse_bins: more than 8 bins a value), the
  // samples of uniform data and of runs fall on few bins spread over all of them, mostly outside any one window, and
  // every block's global atomics meet on those few bins: there (from a size on, replaced_from) the configuration
  // counts in global copies instead (kSparseCopies: the f32/262144 policy entry before windows, R = 16, fewer where
  // the device's memory asks (runnable), chunks of 256 bins, warp aggregation), with the given loads' cache policy.
  // Measured (H100, the windowed entry against these copies in the same rounds, bench/results/2026-12-07d-summary.md):
  // bf16 with 273541
  // bins over [-100, -92) (16 values) at 264M runs 1265 -> 486 us (CUB 908), with 343287 bins over [-100, -99.25)
  // (2 values) at 35M runs 357 -> 202 us, with 209217 bins over [0, 1) at 23M uniform 461 -> 333 us. Not narrow
  // samples, whose hot values do lie in the window (bf16, 303567 bins over [-4, -2) at 9.6M: 18.0 us windowed, 189
  // us as copies), nor image-like ones (f16, three rows: -12 %, -1 % and +11 %).
  static HistogramConfig sparse_copies(const HistogramProblem& h, const HistogramConfig& c) {
    if (c.privatization != Privatization::global || c.window == 0 || !histogram_detail::sparse_bins(h)) return c;
    if (h.distribution != "uniform" && h.distribution != "runs") return c;
    auto copies = HistogramConfig::parse(kSparseCopies);
    if (!copies) return c;
    copies->load_cs = c.load_cs;
    return *copies;
  }
  static constexpr std::string_view kSparseCopies =
      "priv=global,R=16,cbits=32,block=512,vec=16,loads=2,agg=warp,part=interleaved,merge=atomic,grid=0,chunk=256";

  // 8-bit samples of one channel counted in 16 lane-interleaved shared copies take 32, a copy per lane: two lanes of
  // a warp no longer share a counter (measured: README.md, "A copy per lane"). Not where 32 copies do not fit the
  // device's shared memory (then the tuned 16 stays).
  static HistogramConfig lane_copies(const HistogramProblem& h, HistogramConfig c) {
    if (size_of(h.type) == 1 && h.channels == 1 && c.privatization == Privatization::shared && c.replicas == 16)
      c.replicas = 32;
    return c;
  }

  // What a transfer that starts counting values runs, at the size it came from (h.n): up to kSmallN samples the
  // given configuration counting values (the geometry measured at that size: the u8/256 winners, which count values
  // by nature, keep one copy and small blocks there); above it the measured value-counting configuration for one
  // channel (kValueCounting: R = 32 shared copies, one per lane; 1024 threads, two 16-byte loads in flight, a
  // resident grid), else the given configuration with R = 32. Measured: README.md, "The value-counting
  // configuration".
  static HistogramConfig value_counting(const HistogramProblem& h, const HistogramConfig& given) {
    HistogramConfig c = given;
    c.binning = Binning::values;
    if (h.n <= histogram_spaces::kSmallN) return c;
    if (h.channels == 1 && given.privatization == Privatization::shared)
      if (auto measured = HistogramConfig::parse(kValueCounting)) c = *measured;
    c.binning = Binning::values;
    if (c.privatization == Privatization::shared) c.replicas = 32;
    return c;
  }
  static constexpr std::string_view kValueCounting =
      "priv=shared,R=32,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0,bin=values";

  // The fields of `to` that differ from `from`, "name=value" in key order: what adapt_config says it changed (the
  // items of to's key that from's lacks).
  static std::vector<std::string> changed_fields(const HistogramConfig& from, const HistogramConfig& to) {
    std::vector<std::string> out = config_adapt::changed_items(from.key(), to.key());
    // bin=direct, the default, is left out of keys: named here, first.
    if (to.binning == Binning::direct && from.binning != Binning::direct) out.insert(out.begin(), "bin=direct");
    return out;
  }

  // A configuration from another shape counts values where the wanted 8-bit shape's direct bins need a division per
  // sample, or a range test (a range short of the type's 256 values), and it has 32-bit shared counters; only in u8
  // and i8 samples whose bins are not the values. Measured: README.md, "Counting values".
  static Binning bin_counting(const HistogramProblem& h, const HistogramConfig& c) {
    if (size_of(h.type) != 1 || histogram_detail::values_are_bins(h)) return Binning::direct;
    if (c.binning == Binning::values) return Binning::values;
    const bool can_count_values = c.privatization != Privatization::global && c.counter_bits == 32;
    const bool direct_costs = histogram_detail::direct_bin_divides(h) || !histogram_detail::covers_all_values(h);
    return can_count_values && direct_costs ? Binning::values : Binning::direct;
  }

  // In order, each step keeping what the earlier ones changed: loads at least one sample wide; fewer replicas (down
  // to one copy, which global copies then no longer stripe or interleave); no cluster; 16-bit shared counters (merged by atomics:
  // self_zero does not take them); one shared copy per block instead of one per warp (why this order: README.md,
  // "Made runnable").
  std::optional<Adapted> runnable(const Problem& p, HistogramConfig hc, std::vector<std::string> changes,
                                  const DeviceInfo* device) const {
    using C = HistogramConfig;
    auto runs = [&](const C& c) { return violation(p, Config(c), device).empty(); };
    config_adapt::Steps<C> s{hc, std::move(changes), runs};
    if (s.runs()) return s.done();
    if (hc.vec_bytes != 0 && hc.vec_bytes < static_cast<int>(size_of(problem_of(p).type)) &&
        s.set(&C::vec_bytes, 16, "vec=16"))
      return s.done();
    while (s.config.replicas > 1) {
      s.config.replicas /= 2;
      if (s.config.replicas == 1) s.config.striped = false, s.config.chunk = 0;  // one histogram: nothing to lay out
      if (s.runs()) break;
    }
    if (s.config.replicas != hc.replicas) s.changes.push_back(fmt::format("R={}", s.config.replicas));
    if (hc.striped && !s.config.striped) s.changes.push_back("not striped");
    if (hc.chunk > 0 && s.config.chunk == 0) s.changes.push_back("chunk=0");
    if (s.runs() || (s.config.cluster != 1 && s.set(&C::cluster, 1, "cluster=1"))) return s.done();
    if (s.config.window > 0 && s.set(&C::window, 0, "win=0")) return s.done();  // a device of less shared memory
    if (hc.privatization == Privatization::global || hc.binning == Binning::values) return std::nullopt;
    if (hc.counter_bits == 32) {
      s.set(&C::counter_bits, 16, "cbits=16");
      if (hc.merge == Merge::self_zero) s.set(&C::merge, Merge::atomic, "merge=atomic");
      if (runs_aggregate_warps(problem_of(p), s.config)) s.set(&C::aggregation, Aggregation::warp, "agg=warp");
      if (s.runs()) return s.done();
    }
    if (hc.privatization == Privatization::warp && s.set(&C::privatization, Privatization::shared, "priv=shared"))
      return s.done();
    return std::nullopt;
  }

  // 16-bit counters on runs take warp aggregation: a 16-bit add returns the word to see its counter wrap, and on
  // runs every lane of a warp adds to the same word, so the returning atomics serialize, where 32-bit counters'
  // non-returning adds did not. Measured (H100, bench/results/2026-12-05f-data, manybins log; the same configuration
  // but agg): at 16M runs, 16-bit counters without aggregation ran 1.69x (f32/32768) and 1.75x (u16/65536) slower
  // than with warp aggregation, while 32-bit counters without it were the winners (f32, f16, bf16 at 32768 bins);
  // on uniform and narrow samples warp aggregation cost 16-bit counters 2.2-3.6x. H200, f16 with 71379 bins at 56M
  // runs (bench/results/2026-12-05h-summary.md): 219.8 against 114.9 us. A constant input hits one word harder still.
  static bool runs_aggregate_warps(const HistogramProblem& h, const HistogramConfig& c) {
    return (h.distribution == "runs" || h.distribution == "constant") && c.counter_bits == 16 &&
           c.aggregation == Aggregation::none;
  }

  // merge=self_zero (no clusters) as merge=atomic, whose output HistogramKernel zeroes with a kernel the counting
  // launch overlaps on sm_90+ (HistogramKernel::zero_with_kernel).
  std::optional<Config> with_overlapped_zeroing(const Problem& p, const Config& c,
                                                const DeviceInfo& device) const override {
    HistogramConfig out = config_of(c);
    if (out.merge != Merge::self_zero || out.cluster != 1 || !HistogramKernel::zero_with_kernel(device))
      return std::nullopt;
    out.merge = Merge::atomic;
    if (!histogram_violation(problem_of(p), out, &device).empty()) return std::nullopt;
    return Config(out);
  }

  // A grid covering n (grid=0 or -1) launches one block per tile: served below the size it was measured at, a
  // configuration launches fewer blocks, down to a handful on 132 SMs. Halving the loads in flight per thread halves
  // the tile and doubles the blocks; it is done until the blocks are nearest what the configuration launched at
  // measured_n, at most one per SM (what it was measured with, where the GPU was not yet full). Measured (H100, the exact tunings
  // of the 2026-12-05 held-out grid, bench/results/2026-12-05h-summary.md): the 1M policy entries served at 242K-606K
  // ran 9.3 / 7.2 / 8.3 us with 4 loads, 7.5 / 6.0 / 6.7 with the loads this rule gives (u16 with 4492 bins narrow at
  // 606K, u16 with 920 bins at 242K, f64 with 318 bins of image samples at 249K), against exact winners of 6.8,
  // 5.8 and 6.7. Not for clusters (their grid is whole clusters) nor a capped grid (grid=N).
  std::optional<Config> keeping_grid(const Problem& p, const Config& c, std::uint64_t measured_n,
                                     const DeviceInfo& device) const override {
    const HistogramProblem& h = problem_of(p);
    const HistogramConfig& given = config_of(c);
    if ((given.grid_blocks != 0 && given.grid_blocks != HistogramConfig::kCoverGrid) || given.cluster != 1 ||
        h.n >= measured_n || device.sm_count <= 0)
      return std::nullopt;
    auto blocks = [&](const HistogramConfig& x, std::uint64_t n) {
      const std::uint64_t tile = x.tile_samples(h);
      return (h.samples(n) + tile - 1) / tile;
    };
    const std::uint64_t target = std::min<std::uint64_t>(static_cast<std::uint64_t>(device.sm_count),
                                                         blocks(given, measured_n));
    // Halved while that brings the blocks nearer the target on a log scale (b * 2b < target^2): a size just below
    // measured_n keeps its configuration.
    HistogramConfig out = given;
    while (out.loads > 1) {
      HistogramConfig half = out;
      half.loads /= 2;
      if (static_cast<double>(blocks(out, h.n)) * static_cast<double>(blocks(half, h.n)) >=
          static_cast<double>(target) * static_cast<double>(target))
        break;
      out = half;
    }
    if (out.loads == given.loads || !violation(p, Config(out), &device).empty()) return std::nullopt;
    return Config(out);
  }

  int launches(const Config& c) const override {
    return config_of(c).merge == Merge::atomic ? 2 : 1;  // a zeroing launch + the kernel, or one kernel
  }
  // One block or one cluster stores its sums itself: the policy's u16/1024 entry of 64K on the H200
  // (`block=256,loads=2,self_zero,cluster=16`, one cluster there) ran u16/991 at 110K, two clusters, in 8.1 us on an
  // H100 where the exact winner ran 6.1 (bench/results/2026-12-07b-summary.md).
  std::uint64_t one_block_up_to(const Problem& p, const Config& c) const override {
    const HistogramConfig& h = config_of(c);
    return histogram_launch::one_unit_up_to(h, problem_of(p), h.cluster);
  }
  // 16-bit shared counters (bench/results/2026-12-07j-summary.md): on an H200, narrow and runs samples of 1M-233M
  // served a robust policy entry of them ran 1.39x slower (geometric mean of 20 held-out problems) than the entry fitted
  // on their own distribution, while the same rule moving robust entries of 32-bit counters lost up to 2.5x.
  bool slow_on_concentrated(const Config& c) const override {
    const HistogramConfig& h = config_of(c);
    return h.privatization == Privatization::shared && h.counter_bits == 16;
  }
  ReportAxes report_axes(const Config& config) const override {
    const HistogramConfig& h = config_of(config);
    return {h.block, h.loads, fmt::format("{}/R={}", to_string(h.privatization), h.replicas)};
  }
  std::string_view baseline_name() const override { return "CUB HistogramEven"; }

  std::string code_text() const override {
    // The template and everything that writes its preamble (the configuration's constants: its field table).
    return joined({embedded::histogram_template, embedded::histogram_region_map_cuh, embedded::histogram_source_cpp,
                   embedded::histogram_config_cpp, embedded::config_fields_hpp, embedded::histogram_enums_hpp,
                   embedded::histogram_workspace_layout_hpp, embedded::histogram_value_bins_cpp, embedded::preamble_hpp,
                   embedded::histogram_samples_hpp, embedded::common_cuh});
  }

  std::vector<Problem> default_problems() const override {
    // The seed chapter's problem (an 8-bit image histogram) at a size well past the L2, and a float histogram with
    // more bins than CUB privatizes in shared memory.
    // The u8 histogram at every size of the default ladder (64K..256M by powers of 4, core/ladder.hpp; with the
    // crossovers between sizes whose winners differ), so that applications find a measured size near theirs.
    std::vector<Problem> out = at_sizes(HistogramProblem::with_defaults(SampleType::u8, 256), default_ladder());
    HistogramProblem f32 = HistogramProblem::with_defaults(SampleType::f32, 1024);
    f32.n = 16ull << 20;
    out.push_back(f32);
    return out;
  }
  std::vector<Problem> preset_problems(std::string_view preset) const override {
    // `standard` (tuner/preset.hpp): every sample type at bin counts that span the algorithms (few bins: replicated
    // sub-histograms; up to shared memory: privatized; beyond: global), each at 64K, 1M and 16M samples. The
    // preset tunes each on uniform and narrow (skewed) samples and keeps the robust winner: what the measured
    // default policy (policy.json) is fitted from.
    if (preset != "standard") return {};
    const std::pair<SampleType, int> shapes[] = {
        {SampleType::u8, 32},     {SampleType::u8, 256},     {SampleType::u16, 1024}, {SampleType::u16, 65536},
        {SampleType::i32, 1024},  {SampleType::u32, 256},    {SampleType::f32, 64},   {SampleType::f32, 2048},
        {SampleType::f32, 32768}, {SampleType::f32, 262144}, {SampleType::f64, 1024}};
    std::vector<Problem> out;
    for (const auto& [type, bins] : shapes)
      append(out, at_sizes(HistogramProblem::with_defaults(type, bins), std::span(kStandardSizes).first(3)));
    return out;
  }
  std::string_view policy_data() const override { return embedded::histogram_policy_json; }

  std::string example_options() const override { return "--type u8 --bins 256 --n 64M"; }
};

}  // namespace

std::string HistogramProblem::shape_key() const { return problem_key::shape_key(*this, kKey); }
std::string HistogramProblem::key() const { return problem_key::key(*this, kKey); }

std::unique_ptr<KernelFamily> make_histogram_family() { return std::make_unique<HistogramFamily>(); }

}  // namespace autotune
