// Kernel families and the family-independent views of a problem and a configuration.
//
// The tuner, the cache, the CLI and the lookup order work the same for every family; they hold a Problem (a
// HistogramProblem or a ReduceProblem) and Configs (HistogramConfig or ReduceConfig) and ask them for their keys.
// Family-specific code asks for the concrete value with histogram() / reduce().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "autotune/config.hpp"
#include "autotune/problem.hpp"
#include "autotune/reduction.hpp"

namespace autotune {

enum class Family { histogram, reduce };
std::string_view to_string(Family f);
std::optional<Family> parse_family(std::string_view text);

/// A problem of any family. Implicitly made from a HistogramProblem or a ReduceProblem.
class Problem {
 public:
  Problem() = default;
  Problem(const HistogramProblem& p) : value_(p) {}       // NOLINT(google-explicit-constructor)
  Problem(const ReduceProblem& p) : value_(p.normalized()) {}  // NOLINT(google-explicit-constructor)

  Family family() const { return value_.index() == 0 ? Family::histogram : Family::reduce; }
  /// The concrete problem, or nullptr when the family differs.
  const HistogramProblem* histogram() const { return std::get_if<HistogramProblem>(&value_); }
  const ReduceProblem* reduce() const { return std::get_if<ReduceProblem>(&value_); }

  std::string key() const;
  std::string shape_key() const;
  std::uint64_t n() const;
  std::uint64_t bytes() const;
  void validate() const;
  /// The same problem at another size.
  Problem with_n(std::uint64_t n) const;
  /// The same problem measured on another input distribution.
  Problem with_distribution(const std::string& distribution) const;
  const std::string& distribution() const;

  /// Inverse of key() for every family (the cache keeps the key as the problem's source of truth).
  static std::optional<Problem> parse(std::string_view key);

  bool operator==(const Problem&) const = default;

 private:
  std::variant<HistogramProblem, ReduceProblem> value_;
};

/// A configuration of any family. Implicitly made from a HistogramConfig or a ReduceConfig.
class Config {
 public:
  Config() = default;
  Config(const HistogramConfig& c) : value_(c) {}  // NOLINT(google-explicit-constructor)
  Config(const ReduceConfig& c) : value_(c) {}     // NOLINT(google-explicit-constructor)

  Family family() const { return value_.index() == 0 ? Family::histogram : Family::reduce; }
  const HistogramConfig* histogram() const { return std::get_if<HistogramConfig>(&value_); }
  const ReduceConfig* reduce() const { return std::get_if<ReduceConfig>(&value_); }

  std::string key() const;
  /// Threads per block.
  int block() const;
  /// Dynamic shared memory for `problem` (of the same family), in bytes: a cost in the tuner's tie-break.
  std::size_t shared_bytes(const Problem& problem) const;
  /// Operations one call puts on the stream (a memset or a second kernel count): the first cost in the tie-break.
  int launches() const;

  /// Inverse of key() for a family; nullopt when the text is not a configuration of it.
  static std::optional<Config> parse(Family family, std::string_view key);
  /// The built-in default for a problem (HistogramConfig::fallback / ReduceConfig::fallback).
  static Config fallback(const Problem& problem);

  bool operator==(const Config&) const = default;

 private:
  std::variant<HistogramConfig, ReduceConfig> value_;
};

/// The CUDA source of one variant; the families of problem and config must agree (UsageError otherwise).
std::string kernel_source(const Problem& problem, const Config& config);
/// The kernel entry point of a family's variants.
const char* kernel_name(Family family);

}  // namespace autotune
