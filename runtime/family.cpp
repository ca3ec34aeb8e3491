#include "autotune/family.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <map>
#include <vector>

#include "autotune/error.hpp"

namespace autotune {

std::string_view to_string(Family f) { return f == Family::histogram ? "histogram" : "reduce"; }

std::optional<Family> parse_family(std::string_view text) {
  if (text == "histogram") return Family::histogram;
  if (text == "reduce") return Family::reduce;
  return std::nullopt;
}

// --- Problem ------------------------------------------------------------------------------------------------------

std::string Problem::key() const {
  return std::visit([](const auto& p) { return p.key(); }, value_);
}
std::string Problem::shape_key() const {
  return std::visit([](const auto& p) { return p.shape_key(); }, value_);
}
std::uint64_t Problem::n() const {
  return std::visit([](const auto& p) { return p.n; }, value_);
}
std::uint64_t Problem::bytes() const {
  return std::visit([](const auto& p) { return p.bytes(); }, value_);
}
void Problem::validate() const {
  std::visit([](const auto& p) { p.validate(); }, value_);
}
const std::string& Problem::distribution() const {
  return std::visit([](const auto& p) -> const std::string& { return p.distribution; }, value_);
}
Problem Problem::with_n(std::uint64_t n) const {
  return std::visit([n](auto p) { p.n = n; return Problem(p); }, value_);
}
Problem Problem::with_distribution(const std::string& distribution) const {
  return std::visit([&](auto p) { p.distribution = distribution; return Problem(p); }, value_);
}

namespace {

// "name=value" parts of a key after its fixed leading parts; nullopt when a part has no '='.
std::optional<std::map<std::string, std::string, std::less<>>> named_parts(const std::vector<std::string_view>& parts,
                                                                          std::size_t from) {
  std::map<std::string, std::string, std::less<>> out;
  for (std::size_t i = from; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    out.emplace(std::string(parts[i].substr(0, eq)), std::string(parts[i].substr(eq + 1)));
  }
  return out;
}

std::optional<std::uint64_t> to_u64(std::string_view s) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> to_double(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<Problem> parse_histogram_key(const std::vector<std::string_view>& parts) {
  if (parts.size() < 6) return std::nullopt;
  HistogramProblem p;
  const auto type = parse_sample_type(parts[1]);
  if (!type) return std::nullopt;
  p.type = *type;
  auto named = named_parts(parts, 2);
  if (!named) return std::nullopt;
  auto take = [&](std::string_view name) -> std::optional<std::string> {
    const auto it = named->find(name);
    if (it == named->end()) return std::nullopt;
    std::string v = it->second;
    named->erase(it);
    return v;
  };
  const auto bins = take("bins"), range = take("range"), n = take("n"), dist = take("dist");
  const auto counters = take("counters");
  if (!bins || !range || !n || !dist || !named->empty()) return std::nullopt;
  const auto b = to_u64(*bins);
  const auto nn = to_u64(*n);
  if (!b || !nn || *b > (1u << 24) || range->size() < 5 || range->front() != '[' || range->back() != ')')
    return std::nullopt;
  const auto comma = range->find(',');
  if (comma == std::string::npos) return std::nullopt;
  const auto lo = to_double(range->substr(1, comma - 1));
  const auto hi = to_double(range->substr(comma + 1, range->size() - comma - 2));
  if (!lo || !hi) return std::nullopt;
  p.bins = static_cast<int>(*b);
  p.lower = *lo;
  p.upper = *hi;
  p.n = *nn;
  p.distribution = *dist;
  if (counters) {
    if (*counters != "64") return std::nullopt;
    p.counter_bits = 64;
  }
  return Problem(p);
}

std::optional<Problem> parse_reduce_key(const std::vector<std::string_view>& parts) {
  if (parts.size() < 6) return std::nullopt;
  ReduceProblem p;
  const auto op = parse_reduce_op(parts[1]);
  const auto type = parse_value_type(parts[2]);
  if (!op || !type) return std::nullopt;
  p.op = *op;
  p.type = *type;
  auto named = named_parts(parts, 3);
  if (!named) return std::nullopt;
  for (const auto& [name, value] : *named) {
    if (name == "acc") {
      const auto acc = parse_value_type(value);
      if (!acc) return std::nullopt;
      p.accumulator = *acc;
    } else if (name == "n") {
      const auto n = to_u64(value);
      if (!n) return std::nullopt;
      p.n = *n;
    } else if (name == "dist") {
      p.distribution = value;
    } else if (name == "mode") {
      if (value != "fast" && value != "deterministic") return std::nullopt;
      p.deterministic = value == "deterministic";
    } else {
      return std::nullopt;
    }
  }
  return Problem(p);
}

}  // namespace

std::optional<Problem> Problem::parse(std::string_view key) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto slash = key.find('/', start);
    parts.push_back(key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::optional<Problem> p;
  if (parts[0] == "histogram") p = parse_histogram_key(parts);
  if (parts[0] == "reduce") p = parse_reduce_key(parts);
  // The key is canonical: anything that does not print back to the same text is not a key.
  try {
    if (p && p->key() == key) {
      p->validate();
      return p;
    }
  } catch (const UsageError&) {
  }
  return std::nullopt;
}

// --- Config -------------------------------------------------------------------------------------------------------

std::string Config::key() const {
  return std::visit([](const auto& c) { return c.key(); }, value_);
}
int Config::block() const {
  return std::visit([](const auto& c) { return c.block; }, value_);
}

namespace {
[[noreturn]] void family_mismatch(const Config& c, const Problem& p) {
  throw UsageError(fmt::format("configuration {} ({}) does not belong to problem {} ({})", c.key(),
                               to_string(c.family()), p.key(), to_string(p.family())));
}
}  // namespace

int Config::launches() const {
  if (const auto* c = histogram()) return c->merge == Merge::atomic ? 2 : 1;  // memset + kernel, or one kernel
  return reduce()->finish == Finish::last_block ? 1 : 2;  // atomic: memset + kernel; two_pass: two kernels
}

std::size_t Config::shared_bytes(const Problem& problem) const {
  if (const auto* c = histogram(); c && problem.histogram()) return c->shared_bytes(*problem.histogram());
  if (const auto* c = reduce(); c && problem.reduce()) return c->shared_bytes(*problem.reduce());
  family_mismatch(*this, problem);
}

std::optional<Config> Config::parse(Family family, std::string_view key) {
  if (family == Family::histogram) {
    if (auto c = HistogramConfig::parse(key)) return Config(*c);
  } else if (auto c = ReduceConfig::parse(key)) {
    return Config(*c);
  }
  return std::nullopt;
}

Config Config::fallback(const Problem& problem) {
  if (const auto* p = problem.histogram()) return HistogramConfig::fallback(*p);
  return ReduceConfig::fallback(*problem.reduce());
}

std::string kernel_source(const Problem& problem, const Config& config) {
  if (problem.histogram() && config.histogram()) return kernel_source(*problem.histogram(), *config.histogram());
  if (problem.reduce() && config.reduce()) return kernel_source(*problem.reduce(), *config.reduce());
  family_mismatch(config, problem);
}

const char* kernel_name(Family family) {
  return family == Family::histogram ? kHistogramKernelName : kReduceKernelName;
}

}  // namespace autotune
