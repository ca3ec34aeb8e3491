// Schema upgrades. A new file gets cache/schema.sql; a file of an older version gets the ordered steps below, each
// ending with its user_version bump, then the current views. Everything happens in one IMMEDIATE transaction, so
// a file is either at its old version or at the current one (never at an intermediate version without views),
// and a failed step leaves it as it was. The steps must produce what schema.sql creates: the same columns in the
// same order, the same indexes (tests/cpu/test_cache_migration.cpp compares a migrated file with a new one).
//
// To add version N + 1: append the columns at the end of their tables in schema.sql, bump kSchemaVersion in
// cache_impl.hpp, add a step {N, vN_to_vN1} below, and keep a golden file of version N in tests/data.
#include <SQLiteCpp/Backup.h>
#include <fmt/format.h>

#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cache/cache_impl.hpp"

namespace autotune {

using namespace cache_detail;

namespace {

// Everything in schema.sql after this line is the CREATE VIEW statements, which every migration re-creates.
constexpr std::string_view kViewsMarker = "-- @views";

std::string_view views_section() {
  const std::string_view schema = embedded::cache_schema;
  const auto at = schema.find(kViewsMarker);
  return at == std::string_view::npos ? std::string_view{} : schema.substr(at);
}

// Names of the views the section creates ("CREATE VIEW name AS").
std::vector<std::string> view_names(std::string_view section) {
  std::vector<std::string> names;
  constexpr std::string_view create = "CREATE VIEW ";
  for (auto at = section.find(create); at != std::string_view::npos; at = section.find(create, at + 1)) {
    const auto begin = at + create.size();
    const auto end = section.find_first_of(" \n(", begin);
    names.emplace_back(section.substr(begin, end - begin));
  }
  return names;
}

// Schema 1 wrote times with second resolution; schema 2 writes milliseconds so that runs started in the same
// second get distinct natural keys.
constexpr const char* kSecondsGlob =
    "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'";

// Gives every run a distinct natural key (device, problem, started_at, tool_version, strategy) before the unique
// index is created. Schema 1 allowed duplicates: two tuners on two cards of one model starting in the same second.
// Later duplicates (by id) move a millisecond on rather than being deleted, so no measurement is lost, and the
// result depends only on the file, so two copies of one file migrate to the same keys.
void give_runs_distinct_keys(SQLite::Database& db) {
  using Key = std::tuple<std::int64_t, std::int64_t, std::string, std::string, std::string>;
  std::set<Key> taken;
  std::vector<std::pair<std::int64_t, std::string>> moved;
  SQLite::Statement q(db, "SELECT id, device_id, problem_id, started_at, tool_version, strategy FROM runs ORDER BY id");
  while (q.executeStep()) {
    Key key{q.getColumn(1).getInt64(), q.getColumn(2).getInt64(), q.getColumn(3).getString(),
            q.getColumn(4).getString(), q.getColumn(5).getString()};
    const std::string original = std::get<2>(key);
    const auto ms = parse_utc_ms(original);
    for (int k = 1; taken.count(key); ++k)
      std::get<2>(key) = ms ? format_utc_ms(*ms + k) : fmt::format("{}#{}", original, k);
    if (std::get<2>(key) != original) moved.emplace_back(q.getColumn(0).getInt64(), std::get<2>(key));
    taken.insert(std::move(key));
  }
  SQLite::Statement update(db, "UPDATE runs SET started_at = ? WHERE id = ?");
  for (const auto& [id, started] : moved) {
    update.reset();
    update.bind(1, started);
    update.bind(2, id);
    update.exec();
  }
}

// Schema 1 -> 2: code identity and staleness on runs, the bandwidth roof, problems ready for other families,
// the templates table, natural keys (unique indexes) and millisecond times.
void v1_to_v2(SQLite::Database& db) {
  db.exec(
      "ALTER TABLE devices ADD COLUMN roof_gbps REAL NULL;"
      "ALTER TABLE problems ADD COLUMN op TEXT NULL;"
      "ALTER TABLE problems ADD COLUMN counter_bits INTEGER NOT NULL DEFAULT 32;"
      "ALTER TABLE runs ADD COLUMN template_hash TEXT NULL;"
      "ALTER TABLE runs ADD COLUMN nvrtc_version INTEGER NULL;"
      "ALTER TABLE runs ADD COLUMN driver_version INTEGER NULL;"
      "ALTER TABLE runs ADD COLUMN settings TEXT NULL;"
      "ALTER TABLE runs ADD COLUMN stale INTEGER NOT NULL DEFAULT 0 CHECK (stale IN (0, 1));"
      "ALTER TABLE runs ADD COLUMN stale_reason TEXT NULL;"
      "ALTER TABLE measurements ADD COLUMN roof_pct REAL NULL;"
      "CREATE TABLE templates ("
      "  id         INTEGER PRIMARY KEY,"
      "  family     TEXT NOT NULL,"
      "  hash       TEXT NOT NULL,"
      "  first_seen TEXT NOT NULL,"
      "  UNIQUE (family, hash));");
  for (const auto& [table, column] :
       {std::pair{"runs", "started_at"}, {"runs", "finished_at"}, {"winners", "tuned_at"}})
    db.exec(fmt::format("UPDATE {0} SET {1} = substr({1}, 1, 19) || '.000Z' WHERE {1} GLOB {2}", table, column,
                        kSecondsGlob));
  give_runs_distinct_keys(db);
  // Schema 1's tuner measured each configuration once per run; should a file hold a repeat, the later row is the
  // one add_measurement would now have kept (a re-measured variant replaces its row).
  db.exec("DELETE FROM measurements WHERE id NOT IN (SELECT max(id) FROM measurements GROUP BY run_id, config)");
  // measurements_natural_key starts with run_id, so it serves the lookups measurements_by_run did.
  db.exec(
      "DROP INDEX IF EXISTS measurements_by_run;"
      "CREATE UNIQUE INDEX runs_natural_key ON runs (device_id, problem_id, started_at, tool_version, strategy);"
      "CREATE UNIQUE INDEX measurements_natural_key ON measurements (run_id, config);");
}

// Schema 2 -> 3: the baselines table (reference implementations such as CUB, measured by `autotune bench`).
void v2_to_v3(SQLite::Database& db) {
  db.exec(
      "CREATE TABLE baselines ("
      "  device_id   INTEGER NOT NULL REFERENCES devices (id),"
      "  problem_id  INTEGER NOT NULL REFERENCES problems (id),"
      "  name        TEXT NOT NULL,"
      "  median_ms   REAL NOT NULL,"
      "  gbps        REAL NOT NULL,"
      "  measured_at TEXT NOT NULL,"
      "  PRIMARY KEY (device_id, problem_id, name));");
}

// Schema 3 -> 4: what a winner's cubin is and what produced it (SHA-256 of the cubin and of its source, the NVRTC
// options and version). Existing cubins get no hash: nothing says they are what the tuner stored, so the runtime
// compiles from source until the next `autotune tune` records a hashed cubin.
void v3_to_v4(SQLite::Database& db) {
  db.exec(
      "ALTER TABLE winners ADD COLUMN cubin_sha256 TEXT NULL;"
      "ALTER TABLE winners ADD COLUMN source_sha256 TEXT NULL;"
      "ALTER TABLE winners ADD COLUMN nvrtc_options TEXT NULL;"
      "ALTER TABLE winners ADD COLUMN nvrtc_version INTEGER NULL;");
}

// Schema 4 -> 5: where each run and winner comes from (local, imported or signed). Rows written before schema 5
// count as local: they are in the user's own file, whoever put them there.
void v4_to_v5(SQLite::Database& db) {
  db.exec(
      "ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'local';"
      "ALTER TABLE winners ADD COLUMN origin TEXT NOT NULL DEFAULT 'local';");
}

struct Step {
  int from;  ///< upgrades a file of this version to version from + 1
  void (*apply)(SQLite::Database&);
};
constexpr Step kSteps[] = {{1, v1_to_v2}, {2, v2_to_v3}, {3, v3_to_v4}, {4, v4_to_v5}};
static_assert(std::size(kSteps) == kSchemaVersion - 1, "one migration step per schema version after the first");

// The columns of `table` as PRAGMA table_info describes them (name, type, not null, default, primary key); empty
// when there is no such table.
std::string columns_of(const SQLite::Database& db, const std::string& table) {
  std::string out;
  SQLite::Statement q(db, "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)");
  q.bind(1, table);
  while (q.executeStep())
    out += fmt::format("{} {} {} {} {};", q.getColumn(0).getString(), q.getColumn(1).getString(),
                       q.getColumn(2).getInt(), q.getColumn(3).getString(), q.getColumn(4).getInt());
  return out;
}

// The tables of a new file with their columns, from schema.sql run in memory once.
const std::vector<std::pair<std::string, std::string>>& new_file_tables() {
  static const auto tables = [] {
    SQLite::Database fresh(kMemory, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    fresh.exec(std::string(embedded::cache_schema));
    std::vector<std::pair<std::string, std::string>> out;
    SQLite::Statement q(fresh, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    while (q.executeStep()) out.emplace_back(q.getColumn(0).getString(), "");
    for (auto& [name, columns] : out) columns = columns_of(fresh, name);
    return out;
  }();
  return tables;
}

}  // namespace

// Tables the user added are no concern of ours; ours must be exactly as a new file has them.
void Cache::Impl::check_shape() const {
  for (const auto& [table, expected] : new_file_tables()) {
    const std::string found = guarded(path, "read its tables", [&] { return columns_of(db, table); });
    if (found != expected)
      fail(fmt::format("is not an autotune cache: its table '{}' {} (another program's file? it was left unchanged)",
                       table, found.empty() ? "is missing"
                                            : fmt::format("does not have the columns of autotune's schema {}",
                                                          kSchemaVersion)));
  }
}

void Cache::Impl::check_migrates_to_our_shape() {
  SQLite::Database mem(kMemory, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  guarded(path, "be copied", [&] {
    SQLite::Backup backup(mem, db);
    backup.executeStep();
  });
  Impl copy(path, std::move(mem));
  copy.upgrade();  // a failure names the file, which is unchanged
  copy.check_shape();
}

void Cache::Impl::upgrade() {
  const int found = user_version();
  try {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    // Read again under the write lock: another process may have created or migrated the file meanwhile.
    const int version = user_version();
    db.exec(fmt::format("PRAGMA application_id = {}", kApplicationId));
    if (version == 0) {
      db.exec(std::string(embedded::cache_schema));
      db.exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion));
    } else if (version < kSchemaVersion) {
      const std::string_view views = views_section();
      for (const std::string& name : view_names(views)) db.exec(fmt::format("DROP VIEW IF EXISTS \"{}\"", name));
      for (const Step& step : kSteps) {
        if (step.from < version) continue;
        step.apply(db);
        db.exec(fmt::format("PRAGMA user_version = {}", step.from + 1));
      }
      db.exec(std::string(views));
      // A step that left a row pointing nowhere must fail here, before it is committed.
      SQLite::Statement fk(db, "PRAGMA foreign_key_check");
      if (fk.executeStep())
        throw CacheError(fmt::format("cache file '{}' cannot be migrated from schema {} to {} (table {} row {} "
                                     "refers to a missing row of {}); it was left unchanged",
                                     path, version, kSchemaVersion, fk.getColumn(0).getString(),
                                     fk.getColumn(1).getInt64(), fk.getColumn(2).getString()));
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    if (found == 0) throw CacheError(fmt::format("cache file '{}': cannot create the schema ({})", path, e.what()));
    throw CacheError(fmt::format("cache file '{}' cannot be migrated from schema {} to {} ({}); it was left unchanged",
                                 path, found, kSchemaVersion, one_line(e.what())));
  }
}

}  // namespace autotune
