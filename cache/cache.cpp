// The SQLite cache. The DDL lives in cache/schema.sql (embedded at build time); this file opens and checks the
// file, creates the schema in a new one, and maps rows to and from the structs of cache.hpp.
//
// Opening never writes before the file has been checked: a file that is not an autotune cache of a version this
// build understands must be left exactly as it was, since it may hold somebody's data (or a newer autotune's).
#include "autotune/cache.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iterator>
#include <limits>
#include <string_view>
#include <tuple>

#include "autotune/error.hpp"

namespace autotune::embedded {
extern const std::string_view cache_schema;
}

namespace autotune {

namespace {

constexpr int kSchemaVersion = 1;
constexpr const char* kMemory = ":memory:";

constexpr std::string_view kStatusNames[] = {"ok", "compile_error", "invalid_config", "launch_error",
                                             "wrong_result"};

// Everything a user could need to see in `winners`; read_winner() relies on this column order.
constexpr const char* kWinnerSelect =
    "SELECT d.model_key, d.name, w.arch, p.sample_type, p.bins, p.lower, p.upper, p.n, p.distribution,"
    "       w.config, w.median_ms, w.gbps, w.run_id, w.tuned_at, w.cubin"
    "  FROM winners w JOIN devices d ON d.id = w.device_id JOIN problems p ON p.id = w.problem_id ";

// Second resolution is plenty for provenance, and this form sorts as text.
std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// SQLite integers are signed 64-bit; refuse rather than store a wrapped value.
std::int64_t to_i64(std::uint64_t v, const std::string& path, const char* what) {
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    throw CacheError(fmt::format("cache file '{}': {} {} is too large to store", path, what, v));
  return static_cast<std::int64_t>(v);
}

// Runs f, turning SQLite's exceptions into CacheError that names the file and the operation.
template <class F>
auto guarded(const std::string& path, std::string_view action, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const SQLite::Exception& e) {
    throw CacheError(fmt::format("cache file '{}': cannot {} ({})", path, action, e.what()));
  }
}

// quick_check reports "*** in database main ***\nOn tree page 10 ...": keep messages on one line.
std::string one_line(std::string text) {
  constexpr std::string_view banner = "*** in database main ***\n";
  if (text.starts_with(banner)) text.erase(0, banner.size());
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

// Is tuned size a strictly closer to the query q than tuned size b, measured as |log(x + 1) - log(q + 1)|?
// Compared exactly as ratios max/min by cross-multiplying in 128 bits, so that true ties are seen as ties.
__extension__ typedef unsigned __int128 u128;
bool closer(std::uint64_t a, std::uint64_t b, std::uint64_t q) {
  const u128 x = u128(a) + 1, y = u128(b) + 1, z = u128(q) + 1;
  const u128 xhi = x > z ? x : z, xlo = x > z ? z : x;
  const u128 yhi = y > z ? y : z, ylo = y > z ? z : y;
  return xhi * ylo < yhi * xlo;  // xhi/xlo < yhi/ylo; each factor is at most 2^64, so no overflow in practice
}

}  // namespace

std::string_view to_string(MeasurementStatus s) { return kStatusNames[static_cast<int>(s)]; }

std::optional<MeasurementStatus> parse_measurement_status(std::string_view text) {
  for (int i = 0; i < static_cast<int>(std::size(kStatusNames)); ++i)
    if (kStatusNames[i] == text) return static_cast<MeasurementStatus>(i);
  return std::nullopt;
}

struct Cache::Impl {
  std::string path;
  SQLite::Database db;

  Impl(std::string p, SQLite::Database d) : path(std::move(p)), db(std::move(d)) {}

  [[noreturn]] void fail(std::string_view what) const {
    throw CacheError(fmt::format("cache file '{}' {}", path, what));
  }

  // First column of the first row of a query that always returns one (a count or a pragma).
  int query_int(const char* sql) const {
    SQLite::Statement q(db, sql);
    q.executeStep();
    return q.getColumn(0).getInt();
  }
  int user_version() const { return query_int("PRAGMA user_version"); }

  // Read-only checks, done before anything is written. Reading sqlite_master is what makes SQLite look at the
  // header (a foreign file fails here); quick_check walks every page, so truncation and garbage pages show up.
  void check_readable() {
    try {
      const int objects = query_int("SELECT count(*) FROM sqlite_master");
      SQLite::Statement check(db, "PRAGMA quick_check");
      if (check.executeStep() && check.getColumn(0).getString() != "ok")
        fail(fmt::format("is corrupt ({}); move it aside to start a new cache",
                         one_line(check.getColumn(0).getString())));
      const int version = user_version();
      if (version > kSchemaVersion)
        fail(fmt::format("was written by a newer autotune (schema {}, this build reads up to {})", version,
                         kSchemaVersion));
      // Version 0 with objects is some other program's database: creating our tables in it would damage it.
      if (version == 0 && objects > 0)
        fail(fmt::format("is an SQLite database but not an autotune cache (user_version 0 and {} schema objects)",
                         objects));
      if (version == kSchemaVersion)
        for (const char* table : {"devices", "problems", "runs", "measurements", "winners"})
          if (!db.tableExists(table))
            fail(fmt::format("is not an autotune cache (schema {} but no table '{}')", version, table));
    } catch (const SQLite::Exception& e) {
      const int code = e.getErrorCode() & 0xff;
      if (code == SQLITE_NOTADB) fail(fmt::format("is not an SQLite database ({})", e.what()));
      if (code == SQLITE_CORRUPT)
        fail(fmt::format("is corrupt ({}); move it aside to start a new cache", e.what()));
      fail(fmt::format("cannot be read ({})", e.what()));
    }
  }

  // Creates schema version 1 in a new database. IMMEDIATE takes the write lock first, so of two processes
  // creating the same file at once the second sees version 1 here and does nothing.
  void create_schema() {
    guarded(path, "create the schema", [&] {
      SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
      if (user_version() == 0) {
        db.exec(std::string(embedded::cache_schema));
        db.exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion));
      }
      tx.commit();
    });
  }

  // Id of the row whose unique key is `key`; last_insert_rowid is not set when an upsert updated instead.
  std::int64_t id_of(const char* sql, const std::string& key) const {
    SQLite::Statement q(db, sql);
    q.bind(1, key);
    q.executeStep();
    return q.getColumn(0).getInt64();
  }

  // (device_id, problem_id, arch) of a run; CacheError for an id that is not in the file.
  std::tuple<std::int64_t, std::int64_t, std::string> run_row(std::int64_t run_id) const {
    SQLite::Statement q(db, "SELECT r.device_id, r.problem_id, d.arch FROM runs r JOIN devices d ON d.id = r.device_id"
                            " WHERE r.id = ?");
    q.bind(1, run_id);
    if (!q.executeStep()) fail(fmt::format("has no tuning run with id {}", run_id));
    return {q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getString()};
  }

  HistogramConfig parse_config(const std::string& text, std::string_view where) const {
    auto c = HistogramConfig::parse(text);
    if (!c) fail(fmt::format("holds an unreadable configuration '{}' in {}", text, where));
    return *c;
  }

  // One row of kWinnerSelect.
  Winner read_winner(SQLite::Statement& q) const {
    Winner w;
    w.model_key = q.getColumn(0).getString();
    w.device_name = q.getColumn(1).getString();
    w.arch = q.getColumn(2).getString();
    const std::string type = q.getColumn(3).getString();
    const auto t = parse_sample_type(type);
    if (!t) fail(fmt::format("holds an unknown sample type '{}' in table problems", type));
    w.problem.type = *t;
    w.problem.bins = q.getColumn(4).getInt();
    w.problem.lower = q.getColumn(5).getDouble();
    w.problem.upper = q.getColumn(6).getDouble();
    w.problem.n = static_cast<std::uint64_t>(q.getColumn(7).getInt64());
    w.problem.distribution = q.getColumn(8).getString();
    w.config = parse_config(q.getColumn(9).getString(), "table winners");
    w.median_ms = q.getColumn(10).getDouble();
    w.gbps = q.getColumn(11).getDouble();
    w.run_id = q.getColumn(12).getInt64();
    w.tuned_at = q.getColumn(13).getString();
    const SQLite::Column cubin = q.getColumn(14);  // NULL reads as an empty blob
    const char* bytes = static_cast<const char*>(cubin.getBlob());
    if (bytes) w.cubin.assign(bytes, bytes + cubin.getBytes());
    return w;
  }
};

Cache::Cache(const std::string& path) {
  const bool memory = path == kMemory;
  if (!memory) {
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec)
      throw CacheError(fmt::format("cannot create the directory '{}' for cache file '{}' ({})", parent.string(), path,
                                   ec.message()));
  }
  // 5 s of busy waiting covers another process that is writing a measurement or finishing a run.
  impl_ = std::make_unique<Impl>(path, guarded(path, "be opened", [&] {
    return SQLite::Database(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, 5000);
  }));
  Impl& self = *impl_;
  guarded(path, "enable foreign keys", [&] { self.db.exec("PRAGMA foreign_keys = ON"); });
  self.check_readable();
  // WAL lets readers (the runtime looking up winners) proceed while a tuner writes. It is persistent, and only
  // set now that the file is known to be ours. An in-memory database has no WAL.
  if (!memory) guarded(path, "switch to WAL mode", [&] { self.db.exec("PRAGMA journal_mode = WAL"); });
  if (self.user_version() == 0) self.create_schema();
}

Cache::~Cache() = default;
Cache::Cache(Cache&&) noexcept = default;
Cache& Cache::operator=(Cache&&) noexcept = default;

const std::string& Cache::path() const { return impl_->path; }

int Cache::schema_version() { return kSchemaVersion; }

std::string Cache::default_path() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (auto p = env("AUTOTUNE_CACHE"); !p.empty()) return p;
  if (auto p = env("XDG_CACHE_HOME"); !p.empty()) return p + "/autotune/autotune.db";
  if (auto p = env("HOME"); !p.empty()) return p + "/.cache/autotune/autotune.db";
  throw CacheError("no cache file location: set AUTOTUNE_CACHE (or XDG_CACHE_HOME or HOME)");
}

std::int64_t Cache::begin_run(const DeviceInfo& device, const HistogramProblem& problem, const RunInfo& info) {
  Impl& self = *impl_;
  return guarded(self.path, "record the start of a run", [&] {
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    const std::string model_key = device.model_key();

    // Hardware columns are fixed per model; the rest follows the card of the latest run.
    SQLite::Statement dev(self.db,
        "INSERT INTO devices (model_key, name, arch, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes,"
        " shared_per_block_optin, max_threads_per_block, clock_khz, memory_clock_khz, driver_version,"
        " nvrtc_version, uuid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (model_key) DO UPDATE SET clock_khz = excluded.clock_khz,"
        " memory_clock_khz = excluded.memory_clock_khz, driver_version = excluded.driver_version,"
        " nvrtc_version = excluded.nvrtc_version, uuid = excluded.uuid");
    dev.bind(1, model_key);
    dev.bind(2, device.name);
    dev.bind(3, device.arch());
    dev.bind(4, device.cc_major);
    dev.bind(5, device.cc_minor);
    dev.bind(6, device.sm_count);
    dev.bind(7, to_i64(device.memory_bytes, self.path, "memory size"));
    dev.bind(8, to_i64(device.l2_bytes, self.path, "L2 size"));
    dev.bind(9, device.shared_per_block_optin);
    dev.bind(10, device.max_threads_per_block);
    dev.bind(11, device.clock_khz);
    dev.bind(12, device.memory_clock_khz);
    dev.bind(13, device.driver_version);
    dev.bind(14, device.nvrtc_version);
    dev.bind(15, device.uuid);
    dev.exec();
    const std::int64_t device_id = self.id_of("SELECT id FROM devices WHERE model_key = ?", model_key);

    const std::string key = problem.key();
    SQLite::Statement prob(self.db,
        "INSERT INTO problems (key, shape_key, family, sample_type, bins, lower, upper, n, distribution)"
        " VALUES (?, ?, 'histogram', ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING");
    prob.bind(1, key);
    prob.bind(2, problem.shape_key());
    prob.bind(3, std::string(to_string(problem.type)));
    prob.bind(4, problem.bins);
    prob.bind(5, problem.lower);
    prob.bind(6, problem.upper);
    prob.bind(7, to_i64(problem.n, self.path, "problem size"));
    prob.bind(8, problem.distribution);
    prob.exec();
    const std::int64_t problem_id = self.id_of("SELECT id FROM problems WHERE key = ?", key);

    SQLite::Statement run(self.db,
        "INSERT INTO runs (device_id, problem_id, started_at, strategy, tool_version) VALUES (?, ?, ?, ?, ?)");
    run.bind(1, device_id);
    run.bind(2, problem_id);
    run.bind(3, utc_now());
    run.bind(4, info.strategy);
    run.bind(5, info.tool_version);
    run.exec();
    const std::int64_t run_id = self.db.getLastInsertRowid();
    tx.commit();
    return run_id;
  });
}

void Cache::add_measurement(std::int64_t run_id, const Measurement& m) {
  Impl& self = *impl_;
  guarded(self.path, "record a measurement", [&] {
    self.run_row(run_id);  // a clear message instead of "FOREIGN KEY constraint failed"
    SQLite::Statement ins(self.db,
        "INSERT INTO measurements (run_id, config, status, log, median_ms, spread, samples, gbps)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    ins.bind(1, run_id);
    ins.bind(2, m.config.key());
    ins.bind(3, std::string(to_string(m.status)));
    ins.bind(4, m.log);
    ins.bind(5, m.median_ms);
    ins.bind(6, m.spread);
    ins.bind(7, m.samples);
    ins.bind(8, m.gbps);
    ins.exec();
  });
}

void Cache::finish_run(std::int64_t run_id, const Measurement& best, const std::vector<char>& cubin) {
  Impl& self = *impl_;
  guarded(self.path, "record the end of a run", [&] {
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    const auto [device_id, problem_id, arch] = self.run_row(run_id);
    const std::string now = utc_now();

    SQLite::Statement fin(self.db, "UPDATE runs SET finished_at = ? WHERE id = ?");
    fin.bind(1, now);
    fin.bind(2, run_id);
    fin.exec();

    SQLite::Statement win(self.db,
        "INSERT INTO winners (device_id, problem_id, run_id, config, median_ms, gbps, arch, cubin, tuned_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (device_id, problem_id) DO UPDATE SET"
        " run_id = excluded.run_id, config = excluded.config, median_ms = excluded.median_ms,"
        " gbps = excluded.gbps, arch = excluded.arch, cubin = excluded.cubin, tuned_at = excluded.tuned_at");
    win.bind(1, device_id);
    win.bind(2, problem_id);
    win.bind(3, run_id);
    win.bind(4, best.config.key());
    win.bind(5, best.median_ms);
    win.bind(6, best.gbps);
    win.bind(7, arch);
    if (cubin.empty())
      win.bind(8);  // NULL: no cubin
    else
      win.bind(8, cubin.data(), static_cast<int>(cubin.size()));
    win.bind(9, now);
    win.exec();
    tx.commit();
  });
}

std::vector<Measurement> Cache::measurements(std::int64_t run_id) const {
  const Impl& self = *impl_;
  return guarded(self.path, "read measurements", [&] {
    self.run_row(run_id);
    SQLite::Statement q(self.db,
        "SELECT id, config, status, log, median_ms, spread, samples, gbps FROM measurements"
        " WHERE run_id = ? ORDER BY id");
    q.bind(1, run_id);
    std::vector<Measurement> out;
    while (q.executeStep()) {
      const auto where = fmt::format("measurement {}", q.getColumn(0).getInt64());
      Measurement m;
      m.config = self.parse_config(q.getColumn(1).getString(), where);
      const std::string status = q.getColumn(2).getString();
      const auto s = parse_measurement_status(status);
      if (!s) self.fail(fmt::format("holds an unknown status '{}' in {}", status, where));
      m.status = *s;
      m.log = q.getColumn(3).getString();
      m.median_ms = q.getColumn(4).getDouble();
      m.spread = q.getColumn(5).getDouble();
      m.samples = q.getColumn(6).getInt();
      m.gbps = q.getColumn(7).getDouble();
      out.push_back(std::move(m));
    }
    return out;
  });
}

std::optional<Winner> Cache::find_winner(const std::string& model_key, const HistogramProblem& problem) const {
  const Impl& self = *impl_;
  return guarded(self.path, "look up a winner", [&]() -> std::optional<Winner> {
    SQLite::Statement q(self.db, std::string(kWinnerSelect) + "WHERE d.model_key = ? AND p.key = ?");
    q.bind(1, model_key);
    q.bind(2, problem.key());
    if (!q.executeStep()) return std::nullopt;
    return self.read_winner(q);
  });
}

std::optional<Winner> Cache::find_nearest_winner(const std::string& model_key,
                                                 const HistogramProblem& problem) const {
  const Impl& self = *impl_;
  return guarded(self.path, "look up a winner", [&]() -> std::optional<Winner> {
    // A shape has a handful of tuned sizes at most, so choosing in C++ is cheap and needs no SQL math functions.
    SQLite::Statement q(self.db, std::string(kWinnerSelect) + "WHERE d.model_key = ? AND p.shape_key = ?");
    q.bind(1, model_key);
    q.bind(2, problem.shape_key());
    std::optional<Winner> best;
    while (q.executeStep()) {
      Winner w = self.read_winner(q);
      const bool better = !best || closer(w.problem.n, best->problem.n, problem.n) ||
                          (!closer(best->problem.n, w.problem.n, problem.n) && w.problem.n > best->problem.n);
      if (better) best = std::move(w);
    }
    return best;
  });
}

std::vector<Winner> Cache::winners() const {
  const Impl& self = *impl_;
  return guarded(self.path, "list winners", [&] {
    // model_key last only makes the order total when two models share a name.
    SQLite::Statement q(self.db, std::string(kWinnerSelect) + "ORDER BY d.name, p.key, d.model_key");
    std::vector<Winner> out;
    while (q.executeStep()) out.push_back(self.read_winner(q));
    return out;
  });
}

}  // namespace autotune
