// The histogram family as the family-independent code sees it (core/family.hpp): keys, cache columns, command-line
// options, the default problems and the tuner workload, each delegated to this folder's files.
#include "kernel_templates/histogram/family.hpp"

#include <fmt/format.h>

#include <cmath>

#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "core/key_text.hpp"
#include "core/ladder.hpp"
#include "core/option_text.hpp"
#include "kernel_templates/histogram/space.hpp"
#include "kernel_templates/histogram/workload.hpp"
#include "embedded.hpp"


namespace autotune {

namespace {

const HistogramProblem& histogram_of(const Problem& p) {
  const auto* h = p.as<HistogramProblem>();
  if (!h) throw UsageError(fmt::format("'{}' is not a histogram problem", p.key()));
  return *h;
}

const HistogramConfig& config_of(const Config& c) {
  const auto* h = c.as<HistogramConfig>();
  if (!h) throw UsageError(fmt::format("'{}' is not a histogram configuration", c.key()));
  return *h;
}

class HistogramFamily final : public KernelFamily {
 public:
  std::string_view name() const override { return HistogramProblem::kFamily; }
  std::string_view summary() const override {
    return "even-binned histograms of u8, u16, i32, u32, f32 or f64 samples (CUB's HistogramEven)";
  }

  // "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform[/counters=64]"
  std::optional<Problem> parse_problem(std::string_view key) const override {
    using namespace key_text;
    const auto parts = problem_parts(key);
    if (parts.size() < 6 || parts[0] != name()) return std::nullopt;
    HistogramProblem p;
    const auto type = parse_sample_type(parts[1]);
    if (!type) return std::nullopt;
    p.type = *type;
    auto named = named_parts(parts, 2);
    if (!named) return std::nullopt;
    const auto bins = take(*named, "bins"), range = take(*named, "range"), n = take(*named, "n");
    const auto dist = take(*named, "dist"), counters = take(*named, "counters");
    if (!bins || !range || !n || !dist || !named->empty()) return std::nullopt;
    const auto b = to_u64(*bins);
    const auto nn = to_u64(*n);
    if (!b || !nn || *b > (1u << 24) || range->size() < 5 || range->front() != '[' || range->back() != ')')
      return std::nullopt;
    const auto comma = range->find(',');
    if (comma == std::string::npos) return std::nullopt;
    const auto lo = to_double(range->substr(1, comma - 1));
    const auto hi = to_double(range->substr(comma + 1, range->size() - comma - 2));
    if (!lo || !hi) return std::nullopt;
    p.bins = static_cast<int>(*b);
    p.lower = *lo;
    p.upper = *hi;
    p.n = *nn;
    p.distribution = *dist;
    if (counters) {
      if (*counters != "64") return std::nullopt;
      p.counter_bits = 64;
    }
    return Problem(p);
  }

  // Histograms are read from the columns, which every schema version has written the same way (keys of schema 1
  // spelled some ranges differently).
  std::optional<Problem> problem_from_row(std::string_view, const ProblemColumns& c) const override {
    HistogramProblem p;
    const auto t = parse_sample_type(c.sample_type);
    if (!t) return std::nullopt;
    p.type = *t;
    p.bins = c.bins;
    p.lower = c.lower;
    p.upper = c.upper;
    p.counter_bits = c.counter_bits;
    return Problem(p);  // n and the distribution come from their own columns (the cache sets them)
  }

  ProblemColumns columns(const Problem& problem) const override {
    const HistogramProblem& h = histogram_of(problem);
    return {std::string(to_string(h.type)), h.bins, h.lower, h.upper, std::nullopt, h.counter_bits};
  }

  // The same sample type, counter width and input distribution; the distance is |log2 of the bins ratio|, plus
  // how much the range widths differ relative to the bins for integer types (one value per bin vs many).
  std::optional<double> shape_distance(const Problem& wanted, const Problem& tuned) const override {
    const HistogramProblem& a = histogram_of(wanted);
    const HistogramProblem& b = histogram_of(tuned);
    if (a.type != b.type || a.counter_bits != b.counter_bits || a.distribution != b.distribution) return std::nullopt;
    // Bins in log2, counted twice when the tuned problem has more bins than the wanted one. Measured on the H200's
    // standard preset (bench/results/2026-12-01c-h200-preset-standard.log.gz, scripts/fit_policy.py): a
    // configuration taken from a shape with fewer bins runs a wanted shape with more bins within 1.0-1.7x of its best
    // whenever it fits, while one taken from a shape with more bins can be 7-116x slower (global atomics on few
    // bins). Symmetric distance: leave-one-out worst case 6.8x; asymmetric (x2): 1.96x.
    const double more_bins = std::log2(static_cast<double>(b.bins) / a.bins);
    return (more_bins > 0 ? 2.0 * more_bins : -more_bins) +
           (is_float(a.type) ? 0.0
                             : std::abs(std::log2(((a.upper - a.lower) / a.bins) / ((b.upper - b.lower) / b.bins))));
  }
  // Another sample type: 8 (more than any bins distance within a type in the policy) plus the bins distance. The
  // validity check (vector width, shared memory) still applies to the wanted problem.
  std::optional<double> policy_distance(const Problem& wanted, const Problem& tuned) const override {
    if (auto d = shape_distance(wanted, tuned)) return d;
    const HistogramProblem& a = histogram_of(wanted);
    const HistogramProblem& b = histogram_of(tuned);
    if (a.counter_bits != b.counter_bits || a.distribution != b.distribution) return std::nullopt;
    const double more_bins = std::log2(static_cast<double>(b.bins) / a.bins);
    return 8.0 + (more_bins > 0 ? 2.0 * more_bins : -more_bins);
  }
  std::string violation(const Problem& p, const Config& c, const DeviceInfo* device) const override {
    const HistogramProblem& h = histogram_of(p);
    const HistogramConfig& hc = config_of(c);
    return device ? histogram_constraint_violation(h, hc, *device) : hc.invalid_reason(h);
  }

  // In order, each step keeping what the earlier ones changed: loads at least one sample wide; fewer replicas (down
  // to one copy); no cluster; 16-bit shared counters (merged by atomics: self_zero does not take them); one shared
  // copy per block instead of one per warp. What the preset showed (scripts/fit_policy.py): a shape with fewer bins
  // carries over within 1.0-1.7x when its configuration fits, and privatized counting beats global atomics by
  // 7-116x wherever the bins fit in shared memory at all.
  std::optional<Adapted> adapt_config(const Problem& p, const Config& c, const DeviceInfo* device) const override {
    const HistogramProblem& h = histogram_of(p);
    HistogramConfig hc = config_of(c);
    std::vector<std::string> changes;
    auto valid = [&] { return violation(p, Config(hc), device).empty(); };
    auto done = [&]() -> std::optional<Adapted> {
      return Adapted{Config(hc), fmt::format("{}", fmt::join(changes, ", "))};
    };
    if (valid()) return done();
    if (hc.vec_bytes != 0 && hc.vec_bytes < static_cast<int>(size_of(h.type))) {
      hc.vec_bytes = 16;
      changes.push_back("vec=16");
      if (valid()) return done();
    }
    while (hc.replicas > 1) {
      hc.replicas /= 2;
      if (valid()) {
        changes.push_back(fmt::format("R={}", hc.replicas));
        return done();
      }
    }
    if (config_of(c).replicas != hc.replicas) changes.push_back(fmt::format("R={}", hc.replicas));
    if (hc.cluster != 1) {
      hc.cluster = 1;
      changes.push_back("cluster=1");
      if (valid()) return done();
    }
    if (hc.privatization == Privatization::global) return std::nullopt;
    if (hc.counter_bits == 32) {
      hc.counter_bits = 16;
      changes.push_back("cbits=16");
      if (hc.merge == Merge::self_zero) {
        hc.merge = Merge::atomic;
        changes.push_back("merge=atomic");
      }
      if (valid()) return done();
    }
    if (hc.privatization == Privatization::warp) {
      hc.privatization = Privatization::shared;
      changes.push_back("priv=shared");
      if (valid()) return done();
    }
    return std::nullopt;
  }

  std::optional<Config> parse_config(std::string_view key) const override {
    if (auto c = HistogramConfig::parse(key)) return Config(*c);
    return std::nullopt;
  }
  Config fallback(const Problem& problem) const override { return HistogramConfig::fallback(histogram_of(problem)); }
  int launches(const Config& c) const override {
    return config_of(c).merge == Merge::atomic ? 2 : 1;  // memset + kernel, or one kernel
  }
  std::size_t shared_bytes(const Problem& p, const Config& c) const override {
    return config_of(c).shared_bytes(histogram_of(p));
  }
  ReportAxes report_axes(const Config& config) const override {
    const HistogramConfig& h = config_of(config);
    return {h.block, h.loads, fmt::format("{}/R={}", to_string(h.privatization), h.replicas)};
  }
  std::string_view baseline_name() const override { return "CUB HistogramEven"; }

  std::string kernel_source(const Problem& p, const Config& c) const override {
    return autotune::kernel_source(histogram_of(p), config_of(c));
  }
  // The template and the preamble generator: a change to either changes what a configuration compiles to.
  std::string code_text() const override {
    // The template and everything that writes its preamble.
    return std::string(embedded::histogram_template) + std::string(embedded::histogram_source_cpp) +
           std::string(embedded::histogram_enums_hpp) + std::string(embedded::histogram_workspace_layout_hpp) +
           std::string(embedded::preamble_hpp) + std::string(embedded::common_cuh);
  }

  std::vector<std::string> distributions() const override { return histogram_distributions(); }
  bool robust_across_distributions() const override { return true; }
  std::vector<Problem> default_problems() const override {
    // The seed chapter's problem (an 8-bit image histogram) at a size well past the L2, and a float histogram with
    // more bins than CUB privatizes in shared memory.
    // The u8 histogram at every size of the default ladder (64K..256M by powers of 4, core/ladder.hpp; with the
    // crossovers between sizes whose winners differ), so that applications find a measured size near theirs.
    std::vector<Problem> out;
    for (std::uint64_t n : default_ladder()) {
      HistogramProblem u8 = HistogramProblem::with_defaults(SampleType::u8, 256);
      u8.n = n;
      out.push_back(u8);
    }
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
      for (std::uint64_t n : {std::uint64_t{1} << 16, std::uint64_t{1} << 20, std::uint64_t{1} << 24}) {
        HistogramProblem h = HistogramProblem::with_defaults(type, bins);
        h.n = n;
        out.push_back(h);
      }
    return out;
  }
  std::string_view policy_data() const override { return embedded::histogram_policy_json; }
  std::uint64_t output_bytes(const Problem& p) const override {
    const HistogramProblem& h = histogram_of(p);
    return static_cast<std::uint64_t>(h.bins) * static_cast<std::uint64_t>(h.counter_bits / 8);
  }
  std::unique_ptr<Workload> make_workload(const Problem& p, const DeviceInfo& d, std::uint64_t seed) const override {
    return make_histogram_workload(histogram_of(p), d, seed);
  }

  std::vector<ProblemParameter> problem_parameters() const override {
    return {{"type", "T", "sample type: u8 (default), u16, i32, u32, f32, f64"},
            {"bins", "N", "number of bins, 1..16777216 (required unless --type u8: 256)"},
            {"lower", "X", "lowest value counted (default 0)"},
            {"upper", "X", "bound above the highest value counted (default: the whole type for u8/u16, 1 for "
                           "floats, lower + bins for 32-bit integers)"},
            {"counters", "BITS", "output counter width: 32 (default) or 64"}};
  }

  Problem make_problem(const ProblemOptions& o) const override {
    using option_text::to_double;
    using option_text::to_integer;
    auto given = [&](const char* k) { return o.count(k) != 0; };
    auto str = [&](const char* k) { return given(k) ? o.at(k) : std::string(); };
    SampleType type = SampleType::u8;
    if (given("type")) {
      const auto t = parse_sample_type(str("type"));
      if (!t)
        throw UsageError(fmt::format("--type: unknown sample type '{}' (known: u8, u16, i32, u32, f32, f64)",
                                     str("type")));
      type = *t;
    }
    int bins = 256;
    if (given("bins")) {
      const long long b = to_integer("bins", str("bins"));
      if (b < 1 || b > (1 << 24)) throw UsageError(fmt::format("--bins: {} is outside 1..16777216", b));
      bins = static_cast<int>(b);
    } else if (type != SampleType::u8) {
      throw UsageError("--bins is required for sample types other than u8");
    }
    const double lower = given("lower") ? to_double("lower", str("lower")) : 0.0;
    HistogramProblem p = HistogramProblem::with_defaults(type, bins, lower);
    if (given("upper")) p.upper = to_double("upper", str("upper"));
    p.n = parse_size(str("n"));
    if (given("dist")) p.distribution = str("dist");
    if (given("counters")) {
      const std::string c = str("counters");
      if (c != "32" && c != "64") throw UsageError(fmt::format("--counters: '{}' is not 32 or 64", c));
      p.counter_bits = c == "32" ? 32 : 64;
    }
    p.validate();
    return p;
  }
  std::string command_options(const Problem& p) const override {
    const HistogramProblem& h = histogram_of(p);
    return fmt::format("--type {} --bins {} --lower {} --upper {}{}", to_string(h.type), h.bins, h.lower, h.upper,
                       h.counter_bits == 64 ? " --counters 64" : "");
  }
  std::string example_options() const override { return "--type u8 --bins 256 --n 64M"; }
};

}  // namespace

std::unique_ptr<KernelFamily> make_histogram_family() { return std::make_unique<HistogramFamily>(); }

}  // namespace autotune
