// A family's command-line problem options declared once: a table of its options (name, value name, help line, the
// problem member it sets, how a value is read and printed, whether it is required), from which generic code derives
// KernelFamily::problem_parameters(), the bulk of make_problem() and command_options(). The model is
// core/config_fields.hpp, which does the same for configuration keys. Internal to the library; each family's
// family.cpp holds its table.
//
//   constexpr auto kOptions = std::tuple{
//       problem_options::choice("op", "OP", "operation: argmin or argmax (required)", &ArgReduceProblem::op,
//                               argreduce_detail::kArgOpNames, "operation")
//           .required("argmin or argmax"),
//       problem_options::choice("type", "T", "element type: ...", &ArgReduceProblem::type, kValues, "type")
//           .required()};
//   class ArgReduceFamily final
//       : public problem_options::WithOptions<TypedFamily<ArgReduceProblem, ArgReduceConfig>, kOptions> { ... };
//
// WithOptions writes problem_parameters() (parameters()), make_problem() (read(), which reads --n and --dist too,
// then the problem's validate()) and command_options() (print()) from the table.
//
// Two kinds of entries:
// - choice: one of a {value, name} table (core/enum_text.hpp; a number such as a counter width is a table too),
//   stored in a member of type T or std::optional<T>. Given: parsed or refused with a message naming the option;
//   missing: refused when required, else the member keeps the problem's default. Printed as "--name value", left
//   out where it holds the value given to omitted_at(); an optional member that is empty
//   is not printed (the family prints a normalized problem where that matters).
// - custom: an option whose reading does not fit a table (several values per channel, two spellings of one
//   member): its help row here, and a reader called at its place in the table's order, given or not; a printer
//   that appends its text, or none.
// Entries are read in the table's order (the order of their errors), then --n and --dist, then the entries marked
// after_size() (one that checks its value against n, or whose errors come after the size's).
//
// Messages:
//   missing required  "--NAME is required for --kernel FAMILY (EXPECTED)[, or --UNLESS]"
//   refused, noun     "--NAME: unknown NOUN 'TEXT' (known: NAMES[; or --UNLESS])"
//   refused, no noun  "--NAME: 'TEXT' is not EXPECTED"
// where NAMES is the table's names joined by ", " and EXPECTED is expected() or else NAMES (a message without a noun
// joins them by " or "). An entry with unless("other") is not read when --other is given: the other option (a user
// operator for an op) takes its place, and the family's hook has set the member.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/enum_text.hpp"
#include "core/family.hpp"

namespace autotune::problem_options {

/// One option that reads a value of a {value, name} table R into the member of P of type M (the table's value type
/// or a std::optional of it).
template <class P, class M, class R>
struct Choice {
  using Value = enum_text::value_type<R>;

  std::string_view name;        ///< "type": the option --type
  std::string_view value_name;  ///< "T", shown in the help
  std::string_view help;        ///< one line
  M P::*member = nullptr;
  std::span<const R> table = {};   ///< the values a command line may name, in the order messages list them
  std::string_view noun;           ///< "type": "unknown type 'x' (known: ...)"; empty: "'x' is not A or B"
  bool is_required = false;
  std::string_view expected_text;  ///< what a message says is expected, when not the table's names
  std::string_view unless_name;    ///< another option that replaces this one when given
  std::optional<Value> omitted;    ///< command_options leaves the option out at this value
  bool late = false;               ///< read after --n and --dist

  constexpr Choice after_size() const {
    Choice c = *this;
    c.late = true;
    return c;
  }
  constexpr Choice required(std::string_view expected = {}) const {
    Choice c = *this;
    c.is_required = true;
    if (!expected.empty()) c.expected_text = expected;
    return c;
  }
  constexpr Choice expected(std::string_view text) const {
    Choice c = *this;
    c.expected_text = text;
    return c;
  }
  constexpr Choice unless(std::string_view other) const {
    Choice c = *this;
    c.unless_name = other;
    return c;
  }
  constexpr Choice omitted_at(Value v) const {
    Choice c = *this;
    c.omitted = v;
    return c;
  }
};

/// A choice option; `table` is any array or span of records with `value` and `name` (enum_text::Name, or a type's
/// table of properties).
template <class P, class M, class R, std::size_t N>
constexpr Choice<P, M, R> choice(std::string_view name, std::string_view value_name, std::string_view help,
                                 M P::*member, std::span<const R, N> table, std::string_view noun = {}) {
  Choice<P, M, R> c{};
  c.name = name, c.value_name = value_name, c.help = help, c.member = member, c.table = table, c.noun = noun;
  return c;
}
template <class P, class M, class R, std::size_t N>
constexpr Choice<P, M, R> choice(std::string_view name, std::string_view value_name, std::string_view help,
                                 M P::*member, const R (&table)[N], std::string_view noun = {}) {
  Choice<P, M, R> c{};
  c.name = name, c.value_name = value_name, c.help = help, c.member = member, c.table = table, c.noun = noun;
  return c;
}

/// One option a family reads (and prints) itself, declared here for its help row and its place in the order.
template <class P>
struct Custom {
  std::string_view name;
  std::string_view value_name;
  std::string_view help;
  void (*read)(const ProblemOptions& options, P& problem) = nullptr;  ///< nullptr: read by the family's hook
  void (*print)(std::string& out, const P& problem) = nullptr;        ///< appends " --name value"; nullptr: none
  bool late = false;                                                  ///< read after --n and --dist

  constexpr Custom after_size() const {
    Custom c = *this;
    c.late = true;
    return c;
  }
};

template <class P>
constexpr Custom<P> custom(std::string_view name, std::string_view value_name, std::string_view help,
                           void (*read)(const ProblemOptions&, P&) = nullptr,
                           void (*print)(std::string&, const P&) = nullptr) {
  Custom<P> c{};
  c.name = name, c.value_name = value_name, c.help = help, c.read = read, c.print = print;
  return c;
}

namespace detail {

template <class R>
std::string names(std::span<const R> table, std::string_view separator) {
  std::string out;
  for (const R& r : table) {
    if (!out.empty()) out += separator;
    out += r.name;
  }
  return out;
}

template <class P, class M, class R>
std::string missing_message(const Choice<P, M, R>& c) {
  const std::string expected = c.expected_text.empty() ? names(c.table, ", ") : std::string(c.expected_text);
  return fmt::format("--{} is required for --kernel {} ({}){}", c.name, P::kFamily, expected,
                     c.unless_name.empty() ? std::string() : fmt::format(", or --{}", c.unless_name));
}

template <class P, class M, class R>
std::string refused_message(const Choice<P, M, R>& c, const std::string& text) {
  if (c.noun.empty())
    return fmt::format("--{}: '{}' is not {}", c.name, text,
                       c.expected_text.empty() ? names(c.table, " or ") : std::string(c.expected_text));
  return fmt::format("--{}: unknown {} '{}' (known: {}{})", c.name, c.noun, text, names(c.table, ", "),
                     c.unless_name.empty() ? std::string() : fmt::format("; or --{}", c.unless_name));
}

template <class P, class M, class R>
void read(const ProblemOptions& options, P& p, const Choice<P, M, R>& c, bool late) {
  if (c.late != late) return;
  if (!c.unless_name.empty() && options.count(c.unless_name) != 0) return;
  const auto it = options.find(c.name);
  if (it == options.end()) {
    if (c.is_required) throw UsageError(missing_message(c));
    return;
  }
  for (const R& r : c.table)
    if (r.name == it->second) {
      p.*(c.member) = r.value;
      return;
    }
  throw UsageError(refused_message(c, it->second));
}

template <class P>
void read(const ProblemOptions& options, P& p, const Custom<P>& c, bool late) {
  if (c.late == late && c.read) c.read(options, p);
}

template <class P, class M, class R>
void print(std::string& out, const P& p, const Choice<P, M, R>& c) {
  std::optional<typename Choice<P, M, R>::Value> v;
  v = p.*(c.member);  // a value, or an optional one
  if (!v || (c.omitted && *v == *c.omitted)) return;
  for (const R& r : c.table)
    if (r.value == *v) {
      out += fmt::format(" --{} {}", c.name, r.name);
      return;
    }
}

template <class P>
void print(std::string& out, const P& p, const Custom<P>& c) {
  if (c.print) c.print(out, p);
}

}  // namespace detail

/// The options' help rows, in the table's order.
template <class... E>
std::vector<ProblemParameter> parameters(const std::tuple<E...>& options) {
  return std::apply(
      [](const auto&... o) {
        return std::vector<ProblemParameter>{
            ProblemParameter{std::string(o.name), std::string(o.value_name), std::string(o.help)}...};
      },
      options);
}

/// Reads every option of the table into `problem` in the table's order (the order its errors are reported in),
/// --n (a size, parse_size) and --dist (when given) after all but those marked after_size(); members of options not
/// given keep their values. UsageError names the option.
template <class P, class... E>
void read(const ProblemOptions& given, P& problem, const std::tuple<E...>& options) {
  std::apply([&](const auto&... o) { (detail::read(given, problem, o, false), ...); }, options);
  const auto n = given.find("n");
  problem.n = parse_size(n == given.end() ? std::string_view() : std::string_view(n->second));
  if (const auto dist = given.find("dist"); dist != given.end()) problem.distribution = dist->second;
  std::apply([&](const auto&... o) { (detail::read(given, problem, o, true), ...); }, options);
}

/// The options that name `problem`, "--name value" joined by spaces in the table's order (no leading space).
template <class P, class... E>
std::string print(const P& problem, const std::tuple<E...>& options) {
  std::string out;
  std::apply([&](const auto&... o) { (detail::print(out, problem, o), ...); }, options);
  return out.empty() ? out : out.substr(1);
}

/// The command-line members of KernelFamily for a family with the option table `kOptions`: Base is the family's
/// TypedFamily (its problem_type P, its problem_of()). make_problem() reads the table into a default P, with a
/// family's own options before it (before_options) and its checks after P::validate() (after_options).
template <class Base, const auto& kOptions>
class WithOptions : public Base {
 public:
  using P = typename Base::problem_type;
  using Base::Base;

  std::vector<ProblemParameter> problem_parameters() const override { return parameters(kOptions); }
  Problem make_problem(const ProblemOptions& options) const final {
    P p;
    before_options(options, p);
    read(options, p, kOptions);
    p.validate();
    return Problem(after_options(std::move(p)));
  }
  std::string command_options(const Problem& problem) const override {
    return print(this->problem_of(problem), kOptions);
  }

 protected:
  /// Options the family reads before the table's (an operator of the user's own, which takes --op's place).
  virtual void before_options(const ProblemOptions& options, P& problem) const {
    (void)options;
    (void)problem;
  }
  /// The problem read and validated, as make_problem returns it (checked further, normalized).
  virtual P after_options(P problem) const { return problem; }
};

}  // namespace autotune::problem_options
