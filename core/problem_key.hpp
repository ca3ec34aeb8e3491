// A problem's key declared once: a table of its parts (name, member, how a value is printed and read, whether the
// key leaves it out at a default, whether the shape key holds it), from which one generic implementation prints the
// key and the shape key and parses the key back. The problem-key analogue of core/config_fields.hpp; a part that is
// also a command-line option is made from that option's entry (core/problem_options.hpp), so the option and the key
// read one table of names. Internal to the library; each family's family.cpp holds its table.
//
//   constexpr auto kType = problem_options::choice("type", "T", "element type: ...", &ArgReduceProblem::type, kValues);
//   constexpr auto kKey = std::tuple{problem_key::positional(kOp), problem_key::positional(kType),
//                                    problem_key::size<ArgReduceProblem>(),
//                                    problem_key::distribution<ArgReduceProblem>()};
//   std::string ArgReduceProblem::key() const { return problem_key::key(*this, kKey); }
//   // in the family: problem_key::parse<ArgReduceProblem>(parts, kKey)
//
// The key is "FAMILY/part/part/name=value/..." in the table's order: the positional parts (the value alone) first,
// then the named ones. Kinds of parts:
// - choice: one of a {value, name} table (core/enum_text.hpp), in a member of type T or std::optional<T> (an empty
//   optional is left out);
// - number: a decimal integer within [min, max] (sizes are numbers of 64 bits: n, rows);
// - text: the member's string as it is (the distribution);
// - interval: two members of doubles as one half-open range "[lo,hi)";
// - both: two parts a key holds both or neither of;
// - custom: a part, or several, whose spelling fits none of these (a user operator's hash, the channels): a printer
//   and a reader of the family's.
// A part declared omitted_at(v) is left out when it holds v, and holds v when a key lacks it; the shape key holds
// every part but the size n.
//
// parse() is the exact inverse of key(): every part present that has no default, no unknown or repeated name, every
// value readable, then the family's check, and the problem printed back must be the text read (the table's order,
// no leading zeros, no default spelled out, numbers in their shortest spelling: one key per problem).
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotune/error.hpp"
#include "core/enum_text.hpp"
#include "core/key_text.hpp"

namespace autotune::problem_key {

/// What parts print into: the key's text, part by part.
struct Writer {
  std::string text;
  void add(std::string_view part) {
    text += '/';
    text += part;
  }
  void add(std::string_view name, std::string_view value) {
    text += '/';
    text += name;
    text += '=';
    text += value;
  }
};

/// What parts read from: the positional parts in order, the named ones by name (each taken once).
struct Reader {
  std::vector<std::string_view> positional;
  std::size_t next_positional = 0;
  key_text::Fields named;

  std::optional<std::string_view> next() {
    if (next_positional == positional.size()) return std::nullopt;
    return positional[next_positional++];
  }
  std::optional<std::string> take(std::string_view name) { return key_text::take(named, name); }
};

/// Value codecs of typed parts.
template <class R>
struct Names {  ///< one of a {value, name} table
  using Value = enum_text::value_type<R>;
  std::span<const R> table;
  std::string text(const Value& v) const {
    for (const R& r : table)
      if (r.value == v) return std::string(r.name);
    return {};
  }
  std::optional<Value> value(std::string_view t) const {
    for (const R& r : table)
      if (r.name == t) return r.value;
    return std::nullopt;
  }
};
template <class V>
struct Decimal {  ///< a decimal integer in [min, max]
  using Value = V;
  V min;
  V max;
  std::string text(const V& v) const { return fmt::format("{}", v); }
  std::optional<V> value(std::string_view t) const {
    V v{};
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc{} || p != t.data() + t.size() || v < min || v > max) return std::nullopt;
    return v;
  }
};
struct Verbatim {  ///< the text itself
  using Value = std::string;
  std::string text(const std::string& v) const { return v; }
  std::optional<std::string> value(std::string_view t) const { return std::string(t); }
};

/// A half-open interval "[lo,hi)" of two numbers in strtod's syntax, printed in their shortest spelling.
struct Interval {
  using Value = std::pair<double, double>;
  std::string text(const Value& v) const { return fmt::format("[{},{})", v.first, v.second); }
  std::optional<Value> value(std::string_view t) const {
    if (t.size() < 5 || t.front() != '[' || t.back() != ')') return std::nullopt;
    const auto comma = t.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    const auto lo = key_text::to_double(std::string(t.substr(1, comma - 1)));
    const auto hi = key_text::to_double(std::string(t.substr(comma + 1, t.size() - comma - 2)));
    if (!lo || !hi) return std::nullopt;
    return Value{*lo, *hi};
  }
};

/// A part of a problem P held in its member of type M (a codec's value or a std::optional of it).
template <class P, class M, class Codec>
struct Part {
  using Value = typename Codec::Value;
  std::string_view name;  ///< "name=" of a named part; a positional part's name for KernelFamily::key_part_names
  M P::*member = nullptr;
  Codec codec;
  std::optional<Value> omitted = {};  ///< left out of the key at this value, and the value when a key lacks it
  bool in_shape = true;               ///< printed in the shape key too
  bool positional = false;            ///< the value alone, at its place among the positional parts

  constexpr Part omitted_at(Value v) const { return {name, member, codec, v, in_shape, positional}; }
  constexpr bool is_positional() const { return positional; }

  void print(Writer& w, const P& p) const {
    std::optional<Value> v;
    v = p.*member;  // a value, or an optional one
    if (!v || (omitted && *v == *omitted)) return;
    if (positional) w.add(codec.text(*v));
    else w.add(name, codec.text(*v));
  }
  bool read(Reader& r, P& p) const {
    std::optional<std::string> text;
    if (positional) {
      if (auto t = r.next()) text = std::string(*t);
    } else {
      text = r.take(name);
    }
    if (!text) {
      if (!omitted || positional) return false;  // a part every key holds
      p.*member = *omitted;
      return true;
    }
    const std::optional<Value> v = codec.value(*text);
    if (!v) return false;
    p.*member = *v;
    return true;
  }
};

/// A named part "name=[lo,hi)" of a problem P's two members `lower` and `upper` (Interval).
template <class P>
struct IntervalPart {
  std::string_view name;
  double P::*lower = nullptr;
  double P::*upper = nullptr;
  bool in_shape = true;

  constexpr bool is_positional() const { return false; }
  void print(Writer& w, const P& p) const { w.add(name, Interval{}.text({p.*lower, p.*upper})); }
  bool read(Reader& r, P& p) const {
    const std::optional<std::string> text = r.take(name);
    const std::optional<Interval::Value> v = text ? Interval{}.value(*text) : std::nullopt;
    if (!v) return false;
    std::tie(p.*lower, p.*upper) = *v;
    return true;
  }
};

/// A part (or several) that the family prints and reads itself.
template <class P>
struct Custom {
  std::string_view name;  ///< its first part's name, or what the positional part is
  void (*printer)(Writer& w, const P& problem) = nullptr;
  bool (*reader)(Reader& r, P& problem) = nullptr;  ///< false: not a key
  bool positional = false;                          ///< reads one positional part (Reader::next)
  bool in_shape = true;

  constexpr Custom as_positional() const {
    Custom c = *this;
    c.positional = true;
    return c;
  }
  constexpr bool is_positional() const { return positional; }
  void print(Writer& w, const P& p) const { printer(w, p); }
  bool read(Reader& r, P& p) const { return reader(r, p); }
};

/// A named part "name=value" of one of `table`'s names.
template <class P, class M, class R, std::size_t N>
constexpr Part<P, M, Names<R>> choice(std::string_view name, M P::*member, std::span<const R, N> table) {
  return {name, member, Names<R>{table}};
}
template <class P, class M, class R, std::size_t N>
constexpr Part<P, M, Names<R>> choice(std::string_view name, M P::*member, const R (&table)[N]) {
  return {name, member, Names<R>{std::span<const R>(table)}};
}

/// The key part of a command-line option's entry (problem_options::choice): its name, member, table and default.
template <class O>
constexpr auto option(const O& o) {
  auto part = choice(o.name, o.member, o.table);
  if (o.omitted) part.omitted = *o.omitted;
  return part;
}
/// The same, as a positional part (the key says "f32", the command line "--type f32").
template <class O>
constexpr auto positional(const O& o) {
  auto part = option(o);
  part.positional = true;
  return part;
}

/// A named decimal part in [min, max].
template <class P, class V>
constexpr Part<P, V, Decimal<V>> number(std::string_view name, V P::*member, std::type_identity_t<V> min,
                                        std::type_identity_t<V> max) {
  return {name, member, Decimal<V>{min, max}};
}
/// "n=": the size, which the shape key leaves out.
template <class P>
constexpr Part<P, std::uint64_t, Decimal<std::uint64_t>> size() {
  return {"n", &P::n, {0, ~std::uint64_t{0}}, {}, false};
}
/// "dist=": the input distribution.
template <class P>
constexpr Part<P, std::string, Verbatim> distribution() {
  return {"dist", &P::distribution, Verbatim{}};
}

/// Two named parts that a key holds both or neither of ("/row=W/stride=B"), left out when the first one's member
/// holds `absent` (a key without them leaves both members at P's defaults).
template <class A, class B>
struct Both {
  std::string_view name;  ///< the first part's
  A first;
  B second;
  typename A::Value absent;
  bool in_shape = true;

  constexpr bool is_positional() const { return false; }
  template <class P>
  void print(Writer& w, const P& p) const {
    if (p.*(first.member) == absent) return;
    w.add(first.name, first.codec.text(p.*(first.member)));
    w.add(second.name, second.codec.text(p.*(second.member)));
  }
  template <class P>
  bool read(Reader& r, P& p) const {
    const std::optional<std::string> a = r.take(first.name), b = r.take(second.name);
    if (!a && !b) return true;
    const auto x = a ? first.codec.value(*a) : std::nullopt, y = b ? second.codec.value(*b) : std::nullopt;
    if (!x || !y) return false;
    p.*(first.member) = *x;
    p.*(second.member) = *y;
    return true;
  }
};
template <class A, class B>
constexpr Both<A, B> both(A first, B second, typename A::Value absent) {
  return {first.name, first, second, absent};
}

/// A named part "name=[lo,hi)" of the members `lower` and `upper`.
template <class P>
constexpr IntervalPart<P> interval(std::string_view name, double P::*lower, double P::*upper) {
  return {name, lower, upper};
}

template <class P>
constexpr Custom<P> custom(std::string_view name, void (*printer)(Writer&, const P&), bool (*reader)(Reader&, P&)) {
  return {name, printer, reader};
}

namespace detail {

template <class P, class... E>
std::string print(const P& p, const std::tuple<E...>& parts, bool shape) {
  Writer w{std::string(P::kFamily)};
  std::apply([&](const auto&... e) { ((!shape || e.in_shape ? e.print(w, p) : void()), ...); }, parts);
  return w.text;
}

}  // namespace detail

/// The key of `p`: every part.
template <class P, class... E>
std::string key(const P& p, const std::tuple<E...>& parts) {
  return detail::print(p, parts, false);
}

/// The shape key of `p`: every part but the size.
template <class P, class... E>
std::string shape_key(const P& p, const std::tuple<E...>& parts) {
  return detail::print(p, parts, true);
}

/// The problem whose key has the '/'-separated `parts` (parts[0] the family's name), members outside the table
/// keeping P's defaults; nullopt for anything key() does not print, or that `check` refuses. `print` is the
/// problem's key(), which prints the table (of the problem itself, or of its normalized form); nullptr reads any
/// spelling of the parts' values (a key of an older cache, to be respelled).
template <class P, class... E>
std::optional<P> parse(const std::vector<std::string_view>& text, const std::tuple<E...>& parts,
                       std::string (P::*print)() const, bool (*check)(const std::type_identity_t<P>&) = nullptr) {
  const std::size_t positionals =
      std::apply([](const auto&... e) { return (std::size_t{0} + ... + e.is_positional()); }, parts);
  if (text.size() < 1 + positionals) return std::nullopt;
  Reader r{{text.begin() + 1, text.begin() + 1 + static_cast<std::ptrdiff_t>(positionals)}, 0, {}};
  auto named = key_text::named_parts(text, 1 + positionals);
  if (!named) return std::nullopt;
  r.named = std::move(*named);
  P p;
  const bool ok = std::apply([&](const auto&... e) { return (e.read(r, p) && ...); }, parts);
  if (!ok || !r.named.empty() || (check && !check(p))) return std::nullopt;
  std::string joined(text[0]);
  for (std::size_t i = 1; i < text.size(); ++i) (joined += '/') += text[i];
  if (print && (p.*print)() != joined) return std::nullopt;  // the canonical spelling only
  return p;
}

/// The names of the table's positional parts, in key order: {"op", "type"} for "reduce/sum/f32/...".
template <class... E>
std::vector<std::string> positional_names(const std::tuple<E...>& parts) {
  std::vector<std::string> out;
  std::apply([&](const auto&... e) { ((e.is_positional() ? void(out.emplace_back(e.name)) : void()), ...); }, parts);
  return out;
}

/// A check for parse() and WithKey (kCheck) of a problem type with validate(): false when validate() refuses the
/// problem (UsageError), for rules the table alone does not hold (a segment-length spec in the distribution, say).
template <class P>
bool validates(const P& problem) {
  try {
    problem.validate();
  } catch (const UsageError&) {
    return false;
  }
  return true;
}

/// A family base (TypedFamily, or a mixin over it) whose parse_key reads the key table `kKey` with parse(): the
/// canonical spelling is the problem's key(); `kCheck` (a bool(const P&), or nullptr) refuses what the table alone
/// lets through. The names of the key's positional parts (key_part_names) are the table's.
template <class Base, const auto& kKey, auto kCheck = nullptr>
class WithKey : public Base {
 public:
  using P = typename Base::problem_type;
  using Base::Base;

  std::vector<std::string> key_part_names() const override { return positional_names(kKey); }

 protected:
  std::optional<P> parse_key(const std::vector<std::string_view>& parts, bool canonical) const override {
    return parse(parts, kKey, canonical ? &P::key : nullptr, kCheck);
  }
};

/// The names of the table's named parts, in key order.
template <class... E>
std::vector<std::string_view> names(const std::tuple<E...>& parts) {
  std::vector<std::string_view> out;
  std::apply([&](const auto&... e) { ((e.is_positional() ? void() : out.push_back(e.name)), ...); }, parts);
  return out;
}

}  // namespace autotune::problem_key
