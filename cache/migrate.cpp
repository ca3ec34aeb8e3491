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

#include "autotune/problem.hpp"
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

// Runs `sql` once for each row of `rows`, its values bound to the parameters in order.
template <class... T>
void exec_each(SQLite::Database& db, const char* sql, const std::vector<std::tuple<T...>>& rows) {
  SQLite::Statement q(db, sql);
  for (const auto& row : rows) {
    q.reset();
    std::apply([&q](const auto&... value) {
      int i = 0;
      (q.bind(++i, value), ...);
    }, row);
    q.exec();
  }
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
  std::vector<std::tuple<std::string, std::int64_t>> moved;  // started_at, id
  SQLite::Statement q(db, "SELECT id, device_id, problem_id, started_at, tool_version, strategy FROM runs ORDER BY id");
  while (q.executeStep()) {
    Key key{q.getColumn(1).getInt64(), q.getColumn(2).getInt64(), q.getColumn(3).getString(),
            q.getColumn(4).getString(), q.getColumn(5).getString()};
    const std::string original = std::get<2>(key);
    const auto ms = parse_utc_ms(original);
    for (int k = 1; taken.count(key); ++k)
      std::get<2>(key) = ms ? format_utc_ms(*ms + k) : fmt::format("{}#{}", original, k);
    if (std::get<2>(key) != original) moved.emplace_back(std::get<2>(key), q.getColumn(0).getInt64());
    taken.insert(std::move(key));
  }
  exec_each(db, "UPDATE runs SET started_at = ? WHERE id = ?", moved);
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

// Keys of schema 1 that this build spells otherwise (HistogramProblem::key() of that version printed the same parts,
// but what reads as one problem now is printed one way only): each is rewritten to the key its problem has now,
// read by the family's parser as written, when the problem is valid and no other row has that key. A row whose key
// cannot be respelled keeps it: read_problem() still reads it, as the lookups of schema 5 did.
void respell_keys(SQLite::Database& db) {
  std::set<std::string> taken;
  std::vector<std::tuple<std::string, std::string, std::int64_t>> respelled;  // key, shape key, id
  SQLite::Statement all(db, "SELECT key FROM problems");
  while (all.executeStep()) taken.insert(all.getColumn(0).getString());
  SQLite::Statement q(db, "SELECT id, family, key, n, distribution FROM problems ORDER BY id");
  while (q.executeStep()) {
    const std::string family = q.getColumn(1).getString(), key = q.getColumn(2).getString();
    if (Problem::parse(key)) continue;  // canonical already
    auto p = read_problem(family, key);
    if (!p) continue;
    try {
      const auto n = static_cast<std::uint64_t>(q.getColumn(3).getInt64());
      p = p->with_n(n).with_distribution(q.getColumn(4).getString());
    } catch (const UsageError&) {
      continue;
    }
    const std::string canonical = p->key();
    if (!Problem::parse(canonical) || !taken.insert(canonical).second) continue;
    respelled.emplace_back(canonical, p->shape_key(), q.getColumn(0).getInt64());
  }
  exec_each(db, "UPDATE problems SET key = ?, shape_key = ? WHERE id = ?", respelled);
}

// Schema 5 -> 6: the problem's parameters in their own table, by name, for every family alike, instead of columns
// shaped like the histogram's (sample_type, bins, lower, upper, op, counter_bits: what the key says, spelled out);
// family loses its default ('histogram'). problems is rebuilt (SQLite's ALTER TABLE drops no default), keeping
// every id; upgrade() turns foreign keys off around it, as https://www.sqlite.org/lang_altertable.html says.
void v5_to_v6(SQLite::Database& db) {
  // Another program's table under our name keeps its columns: check_shape() then says whose file it is.
  // (The count is read to its end: a statement still reading the table would keep DROP TABLE from running.)
  const int ours = db.execAndGet("SELECT count(*) FROM pragma_table_info('problems') WHERE name IN"
                                 " ('id', 'key', 'shape_key', 'family', 'n', 'distribution')").getInt();
  if (ours != 6) return;
  db.exec(
      "CREATE TABLE problems_v6 ("
      "  id           INTEGER PRIMARY KEY,"
      "  key          TEXT UNIQUE NOT NULL,"
      "  shape_key    TEXT NOT NULL,"
      "  family       TEXT NOT NULL,"
      "  n            INTEGER NOT NULL,"
      "  distribution TEXT NOT NULL);"
      "INSERT INTO problems_v6 (id, key, shape_key, family, n, distribution)"
      "  SELECT id, key, shape_key, family, n, distribution FROM problems;"
      "DROP TABLE problems;"
      "ALTER TABLE problems_v6 RENAME TO problems;"
      "CREATE INDEX problems_by_shape ON problems (shape_key);"
      "CREATE TABLE problem_parameters ("
      "  problem_id INTEGER NOT NULL REFERENCES problems (id),"
      "  name       TEXT NOT NULL,"
      "  value      TEXT NOT NULL,"
      "  PRIMARY KEY (problem_id, name));"
      "CREATE INDEX problem_parameters_by_name ON problem_parameters (name, value);");
  respell_keys(db);
  std::vector<std::pair<std::int64_t, std::vector<KeyParameter>>> rows;
  SQLite::Statement q(db, "SELECT id, family, key FROM problems ORDER BY id");
  while (q.executeStep()) {
    const std::string family = q.getColumn(1).getString(), key = q.getColumn(2).getString();
    rows.emplace_back(q.getColumn(0).getInt64(), row_parameters(family, key));
  }
  for (const auto& [id, parameters] : rows) write_parameters(db, id, parameters);
}

// Foreign keys off while the steps rebuild a table (SQLite ignores the pragma inside a transaction, so this is taken
// before it begins), as they were afterwards; upgrade() checks the result with PRAGMA foreign_key_check before it
// commits.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(SQLite::Database& db)
      : db_(db), was_on_(db.execAndGet("PRAGMA foreign_keys").getInt() != 0) {
    if (was_on_) db_.exec("PRAGMA foreign_keys = OFF");
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;
  ~ForeignKeysOff() {
    try {
      if (was_on_) db_.exec("PRAGMA foreign_keys = ON");
    } catch (const SQLite::Exception&) {
      // Outside a transaction the pragma does not fail; a connection that cannot run it is failing anyway.
    }
  }

 private:
  SQLite::Database& db_;
  bool was_on_;
};

struct Step {
  int from;  ///< upgrades a file of this version to version from + 1
  void (*apply)(SQLite::Database&);
};
constexpr Step kSteps[] = {{1, v1_to_v2}, {2, v2_to_v3}, {3, v3_to_v4}, {4, v4_to_v5}, {5, v5_to_v6}};
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
    const std::string& name = table;  // clang before 16 cannot capture a structured binding
    const std::string found = guarded(path, "read its tables", [&] { return columns_of(db, name); });
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
    const ForeignKeysOff off(db);
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
