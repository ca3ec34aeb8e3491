// Operators of the user's own (autotune::UserOp): checking the text, hashing it, spelling it in keys and on the
// command line, turning it into device functions for a kernel template, and finding out early whether NVRTC takes
// it. Written for the reduction family and shared with the families that reduce with the same operators (segmented
// reductions: kernel_templates/segreduce/).
#pragma once

#include <fmt/format.h>

#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/reduce_problem.hpp"
#include "core/family.hpp"
#include "core/jit.hpp"
#include "core/enum_text.hpp"
#include "core/problem_key.hpp"
#include "core/problem_options.hpp"

namespace autotune {

/// Throws UsageError naming the part (op, identity, transform) and the offending character when a text is empty
/// (op, identity), longer than 4096 characters, or not confined to one expression: it may not contain `;`, `{`, `}`,
/// `#`, `\`, quotes, comment markers or digraphs, and its parentheses and brackets must balance without closing one that it
/// did not open.
void validate_user_op(const UserOp& user);

namespace reduce_detail {

/// 16 lowercase hex digits: the form of a user operator's hash in a key.
bool is_user_hash(std::string_view text);

// The key and command-line spellings below live in user_op_options.cpp, apart from this header's code generation
// (user_op.cpp, part of the reduction family's code identity: code_text()), which they do not change.

/// A user operator's op part of a key: "user:<hash>".
std::string user_key_part(std::string_view hash);
/// The hash of an op part "user:<16 hex digits>", else nullopt (a built-in operator's name, anything else).
std::optional<std::string> parse_user_key_part(std::string_view part);

/// The op part of a key (core/problem_key.hpp) of a problem P whose operations are `kOpNames` (the last one "user"):
/// a built-in operation's name, or a user operator's "user:<hash>".
template <class P, const auto& kOpNames>
constexpr auto op_key_part() {
  using Op = decltype(P::op);
  constexpr auto print = [](problem_key::Writer& w, const P& p) {
    w.add(p.op == Op::user ? user_key_part(p.user_hash) : std::string(enum_text::name_of(kOpNames, p.op)));
  };
  constexpr auto read = [](problem_key::Reader& r, P& p) {
    const auto text = r.next();
    if (!text) return false;
    if (auto hash = parse_user_key_part(*text)) {
      p.op = Op::user;
      p.user_hash = std::move(*hash);
      return true;
    }
    const std::optional<Op> op = enum_text::parse(kOpNames, *text);
    if (!op || *op == Op::user) return false;  // "user" alone names no operator
    p.op = *op;
    return true;
  };
  return problem_key::custom<P>("op", +print, +read).as_positional();
}

/// A reduction's key (core/problem_key.hpp): "op/type/acc=T/n=N/dist=D", the type and the accumulator those of the
/// command-line options `type` and `acc`, then a part of each option in `more` (reduce's mode=, segreduce's offsets=).
template <class P, const auto& kOpNames, class TypeOption, class AccOption, class... More>
constexpr auto reduction_key_parts(const TypeOption& type, const AccOption& acc, const More&... more) {
  return std::tuple{op_key_part<P, kOpNames>(), problem_key::positional(type),  problem_key::option(acc),
                    problem_key::size<P>(),     problem_key::distribution<P>(), problem_key::option(more)...};
}

/// The command-line options of an operator of the user's own, --user-op, --identity and --transform, as entries of
/// a family's option table (core/problem_options.hpp): their help rows; WithUserOp reads and prints them.
template <class P>
constexpr auto user_op_options() {
  return std::tuple{
      problem_options::custom<P>("user-op", "EXPR",
                                 "an operator of your own: a CUDA expression in a and b, e.g. 'a > b ? a : b'"),
      problem_options::custom<P>("identity", "EXPR", "the identity of --user-op, e.g. -INFINITY"),
      problem_options::custom<P>("transform", "EXPR",
                                 "with --user-op: a CUDA expression in x applied to every element first, e.g. 'x*x'")};
}
/// The operator `options` give (--user-op EXPR --identity EXPR [--transform EXPR]), nullopt without --user-op.
/// UsageError for --user-op beside --op (it is the operation), --user-op without --identity, --identity or
/// --transform without --user-op.
std::optional<UserOp> user_op_from_options(const ProblemOptions& options);
/// Those options spelled so that user_op_from_options reads them back: "--user-op 'a + b' --identity '0'" (with
/// " --transform '...'" when there is one), each text canonical and in single quotes (which no text holds). A
/// problem read back from a key knows only `hash`: "--user-op <the source of user:HASH> --identity <its identity>".
std::string user_op_command_options(const UserOp& user, std::string_view hash);

/// The device functions that carry the operator into a kernel template (kernel_templates/reduce/reduce.cu,
/// kernel_templates/segreduce/segreduce.cu), in namespace `at` after acc_t is declared: user_transform(acc_t x), user_op(acc_t a, acc_t b), user_identity(). Each expression stands on
/// a line of its own behind a #line directive naming it ("transform", "op", "identity"), so that NVRTC's errors
/// point into the user's text. The constants the README lists are macros defined for these lines only.
std::string user_op_functions(const UserOp& user);

/// The complete source of a reduction template's variant (preamble::variant_source): `preamble` (its namespace at
/// still open), then, for a user operator (`user` not null), its functions last, after acc_t, so that their #line
/// directives name the user's text until common.cuh's; namespace at closed; the template `name` (`text`) with the
/// fragments every reduction template includes (user_op.cuh, reduction_common.cuh).
std::string reduction_variant_source(std::string preamble, const UserOp* user, std::string_view name,
                                     std::string_view text);

/// The operations a command line names with --op, of a family whose operation names `kOpNames` end with "user"
/// (--user-op names that one): every name but the last.
template <const auto& kOpNames>
constexpr auto command_line_ops() {
  constexpr std::size_t kOps = std::size(kOpNames);
  static_assert(kOpNames[kOps - 1].value == decltype(kOpNames[0].value)::user);
  return std::span(kOpNames).template first<kOps - 1>();
}

/// WithOptions (core/problem_options.hpp) for a family whose problem type (members `op`, an enum with a `user` value,
/// `user`, `user_hash` and normalized()) takes an operator of the user's own: --user-op is read before the table,
/// whose --op entry is declared unless("user-op"), printed where --op would stand, and compiled once read.
template <class Base, const auto& kOptions>
class WithUserOp : public problem_options::WithOptions<Base, kOptions> {
 public:
  using P = typename Base::problem_type;
  using problem_options::WithOptions<Base, kOptions>::WithOptions;

  std::string command_options(const Problem& problem) const override {
    const P p = this->problem_of(problem).normalized();
    const std::string options = problem_options::print(p, kOptions);
    if (p.op != decltype(p.op)::user) return options;
    return user_op_command_options(p.user, p.user_hash) + " " + options;
  }

 protected:
  void before_options(const ProblemOptions& options, P& problem) const override {
    if (auto user = user_op_from_options(options)) {
      problem.op = decltype(problem.op)::user;
      problem.user = std::move(*user);
    }
  }
  // A user operator's compile errors are the user's: said now, with NVRTC's log, not as every variant failing
  // (check_user_op_compiles of the family's problem: nothing for a built-in operation). The check needs NVRTC, which
  // tuning needs anyway; sm_75 is the oldest architecture CUDA 13's NVRTC compiles for.
  P after_options(P problem) const override {
    check_user_op_compiles(problem, "sm_75");
    return problem;
  }
};

}  // namespace reduce_detail

namespace reduce_detail {

/// UsageError when `problem` (of reduce or segreduce: members op, user, key()) is a user operator whose source it does
/// not hold (read back from a key: the hash alone), naming the problem: it can be looked up and shown, not compiled.
template <class P>
void require_user_source(const P& problem) {
  if (problem.op == decltype(problem.op)::user && problem.user.op.empty())
    throw UsageError(fmt::format("{}: the user operator's source is not known here (a cache key holds only its hash); "
                                 "the application gives it (autotune::UserOp)",
                                 problem.key()));
}

/// Compiles `user` alone (its functions with acc_t = `accumulator`, and a kernel that calls each) for `arch`;
/// UsageError with NVRTC's log when it does not compile.
void compile_user_op(const UserOp& user, ValueType accumulator, const std::string& arch);

}  // namespace reduce_detail

/// Compiles the user operator of `problem` (a ReduceProblem or SegReduceProblem) alone for `arch` and throws
/// UsageError with NVRTC's log when it does not compile, or when the problem is not well formed or lacks the
/// operator's source; nothing for a built-in operator. Called where a user operator enters (a handle's construction,
/// the CLI's problem), so that its errors are the user's, not a variant's. Needs NVRTC (Error when it cannot be
/// loaded).
template <class P>
void check_user_op_compiles(const P& problem, const std::string& arch) {
  if (problem.op != decltype(problem.op)::user) return;
  problem.validate();
  reduce_detail::require_user_source(problem);
  reduce_detail::compile_user_op(problem.user, problem.accumulator_type(), arch);
}

/// What a handle of a family with operators of the user's own (reduce, segreduce) keeps of the problem it is given:
/// the problem normalized, its user operator, if any, checked by the family's check_user_op_compiles for sm_75 (the
/// oldest architecture CUDA 13's NVRTC compiles for), so that the operator's own compile errors come with NVRTC's log
/// before any variant is compiled.
template <class P>
P with_checked_user_op(const P& given) {
  P p = given.normalized();
  check_user_op_compiles(p, "sm_75");
  return p;
}

/// The kernel of the variant `config` of a user operator's `problem` on `device`, compiled from its source (named
/// `file` in NVRTC's messages): the variant whose results stand in for a CPU reference in the tuner's checks.
/// UsageError with NVRTC's log when it does not compile.
template <class Kernel, class P, class C>
Kernel user_reference_kernel(const P& problem, const C& config, const DeviceInfo& device, const char* file) {
  const jit::CompileResult c = jit::compile(kernel_source(problem, config), file, device.arch());
  if (!c.ok) throw UsageError(fmt::format("the user operator of {} does not compile:\n{}", problem.key(), c.log));
  return Kernel(problem, config, device, c.cubin);
}

}  // namespace autotune
