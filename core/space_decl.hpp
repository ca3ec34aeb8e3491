// A search space declared as data: an ordered list of groups, each a value list per configuration field, expanded as
// a Cartesian product in the declared order and filtered by the family's one validity function (the function that
// alone decides whether a configuration runs a problem; the launcher and the lookup's adaptation call it too). Each
// family's space.cpp holds its declaration:
//
//   constexpr auto kSpace =
//       space_decl::space(reduce_violation,
//           space_decl::group(space_decl::values(&ReduceConfig::block, {128, 256, 512, 1024}),
//                             space_decl::values(&ReduceConfig::loads, {1, 2, 4})),
//           space_decl::group(space_decl::values(&ReduceConfig::block, {256, 512}),
//                             space_decl::fixed(&ReduceConfig::grid_blocks, 1))
//               .only_if([](const ReduceProblem& p) { return p.n <= (1u << 20); }))
//           .starting_with(ReduceConfig::fallback);
//   std::vector<ReduceConfig> reduce_space(const ReduceProblem& p) { return space_decl::expand(kSpace, p); }
//
// A group's candidates are C{} with the group's fields set: the first axis varies slowest, the last fastest, as the
// nested loops it replaces. Several fields that vary together (pairs of values, not a product) are one axis:
// fields(&C::a, &C::b).rows({{a0, b0}, {a1, b1}}). The space is: its first configuration (starting_with), then each
// group whose problem predicate (only_if) holds, in order; a candidate stays when the validity function finds nothing
// against it on the largest GPU the project targets (any_target_gpu(): what cannot run on any GPU is left out, the
// device check at load time is exact), when the space's pruning (leaving_out) does not drop it, and when no earlier
// candidate equals it. Fields are named by their members, so a value of the wrong type does not compile, and a group
// that sets one field twice fails at compile time (the group is a constant expression).
//
// Thread-safety: a declaration is a constant; expand() and any_n() are pure functions of their arguments.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotune/device.hpp"

namespace autotune::space_decl {

/// The family's one validity function: why `config` cannot run `problem` (its own rules, then, with a device, the
/// device's limits), or empty. A family's space.hpp declares its own with this type
/// (`space_decl::ViolationFunction<ReduceProblem, ReduceConfig> reduce_violation;`), so that the signature is spelled
/// once; its config.cpp defines it.
template <class P, class C>
using ViolationFunction = std::string(const P& problem, const C& config, const DeviceInfo* device);
/// A pointer to a family's validity function, as a space, TypedFamily and TypedWorkload hold it.
template <class P, class C>
using Violation = ViolationFunction<P, C>*;

/// CONFIG::invalid_reason(problem), the configuration's own rules: the family's validity function VIOLATION without a
/// device. At namespace scope in the family's config.cpp, beside VIOLATION.
#define AUTOTUNE_INVALID_REASON(CONFIG, PROBLEM, VIOLATION) \
  std::string CONFIG::invalid_reason(const PROBLEM& problem) const { return VIOLATION(problem, *this, nullptr); }

/// The limits of the largest GPU the project targets (sm_90's opt-in 227 KiB of shared memory per block, 1024
/// threads, clusters and __reduce_*_sync): a configuration that violates them runs on no GPU.
inline DeviceInfo any_target_gpu() {
  DeviceInfo d;
  d.name = "any target GPU";
  d.cc_major = 9;
  d.shared_per_block_optin = 227 * 1024;
  d.max_threads_per_block = 1024;
  return d;
}

/// One axis of a group: the members of C it sets (one field, or several that vary together) and its rows of values,
/// in order.
template <class C, std::size_t N, class... T>
struct Axis {
  using config_type = C;
  std::tuple<T C::*...> members;
  std::array<std::tuple<T...>, N> rows;

  /// Sets the members to row `r`.
  constexpr void set(C& c, std::size_t r) const {
    [&]<std::size_t... I>(std::index_sequence<I...>) { ((c.*std::get<I>(members) = std::get<I>(rows[r])), ...); }
    (std::index_sequence_for<T...>{});
  }
};

/// One field and its values, in order: values(&ReduceConfig::block, {256, 512}).
template <class C, class T, std::size_t N>
constexpr Axis<C, N, T> values(T C::*member, const std::type_identity_t<T> (&v)[N]) {
  Axis<C, N, T> a{{member}, {}};
  for (std::size_t i = 0; i < N; ++i) a.rows[i] = std::tuple<T>(v[i]);
  return a;
}

/// One field at one value.
template <class C, class T>
constexpr Axis<C, 1, T> fixed(T C::*member, std::type_identity_t<T> v) {
  return Axis<C, 1, T>{{member}, {std::tuple<T>(v)}};
}

/// Several fields that vary together: fields(&C::a, &C::b).rows({{a0, b0}, {a1, b1}}) is one axis of two rows.
template <class C, class... T>
struct Fields {
  std::tuple<T C::*...> members;
  template <std::size_t N>
  constexpr Axis<C, N, T...> rows(const std::tuple<T...> (&r)[N]) const {
    Axis<C, N, T...> a{members, {}};
    for (std::size_t i = 0; i < N; ++i) a.rows[i] = r[i];
    return a;
  }
};
template <class C, class... T>
constexpr Fields<C, T...> fields(T C::*... members) {
  return Fields<C, T...>{{members...}};
}

/// The predicate of a group declared without one.
struct EveryProblem {
  constexpr bool operator()(const auto&) const { return true; }
};

/// A group: its axes, and the problems it applies to (`when`).
template <class When, class... A>
struct Group {
  When when;
  std::tuple<A...> axes;

  /// The same group for the problems where `w(problem)` holds only.
  template <class W>
  constexpr Group<W, A...> only_if(W w) const {
    return Group<W, A...>{w, axes};
  }
};

namespace expansion {

// Whether member pointers `a` and `b` name one member (only pointers of one type can).
template <class X, class Y>
constexpr bool same_member(X a, Y b) {
  if constexpr (std::is_same_v<X, Y>)
    return a == b;
  else
    return false;
}

template <class... A>
constexpr bool sets_a_field_twice(const A&... axes) {
  return std::apply(
      [](const auto&... m) {
        auto count = [&](const auto& x) { return (0 + ... + (same_member(x, m) ? 1 : 0)); };
        return ((count(m) > 1) || ...);
      },
      std::tuple_cat(axes.members...));
}

// Each candidate of the product of axes I.. with the earlier axes' values already in `c`, to `emit`.
template <std::size_t I, class C, class Axes, class Emit>
void product(const Axes& axes, C& c, Emit& emit) {
  if constexpr (I == std::tuple_size_v<Axes>) {
    emit(c);
  } else {
    const auto& axis = std::get<I>(axes);
    for (std::size_t r = 0; r < axis.rows.size(); ++r) {
      axis.set(c, r);
      product<I + 1>(axes, c, emit);
    }
  }
}

}  // namespace expansion

/// A group of axes that applies to every problem (only_if narrows it).
template <class A0, class... A>
constexpr Group<EveryProblem, A0, A...> group(A0 first, A... axes) {
  using C = typename A0::config_type;
  static_assert((std::is_same_v<typename A::config_type, C> && ...), "a group's axes set one configuration type");
  if (expansion::sets_a_field_twice(first, axes...)) throw std::logic_error("a group sets a field twice");
  return Group<EveryProblem, A0, A...>{{}, {first, axes...}};
}

/// A space: the validity function, the groups in order, and optionally the configuration it starts with and the
/// valid configurations it leaves out.
template <class P, class C, class... G>
struct Space {
  Violation<P, C> violation;
  std::tuple<G...> groups;
  C (*first)(const P&) = nullptr;                  ///< e.g. the fallback, so that the tuner always measures it
  bool (*left_out)(const P&, const C&) = nullptr;  ///< valid, but not worth measuring

  constexpr Space starting_with(C (*f)(const P&)) const {
    Space s = *this;
    s.first = f;
    return s;
  }
  constexpr Space leaving_out(bool (*f)(const P&, const C&)) const {
    Space s = *this;
    s.left_out = f;
    return s;
  }
};

namespace expansion {
template <class G>
constexpr std::tuple<G> as_groups(const G& g) {
  return std::tuple<G>{g};
}
template <class... G>
constexpr std::tuple<G...> as_groups(const std::tuple<G...>& groups) {
  return groups;
}
template <class P, class C, class... G>
constexpr Space<P, C, G...> space_of(Violation<P, C> violation, const std::tuple<G...>& groups) {
  return Space<P, C, G...>{violation, groups};
}
}  // namespace expansion

/// The space of `violation`'s family: `parts` are its groups in order, each a group or a std::tuple of groups.
template <class P, class C, class... Parts>
constexpr auto space(Violation<P, C> violation, const Parts&... parts) {
  return expansion::space_of(violation, std::tuple_cat(expansion::as_groups(parts)...));
}

/// The configurations of `s` for `problem`, in order, without duplicates (see the top of this file).
template <class P, class C, class... G>
std::vector<C> expand(const Space<P, C, G...>& s, const P& problem) {
  const DeviceInfo gpu = any_target_gpu();
  std::vector<C> out;
  auto add = [&](const C& c) {
    if (!s.violation(problem, c, &gpu).empty()) return;
    if (s.left_out && s.left_out(problem, c)) return;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  if (s.first) add(s.first(problem));
  std::apply(
      [&](const auto&... g) {
        auto one = [&](const auto& group) {
          if (!group.when(problem)) return;
          C c{};
          expansion::product<0>(group.axes, c, add);
        };
        (one(g), ...);
      },
      s.groups);
  return out;
}

/// Every configuration `space` returns for `problem` at some n: its space at n = 0, then what its space at the
/// largest n adds.
template <class P, class C>
std::vector<C> any_n(const P& problem, std::vector<C> (*space)(const P&)) {
  P small = problem, large = problem;
  small.n = 0;
  large.n = std::numeric_limits<std::uint64_t>::max();
  std::vector<C> all = space(small);
  for (const C& c : space(large))
    if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
  return all;
}

}  // namespace autotune::space_decl
