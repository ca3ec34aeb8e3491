// The reduction family as the family-independent code sees it (core/family.hpp): keys, cache columns,
// command-line options, the default problem and the tuner workload, each delegated to this folder's files.
#include "kernel_templates/reduce/family.hpp"

#include <fmt/format.h>

#include "autotune/error.hpp"
#include "autotune/reduce_problem.hpp"
#include "core/key_text.hpp"
#include "core/ladder.hpp"
#include "core/typed_family.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "kernel_templates/user_op.hpp"
#include "kernel_templates/value_types.hpp"
#include "kernel_templates/reduce/workload.hpp"
#include "embedded.hpp"


namespace autotune {

namespace {

class ReduceFamily final : public TypedFamily<ReduceProblem, ReduceConfig> {
 public:
  ReduceFamily()
      : TypedFamily({"a reduction", autotune::kernel_source, reduce_constraint_violation, make_reduce_workload}) {}

  std::string_view summary() const override {
    return "sum, min, max, absmax, sumsq, sumabs, l2norm or an operator of your own over i32, u32, i64, u64, f32, "
           "f64, f16, bf16, i8 or i16 values (CUB's DeviceReduce and TransformReduce)";
  }

  // "reduce/sum/i32/acc=i64/n=1048576/dist=uniform[/mode=fast]": the key is the reduction's source of truth. A user
  // operator's op part is "user:<16 hex digits>": the problem read back knows its hash, not its source.
  std::optional<ReduceProblem> parse_key(const std::vector<std::string_view>& parts) const override {
    using namespace key_text;
    if (parts.size() < 6) return std::nullopt;
    ReduceProblem p;
    std::optional<ReduceOp> op = parse_reduce_op(parts[1]);
    if (auto hash = reduce_detail::parse_user_key_part(parts[1]); !op && hash) {
      op = ReduceOp::user;
      p.user_hash = std::move(*hash);
    }
    const auto type = parse_value_type(parts[2]);
    if (!op || !type) return std::nullopt;
    p.op = *op;
    p.type = *type;
    auto named = named_parts(parts, 3);
    if (!named) return std::nullopt;
    for (const auto& [field, value] : *named) {
      if (field == "acc") {
        const auto acc = parse_value_type(value);
        if (!acc) return std::nullopt;
        p.accumulator = *acc;
      } else if (field == "n") {
        const auto n = to_u64(value);
        if (!n) return std::nullopt;
        p.n = *n;
      } else if (field == "dist") {
        p.distribution = value;
      } else if (field == "mode") {
        if (value != "fast" && value != "deterministic") return std::nullopt;
        p.deterministic = value == "deterministic";
      } else {
        return std::nullopt;
      }
    }
    return p;
  }

  // sample_type is the input type, counter_bits the accumulator's width; the key says the rest.
  ProblemColumns columns(const Problem& problem) const override {
    const ReduceProblem& r = problem_of(problem);
    return {std::string(to_string(r.type)), 0, 0.0, 0.0, std::string(to_string(r.op)),
            static_cast<int>(8 * size_of(r.accumulator_type()))};
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

  int launches(const Config& c) const override {
    return config_of(c).finish == Finish::last_block ? 1 : 2;  // atomic: memset + kernel; two_pass: two kernels
  }
  ReportAxes report_axes(const Config& config) const override {
    const ReduceConfig& r = config_of(config);
    return {r.block, r.loads, fmt::format("{}/{}", to_string(r.block_reduce), to_string(r.finish))};
  }
  std::string_view baseline_name() const override { return "CUB DeviceReduce"; }

  // The template and the preamble generator: a change to either changes what a configuration compiles to.
  std::string code_text() const override {
    // The template and everything that writes its preamble.
    return std::string(embedded::reduce_template) + std::string(embedded::reduce_source_cpp) +
           std::string(embedded::user_op_cpp) + std::string(embedded::value_types_hpp) +
           std::string(embedded::reduce_enums_hpp) + std::string(embedded::reduce_workspace_layout_hpp) +
           std::string(embedded::preamble_hpp) + std::string(embedded::common_cuh) +
           std::string(embedded::reduction_common_cuh) + std::string(embedded::user_op_cuh);
  }

  std::vector<std::string> distributions() const override { return reduce_distributions(); }
  std::vector<Problem> default_problems() const override {
    // The reduction everybody writes first: a float sum, at every size of the default ladder (64K..256M by powers
    // of 4, core/ladder.hpp), from launch-bound to streaming from memory.
    // And at 4K, below the ladder: there one block does everything, and a winner of 64K (a grid of several blocks
    // and a last-block finish) ran 32 % behind that problem's exact winner (one block, no finish; H200,
    // bench/results/2026-12-02c-h200-untuned-grid-before.md).
    std::vector<Problem> out;
    ReduceProblem floor_sum;
    floor_sum.op = ReduceOp::sum;
    floor_sum.type = ValueType::f32;
    floor_sum.n = 4096;
    out.push_back(floor_sum);
    for (std::uint64_t n : default_ladder()) {
      ReduceProblem sum;
      sum.op = ReduceOp::sum;
      sum.type = ValueType::f32;
      sum.n = n;
      out.push_back(sum);
    }
    return out;
  }
  std::vector<Problem> preset_problems(std::string_view preset) const override {
    // `standard` (tuner/preset.hpp): sum, min and max of every element type at 64K, 1M, 16M and 256M elements.
    if (preset != "standard") return {};
    std::vector<Problem> out;
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max})
      for (ValueType type : {ValueType::i32, ValueType::u32, ValueType::i64, ValueType::u64, ValueType::f32,
                             ValueType::f64})
        for (std::uint64_t n : {std::uint64_t{1} << 16, std::uint64_t{1} << 20, std::uint64_t{1} << 24,
                                std::uint64_t{1} << 28}) {
          ReduceProblem r;
          r.op = op;
          r.type = type;
          r.n = n;
          out.push_back(r);
        }
    return out;
  }
  std::string_view policy_data() const override { return embedded::reduce_policy_json; }
  std::uint64_t output_bytes(const Problem&) const override { return 16; }  // one result, up to 16 bytes

  std::vector<ProblemParameter> problem_parameters() const override {
    std::vector<ProblemParameter> out{
        {"op", "OP", "operation: sum, min, max, absmax, sumsq, sumabs or l2norm (required unless --user-op)"},
        {"type", "T", "element type: i32, u32, i64, u64, f32, f64, f16, bf16, i8, i16 (required)"},
        {"acc", "T",
         "accumulator type (default: i64 for sums of i8, i16, i32; u64 for u32; f32 for f16 and bf16; else the "
         "element type; see reduce_problem.hpp)"},
        {"mode", "MODE", "deterministic (default) or fast (float sums may finish with atomics)"}};
    for (ProblemParameter& u : reduce_detail::user_op_parameters()) out.push_back(std::move(u));
    return out;
  }

  Problem make_problem(const ProblemOptions& o) const override {
    auto given = [&](const char* k) { return o.count(k) != 0; };
    auto str = [&](const char* k) { return given(k) ? o.at(k) : std::string(); };
    ReduceProblem p;
    if (auto user = reduce_detail::user_op_from_options(o)) {
      p.op = ReduceOp::user;
      p.user = std::move(*user);
    } else {
      if (!given("op"))
        throw UsageError("--op is required for --kernel reduce (sum, min, max, absmax, sumsq, sumabs, l2norm), or "
                         "--user-op");
      const auto op = parse_reduce_op(str("op"));
      if (!op)
        throw UsageError(fmt::format(
            "--op: unknown operation '{}' (known: sum, min, max, absmax, sumsq, sumabs, l2norm; or --user-op)",
            str("op")));
      p.op = *op;
    }
    const std::string types = reduce_detail::value_type_names();
    auto value_type = [&](const char* flag) {
      const auto t = parse_value_type(str(flag));
      if (!t) throw UsageError(fmt::format("--{}: unknown type '{}' (known: {})", flag, str(flag), types));
      return *t;
    };
    if (!given("type")) throw UsageError(fmt::format("--type is required for --kernel reduce ({})", types));
    p.type = value_type("type");
    if (given("acc")) p.accumulator = value_type("acc");
    if (given("mode")) {
      const std::string m = str("mode");
      if (m != "deterministic" && m != "fast")
        throw UsageError(fmt::format("--mode: '{}' is not deterministic or fast", m));
      p.deterministic = m == "deterministic";
    }
    p.n = parse_size(str("n"));
    if (given("dist")) p.distribution = str("dist");
    p.validate();
    // A user operator's compile errors are the user's: said now, with NVRTC's log, not as every variant failing. The
    // check needs NVRTC, which tuning needs anyway; sm_75 is the oldest architecture CUDA 13's NVRTC compiles for.
    if (p.op == ReduceOp::user) check_user_op_compiles(p, "sm_75");
    return p;
  }
  std::string command_options(const Problem& p) const override {
    const ReduceProblem& r = problem_of(p);
    const std::string mode = r.normalized().deterministic ? "" : " --mode fast";
    if (r.op != ReduceOp::user)
      return fmt::format("--op {} --type {} --acc {}{}", to_string(r.op), to_string(r.type),
                         to_string(r.accumulator_type()), mode);
    return fmt::format("{} --type {} --acc {}", reduce_detail::user_op_command_options(r.user, r.normalized().user_hash),
                       to_string(r.type), to_string(r.accumulator_type()));
  }
  std::string example_options() const override { return "--op sum --type f32 --n 256M"; }
};

}  // namespace

std::unique_ptr<KernelFamily> make_reduce_family() { return std::make_unique<ReduceFamily>(); }

}  // namespace autotune
