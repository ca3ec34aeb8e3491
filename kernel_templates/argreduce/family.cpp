// The arg-reduction family as the family-independent code sees it (core/family.hpp): keys, cache columns,
// command-line options, the default problems and the tuner workload, each delegated to this folder's files.
#include <fmt/format.h>

#include <cmath>
#include <tuple>

#include "autotune/argreduce_problem.hpp"
#include "core/ladder.hpp"
#include "core/problem_key.hpp"
#include "core/problem_options.hpp"
#include "core/typed_family.hpp"
#include "embedded.hpp"
#include "kernel_templates/argreduce/enums.hpp"
#include "kernel_templates/argreduce/space.hpp"
#include "kernel_templates/reduction_launch.hpp"
#include "kernel_templates/value_types.hpp"

namespace autotune {

namespace {

// The problem options besides --n and --dist.
constexpr auto kOp = problem_options::choice("op", "OP", "operation: argmin or argmax (required)",
                                             &ArgReduceProblem::op, argreduce_detail::kArgOpNames, "operation")
                         .required("argmin or argmax");
constexpr auto kType =
    problem_options::choice("type", "T", "element type: i32, u32, i64, u64, f32, f64, f16, bf16, i8, i16 (required)",
                            &ArgReduceProblem::type, reduce_detail::kValues, "type")
        .required();
constexpr auto kOptions = std::tuple{kOp, kType};

// "argreduce/argmax/f32/n=1048576/dist=uniform".
constexpr auto kKey = std::tuple{problem_key::positional(kOp), problem_key::positional(kType),
                                 problem_key::size<ArgReduceProblem>(), problem_key::distribution<ArgReduceProblem>()};

class ArgReduceFamily final
    : public problem_options::WithOptions<
          problem_key::WithKey<TypedFamily<ArgReduceProblem, ArgReduceConfig>, kKey>, kOptions> {
 public:
  ArgReduceFamily()
      : WithOptions({"an arg-reduction", autotune::kernel_source, argreduce_violation, argreduce_space}) {}

  std::string_view summary() const override {
    return "arg-min or arg-max (value and first index) of i32, u32, i64, u64, f32, f64, f16, bf16, i8 or i16 values "
           "(CUB's DeviceReduce::ArgMin/ArgMax)";
  }

  // The same element type and distribution: the other operation's winner reads the input the same way (distance 1).
  std::optional<double> shape_distance(const Problem& wanted, const Problem& tuned) const override {
    const ArgReduceProblem& a = problem_of(wanted);
    const ArgReduceProblem& b = problem_of(tuned);
    if (a.type != b.type || a.distribution != b.distribution) return std::nullopt;
    return a.op == b.op ? 0.0 : 1.0;
  }
  // The policy (policy.json, fitted from the H200 benchmark of every variant: scripts/policy_from_bench.py) holds f32,
  // i32 and f64: another type is served from the closest of them by element size (the loads, grid and finish carry
  // over; the comparison is the kernel's), after every entry of its own type: 2 per doubling of the element size
  // between them, so f16, bf16, i8 and i16 take the 4-byte entries before f64's.
  std::optional<double> policy_distance(const Problem& wanted, const Problem& tuned) const override {
    if (auto d = shape_distance(wanted, tuned)) return d;
    const ArgReduceProblem& a = problem_of(wanted);
    const ArgReduceProblem& b = problem_of(tuned);
    const double doublings = std::abs(std::log2(static_cast<double>(size_of(a.type))) -
                                      std::log2(static_cast<double>(size_of(b.type))));
    return 4.0 + 2.0 * doublings + (a.op == b.op ? 0.0 : 1.0);
  }
  std::string_view policy_data() const override { return embedded::argreduce_policy_json; }

  // A cluster grid launches its blocks whatever n; a covering grid reads up to two tiles in one block
  // (kOneBlockTiles, kernel_templates/reduction_launch.hpp).
  std::uint64_t one_block_up_to(const Problem& p, const Config& c) const override {
    const ArgReduceConfig& a = config_of(c);
    if (is_argreduce_cluster_grid(a.grid_blocks)) return 0;
    return reduction_launch::one_block_up_to(problem_of(p), a);
  }

  int launches(const Config& c) const override { return config_of(c).finish == Finish::two_pass ? 2 : 1; }
  ReportAxes report_axes(const Config& config) const override {
    const ArgReduceConfig& r = config_of(config);
    return {r.block, r.loads,
            fmt::format("{}/{}{}", to_string(r.block_reduce), to_string(r.finish), r.pack ? "/pack=u64" : "")};
  }
  std::string_view baseline_name() const override { return "CUB DeviceReduce::ArgMin/ArgMax"; }

  std::string code_text() const override {
    return joined({embedded::argreduce_template, embedded::argreduce_order_cuh, embedded::argreduce_source_cpp,
                   embedded::argreduce_config_cpp, embedded::reduction_fields_hpp, embedded::config_fields_hpp,
                   embedded::argreduce_enums_hpp, embedded::argreduce_workspace_layout_hpp, embedded::value_types_hpp,
                   embedded::preamble_hpp, embedded::common_cuh, embedded::reduction_common_cuh});
  }

  std::vector<std::string> distributions() const override { return argreduce_distributions(); }
  std::vector<Problem> default_problems() const override {
    // Arg-max of floats at every size of the default ladder (core/ladder.hpp).
    return at_sizes(ArgReduceProblem{.op = ArgOp::argmax, .type = ValueType::f32}, default_ladder());
  }
  std::vector<Problem> preset_problems(std::string_view preset) const override {
    // `standard`: arg-min and arg-max of f32, f64 and i32 at 64K, 1M, 16M and 256M elements.
    if (preset != "standard") return {};
    return ops_and_types(ArgReduceProblem{}, {ArgOp::argmin, ArgOp::argmax},
                         {ValueType::f32, ValueType::f64, ValueType::i32}, kStandardSizes);
  }
  std::uint64_t output_bytes(const Problem&) const override { return 16; }  // value at 0, index at 8

  std::string example_options() const override { return "--op argmax --type f32 --n 256M"; }
};

}  // namespace

std::string ArgReduceProblem::shape_key() const { return problem_key::shape_key(*this, kKey); }
std::string ArgReduceProblem::key() const { return problem_key::key(*this, kKey); }

std::unique_ptr<KernelFamily> make_argreduce_family() { return std::make_unique<ArgReduceFamily>(); }

}  // namespace autotune
