// Problems and configurations of any kernel family, as the family-independent code sees them.
//
// A family (a histogram, a reduction, ...) defines its own problem and configuration types: plain values with a
// canonical key. Problem and Config hold one of them, whatever the family, behind one interface: the tuner, the
// cache, the lookup order and the CLI work with these and ask the family (core/family.hpp, found by name in the
// registry) for everything else. Code of one family gets its concrete value back with as<T>().
//
// A family's problem type P provides: `static constexpr std::string_view kFamily` (the family's name, the first
// part of its keys), members `n` and `distribution`, and key(), shape_key(), bytes(), validate(), operator==; a
// `normalized()` member, if present, is applied on construction (equivalent spellings then share one key). A
// configuration type C provides kFamily, a `block` member (threads per block), key() and operator==.
//
// Values are immutable and cheap to copy (shared). Thread-safe to read from any thread.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>

namespace autotune {

class KernelFamily;  // core/family.hpp

namespace detail {

struct ProblemModel {
  virtual ~ProblemModel() = default;
  virtual const std::type_info& type() const noexcept = 0;
  virtual const void* get() const noexcept = 0;
  virtual std::string_view family_name() const noexcept = 0;
  virtual std::string key() const = 0;
  virtual std::string shape_key() const = 0;
  virtual std::uint64_t n() const = 0;
  virtual std::uint64_t bytes() const = 0;
  virtual const std::string& distribution() const = 0;
  virtual void validate() const = 0;
  virtual std::shared_ptr<const ProblemModel> with_n(std::uint64_t n) const = 0;
  virtual std::shared_ptr<const ProblemModel> with_distribution(const std::string& d) const = 0;
  virtual bool equals(const ProblemModel& other) const = 0;
};

template <class P>
struct ProblemModelOf final : ProblemModel {
  P value;
  explicit ProblemModelOf(P v) : value(std::move(v)) {}
  const std::type_info& type() const noexcept override { return typeid(P); }
  const void* get() const noexcept override { return &value; }
  std::string_view family_name() const noexcept override { return P::kFamily; }
  std::string key() const override { return value.key(); }
  std::string shape_key() const override { return value.shape_key(); }
  std::uint64_t n() const override { return value.n; }
  std::uint64_t bytes() const override { return value.bytes(); }
  const std::string& distribution() const override { return value.distribution; }
  void validate() const override { value.validate(); }
  std::shared_ptr<const ProblemModel> with_n(std::uint64_t n) const override {
    P p = value;
    p.n = n;
    return std::make_shared<ProblemModelOf>(std::move(p));
  }
  std::shared_ptr<const ProblemModel> with_distribution(const std::string& d) const override {
    P p = value;
    p.distribution = d;
    return std::make_shared<ProblemModelOf>(std::move(p));
  }
  bool equals(const ProblemModel& other) const override {
    return other.type() == typeid(P) && *static_cast<const P*>(other.get()) == value;
  }
};

struct ConfigModel {
  virtual ~ConfigModel() = default;
  virtual const std::type_info& type() const noexcept = 0;
  virtual const void* get() const noexcept = 0;
  virtual std::string_view family_name() const noexcept = 0;
  virtual std::string key() const = 0;
  virtual int block() const = 0;
  virtual bool equals(const ConfigModel& other) const = 0;
};

template <class C>
struct ConfigModelOf final : ConfigModel {
  C value;
  explicit ConfigModelOf(C v) : value(std::move(v)) {}
  const std::type_info& type() const noexcept override { return typeid(C); }
  const void* get() const noexcept override { return &value; }
  std::string_view family_name() const noexcept override { return C::kFamily; }
  std::string key() const override { return value.key(); }
  int block() const override { return value.block; }
  bool equals(const ConfigModel& other) const override {
    return other.type() == typeid(C) && *static_cast<const C*>(other.get()) == value;
  }
};

template <class P>
P normalized_problem(const P& p) {
  if constexpr (requires { p.normalized(); }) return p.normalized();
  else return p;
}

}  // namespace detail

template <class P>
concept FamilyProblem = requires(const P& p) {
  { P::kFamily } -> std::convertible_to<std::string_view>;
  { p.key() } -> std::convertible_to<std::string>;
  { p.shape_key() } -> std::convertible_to<std::string>;
  p.n;
  p.distribution;
};

template <class C>
concept FamilyConfig = requires(const C& c) {
  { C::kFamily } -> std::convertible_to<std::string_view>;
  { c.key() } -> std::convertible_to<std::string>;
  c.block;
};

/// A problem of any family. Made implicitly from a family's problem type; a default-constructed Problem is empty
/// (key() is "", family() throws).
class Problem {
 public:
  Problem() = default;
  template <FamilyProblem P>
  Problem(const P& p)  // NOLINT(google-explicit-constructor)
      : model_(std::make_shared<detail::ProblemModelOf<P>>(detail::normalized_problem(p))) {}

  bool empty() const { return !model_; }
  /// The family's name ("histogram", "reduce", ...): the first part of key().
  std::string_view family_name() const { return model_ ? model_->family_name() : std::string_view{}; }
  /// The family (core/family.hpp), from the registry. Throws UsageError when the family is not registered.
  const KernelFamily& family() const;
  /// The concrete problem, or nullptr when it is of another type.
  template <class P>
  const P* as() const {
    return model_ && model_->type() == typeid(P) ? static_cast<const P*>(model_->get()) : nullptr;
  }

  std::string key() const { return model_ ? model_->key() : std::string(); }
  /// The key without n: every size of one problem shares it ("nearest tuned size" lookups).
  std::string shape_key() const { return model_ ? model_->shape_key() : std::string(); }
  std::uint64_t n() const { return model_ ? model_->n() : 0; }
  /// Input bytes one call reads (what GB/s figures divide by).
  std::uint64_t bytes() const { return model_ ? model_->bytes() : 0; }
  /// Throws UsageError when the problem is not well formed (or empty).
  void validate() const;
  /// The same problem at another size.
  Problem with_n(std::uint64_t n) const { return Problem(model_->with_n(n)); }
  /// The same problem measured on another input distribution.
  Problem with_distribution(const std::string& distribution) const {
    return Problem(model_->with_distribution(distribution));
  }
  const std::string& distribution() const;

  /// Inverse of key() for every registered family (the first part of the key names it); nullopt for text that is
  /// not the canonical key of a valid problem. The cache keeps the key as the problem's source of truth.
  static std::optional<Problem> parse(std::string_view key);

  bool operator==(const Problem& o) const {
    return model_ == o.model_ || (model_ && o.model_ && model_->equals(*o.model_));
  }

 private:
  explicit Problem(std::shared_ptr<const detail::ProblemModel> m) : model_(std::move(m)) {}
  std::shared_ptr<const detail::ProblemModel> model_;
};

/// A configuration (variant) of any family. Made implicitly from a family's configuration type.
class Config {
 public:
  Config() = default;
  template <FamilyConfig C>
  Config(const C& c) : model_(std::make_shared<detail::ConfigModelOf<C>>(c)) {}  // NOLINT(google-explicit-constructor)

  bool empty() const { return !model_; }
  std::string_view family_name() const { return model_ ? model_->family_name() : std::string_view{}; }
  const KernelFamily& family() const;
  template <class C>
  const C* as() const {
    return model_ && model_->type() == typeid(C) ? static_cast<const C*>(model_->get()) : nullptr;
  }

  std::string key() const { return model_ ? model_->key() : std::string(); }
  /// Threads per block.
  int block() const { return model_ ? model_->block() : 0; }
  /// Dynamic shared memory for `problem` (of the same family), in bytes: a cost in the tuner's tie-break.
  std::size_t shared_bytes(const Problem& problem) const;
  /// Operations one call puts on the stream (a memset or a second kernel count): the first cost in the tie-break.
  int launches() const;

  /// Inverse of key() for the family named `family`; nullopt when the text is not a configuration of it (or the
  /// family is not registered).
  static std::optional<Config> parse(std::string_view family, std::string_view key);
  /// The family's built-in default for a problem.
  static Config fallback(const Problem& problem);

  bool operator==(const Config& o) const {
    return model_ == o.model_ || (model_ && o.model_ && model_->equals(*o.model_));
  }

 private:
  std::shared_ptr<const detail::ConfigModel> model_;
};

/// The CUDA source of one variant; the families of problem and config must agree (UsageError otherwise).
std::string kernel_source(const Problem& problem, const Config& config);
/// The source the tuner compiles and times for `problem`: kernel_source() without the entry points a call of this
/// problem never runs (the histogram families' 2D entry, for a problem of one row), so compiling the space costs
/// less. What the cache stores and a handle loads is always kernel_source()'s.
std::string tuning_source(const Problem& problem, const Config& config);

/// The distribution name under which `autotune tune --dists D1,D2,...` records the robust winner of a problem:
/// the configuration with the least worst-case slowdown across those distributions (tuner/robust.hpp). A valid
/// problem key and lookup hint, but not an input: it cannot be generated or tuned directly.
inline constexpr const char* kRobustDistribution = "robust";
/// What `autotune tune` measures on unless told otherwise; every family can generate it.
inline constexpr const char* kDefaultDistribution = "uniform";

/// Parses sizes such as "64M", "1G", "4096", "1.5K" (K = 1024). Throws UsageError on anything else.
std::uint64_t parse_size(std::string_view text);

}  // namespace autotune
