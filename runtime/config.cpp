#include "autotune/config.hpp"

#include <fmt/format.h>

#include <charconv>
#include <map>

namespace autotune {

std::string_view to_string(Privatization p) { return p == Privatization::global ? "global" : "shared"; }
std::string_view to_string(Partitioning p) { return p == Partitioning::interleaved ? "interleaved" : "contiguous"; }

std::string HistogramConfig::key() const {
  return fmt::format("priv={},block={},ipt={},agg={},part={}", to_string(privatization), block, items_per_thread,
                     aggregation ? 1 : 0, to_string(partitioning));
}

namespace {

std::optional<int> to_int(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<HistogramConfig> HistogramConfig::parse(std::string_view key) {
  std::map<std::string, std::string, std::less<>> fields;
  while (!key.empty()) {
    const auto comma = key.find(',');
    const auto item = key.substr(0, comma);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    if (!fields.emplace(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1))).second) return std::nullopt;
    key = comma == std::string_view::npos ? std::string_view{} : key.substr(comma + 1);
  }
  if (fields.size() != 5) return std::nullopt;
  HistogramConfig c;
  auto get = [&](const char* name) -> const std::string* {
    auto it = fields.find(name);
    return it == fields.end() ? nullptr : &it->second;
  };
  const auto *priv = get("priv"), *block = get("block"), *ipt = get("ipt"), *agg = get("agg"), *part = get("part");
  if (!priv || !block || !ipt || !agg || !part) return std::nullopt;
  if (*priv == "global") c.privatization = Privatization::global;
  else if (*priv == "shared") c.privatization = Privatization::shared;
  else return std::nullopt;
  if (*part == "interleaved") c.partitioning = Partitioning::interleaved;
  else if (*part == "contiguous") c.partitioning = Partitioning::contiguous;
  else return std::nullopt;
  if (*agg == "0") c.aggregation = false;
  else if (*agg == "1") c.aggregation = true;
  else return std::nullopt;
  const auto b = to_int(*block), i = to_int(*ipt);
  if (!b || !i || *b < 1 || *i < 1) return std::nullopt;
  c.block = *b;
  c.items_per_thread = *i;
  return c;
}

std::size_t HistogramConfig::shared_bytes(const HistogramProblem& problem) const {
  return privatization == Privatization::shared ? static_cast<std::size_t>(problem.bins) * sizeof(unsigned) : 0;
}

HistogramConfig HistogramConfig::fallback(const HistogramProblem& problem) {
  // 48 KiB is the static shared-memory limit on every architecture we target: above it only global atomics are safe.
  HistogramConfig c;
  c.privatization = problem.bins * sizeof(unsigned) <= 48 * 1024 ? Privatization::shared : Privatization::global;
  c.block = 256;
  c.items_per_thread = 4;
  c.aggregation = false;
  c.partitioning = Partitioning::interleaved;
  return c;
}

}  // namespace autotune
