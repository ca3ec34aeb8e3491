// A KernelFamily (core/family.hpp) written in the family's own problem and configuration types. TypedFamily holds
// what every family would otherwise spell the same way: its name from the problem type, the casts from the
// type-erased Problem and Config, the split of a problem key into its parts, and the members that only forward to the
// typed functions of the family's folder (configuration parsing, the fallback, shared memory, the validity checks,
// the kernel source, the workload). A family derives from it and writes what is its own: the fields of its keys,
// columns, distances, defaults, options.
//
// Thread-safety: as KernelFamily; TypedFamily holds nothing but the function pointers it was made with.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/error.hpp"
#include "core/family.hpp"
#include "core/key_text.hpp"
#include "core/space_decl.hpp"

namespace autotune {

/// The typed functions of a family's folder that TypedFamily forwards to.
template <class P, class C>
struct TypedFamilyFunctions {
  /// How messages name the family's problems and configurations, with the article: "a reduction" for
  /// "'KEY' is not a reduction problem".
  std::string_view noun;
  /// The complete CUDA source of a variant (the family's kernel_source(problem, config)).
  std::string (*kernel_source)(const P& problem, const C& config) = nullptr;
  /// The family's one validity function (core/space_decl.hpp): why `config` cannot run `problem` (its own rules,
  /// then, with a device, the device's limits); empty when it can.
  space_decl::Violation<P, C> violation = nullptr;
  /// The configurations the tuner measures for a problem (the family's declared space).
  std::vector<C> (*space)(const P& problem) = nullptr;
};

/// The problem made ready on the current GPU for the tuner: defined in core/typed_workload.hpp, instantiated by the
/// family's workload.cpp (AUTOTUNE_TYPED_WORKLOAD), the one file that knows its workload's type.
template <class P>
std::unique_ptr<Workload> make_typed_workload(const P& problem, const DeviceInfo& device, std::uint64_t seed);

/// P: the family's problem type (P::kFamily names it); C: its configuration type, with C::parse(key),
/// C::fallback(problem) and config.shared_bytes(problem).
template <class P, class C>
class TypedFamily : public KernelFamily {
 public:
  using problem_type = P;

  explicit TypedFamily(const TypedFamilyFunctions<P, C>& functions) : functions_(functions) {}

  std::string_view name() const override { return P::kFamily; }

  // The key's parts (key_text::problem_parts) go to parse_key once the first names the family.
  std::optional<Problem> parse_problem(std::string_view key) const final {
    const std::vector<std::string_view> parts = key_text::problem_parts(key);
    if (parts.empty() || parts[0] != name()) return std::nullopt;
    if (std::optional<P> p = parse_key(parts, true)) return Problem(*p);
    return std::nullopt;
  }
  std::optional<Problem> parse_stored_key(std::string_view key) const final {
    const std::vector<std::string_view> parts = key_text::problem_parts(key);
    if (parts.empty() || parts[0] != name()) return std::nullopt;
    if (std::optional<P> p = parse_key(parts, false)) return Problem(*p);
    return std::nullopt;
  }

  std::optional<Config> parse_config(std::string_view key) const override {
    if (auto c = C::parse(key)) return Config(*c);
    return std::nullopt;
  }
  Config fallback(const Problem& problem) const override { return C::fallback(problem_of(problem)); }
  std::size_t shared_bytes(const Problem& problem, const Config& config) const override {
    return config_of(config).shared_bytes(problem_of(problem));
  }
  // Without a device, the configuration's own rules alone.
  std::string violation(const Problem& problem, const Config& config, const DeviceInfo* device) const override {
    return functions_.violation(problem_of(problem), config_of(config), device);
  }
  // Configurations with a load_cs flag (evict-first 16-byte input loads: histogram, reduce) take either value where
  // the family's validity function allows it.
  std::optional<Config> with_evict_first(const Problem& problem, const Config& config, bool evict_first,
                                         const DeviceInfo* device) const override {
    if constexpr (requires(C c) { c.load_cs = true; }) {
      C c = config_of(config);
      c.load_cs = evict_first;
      if (functions_.violation(problem_of(problem), c, device).empty()) return Config(c);
    }
    return std::nullopt;
  }
  std::string kernel_source(const Problem& problem, const Config& config) const override {
    return functions_.kernel_source(problem_of(problem), config_of(config));
  }
  std::vector<Config> space(const Problem& problem) const override {
    if (!functions_.space) return {};
    const std::vector<C> configs = functions_.space(problem_of(problem));
    return {configs.begin(), configs.end()};
  }
  std::unique_ptr<Workload> make_workload(const Problem& problem, const DeviceInfo& device,
                                          std::uint64_t seed) const override {
    return make_typed_workload(problem_of(problem), device, seed);
  }

 protected:
  /// The problem a key spells, from its parts (parts[0] is the family's name), or nullopt; `canonical`: only the
  /// spelling key() prints (problem_key::parse), else any spelling of the parts' values (parse_stored_key).
  virtual std::optional<P> parse_key(const std::vector<std::string_view>& parts, bool canonical) const = 0;

  /// `shape` at each of `sizes`, in order (its n set to each): the default or preset problems of one shape.
  static std::vector<Problem> at_sizes(P shape, std::span<const std::uint64_t> sizes) {
    std::vector<Problem> out;
    for (std::uint64_t n : sizes) {
      shape.n = n;
      out.push_back(Problem(shape));
    }
    return out;
  }
  /// `shape` with each of `ops` and each of `types` (P's members op and type), each at `sizes`: a preset of
  /// operations over element types.
  template <class Op, class T>
  static std::vector<Problem> ops_and_types(P shape, std::initializer_list<Op> ops, std::initializer_list<T> types,
                                            std::span<const std::uint64_t> sizes) {
    std::vector<Problem> out;
    for (Op op : ops)
      for (T type : types) {
        shape.op = op, shape.type = type;
        append(out, at_sizes(shape, sizes));
      }
    return out;
  }
  /// The texts one after another: a family's code_text() from its embedded files, in the order its identity hashes.
  static std::string joined(std::initializer_list<std::string_view> texts) {
    std::string out;
    for (std::string_view t : texts) out += t;
    return out;
  }
  /// Appends `more` to `out`.
  static void append(std::vector<Problem>& out, const std::vector<Problem>& more) {
    out.insert(out.end(), more.begin(), more.end());
  }

  /// The family's problem inside `problem`; UsageError when it holds another family's.
  const P& problem_of(const Problem& problem) const {
    const P* p = problem.as<P>();
    if (!p) throw UsageError(fmt::format("'{}' is not {} problem", problem.key(), functions_.noun));
    return *p;
  }
  /// The family's configuration inside `config`; UsageError when it holds another family's.
  const C& config_of(const Config& config) const {
    const C* c = config.as<C>();
    if (!c) throw UsageError(fmt::format("'{}' is not {} configuration", config.key(), functions_.noun));
    return *c;
  }

 private:
  TypedFamilyFunctions<P, C> functions_;
};

}  // namespace autotune
