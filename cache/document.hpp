// The export document as untrusted input (cache/document.cpp): reading it with bounds (size, nesting) and checking
// every invariant of cache/schema.sql before transfer.cpp writes a row. Internal to cache/, not installed.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/cache.hpp"

namespace autotune::cache_detail {

// ordered_json keeps the keys in the order written, so the document reads in a natural order (format first).
using Json = nlohmann::ordered_json;

inline constexpr const char* kFormat = "autotune-cache";
inline constexpr int kFormatVersion = 2;

// Limits of an imported document (and ImportOptions::max_document_bytes, 1 GiB of JSON text), checked before anything is written. Generous for real caches (a tuning run has
// a few hundred measurements, a cubin a few hundred KB) and small enough that a hostile document cannot exhaust the
// importing machine: parsing keeps the whole document in memory (about 4 bytes per byte of JSON).
inline constexpr int kMaxDepth = 64;                 ///< nesting of arrays and objects (an export uses 6)
/// Nesting of a run's settings object that a document can carry: it lies 3 levels down (document, runs, run), so
/// an object of up to kMaxDepth - 3 levels, itself included. Export embeds settings up to this depth as an object
/// (deeper ones stay text, which import refuses); it must not be less than what import accepts, or an accepted
/// document would export into one that cannot be imported again.
inline constexpr int kMaxSettingsDepth = kMaxDepth - 3;
inline constexpr std::size_t kMaxRows = 1'000'000;   ///< elements of any one array
inline constexpr std::size_t kMaxText = 4096;        ///< bytes of a key, name, time or other short text
inline constexpr std::size_t kMaxLog = 1 << 20;      ///< bytes of a measurement's log
inline constexpr std::size_t kMaxCubin = 64 << 20;   ///< bytes of a decoded cubin
/// How far in the future a document's timestamps may lie: clocks of two machines disagree a little, but a result
/// dated later than that would win every later import (the newer winner wins).
inline constexpr std::int64_t kMaxClockSkewMs = 3'600'000;  ///< one hour

std::string base64_encode(const char* data, std::size_t size);
std::optional<std::vector<char>> base64_decode(std::string_view text);

/// Parses JSON text, refusing documents nested deeper than `max_depth` without building them; nullopt when the
/// text is not JSON or too deep. For values stored in the cache (a run's settings) that export re-reads.
std::optional<Json> parse_bounded(std::string_view text, int max_depth = kMaxDepth);

/// Reads one JSON document from `in`: at most `max_bytes` (a longer input is refused after reading one byte more),
/// nesting at most kMaxDepth. CacheError "cannot import SOURCE: ..." otherwise. `source` is quoted already.
Json read_document(std::istream& in, const std::string& source, std::uint64_t max_bytes);

/// Checks every invariant of an export document (see Cache::import_json); throws CacheError naming `source` and
/// the first offending item ("runs[3].measurements[0].median_ms is negative"). Writes nothing.
void validate_document(const Json& doc, const std::string& source);

/// Typed access to one object of a document, with errors that say where: "runs[3].measurements[0].status".
class Fields {
 public:
  Fields(const Json& j, std::string where, const std::string& source);
  [[noreturn]] void fail(std::string_view key, std::string_view what) const;
  const Json& get(const char* key) const;
  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  std::string text(const char* key, std::size_t max = kMaxText) const;
  std::optional<std::string> opt_text(const char* key, std::size_t max = kMaxText) const;
  std::int64_t integer(const char* key) const;
  std::optional<std::int64_t> opt_integer(const char* key) const;
  /// An integer in [lo, hi].
  std::int64_t integer(const char* key, std::int64_t lo, std::int64_t hi) const;
  double number(const char* key) const;
  std::optional<double> opt_number(const char* key) const;
  /// A finite number >= lo (and > lo when `strict`).
  double number_at_least(const char* key, double lo, bool strict = false) const;
  const Json& array(const char* key) const;
  /// A timestamp as stored ("2026-11-29T16:20:00.123Z"), not later than now + kMaxClockSkewMs.
  std::string time(const char* key) const;
  const std::string& where() const { return where_; }

 private:
  const Json& j_;
  std::string where_;
  const std::string& source_;
};

}  // namespace autotune::cache_detail
