// The segmented reduction family as the family-independent code sees it (core/family.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "autotune/error.hpp"
#include "autotune/segmented_reduce_problem.hpp"
#include "core/enum_text.hpp"
#include "core/problem_key.hpp"
#include "core/problem_options.hpp"
#include "core/typed_family.hpp"
#include "embedded.hpp"
#include "kernel_templates/user_op.hpp"
#include "kernel_templates/segreduce/enums.hpp"
#include "kernel_templates/segreduce/space.hpp"
#include "kernel_templates/value_types.hpp"

namespace autotune {

namespace {

// How far apart two segment-length distributions are: 0 for the same, else 0.5 plus an eighth per doubling between
// their typical lengths, the mean of a spec (log-uniform for a power law): a winner for segments of 4K suits 8K
// better than 32.
double distribution_distance(const std::string& a, const std::string& b) {
  if (a == b) return 0.0;
  auto typical_length = [](const std::string& distribution) {
    const SegmentSpec s = parse_segment_spec(distribution);
    const double lo = static_cast<double>(std::max<std::uint64_t>(1, s.lo)), hi = static_cast<double>(s.hi);
    switch (s.kind) {
      case SegmentSpec::Kind::fixed: return lo;
      case SegmentSpec::Kind::uniform: return std::max(1.0, (static_cast<double>(s.lo) + hi) / 2);
      case SegmentSpec::Kind::power_law: return hi > lo ? (hi - lo) / std::log(hi / lo) : lo;
    }
    return 1.0;
  };
  return 0.5 + std::abs(std::log2(typical_length(a)) - std::log2(typical_length(b))) / 8;
}

// --segments and --dist both name the segment lengths (the problem's distribution): one of them, a valid spec.
void read_segments(const ProblemOptions& o, SegReduceProblem& p) {
  if (o.count("segments") != 0 && o.count("dist") != 0)
    throw UsageError("--segments and --dist both name the segment lengths of --kernel segreduce: give one");
  for (const char* name : {"segments", "dist"})
    if (o.count(name) != 0) p.distribution = o.at(name);
  try {
    (void)parse_segment_spec(p.distribution);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--segments: {}", e.what()));
  }
}

constexpr auto kCommandLineOps = reduce_detail::command_line_ops<segreduce_detail::kSegReduceOpNames>();
constexpr enum_text::Name<int> kOffsetBits[] = {{32, "32"}, {64, "64"}};

// The problem options besides --n and --dist (--segments names the distribution too), then an operator of the user's
// own's (kernel_templates/user_op.hpp), which replaces --op.
constexpr auto kType =
    problem_options::choice("type", "T", "element type: i32, u32, i64, u64, f32, f64, f16, bf16, i8, i16 (default f32)",
                            &SegReduceProblem::type, reduce_detail::kValues, "type");
constexpr auto kAcc =
    problem_options::choice("acc", "T",
                            "accumulator type of a sum or --user-op (default: a sum's i64 for i8, i16, i32, u64 for "
                            "u32; f32 for f16, bf16; a user operator's i32 for i8, i16; else the element type)",
                            &SegReduceProblem::accumulator, reduce_detail::kValues, "type");
constexpr auto kOffsets =
    problem_options::choice("offsets", "BITS",
                            "offset width: 32 (int, default) or 64 (int64_t, as CUB's OffsetT; n >= 2^31)",
                            &SegReduceProblem::offset_bits, kOffsetBits)
        .omitted_at(32);
constexpr auto kSegReduceOptions = std::tuple{
    problem_options::choice("op", "OP", "operation: sum, min, max, argmin or argmax (default sum; or --user-op)",
                            &SegReduceProblem::op, kCommandLineOps, "operation")
        .unless("user-op"),
    kType,
    kAcc,
    problem_options::custom<SegReduceProblem>("segments", "SPEC",
                                              "segment lengths the tuner measures on: fixed:L, uniform:A..B, "
                                              "power-law[:A..B] (default uniform = uniform:1..1K); the same as --dist",
                                              read_segments),
    kOffsets};
constexpr auto kOptions = std::tuple_cat(kSegReduceOptions, reduce_detail::user_op_options<SegReduceProblem>());

// "segreduce/sum/f32/acc=f32/n=67108864/dist=fixed:32[/offsets=64]", of the normalized problem (32-bit offsets add no
// part: the keys of every problem tuned before 64-bit offsets existed stay the same). A user operator's op part is
// "user:<16 hex digits>": the problem read back knows its hash, not its source.
constexpr auto kKey =
    reduce_detail::reduction_key_parts<SegReduceProblem, segreduce_detail::kSegReduceOpNames>(kType, kAcc, kOffsets);

// The segment lengths are the problem's distribution: command_options() leaves them to --dist
// (runtime/resolution.cpp). A key's problem must validate (its distribution a segment-length spec, say).
class SegReduceFamily final
    : public reduce_detail::WithUserOp<problem_key::WithKey<TypedFamily<SegReduceProblem, SegReduceConfig>, kKey,
                                                            problem_key::validates<SegReduceProblem>>,
                                       kOptions> {
 public:
  SegReduceFamily()
      : WithUserOp({"a segmented reduction", autotune::kernel_source, segreduce_violation,
                    [](const SegReduceProblem& p) { return segreduce_space(p.normalized()); }}) {}

  std::string_view summary() const override {
    return "per-segment sum, min, max, argmin, argmax or an operator of your own (CUB's DeviceSegmentedReduce)";
  }

  // The same types, operation and offsets, at the distance between the distributions.
  std::optional<double> shape_distance(const Problem& wanted, const Problem& tuned) const override {
    const SegReduceProblem a = problem_of(wanted).normalized(), b = problem_of(tuned).normalized();
    if (a.type != b.type || a.op != b.op || a.accumulator != b.accumulator || a.offset_bits != b.offset_bits)
      return std::nullopt;
    // A user operator's winners serve that operator alone: another one may cost anything per element.
    if (a.user_hash != b.user_hash) return std::nullopt;
    return distribution_distance(a.distribution, b.distribution);
  }
  // Another type, operation or offset width (or a user operator) takes the closest of the policy's built-in f32
  // entries with 32-bit offsets, after every entry of its own kind (README.md, "The measured policy").
  std::optional<double> policy_distance(const Problem& wanted, const Problem& tuned) const override {
    if (auto d = shape_distance(wanted, tuned)) return d;
    const SegReduceProblem a = problem_of(wanted).normalized(), b = problem_of(tuned).normalized();
    double d = 4.0 + (a.offset_bits == b.offset_bits ? 0.0 : 1.0) + (a.op == b.op ? 0.0 : 1.0);
    if (a.type != b.type) d += size_of(a.type) == size_of(b.type) ? 1.0 : 2.0;
    return d + distribution_distance(a.distribution, b.distribution);
  }
  std::string_view policy_data() const override { return embedded::segreduce_policy_json; }
  int launches(const Config& c) const override { return config_of(c).one_launch() ? 1 : 2; }
  ReportAxes report_axes(const Config& config) const override {
    const SegReduceConfig& r = config_of(config);
    return {r.block, r.loads, fmt::format("group={}/small={}", r.group, r.small_max)};
  }
  std::string_view baseline_name() const override { return "CUB DeviceSegmentedReduce"; }

  std::string code_text() const override {
    return joined({embedded::segreduce_template, embedded::segreduce_source_cpp, embedded::segreduce_config_cpp,
                   embedded::config_fields_hpp, embedded::segreduce_enums_hpp, embedded::segreduce_workspace_layout_hpp,
                   embedded::value_types_hpp, embedded::user_op_cpp, embedded::preamble_hpp, embedded::common_cuh,
                   embedded::reduction_common_cuh, embedded::user_op_cuh});
  }

  std::vector<std::string> distributions() const override { return segreduce_distributions(); }
  bool robust_across_distributions() const override { return true; }
  // Segment lengths decide the algorithm (a thread, a warp or a block per segment): the policy weighs them.
  bool distribution_is_shape() const override { return true; }
  std::vector<Problem> default_problems() const override {
    // None: `autotune tune` without a problem tunes the other families' defaults, and its --dists names their input
    // distributions, which are not segment lengths. Segmented problems are tuned by name (--kernel segreduce).
    return {};
  }
  // Results and offsets of an upper bound of the segments (for the tuner's memory check): n / least length, or
  // twice the mean's count when empty segments are allowed.
  std::uint64_t output_bytes(const Problem& problem) const override {
    const SegReduceProblem& p = problem_of(problem);
    const SegmentSpec s = parse_segment_spec(p.distribution);
    const std::uint64_t segments =
        s.lo >= 1 ? p.n / s.lo + 1 : 2 * p.n / std::max<std::uint64_t>(1, (s.lo + s.hi) / 2) + 1024;
    return segments * (p.result_bytes() + p.offset_bytes()) + 64;
  }

  std::string example_options() const override { return "--op sum --type f32 --segments fixed:32 --n 64M"; }

 protected:
  // The user operator checked (WithUserOp), then the normal form: accumulator, operator hash, canonical segments.
  SegReduceProblem after_options(SegReduceProblem p) const override {
    return WithUserOp::after_options(std::move(p)).normalized();
  }
};

}  // namespace

std::string SegReduceProblem::shape_key() const { return problem_key::shape_key(normalized(), kKey); }
std::string SegReduceProblem::key() const { return problem_key::key(normalized(), kKey); }

std::unique_ptr<KernelFamily> make_segreduce_family() { return std::make_unique<SegReduceFamily>(); }

}  // namespace autotune
