// The reduction family as the family-independent code sees it (core/family.hpp): keys, cache columns,
// command-line options, the default problem and the tuner workload, each delegated to this folder's files.
#include <fmt/format.h>

#include <tuple>

#include "autotune/reduce_problem.hpp"
#include "core/enum_text.hpp"
#include "core/ladder.hpp"
#include "core/problem_key.hpp"
#include "core/problem_options.hpp"
#include "core/typed_family.hpp"
#include "kernel_templates/reduce/enums.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "kernel_templates/reduction_launch.hpp"
#include "kernel_templates/user_op.hpp"
#include "kernel_templates/value_types.hpp"
#include "embedded.hpp"


namespace autotune {

namespace {

constexpr auto kCommandLineOps = reduce_detail::command_line_ops<reduce_detail::kReduceOpNames>();
// --mode, and the key's "mode=" part.
constexpr enum_text::Name<bool> kModeNames[] = {{true, "deterministic"}, {false, "fast"}};

// The problem options besides --n and --dist, then an operator of the user's own's (kernel_templates/user_op.hpp),
// which replaces --op.
constexpr auto kOp =
    problem_options::choice("op", "OP",
                            "operation: sum, min, max, absmax, sumsq, sumabs or l2norm (required unless --user-op)",
                            &ReduceProblem::op, kCommandLineOps, "operation")
        .required()
        .unless("user-op");
constexpr auto kType =
    problem_options::choice("type", "T", "element type: i32, u32, i64, u64, f32, f64, f16, bf16, i8, i16 (required)",
                            &ReduceProblem::type, reduce_detail::kValues, "type")
        .required();
constexpr auto kAcc = problem_options::choice("acc", "T",
                                              "accumulator type (default: i64 for sums of i8, i16, i32; u64 for u32; "
                                              "f32 for f16 and bf16; else the element type; see reduce_problem.hpp)",
                                              &ReduceProblem::accumulator, reduce_detail::kValues, "type");
constexpr auto kMode =
    problem_options::choice("mode", "MODE", "deterministic (default) or fast (float sums may finish with atomics)",
                            &ReduceProblem::deterministic, kModeNames)
        .omitted_at(true);
constexpr auto kOptions =
    std::tuple_cat(std::tuple{kOp, kType, kAcc, kMode}, reduce_detail::user_op_options<ReduceProblem>());

// "reduce/sum/i32/acc=i64/n=1048576/dist=uniform[/mode=fast]", of the normalized problem: the key is the reduction's
// source of truth. A user operator's op part is "user:<16 hex digits>": the problem read back knows its hash, not its
// source.
constexpr auto kKey =
    reduce_detail::reduction_key_parts<ReduceProblem, reduce_detail::kReduceOpNames>(kType, kAcc, kMode);

class ReduceFamily final
    : public reduce_detail::WithUserOp<problem_key::WithKey<TypedFamily<ReduceProblem, ReduceConfig>, kKey>, kOptions> {
 public:
  ReduceFamily()
      : WithUserOp({"a reduction", autotune::kernel_source, reduce_violation, reduce_space}) {}

  std::string_view summary() const override {
    return "sum, min, max, absmax, sumsq, sumabs, l2norm or an operator of your own over i32, u32, i64, u64, f32, "
           "f64, f16, bf16, i8 or i16 values (CUB's DeviceReduce and TransformReduce)";
  }

  // The same element type, mode and distribution: another operator's winner (sum for max, say) reads the input the
  // same way. Distance: 1 for another operator, 1 more for another accumulator width (the configuration's
  // validity for this problem is checked apart, by violation()).
  std::optional<double> shape_distance(const Problem& wanted, const Problem& tuned) const override {
    const ReduceProblem a = problem_of(wanted).normalized();
    const ReduceProblem b = problem_of(tuned).normalized();
    if (a.type != b.type || a.deterministic != b.deterministic || a.distribution != b.distribution) return std::nullopt;
    // A user operator's winners serve that operator alone: another one (or a built-in) may cost anything per element.
    if ((a.op == ReduceOp::user || b.op == ReduceOp::user) && a.user_hash != b.user_hash) return std::nullopt;
    return (a.op == b.op ? 0.0 : 1.0) + (a.accumulator_type() == b.accumulator_type() ? 0.0 : 1.0);
  }

  // Up to two tiles one block reads them all (kOneBlockTiles): at 8K an f32 sum's winner of 16K (tiles of 2048, four
  // blocks and a last-block merge) ran 5.73 us where the winner of 4K (one block) ran 4.61 (H100,
  // bench/results/2026-12-06d-data/replay-sizes-f32sum-h100-3253336.md).
  std::uint64_t one_block_up_to(const Problem& p, const Config& c) const override {
    return reduction_launch::one_block_up_to(problem_of(p).normalized(), config_of(c));
  }

  int launches(const Config& c) const override {
    // atomic: memset + kernel; two_pass: two kernels; last_block and atomic_last: one kernel
    const Finish f = config_of(c).finish;
    return f == Finish::last_block || f == Finish::atomic_last ? 1 : 2;
  }
  ReportAxes report_axes(const Config& config) const override {
    const ReduceConfig& r = config_of(config);
    return {r.block, r.loads, fmt::format("{}/{}", to_string(r.block_reduce), to_string(r.finish))};
  }
  std::string_view baseline_name() const override { return "CUB DeviceReduce"; }

  // The template and the preamble generator: a change to either changes what a configuration compiles to.
  std::string code_text() const override {
    // The template and everything that writes its preamble (the configuration's constants: its field table).
    return joined({embedded::reduce_template, embedded::reduce_source_cpp, embedded::reduce_config_cpp,
                   embedded::reduction_fields_hpp, embedded::config_fields_hpp, embedded::user_op_cpp,
                   embedded::value_types_hpp, embedded::reduce_enums_hpp, embedded::reduce_workspace_layout_hpp,
                   embedded::preamble_hpp, embedded::common_cuh, embedded::reduction_common_cuh,
                   embedded::user_op_cuh});
  }

  std::vector<std::string> distributions() const override { return reduce_distributions(); }
  std::vector<Problem> default_problems() const override {
    // The reduction everybody writes first: a float sum, at every size of the default ladder (64K..256M by powers
    // of 4, core/ladder.hpp), from launch-bound to streaming from memory.
    // And at 4K, below the ladder: there one block does everything, and a winner of 64K (a grid of several blocks
    // and a last-block finish) ran 32 % behind that problem's exact winner (one block, no finish; H200,
    // bench/results/2026-12-02c-h200-untuned-grid-before.md).
    ReduceProblem sum;
    sum.op = ReduceOp::sum;
    sum.type = ValueType::f32;
    std::vector<std::uint64_t> sizes = default_ladder();
    sizes.insert(sizes.begin(), 4096);
    return at_sizes(sum, sizes);
  }
  std::vector<Problem> preset_problems(std::string_view preset) const override {
    // `standard` (tuner/preset.hpp): sum, min and max of every element type at 64K, 1M, 16M and 256M elements.
    if (preset != "standard") return {};
    return ops_and_types(ReduceProblem{}, {ReduceOp::sum, ReduceOp::min, ReduceOp::max},
                         {ValueType::i32, ValueType::u32, ValueType::i64, ValueType::u64, ValueType::f32, ValueType::f64},
                         kStandardSizes);
  }
  std::string_view policy_data() const override { return embedded::reduce_policy_json; }
  std::uint64_t output_bytes(const Problem&) const override { return 16; }  // one result, up to 16 bytes

  std::string example_options() const override { return "--op sum --type f32 --n 256M"; }
};

}  // namespace

std::string ReduceProblem::shape_key() const { return problem_key::shape_key(normalized(), kKey); }
std::string ReduceProblem::key() const { return problem_key::key(normalized(), kKey); }

std::unique_ptr<KernelFamily> make_reduce_family() { return std::make_unique<ReduceFamily>(); }

}  // namespace autotune
