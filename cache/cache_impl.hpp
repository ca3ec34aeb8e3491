// Internals of the SQLite cache shared by cache/*.cpp: the connection with its checks (cache.cpp), the schema
// upgrade (migrate.cpp) and export / import / merge (transfer.cpp). Not installed, not part of the API.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "core/family.hpp"
#include "core/key_parameters.hpp"
#include "embedded.hpp"


namespace autotune::cache_detail {

inline constexpr int kSchemaVersion = 6;
/// PRAGMA application_id of every file autotune creates or migrates (schema 5): "auto" in ASCII. A file with
/// another non-zero application_id belongs to another program and is refused before anything is written.
inline constexpr std::int32_t kApplicationId = 0x6175746f;
inline constexpr const char* kMemory = ":memory:";
/// How long a writer waits for the write lock in all before failing (Cache's constructor says how): 60 s.
inline constexpr int kBusyTimeoutMs = 60'000;
/// Tables every autotune cache has had since schema 1; check_readable refuses a file that lacks one.
inline constexpr const char* kV1Tables[] = {"devices", "problems", "runs", "measurements", "winners"};

/// Stores a winner (finish_run, import): one row per device model and problem, bound in this column order.
inline constexpr const char* kUpsertWinner =
    "INSERT INTO winners (device_id, problem_id, run_id, config, median_ms, gbps, arch, cubin, tuned_at,"
    " cubin_sha256, source_sha256, nvrtc_options, nvrtc_version, origin)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (device_id, problem_id) DO UPDATE SET run_id = excluded.run_id, config = excluded.config,"
    " median_ms = excluded.median_ms, gbps = excluded.gbps, arch = excluded.arch, cubin = excluded.cubin,"
    " tuned_at = excluded.tuned_at, cubin_sha256 = excluded.cubin_sha256, source_sha256 = excluded.source_sha256,"
    " nvrtc_options = excluded.nvrtc_options, nvrtc_version = excluded.nvrtc_version, origin = excluded.origin";

/// Now, as stored: "2026-11-29T16:20:00.123Z".
std::string utc_now();
/// Milliseconds since the epoch <-> that form. parse also reads schema 1's "2026-11-29T16:20:00Z".
std::string format_utc_ms(std::int64_t ms);
std::optional<std::int64_t> parse_utc_ms(std::string_view text);

/// SQLite integers are signed 64-bit; refuse rather than store a wrapped value.
std::int64_t to_i64(std::uint64_t v, const std::string& path, const char* what);

/// Binds a blob, refusing sizes SQLite's int cannot hold (CacheError naming `path`).
void bind_blob(SQLite::Statement& q, int index, const void* data, std::size_t size, const std::string& path);

/// quick_check and some errors span lines: keep messages on one line.
std::string one_line(std::string text);

/// Opens an existing cache file for reading without writing anything, side files included (read_only.cpp).
SQLite::Database open_file_read_only(const std::string& path);
/// Why the file at `path` is damaged in a way SQLite's quick_check does not see (a size that is not a whole number
/// of pages: cut short), or "" (cache.cpp).
std::string cut_short(const std::string& path);
/// Whether `path` holds an export document (JSON) rather than an SQLite file (read_only.cpp).
bool is_document(const std::string& path);

/// The problem a row of table problems holds (cache.cpp): its key read by Problem::parse, or, for a key this build
/// spells otherwise (a schema-1 key the migration could not respell: another row has the respelled key), read by
/// its family's parse_problem as written; nullopt when the family is unknown or the key does not read.
std::optional<Problem> read_problem(std::string_view family, const std::string& key);
/// The parameters a row of table problems stores (cache.cpp): key_parameters() of its key, positional parts named
/// by its family or, for a family this build does not know, "part1", "part2", ...; none for a key the derivation
/// refuses (never written by autotune: the audit reports it).
std::vector<KeyParameter> row_parameters(std::string_view family, std::string_view key);
/// Replaces the parameters of problem `problem_id` in table problem_parameters. Call inside a transaction.
void write_parameters(SQLite::Database& db, std::int64_t problem_id, const std::vector<KeyParameter>& parameters);

/// Runs f, turning SQLite's exceptions into CacheError that names the file and the operation.
template <class F>
auto guarded(const std::string& path, std::string_view action, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const SQLite::Exception& e) {
    throw CacheError(fmt::format("cache file '{}': cannot {} ({})", path, action, one_line(e.what())));
  }
}

}  // namespace autotune::cache_detail

namespace autotune {

struct Cache::Impl {
  std::string path;  ///< as given, for messages
  SQLite::Database db;

  Impl(std::string p, SQLite::Database d) : path(std::move(p)), db(std::move(d)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() { statements.clear(); }  // before db closes

  /// A statement of `sql` prepared once per connection, reset when the returned guard ends (a statement left
  /// stepping would keep its read transaction open). For the queries a lookup runs several times: parsing the SQL
  /// costs as much as running it on a small file. The guard is used by one caller at a time (a Cache is not shared
  /// between threads).
  class Prepared {
   public:
    explicit Prepared(SQLite::Statement& q) : q_(q) {}
    Prepared(const Prepared&) = delete;
    Prepared& operator=(const Prepared&) = delete;
    ~Prepared() { q_.tryReset(); }
    SQLite::Statement& operator*() const { return q_; }
    SQLite::Statement* operator->() const { return &q_; }

   private:
    SQLite::Statement& q_;
  };
  Prepared prepared(const std::string& sql) const {
    auto& slot = statements[sql];
    if (!slot) slot = std::make_unique<SQLite::Statement>(db, sql);
    slot->reset();
    slot->clearBindings();
    return Prepared(*slot);
  }

  [[noreturn]] void fail(std::string_view what) const {
    throw CacheError(fmt::format("cache file '{}' {}", path, what));
  }

  /// First column of the first row of a query that always returns one (a count or a pragma).
  std::int64_t query_int(const char* sql) const {
    SQLite::Statement q(db, sql);
    q.executeStep();
    return q.getColumn(0).getInt64();
  }
  int user_version() const { return static_cast<int>(query_int("PRAGMA user_version")); }

  /// Read-only checks before anything is written (cache.cpp): CacheError for a foreign, newer or damaged file
  /// (damage as far as `check` looks; writers look at every page).
  void check_readable(ReadCheck check = ReadCheck::pages);
  /// Creates the schema in an empty file, or migrates an older one, in one transaction (migrate.cpp).
  void upgrade();
  /// For a file older than schema 5 (no application_id): CacheError unless a copy in memory migrates to exactly the
  /// tables and columns of a new file (migrate.cpp). Read-only.
  void check_migrates_to_our_shape();
  /// CacheError unless every table a new file has exists here with the same columns (migrate.cpp).
  void check_shape() const;

  /// Inserts the device row or updates its per-card columns; returns its id (cache.cpp).
  std::int64_t upsert_device(const DeviceInfo& device);
  /// Inserts the problem row if new and writes its parameters; returns its id (cache.cpp). In a transaction.
  std::int64_t upsert_problem(const Problem& problem);
  /// Inserts or replaces (same run and configuration) a measurement row; roof_gbps 0 = unknown. In a transaction.
  void put_measurement(std::int64_t run_id, const Measurement& m, double roof_gbps);
  /// Config::parse, or CacheError naming the file and `where`.
  Config parse_config(std::string_view family, const std::string& text, std::string_view where) const;
  /// One row of the winners query in cache.cpp.
  Winner read_winner(SQLite::Statement& q) const;

 private:
  mutable std::map<std::string, std::unique_ptr<SQLite::Statement>, std::less<>> statements;  ///< prepared()
};

}  // namespace autotune
