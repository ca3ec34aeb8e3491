// The range-histogram family as the family-independent code sees it (core/family.hpp): keys, cache columns,
// command-line options, the default problems and the tuner workload, each delegated to this folder's files.
#include <fmt/format.h>

#include <string>
#include <tuple>
#include <vector>

#include "autotune/histogram_range_problem.hpp"
#include "core/problem_key.hpp"
#include "core/problem_options.hpp"
#include "core/typed_family.hpp"
#include "embedded.hpp"
#include "kernel_templates/histogram_range/enums.hpp"
#include "kernel_templates/histogram_range/space.hpp"
#include "kernel_templates/histogram_launch.hpp"
#include "kernel_templates/histogram_options.hpp"
#include "kernel_templates/histogram_samples.hpp"

namespace autotune {

namespace {

// --channels, --active and --bins (one value for every active channel, or one per active channel) together: the
// levels of each channel.
void read_channel_bins(const ProblemOptions& o, HistogramRangeProblem& p) {
  using namespace histogram_samples;
  const ChannelCounts counts = channel_counts(o);
  const std::vector<std::string> texts = per_channel_texts(o, "bins", counts.active);
  const int max = HistogramRangeProblem::max_bins(p.type);
  const std::string note = fmt::format(" for {}", to_string(p.type));
  std::vector<int> bins;
  for (int c = 0; c < counts.active; ++c) bins.push_back(channel_bins(texts, c, p.type, p.bins, max, note));
  p = p.with_channel_bins(counts.channels, std::move(bins));
}
void print_bins(std::string& out, const HistogramRangeProblem& h) {
  out += " --bins " + histogram_samples::channel_list(h, h.bins, [&](int c) { return h.channel_bins(c); });
}

// The problem options besides --n and --dist; --channels and --active are read with --bins.
constexpr auto kType = histogram_samples::type_option<HistogramRangeProblem>(
    "sample type: u8 (default), u16, i32, u32, f32, f64, f16, bf16 (float levels), i8, i16");
constexpr auto kEdges =
    problem_options::choice("edges", "E",
                            "the levels the tuner measures on: irregular (default: random distinct edges) or even",
                            &HistogramRangeProblem::edges, histogram_range_detail::kEdgeLayoutNames)
        .expected("irregular or even");
constexpr auto kCounters = histogram_samples::counters_option<HistogramRangeProblem>();
constexpr auto kOptions = std::tuple{
    kType,
    problem_options::custom<HistogramRangeProblem>(
        "bins", "N",
        "number of bins (levels: bins + 1), 1..256 for u8/i8, ..65536 for u16/i16, ..1048576 otherwise (default 255 "
        "for u8, required otherwise); pixels: one for every active channel or a list, one per active channel "
        "(255,63,16)",
        read_channel_bins, print_bins),
    kEdges,
    kCounters,
    histogram_samples::channels_option<HistogramRangeProblem>(),
    problem_options::custom<HistogramRangeProblem>(
        "active", "A",
        "channels counted, the first A of each pixel, 1..C (default: all C), each with its own levels (CUB's "
        "MultiHistogramRange)")};

// Every channel's bins within what the sample type takes.
bool bins_fit(const HistogramRangeProblem& p) {
  for (int c = 0; c < p.active; ++c)
    if (p.channel_bins(c) > HistogramRangeProblem::max_bins(p.type)) return false;
  return true;
}

// "histogram_range/u8/bins=255/edges=irregular/n=67108864/dist=uniform[/counters=64][/channels=4/active=3
// [/ch1=63/ch2=16]]": keys of one-channel problems are those written before channels existed, and so are those of
// pixels whose active channels share their bins.
constexpr auto kKey = std::tuple{problem_key::positional(kType),
                                 problem_key::number("bins", &HistogramRangeProblem::bins, 1, 1 << 30),
                                 problem_key::option(kEdges),
                                 problem_key::size<HistogramRangeProblem>(),
                                 problem_key::distribution<HistogramRangeProblem>(),
                                 problem_key::option(kCounters),
                                 histogram_samples::channels_key_part<HistogramRangeProblem>(),
                                 histogram_samples::channel_parts(&HistogramRangeProblem::per_channel_bins,
                                                                  &HistogramRangeProblem::channel_bins,
                                                                  problem_key::Decimal<int>{1, 1 << 30})};

using RangeBase = histogram_samples::PixelFamily<TypedFamily<HistogramRangeProblem, HistogramRangeConfig>>;
class HistogramRangeFamily final
    : public problem_options::WithOptions<problem_key::WithKey<RangeBase, kKey, bins_fit>, kOptions> {
 public:
  HistogramRangeFamily()
      : WithOptions({"a range-histogram", autotune::kernel_source, histogram_range_violation, histogram_range_space}) {}

  std::string_view summary() const override {
    return "histograms over given bin edges (levels) of u8, u16, i32, u32, f32, f64, f16, bf16, i8 or i16 samples, "
           "one or several channels per pixel (CUB's HistogramRange, MultiHistogramRange)";
  }

  // The same sample type, counters and distribution; |log2 of the bins ratio| (taking more bins counted twice, as
  // the even histogram measured), plus 1 for another edge layout (a winner's binning carries over; its speed less).
  std::optional<double> shape_distance(const Problem& wanted, const Problem& tuned) const override {
    const HistogramRangeProblem& a = problem_of(wanted);
    const HistogramRangeProblem& b = problem_of(tuned);
    if (!histogram_samples::same_samples(a, b)) return std::nullopt;
    // Channels are compared by their counters (what sizes the shared counters), one more for other bins per channel.
    return histogram_samples::bins_distance(a.counters(), b.counters()) + (a.edges == b.edges ? 0.0 : 1.0) +
           (a.per_channel_bins == b.per_channel_bins ? 0.0 : 1.0);
  }
  // The policy (policy.json, fitted from the H200 benchmark of every variant: scripts/policy_from_bench.py) holds u8,
  // u16, f32 and f64 shapes: another type or counter width is served from the closest of them (8 more than any bins
  // distance within a type), a configuration whose binning the wanted type cannot run (values, lut) being skipped
  // by the validity check.
  std::optional<double> policy_distance(const Problem& wanted, const Problem& tuned) const override {
    if (auto d = shape_distance(wanted, tuned)) return d;
    const HistogramRangeProblem& a = problem_of(wanted);
    const HistogramRangeProblem& b = problem_of(tuned);
    return 8.0 + histogram_samples::bins_distance(a.counters(), b.counters()) + (a.edges == b.edges ? 0.0 : 1.0) +
           (a.counter_bits == b.counter_bits ? 0.0 : 1.0) +
           (a.channels == b.channels && a.active == b.active ? 0.0 : 4.0);
  }
  std::string_view policy_data() const override { return embedded::histogram_range_policy_json; }

  int launches(const Config& c) const override { return config_of(c).one_launch() ? 1 : 2; }
  // One block stores its counts itself (histogram_range.cu's small-n path).
  std::uint64_t one_block_up_to(const Problem& p, const Config& c) const override {
    return histogram_launch::one_unit_up_to(config_of(c), problem_of(p));
  }
  ReportAxes report_axes(const Config& config) const override {
    const HistogramRangeConfig& h = config_of(config);
    return {h.block, h.loads, fmt::format("{}/{}/R={}", to_string(h.binning), to_string(h.privatization), h.replicas)};
  }
  std::string_view baseline_name() const override { return "CUB HistogramRange"; }

  std::string code_text() const override {
    return joined({embedded::histogram_range_template, embedded::histogram_range_region_map_cuh,
                   embedded::histogram_range_source_cpp, embedded::histogram_range_config_cpp,
                   embedded::config_fields_hpp, embedded::histogram_range_enums_hpp, embedded::preamble_hpp,
                   embedded::histogram_samples_hpp, embedded::common_cuh});
  }

  std::vector<Problem> default_problems() const override {
    // The two shapes the family was built for: u8 with 256 irregular edges, f32 with 1000 irregular edges.
    HistogramRangeProblem u8{.type = SampleType::u8, .bins = 255, .edges = EdgeLayout::irregular, .n = 64ull << 20};
    HistogramRangeProblem f32{.type = SampleType::f32, .bins = 999, .edges = EdgeLayout::irregular, .n = 16ull << 20};
    return {Problem(u8), Problem(f32)};
  }

  std::string example_options() const override { return "--type f32 --bins 999 --edges irregular --n 64M"; }
};

}  // namespace

std::string HistogramRangeProblem::shape_key() const { return problem_key::shape_key(*this, kKey); }
std::string HistogramRangeProblem::key() const { return problem_key::key(*this, kKey); }

std::unique_ptr<KernelFamily> make_histogram_range_family() { return std::make_unique<HistogramRangeFamily>(); }

}  // namespace autotune
