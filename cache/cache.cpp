// The SQLite cache. The DDL lives in cache/schema.sql (embedded at build time); this file opens and checks the
// file, and maps rows to and from the structs of cache.hpp. Schema upgrades are in migrate.cpp, export / import /
// merge in transfer.cpp.
//
// Opening never writes before the file has been checked: a file that is not an autotune cache of a version this
// build understands must be left exactly as it was, since it may hold somebody's data (or a newer autotune's).
#include "autotune/cache.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>
#include <thread>
#include <tuple>

#include "autotune/error.hpp"
#include "cache/cache_impl.hpp"
#include "core/enum_text.hpp"
#include "core/integrity.hpp"
#include "core/key_text.hpp"
#include "core/paths.hpp"

namespace autotune {

using namespace cache_detail;

namespace cache_detail {

std::string format_utc_ms(std::int64_t ms) {
  const std::int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03}Z", buf, ms - secs * 1000);
}

std::optional<std::int64_t> parse_utc_ms(std::string_view s) {
  // "YYYY-MM-DDTHH:MM:SS" then "Z" or ".mmmZ"; anything else is not ours.
  auto num = [&](std::size_t at, std::size_t len) -> std::optional<int> {
    if (at + len > s.size()) return std::nullopt;
    int v = 0;
    for (std::size_t i = at; i < at + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') return std::nullopt;
  const auto year = num(0, 4), month = num(5, 2), day = num(8, 2), hour = num(11, 2), minute = num(14, 2),
             second = num(17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  int millis = 0;
  if (s.size() == 24 && s[19] == '.' && s[23] == 'Z' && num(20, 3)) millis = *num(20, 3);
  else if (s.size() != 20 || s[19] != 'Z') return std::nullopt;
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  const std::time_t t = timegm(&tm);
  return static_cast<std::int64_t>(t) * 1000 + millis;
}

// Millisecond resolution: runs are identified by their start time across files (runs_natural_key), and two
// tuners on one machine start within the same second.
std::string utc_now() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return format_utc_ms(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
}

std::int64_t to_i64(std::uint64_t v, const std::string& path, const char* what) {
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    throw CacheError(fmt::format("cache file '{}': {} {} is too large to store", path, what, v));
  return static_cast<std::int64_t>(v);
}

void bind_blob(SQLite::Statement& q, int index, const void* data, std::size_t size, const std::string& path) {
  // SQLite takes a blob's size as an int; refuse rather than truncate (SQLITE_MAX_LENGTH is 1e9 by default anyway).
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw CacheError(fmt::format("cache file '{}': a blob of {} bytes is too large to store", path, size));
  q.bind(index, data, static_cast<int>(size));
}

std::string one_line(std::string text) {
  constexpr std::string_view banner = "*** in database main ***\n";
  if (text.starts_with(banner)) text.erase(0, banner.size());
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

std::optional<Problem> read_problem(std::string_view family, const std::string& key) {
  if (auto p = Problem::parse(key); p && p->family_name() == family) return p;
  const KernelFamily* f = find_family(family);
  if (!f) return std::nullopt;
  try {
    auto p = f->parse_stored_key(key);
    if (p && p->family_name() == family) return p;
  } catch (const UsageError&) {
  }
  return std::nullopt;
}

std::vector<KeyParameter> row_parameters(std::string_view family, std::string_view key) {
  std::vector<std::string> names;
  if (const KernelFamily* f = find_family(family)) {
    names = f->key_part_names();
  } else {
    const auto parts = key_text::problem_parts(key);
    for (std::size_t i = 1; i < parts.size() && parts[i].find('=') == std::string_view::npos; ++i)
      names.push_back(fmt::format("part{}", i));
  }
  try {
    return key_parameters(key, names);
  } catch (const UsageError&) {
    return {};
  }
}

void write_parameters(SQLite::Database& db, std::int64_t problem_id, const std::vector<KeyParameter>& parameters) {
  SQLite::Statement del(db, "DELETE FROM problem_parameters WHERE problem_id = ?");
  del.bind(1, problem_id);
  del.exec();
  SQLite::Statement ins(db, "INSERT INTO problem_parameters (problem_id, name, value) VALUES (?, ?, ?)");
  for (const KeyParameter& p : parameters) {
    ins.reset();
    ins.bind(1, problem_id);
    ins.bind(2, p.name);
    ins.bind(3, p.value);
    ins.exec();
  }
}

}  // namespace cache_detail

namespace {

constexpr enum_text::Name<MeasurementStatus> kStatusNames[] = {{MeasurementStatus::ok, "ok"},
                                                               {MeasurementStatus::compile_error, "compile_error"},
                                                               {MeasurementStatus::invalid_config, "invalid_config"},
                                                               {MeasurementStatus::launch_error, "launch_error"},
                                                               {MeasurementStatus::wrong_result, "wrong_result"}};

// Everything a user could need to see in `winners`; read_winner() relies on this column order. Callers append
// their conditions after the WHERE: winner_select() adds the families this process knows (rows of a family of a
// newer autotune, or of an application's own family not registered here, are not ours to serve).
// Column 12 is the cubin, or (winner_select(false)) the integer 1: not read (Winner::cubin_unread). A lookup ranks the
// winners of a whole shape or family and loads a few (Cache::read_cubin): it need not copy every blob.
// Nor may it read a column stored after the blob (tuned_at, the schema 4 and 5 columns): SQLite reaches those by
// walking the blob's whole overflow chain, every page of it, which made a lookup over a preset's 325 winners read
// about 10 MB. Without cubins they are left empty, read_cubin() reads them with the blob, and the origin is the run's
// (the same: finish_run and import write the winner's origin from its run's); read_cubin() reads the winner's own.
constexpr const char* kWinnerSelect =
    "SELECT d.model_key, d.name, w.arch, p.family, p.key, p.n, p.distribution,"
    "       w.config, w.median_ms, w.gbps, w.run_id, {tuned_at}, {cubin}, r.stale, r.stale_reason,"
    "       d.sm_count, d.memory_bytes, {after_blob}, r.strategy, {origin}"
    "  FROM winners w JOIN runs r ON r.id = w.run_id JOIN devices d ON d.id = w.device_id"
    "  JOIN problems p ON p.id = w.problem_id";

// The columns of `winners` stored after the cubin, as read_after_blob() reads them (read_winner() from column 17 on).
constexpr const char* kAfterBlob = "w.cubin_sha256, w.source_sha256, w.nvrtc_options, w.nvrtc_version";

// kAfterBlob's columns of `q`'s row from column `first` on, into `w`.
void read_after_blob(const SQLite::Statement& q, int first, Winner& w) {
  w.cubin_sha256 = q.getColumn(first).getString();
  w.source_sha256 = q.getColumn(first + 1).getString();
  w.nvrtc_options = q.getColumn(first + 2).getString();
  w.nvrtc_version = q.getColumn(first + 3).getInt();
}

std::string winner_select(bool cubins = true) {
  std::string names;
  for (const KernelFamily* f : families()) {
    std::string quoted(f->name());
    for (std::size_t at = 0; (at = quoted.find('\'', at)) != std::string::npos; at += 2) quoted.insert(at, 1, '\'');
    names += fmt::format("{}'{}'", names.empty() ? "" : ", ", quoted);
  }
  return fmt::format("{} WHERE p.family IN ({}) ",
                     fmt::format(fmt::runtime(kWinnerSelect), fmt::arg("tuned_at", cubins ? "w.tuned_at" : "''"),
                                 fmt::arg("cubin", cubins ? "w.cubin" : "1"),
                                 fmt::arg("after_blob", cubins ? kAfterBlob : "'', '', '', 0"),
                                 fmt::arg("origin", cubins ? "w.origin" : "r.origin")),
                     names);
}

// A winner row autotune wrote is one of its run's 'ok' measurements with the same median (finish_run makes it so,
// import checks it). A row that is not was written by something else: lookups do not serve it.
constexpr const char* kBacked =
    " AND EXISTS (SELECT 1 FROM measurements m WHERE m.run_id = w.run_id AND m.config = w.config"
    " AND m.status = 'ok' AND m.median_ms = w.median_ms) ";

// The runs a lookup may serve to `code`: each identity field is compared only when set. "IS" rather than "=" keeps
// the comparison false for runs that do not know a field (NULL, as runs of schema 1): unknown code is not served
// as if it were the current one. Cache::mark_stale (which only `tune` calls) marks the same runs stale.
constexpr const char* kFreshFor =
    " AND (:hash = '' OR r.template_hash IS :hash) AND (:nvrtc = 0 OR r.nvrtc_version IS :nvrtc)"
    " AND (:driver = 0 OR r.driver_version IS :driver) ";

// The winners of one shape (one problem): written as a list of problem ids so that SQLite looks each (device,
// problem) pair up in the winners' primary key. Given `p.shape_key = :shape` alone it walks every winner of the
// device, with kBacked's measurement lookup for each, before it tests the shape: a third of a lookup's time over a
// preset's 325 winners.
constexpr const char* kOfShape = " AND w.problem_id IN (SELECT id FROM problems WHERE shape_key = :shape) ";
constexpr const char* kOfKey = " AND w.problem_id IN (SELECT id FROM problems WHERE key = :key) ";

void bind_code(SQLite::Statement& q, const CodeIdentity& code) {
  q.bind(":hash", code.template_hash);
  q.bind(":nvrtc", code.nvrtc_version);
  q.bind(":driver", code.driver_version);
}

}  // namespace

std::string_view to_string(MeasurementStatus s) { return enum_text::name_of(kStatusNames, s); }

std::optional<MeasurementStatus> parse_measurement_status(std::string_view text) {
  return enum_text::parse(kStatusNames, text);
}

namespace cache_detail {

// A damaged file that SQLite's quick_check passes: one cut short by less than a page (its last page, often an
// index's, is read with zeros at the end; only integrity_check, which is much slower, sees the index disagree with
// its table). SQLite writes whole pages, so the main file's size is always a multiple of the page size
// (https://www.sqlite.org/fileformat2.html: the page size is the 2 bytes at offset 16, 1 meaning 65536). "" when the
// size is right or the file is too short to have a header (SQLite then says what it is).
std::string cut_short(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[18] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header) ||
      std::memcmp(header, "SQLite format 3", 16) != 0)
    return {};
  const std::uint32_t page = header[16] << 8 | header[17];
  const std::uint32_t page_size = page == 1 ? 65536 : page;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const bool power_of_two = page_size >= 512 && (page_size & (page_size - 1)) == 0;
  if (ec || !power_of_two || size % page_size == 0) return {};
  return fmt::format("its size, {} bytes, is not a whole number of {}-byte pages: it was cut short", size, page_size);
}

}  // namespace cache_detail

// Reading sqlite_master is what makes SQLite look at the header (a foreign file fails here); quick_check walks
// every page, so garbage pages show up (a file cut short is seen from its size). What is not ours is refused by its
// application_id (schema 5) or, for an older file, by the shape of its tables (check_migrates_to_our_shape).
void Cache::Impl::check_readable(ReadCheck check) {
  auto damaged = [&](const std::string& what) {
    fail(fmt::format("is damaged ({}); run `autotune check --cache {}` for details, and move it aside to start a new "
                     "cache", one_line(what), path));
  };
  try {
    if (path != kMemory && check != ReadCheck::none)
      if (const std::string cut = cut_short(path); !cut.empty()) damaged(cut);
    // One statement, so one snapshot: another process creating the file commits its tables, application_id and
    // user_version together, and separate reads could see the id from before that commit and the version after
    // it (20 writers creating one file at once refused it that way in the sanitized kill trials).
    SQLite::Statement header(db, "SELECT (SELECT count(*) FROM sqlite_master), a.application_id, u.user_version"
                                 " FROM pragma_application_id() AS a, pragma_user_version() AS u");
    header.executeStep();
    const std::int64_t objects = header.getColumn(0).getInt64();
    const std::int64_t application_id = header.getColumn(1).getInt64();
    const int version = header.getColumn(2).getInt();
    header.reset();
    if (check == ReadCheck::pages) {
      // quick_check(1) stops at the first problem: enough to refuse the file.
      SQLite::Statement check(db, "PRAGMA quick_check(1)");
      if (check.executeStep() && check.getColumn(0).getString() != "ok") damaged(check.getColumn(0).getString());
    }
    if (application_id != 0 && application_id != kApplicationId)
      fail(fmt::format("is an SQLite database of another program (application_id {:#x}; autotune's is {:#x}); it was "
                       "left unchanged", static_cast<std::uint32_t>(application_id),
                       static_cast<std::uint32_t>(kApplicationId)));
    if (version > kSchemaVersion)
      fail(fmt::format("was written by a newer autotune (schema {}, this build reads up to {})", version,
                       kSchemaVersion));
    // Version 0 with objects is some other program's database: creating our tables in it would damage it.
    if (version == 0 && objects > 0)
      fail(fmt::format("is an SQLite database but not an autotune cache (user_version 0 and {} schema objects)",
                       objects));
    if (version < 0) fail(fmt::format("is not an autotune cache (user_version {})", version));
    if (version >= 5 && application_id != kApplicationId)
      fail(fmt::format("is not an autotune cache (schema {} without autotune's application_id)", version));
    for (const char* table : kV1Tables)
      if (version > 0 && !db.tableExists(table))
        fail(fmt::format("is not an autotune cache (schema {} but no table '{}')", version, table));
    if (version >= 2 && !db.tableExists("templates"))
      fail(fmt::format("is not an autotune cache (schema {} but no table 'templates')", version));
    if (version == kSchemaVersion) check_shape();
  } catch (const SQLite::Exception& e) {
    const int code = e.getErrorCode() & 0xff;
    if (code == SQLITE_NOTADB) fail(fmt::format("is not an SQLite database ({})", one_line(e.what())));
    if (code == SQLITE_CORRUPT && check != ReadCheck::none) damaged(e.what());
    if (code == SQLITE_CORRUPT) fail(fmt::format("is damaged ({})", one_line(e.what())));
    fail(fmt::format("cannot be read ({})", one_line(e.what())));
  }
}

// Hardware columns are fixed per model; the rest follows the card of the latest run.
std::int64_t Cache::Impl::upsert_device(const DeviceInfo& device) {
  const std::string model_key = device.model_key();
  SQLite::Statement dev(db,
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
  dev.bind(7, to_i64(device.memory_bytes, path, "memory size"));
  dev.bind(8, to_i64(device.l2_bytes, path, "L2 size"));
  dev.bind(9, device.shared_per_block_optin);
  dev.bind(10, device.max_threads_per_block);
  dev.bind(11, device.clock_khz);
  dev.bind(12, device.memory_clock_khz);
  dev.bind(13, device.driver_version);
  dev.bind(14, device.nvrtc_version);
  dev.bind(15, device.uuid);
  dev.exec();
  // last_insert_rowid is not set when the upsert updated instead.
  SQLite::Statement id(db, "SELECT id FROM devices WHERE model_key = ?");
  id.bind(1, model_key);
  id.executeStep();
  return id.getColumn(0).getInt64();
}

Config Cache::Impl::parse_config(std::string_view family, const std::string& text, std::string_view where) const {
  auto c = Config::parse(family, text);
  if (!c) fail(fmt::format("holds an unreadable configuration '{}' in {}", text, where));
  return *c;
}

// Inserts the problem's row if new and (re)writes its parameters; returns its id. Call inside a transaction.
std::int64_t Cache::Impl::upsert_problem(const Problem& problem) {
  const std::string key = problem.key();
  const std::vector<KeyParameter> parameters = key_parameters(problem);  // before anything is written
  SQLite::Statement prob(db,
      "INSERT INTO problems (key, shape_key, family, n, distribution) VALUES (?, ?, ?, ?, ?)"
      " ON CONFLICT (key) DO NOTHING");
  prob.bind(1, key);
  prob.bind(2, problem.shape_key());
  prob.bind(3, std::string(problem.family_name()));
  prob.bind(4, to_i64(problem.n(), path, "problem size"));
  prob.bind(5, problem.distribution());
  prob.exec();
  SQLite::Statement pid(db, "SELECT id FROM problems WHERE key = ?");
  pid.bind(1, key);
  pid.executeStep();
  const std::int64_t id = pid.getColumn(0).getInt64();
  write_parameters(db, id, parameters);
  return id;
}

// One row of kWinnerSelect.
Winner Cache::Impl::read_winner(SQLite::Statement& q) const {
  const Impl& self = *this;
  Winner w;
  w.model_key = q.getColumn(0).getString();
  w.device_name = q.getColumn(1).getString();
  w.arch = q.getColumn(2).getString();
  // winner_select() selects registered families only.
  const std::string family = q.getColumn(3).getString();
  const std::string key = q.getColumn(4).getString();
  const auto p = read_problem(family, key);
  if (!p) self.fail(fmt::format("holds an unreadable {} problem '{}' in table problems", family, key));
  w.problem =
      p->with_n(static_cast<std::uint64_t>(q.getColumn(5).getInt64())).with_distribution(q.getColumn(6).getString());
  w.config = parse_config(family, q.getColumn(7).getString(), "table winners");
  w.sm_count = q.getColumn(15).getInt();
  w.memory_bytes = static_cast<std::uint64_t>(q.getColumn(16).getInt64());
  w.median_ms = q.getColumn(8).getDouble();
  w.gbps = q.getColumn(9).getDouble();
  w.run_id = q.getColumn(10).getInt64();
  w.tuned_at = q.getColumn(11).getString();
  const SQLite::Column cubin = q.getColumn(12);  // NULL reads as an empty blob
  if (cubin.isInteger()) {
    w.cubin_unread = cubin.getInt() != 0;  // winner_select(false)
  } else if (const char* bytes = static_cast<const char*>(cubin.getBlob())) {
    w.cubin.assign(bytes, bytes + cubin.getBytes());
  }
  w.stale = q.getColumn(13).getInt() != 0;
  w.stale_reason = q.getColumn(14).getString();  // NULL reads as ""
  read_after_blob(q, 17, w);
  w.strategy = q.getColumn(21).getString();
  w.origin = q.getColumn(22).getString();
  return w;
}

Cache::Cache(const std::string& path) {
  const bool memory = path == kMemory;
  if (!memory) {
    // SQLite would open a character device or a FIFO and leave a -journal beside it before failing: only a regular
    // file (or a new path) is a cache.
    std::error_code status_ec, ec;
    const auto status = std::filesystem::status(path, status_ec);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
      throw CacheError(fmt::format("cache file '{}' is not a regular file", path));
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec)
      throw CacheError(fmt::format("cannot create the directory '{}' for cache file '{}' ({})", parent.string(), path,
                                   ec.message()));
  }
  // A writer that finds the file locked waits (SQLite's busy handler: sleeps of 1 ms growing to 100 ms) for up to
  // kBusyTimeoutMs in all, then fails with "database is locked". Other writers hold the lock for one measurement,
  // one finished run or one import (cache/transfer.cpp), so the wait is normally milliseconds; the
  // bound covers many tuners and imports sharing one file on a loaded machine.
  impl_ = std::make_unique<Impl>(path, guarded(path, "be opened", [&] {
    return SQLite::Database(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, kBusyTimeoutMs);
  }));
  Impl& self = *impl_;
  guarded(path, "enable foreign keys", [&] { self.db.exec("PRAGMA foreign_keys = ON"); });
  self.check_readable();
  // A file of ours from before schema 5 has no application_id: that it is ours is seen from its tables, by
  // migrating a copy in memory first, so that another program's file is refused before it is changed.
  if (const int version = self.user_version(); version > 0 && version < kSchemaVersion)
    self.check_migrates_to_our_shape();
  if (self.user_version() < kSchemaVersion) self.upgrade();
  // WAL lets readers (the runtime looking up winners) proceed while a tuner writes. It is persistent, and only
  // set now that the file is known to be ours and upgraded (so a failed migration leaves the file's bytes as
  // they were). synchronous = NORMAL is the setting WAL is designed for: a commit survives the process being
  // killed (Ctrl-C during a run), only a power cut may lose the last commits, never consistency; FULL would
  // fsync every measurement. An in-memory database has neither.
  if (!memory)
    guarded(path, "switch to WAL mode", [&] {
      // Processes opening one new file at once (a tuner per GPU on a shared cache): while one switches it to WAL,
      // another's switch can fail with SQLITE_BUSY at once, since SQLite skips the busy handler where waiting could
      // deadlock. It is retried with growing sleeps for up to kBusyTimeoutMs (20 cache writers on one new file, 15
      // times: 1 of the 300 failed without this; tests/kill_trials.sh builds its source that way).
      for (int waited_ms = 0, sleep_ms = 1;; waited_ms += sleep_ms, sleep_ms = std::min(2 * sleep_ms, 100)) {
        try {
          self.db.exec("PRAGMA journal_mode = WAL");
          break;
        } catch (const SQLite::Exception& e) {
          const int code = e.getErrorCode() & 0xff;  // the primary result code
          if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || waited_ms >= kBusyTimeoutMs) throw;
          std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
        }
      }
      self.db.exec("PRAGMA synchronous = NORMAL");
    });
}

Cache::~Cache() = default;
Cache::Cache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Cache::Cache(Cache&&) noexcept = default;
Cache& Cache::operator=(Cache&&) noexcept = default;

const std::string& Cache::path() const { return impl_->path; }

int Cache::schema_version() { return kSchemaVersion; }

std::string Cache::default_path() { return default_cache_file(); }

std::int64_t Cache::begin_run(const DeviceInfo& device, const Problem& problem, const RunInfo& info) {
  problem.validate();
  Impl& self = *impl_;
  // Bad input is the caller's error, found before anything is written.
  std::optional<std::string> settings;
  if (!info.settings_json.empty()) {
    nlohmann::json j = nlohmann::json::parse(info.settings_json, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw UsageError(fmt::format("RunInfo::settings_json is not a JSON object: '{}'", info.settings_json));
    settings = j.dump();  // canonical: keys sorted, no spaces, so equal settings compare equal as text
  }
  CodeIdentity code = info.code;
  const std::string family(problem.family_name());
  if (code.template_hash.empty()) code.template_hash = current_identity(family, 0).template_hash;
  if (code.nvrtc_version == 0) code.nvrtc_version = device.nvrtc_version;
  if (code.driver_version == 0) code.driver_version = device.driver_version;

  return guarded(self.path, "record the start of a run", [&] {
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t device_id = self.upsert_device(device);

    const std::int64_t problem_id = self.upsert_problem(problem);

    const std::string now = utc_now();
    SQLite::Statement tmpl(self.db,
        "INSERT INTO templates (family, hash, first_seen) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
    tmpl.bind(1, family);
    tmpl.bind(2, code.template_hash);
    tmpl.bind(3, now);
    tmpl.exec();

    // started_at is part of the run's natural key: when another run of this model, problem, version and strategy
    // started in the same millisecond (two tuners on two cards of one model), this one starts a millisecond later.
    SQLite::Statement run(self.db,
        "INSERT INTO runs (device_id, problem_id, started_at, strategy, tool_version, template_hash, nvrtc_version,"
        " driver_version, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
    std::int64_t started = *parse_utc_ms(now);
    for (int attempt = 0;; ++attempt) {
      if (attempt == 100000) self.fail("has no free start time for a new run (100000 runs in 100 s?)");
      run.reset();
      run.bind(1, device_id);
      run.bind(2, problem_id);
      run.bind(3, format_utc_ms(started + attempt));
      run.bind(4, info.strategy);
      run.bind(5, info.tool_version);
      run.bind(6, code.template_hash);
      if (code.nvrtc_version != 0) run.bind(7, code.nvrtc_version);  // 0 = unknown, stored as NULL
      else run.bind(7);
      if (code.driver_version != 0) run.bind(8, code.driver_version);
      else run.bind(8);
      if (settings) run.bind(9, *settings);
      else run.bind(9);
      if (run.exec() == 1) break;
    }
    const std::int64_t run_id = self.db.getLastInsertRowid();
    tx.commit();
    return run_id;
  });
}

void Cache::Impl::put_measurement(std::int64_t run_id, const Measurement& m, double roof_gbps) {
  std::optional<double> roof_pct;
  if (m.roof_pct > 0) roof_pct = m.roof_pct;
  else if (roof_gbps > 0 && m.status == MeasurementStatus::ok)
    roof_pct = 100.0 * m.gbps / roof_gbps;

  SQLite::Statement ins(db,
      "INSERT INTO measurements (run_id, config, status, log, median_ms, spread, samples, gbps, roof_pct)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, config) DO UPDATE SET status = excluded.status,"
      " log = excluded.log, median_ms = excluded.median_ms, spread = excluded.spread, samples = excluded.samples,"
      " gbps = excluded.gbps, roof_pct = excluded.roof_pct");
  ins.bind(1, run_id);
  ins.bind(2, m.config.key());
  ins.bind(3, std::string(to_string(m.status)));
  ins.bind(4, m.log);
  ins.bind(5, m.median_ms);
  ins.bind(6, m.spread);
  ins.bind(7, m.samples);
  ins.bind(8, m.gbps);
  if (roof_pct) ins.bind(9, *roof_pct);
  else ins.bind(9);
  ins.exec();
}

void Cache::add_measurement(std::int64_t run_id, const Measurement& m) {
  Impl& self = *impl_;
  guarded(self.path, "record a measurement", [&] {
    // One transaction, so that the "not finished" check and the insert see the same state.
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement run(self.db,
        "SELECT r.finished_at IS NOT NULL, d.roof_gbps FROM runs r JOIN devices d ON d.id = r.device_id"
        " WHERE r.id = ?");
    run.bind(1, run_id);
    if (!run.executeStep()) self.fail(fmt::format("has no tuning run with id {}", run_id));
    // Readers rely on a finished run's measurements being complete and final ("never half a run").
    if (run.getColumn(0).getInt() != 0)
      self.fail(fmt::format("has tuning run {} already finished: its measurements are final", run_id));
    self.put_measurement(run_id, m, run.getColumn(1).isNull() ? 0.0 : run.getColumn(1).getDouble());
    tx.commit();
  });
}

void Cache::finish_run(std::int64_t run_id, const Measurement& best, const std::vector<char>& cubin,
                       const CubinOrigin& origin) {
  Impl& self = *impl_;
  // A winner is one of its run's ok measurements (schema.sql): checked here before anything is written.
  if (best.status != MeasurementStatus::ok || !std::isfinite(best.median_ms) || best.median_ms <= 0 ||
      !std::isfinite(best.gbps) || best.gbps < 0)
    throw UsageError(fmt::format("the winner of run {} must be an ok measurement with a positive time (got {}, {} ms)",
                                 run_id, to_string(best.status), best.median_ms));
  if (!cubin.empty() && !integrity::is_elf(cubin))
    throw UsageError(fmt::format("the cubin of run {}'s winner is not an ELF image", run_id));
  if (!cubin.empty() && !origin.source_sha256.empty() && !integrity::is_sha256_hex(origin.source_sha256))
    throw UsageError(fmt::format("the source SHA-256 of run {}'s winner is not 64 hex digits", run_id));
  guarded(self.path, "record the end of a run", [&] {
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement run(self.db,
        "SELECT r.device_id, r.problem_id, d.arch, d.roof_gbps, r.finished_at IS NOT NULL"
        " FROM runs r JOIN devices d ON d.id = r.device_id WHERE r.id = ?");
    run.bind(1, run_id);
    if (!run.executeStep()) self.fail(fmt::format("has no tuning run with id {}", run_id));
    const std::int64_t device_id = run.getColumn(0).getInt64(), problem_id = run.getColumn(1).getInt64();
    const std::string arch = run.getColumn(2).getString();
    const double roof = run.getColumn(3).isNull() ? 0.0 : run.getColumn(3).getDouble();
    if (run.getColumn(4).getInt() != 0)
      self.fail(fmt::format("has tuning run {} already finished: its winner is final", run_id));
    SQLite::Statement measured(self.db,
        "SELECT 1 FROM measurements WHERE run_id = ? AND config = ? AND status = 'ok'");
    measured.bind(1, run_id);
    measured.bind(2, best.config.key());
    if (!measured.executeStep())
      throw UsageError(fmt::format("the winner {} of run {} is not one of the run's ok measurements",
                                   best.config.key(), run_id));
    // The tuner re-measures its finalists: the winner's row takes the final timing, so winner and row agree.
    self.put_measurement(run_id, best, roof);
    const std::string now = utc_now();

    SQLite::Statement fin(self.db, "UPDATE runs SET finished_at = ? WHERE id = ?");
    fin.bind(1, now);
    fin.bind(2, run_id);
    fin.exec();

    SQLite::Statement win(self.db, kUpsertWinner);
    win.bind(1, device_id);
    win.bind(2, problem_id);
    win.bind(3, run_id);
    win.bind(4, best.config.key());
    win.bind(5, best.median_ms);
    win.bind(6, best.gbps);
    win.bind(7, arch);
    win.bind(9, now);
    win.bind(14, "local");
    if (cubin.empty()) {
      for (int i : {8, 10, 11, 12, 13}) win.bind(i);  // NULL: no cubin, nothing to vouch for
    } else {
      bind_blob(win, 8, cubin.data(), cubin.size(), self.path);
      win.bind(10, integrity::sha256_hex(cubin));
      // What the caller says produced the cubin (tuner/origin.hpp), NULL where it says nothing: the cache generates
      // no code. A cubin without its source's hash is never loaded (runtime/resolution.cpp: cubin_unusable).
      if (origin.source_sha256.empty()) win.bind(11);
      else win.bind(11, origin.source_sha256);
      if (origin.nvrtc_options.empty()) win.bind(12);
      else win.bind(12, nlohmann::json(origin.nvrtc_options).dump());
      if (origin.nvrtc_version <= 0) win.bind(13);
      else win.bind(13, origin.nvrtc_version);
    }
    win.exec();
    tx.commit();
  });
}

std::optional<std::int64_t> Cache::resumable_run(const std::string& model_key, const Problem& problem,
                                                 const CodeIdentity& code, const std::string& strategy) const {
  const Impl& self = *impl_;
  return guarded(self.path, "look for an interrupted run", [&]() -> std::optional<std::int64_t> {
    SQLite::Statement q(self.db,
        "SELECT r.id FROM runs r JOIN devices d ON d.id = r.device_id JOIN problems p ON p.id = r.problem_id"
        " WHERE d.model_key = ? AND p.key = ? AND r.finished_at IS NULL AND r.stale = 0 AND r.strategy = ?"
        " AND r.origin = 'local'"
        " AND r.template_hash = ? AND r.nvrtc_version = ? AND r.driver_version = ?"
        " ORDER BY r.started_at DESC, r.id DESC LIMIT 1");
    q.bind(1, model_key);
    q.bind(2, problem.key());
    q.bind(3, strategy);
    q.bind(4, code.template_hash);
    q.bind(5, code.nvrtc_version);
    q.bind(6, code.driver_version);
    if (!q.executeStep()) return std::nullopt;
    return q.getColumn(0).getInt64();
  });
}

std::vector<Measurement> Cache::measurements(std::int64_t run_id) const {
  const Impl& self = *impl_;
  return guarded(self.path, "read measurements", [&] {
    SQLite::Statement run(self.db, "SELECT p.family FROM runs r JOIN problems p ON p.id = r.problem_id WHERE r.id = ?");
    run.bind(1, run_id);
    if (!run.executeStep()) self.fail(fmt::format("has no tuning run with id {}", run_id));
    const std::string family = run.getColumn(0).getString();
    if (!find_family(family))
      self.fail(fmt::format("run {} is of the kernel family '{}', unknown to this build", run_id, family));
    SQLite::Statement q(self.db,
        "SELECT id, config, status, log, median_ms, spread, samples, gbps, roof_pct FROM measurements"
        " WHERE run_id = ? ORDER BY id");
    q.bind(1, run_id);
    std::vector<Measurement> out;
    while (q.executeStep()) {
      const auto where = fmt::format("measurement {}", q.getColumn(0).getInt64());
      Measurement m;
      m.config = self.parse_config(family, q.getColumn(1).getString(), where);
      const std::string status = q.getColumn(2).getString();
      const auto s = parse_measurement_status(status);
      if (!s) self.fail(fmt::format("holds an unknown status '{}' in {}", status, where));
      m.status = *s;
      m.log = q.getColumn(3).getString();
      m.median_ms = q.getColumn(4).getDouble();
      m.spread = q.getColumn(5).getDouble();
      m.samples = q.getColumn(6).getInt();
      m.gbps = q.getColumn(7).getDouble();
      m.roof_pct = q.getColumn(8).getDouble();  // NULL reads as 0
      out.push_back(std::move(m));
    }
    return out;
  });
}

std::optional<Winner> Cache::find_winner(const std::string& model_key, const Problem& problem,
                                        const CodeIdentity& code) const {
  const Impl& self = *impl_;
  return guarded(self.path, "look up a winner", [&]() -> std::optional<Winner> {
    SQLite::Statement q(self.db, winner_select() + "AND r.stale = 0 AND d.model_key = :model" + kOfKey +
                                     kFreshFor + kBacked);
    q.bind(":model", model_key);
    q.bind(":key", problem.key());
    bind_code(q, code);
    if (!q.executeStep()) return std::nullopt;
    return self.read_winner(q);
  });
}

std::vector<Winner> Cache::shape_winners(const std::string& model_key, const Problem& problem,
                                         const CodeIdentity& code) const {
  const Impl& self = *impl_;
  return guarded(self.path, "look up the tuned sizes of a problem", [&] {
    // Not static: winner_select() lists the families registered when it runs.
    const std::string sql = winner_select(false) +
                            "AND r.stale = 0 AND d.model_key = :model" + kOfShape + kFreshFor + kBacked;
    const auto q = self.prepared(sql);
    q->bind(":model", model_key);
    q->bind(":shape", problem.shape_key());
    bind_code(*q, code);
    std::vector<Winner> out;
    while (q->executeStep()) out.push_back(self.read_winner(*q));
    std::stable_sort(out.begin(), out.end(),
                     [](const Winner& a, const Winner& b) { return a.problem.n() < b.problem.n(); });
    return out;
  });
}

std::vector<Winner> Cache::other_model_winners(const std::string& model_key, const std::string& arch,
                                               const Problem& problem, const CodeIdentity& code) const {
  const Impl& self = *impl_;
  return guarded(self.path, "look up the winners of other GPU models", [&] {
    // Most files hold one model: then nothing below can match, and the query scans every winner (its EXISTS check
    // among them) to find that out.
    {
      const auto any = self.prepared("SELECT 1 FROM devices WHERE model_key <> :model AND arch = :arch LIMIT 1");
      any->bind(":model", model_key);
      any->bind(":arch", arch);
      if (!any->executeStep()) return std::vector<Winner>{};
    }
    SQLite::Statement q(self.db, winner_select() +
                                     "AND r.stale = 0 AND d.model_key <> :model AND d.arch = :arch" + kOfShape +
                                     kFreshFor + kBacked);
    q.bind(":model", model_key);
    q.bind(":arch", arch);
    q.bind(":shape", problem.shape_key());
    bind_code(q, code);
    std::vector<Winner> out;
    while (q.executeStep()) out.push_back(self.read_winner(q));
    return out;
  });
}

std::vector<Winner> Cache::family_winners(const std::string& model_key, std::string_view family,
                                          const CodeIdentity& code) const {
  const Impl& self = *impl_;
  return guarded(self.path, "look up the winners of a family", [&] {
    SQLite::Statement q(self.db, winner_select(false) +
                                     "AND r.stale = 0 AND d.model_key = :model AND p.family = :family" + kFreshFor +
                                     kBacked);
    q.bind(":model", model_key);
    q.bind(":family", std::string(family));
    bind_code(q, code);
    std::vector<Winner> out;
    while (q.executeStep()) out.push_back(self.read_winner(q));
    return out;
  });
}

void Cache::read_cubin(Winner& w) const {
  if (!w.cubin_unread) return;
  const Impl& self = *impl_;
  guarded(self.path, "read a winner's cubin", [&] {
    static const std::string sql = fmt::format("SELECT w.cubin, w.tuned_at, w.origin, {} FROM winners w"
                                               " JOIN devices d ON d.id = w.device_id WHERE w.run_id = :run"
                                               " AND w.config = :config AND d.model_key = :model", kAfterBlob);
    const auto p = self.prepared(sql);
    SQLite::Statement& q = *p;
    q.bind(":run", w.run_id);
    q.bind(":config", w.config.key());
    q.bind(":model", w.model_key);
    if (q.executeStep()) {
      if (const char* bytes = static_cast<const char*>(q.getColumn(0).getBlob()))
        w.cubin.assign(bytes, bytes + q.getColumn(0).getBytes());
      w.tuned_at = q.getColumn(1).getString();
      w.origin = q.getColumn(2).getString();
      read_after_blob(q, 3, w);
    }
    w.cubin_unread = false;
  });
}

std::size_t Cache::count_unserved_winners(const std::string& model_key, const Problem& problem,
                                         const CodeIdentity& code) const {
  const Impl& self = *impl_;
  return guarded(self.path, "count winners of other code", [&] {
    SQLite::Statement q(self.db,
        "SELECT count(*) FROM winners w JOIN runs r ON r.id = w.run_id JOIN devices d ON d.id = w.device_id"
        " JOIN problems p ON p.id = w.problem_id WHERE d.model_key = :model" + std::string(kOfShape) +
        " AND NOT (r.stale = 0" + std::string(kFreshFor) + ")");
    q.bind(":model", model_key);
    q.bind(":shape", problem.shape_key());
    bind_code(q, code);
    q.executeStep();
    return static_cast<std::size_t>(q.getColumn(0).getInt64());
  });
}

std::vector<Winner> Cache::winners(bool include_stale) const {
  const Impl& self = *impl_;
  return guarded(self.path, "list winners", [&] {
    // model_key last only makes the order total when two models share a name.
    SQLite::Statement q(self.db, winner_select() + (include_stale ? "" : "AND r.stale = 0 ") +
                                     "ORDER BY d.name, p.key, d.model_key");
    std::vector<Winner> out;
    while (q.executeStep()) out.push_back(self.read_winner(q));
    return out;
  });
}

std::size_t Cache::count_unbacked_winners(const std::string& model_key, const Problem& problem) const {
  const Impl& self = *impl_;
  return guarded(self.path, "count winners without their measurement", [&] {
    SQLite::Statement q(self.db,
        "SELECT count(*) FROM winners w JOIN runs r ON r.id = w.run_id JOIN devices d ON d.id = w.device_id"
        " JOIN problems p ON p.id = w.problem_id WHERE d.model_key = :model" + std::string(kOfShape) +
        " AND r.stale = 0 AND NOT (1 = 1" + std::string(kBacked) + ")");
    q.bind(":model", model_key);
    q.bind(":shape", problem.shape_key());
    q.executeStep();
    return static_cast<std::size_t>(q.getColumn(0).getInt64());
  });
}

std::vector<DeviceComparisonRow> Cache::device_comparison() const {
  const Impl& self = *impl_;
  return guarded(self.path, "read the device comparison", [&] {
    SQLite::Statement q(self.db,
        "SELECT problem, device, arch, config, median_ms, gbps, roof_pct, rank, devices, time_vs_fastest"
        " FROM device_comparison");
    std::vector<DeviceComparisonRow> out;
    while (q.executeStep()) {
      DeviceComparisonRow r;
      r.problem = q.getColumn(0).getString();
      r.device = q.getColumn(1).getString();
      r.arch = q.getColumn(2).getString();
      const std::string family = r.problem.substr(0, r.problem.find('/'));
      if (!find_family(family)) continue;  // a family of a newer autotune, or not registered in this process
      r.config = self.parse_config(family, q.getColumn(3).getString(), "view device_comparison");
      r.median_ms = q.getColumn(4).getDouble();
      r.gbps = q.getColumn(5).getDouble();
      if (!q.getColumn(6).isNull()) r.roof_pct = q.getColumn(6).getDouble();
      r.rank = q.getColumn(7).getInt();
      r.devices = q.getColumn(8).getInt();
      r.time_vs_fastest = q.getColumn(9).getDouble();
      out.push_back(std::move(r));
    }
    return out;
  });
}

void Cache::set_baseline(const DeviceInfo& device, const Problem& problem, const std::string& name, double median_ms,
                         double gbps) {
  problem.validate();
  if (!std::isfinite(median_ms) || median_ms <= 0 || !std::isfinite(gbps) || gbps <= 0)
    throw UsageError(fmt::format("a baseline needs a positive time and speed (got {} ms, {} GB/s)", median_ms, gbps));
  if (name.empty()) throw UsageError("a baseline needs a name");
  Impl& self = *impl_;
  guarded(self.path, "record a baseline", [&] {
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t device_id = self.upsert_device(device);
    const std::int64_t problem_id = self.upsert_problem(problem);
    SQLite::Statement q(self.db,
        "INSERT INTO baselines (device_id, problem_id, name, median_ms, gbps, measured_at) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (device_id, problem_id, name) DO UPDATE SET median_ms = excluded.median_ms,"
        " gbps = excluded.gbps, measured_at = excluded.measured_at");
    q.bind(1, device_id);
    q.bind(2, problem_id);
    q.bind(3, name);
    q.bind(4, median_ms);
    q.bind(5, gbps);
    q.bind(6, utc_now());
    q.exec();
    tx.commit();
  });
}

std::optional<Baseline> Cache::baseline(const std::string& model_key, const Problem& problem,
                                        const std::string& name) const {
  const Impl& self = *impl_;
  return guarded(self.path, "read a baseline", [&]() -> std::optional<Baseline> {
    SQLite::Statement q(self.db,
        "SELECT b.name, b.median_ms, b.gbps, b.measured_at FROM baselines b JOIN devices d ON d.id = b.device_id"
        " JOIN problems p ON p.id = b.problem_id WHERE d.model_key = ? AND p.key = ? AND b.name = ?");
    q.bind(1, model_key);
    q.bind(2, problem.key());
    q.bind(3, name);
    if (!q.executeStep()) return std::nullopt;
    return Baseline{q.getColumn(0).getString(), q.getColumn(1).getDouble(), q.getColumn(2).getDouble(),
                    q.getColumn(3).getString()};
  });
}

std::vector<std::pair<Problem, Baseline>> Cache::shape_baselines(const std::string& model_key, const Problem& problem,
                                                                 const std::string& name) const {
  const Impl& self = *impl_;
  return guarded(self.path, "read the baselines of a problem shape", [&] {
    SQLite::Statement q(self.db,
        "SELECT p.key, b.name, b.median_ms, b.gbps, b.measured_at FROM baselines b JOIN devices d ON d.id = b.device_id"
        " JOIN problems p ON p.id = b.problem_id WHERE d.model_key = ? AND p.shape_key = ? AND b.name = ?"
        " ORDER BY p.n, p.key");
    q.bind(1, model_key);
    q.bind(2, problem.shape_key());
    q.bind(3, name);
    std::vector<std::pair<Problem, Baseline>> out;
    while (q.executeStep()) {
      auto p = Problem::parse(q.getColumn(0).getString());
      if (!p) continue;  // a family this process does not know, or a key it cannot read: not ours to show
      out.emplace_back(std::move(*p), Baseline{q.getColumn(1).getString(), q.getColumn(2).getDouble(),
                                               q.getColumn(3).getDouble(), q.getColumn(4).getString()});
    }
    return out;
  });
}

void Cache::set_device_roof(const DeviceInfo& device, double gbps) {
  if (!std::isfinite(gbps) || gbps <= 0)
    throw UsageError(fmt::format("a bandwidth roof must be a positive number of GB/s (got {})", gbps));
  Impl& self = *impl_;
  guarded(self.path, "record a bandwidth roof", [&] {
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t id = self.upsert_device(device);
    SQLite::Statement q(self.db, "UPDATE devices SET roof_gbps = ? WHERE id = ?");
    q.bind(1, gbps);
    q.bind(2, id);
    q.exec();
    tx.commit();
  });
}

std::optional<double> Cache::device_roof(const std::string& model_key) const {
  const Impl& self = *impl_;
  return guarded(self.path, "read a bandwidth roof", [&]() -> std::optional<double> {
    SQLite::Statement q(self.db, "SELECT roof_gbps FROM devices WHERE model_key = ?");
    q.bind(1, model_key);
    if (!q.executeStep() || q.getColumn(0).isNull()) return std::nullopt;
    return q.getColumn(0).getDouble();
  });
}

std::optional<DeviceInfo> Cache::device(const std::string& model_key) const {
  const Impl& self = *impl_;
  return guarded(self.path, "read a device's row", [&]() -> std::optional<DeviceInfo> {
    SQLite::Statement q(self.db,
                        "SELECT name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, shared_per_block_optin,"
                        " max_threads_per_block, clock_khz, memory_clock_khz, driver_version, nvrtc_version, uuid"
                        " FROM devices WHERE model_key = ?");
    q.bind(1, model_key);
    if (!q.executeStep()) return std::nullopt;
    DeviceInfo d;
    d.name = q.getColumn(0).getString();
    d.cc_major = q.getColumn(1).getInt();
    d.cc_minor = q.getColumn(2).getInt();
    d.sm_count = q.getColumn(3).getInt();
    d.memory_bytes = static_cast<std::uint64_t>(q.getColumn(4).getInt64());
    d.l2_bytes = static_cast<std::uint64_t>(q.getColumn(5).getInt64());
    d.shared_per_block_optin = q.getColumn(6).getInt();
    d.max_threads_per_block = q.getColumn(7).getInt();
    d.clock_khz = q.getColumn(8).getInt();
    d.memory_clock_khz = q.getColumn(9).getInt();
    d.driver_version = q.getColumn(10).getInt();
    d.nvrtc_version = q.getColumn(11).getInt();
    d.uuid = q.getColumn(12).getString();
    // A row whose limits are not positive (a hand-edited or hostile file) tells nothing a check could use.
    if (d.sm_count <= 0 || d.shared_per_block_optin <= 0 || d.max_threads_per_block <= 0 ||
        q.getColumn(4).getInt64() < 0 || q.getColumn(5).getInt64() < 0)
      return std::nullopt;
    return d;
  });
}

std::size_t Cache::mark_stale(const CodeIdentity& current, const std::string& model_key) {
  Impl& self = *impl_;
  return guarded(self.path, "mark stale runs", [&] {
    // "IS NOT" is true when the run's value is NULL (unknown, as in runs from schema 1): a result whose code is
    // unknown must not be served as if it were the current code's.
    SQLite::Statement q(self.db,
        "UPDATE runs SET stale = 1, stale_reason = substr("
        "   CASE WHEN :hash <> '' AND template_hash IS NOT :hash"
        "        THEN '; template ' || coalesce(template_hash, 'unknown') || ' -> ' || :hash ELSE '' END ||"
        "   CASE WHEN :nvrtc <> 0 AND nvrtc_version IS NOT :nvrtc"
        "        THEN '; NVRTC ' || coalesce(nvrtc_version, 'unknown') || ' -> ' || :nvrtc ELSE '' END ||"
        "   CASE WHEN :driver <> 0 AND driver_version IS NOT :driver"
        "        THEN '; driver ' || coalesce(driver_version, 'unknown') || ' -> ' || :driver ELSE '' END, 3)"
        " WHERE stale = 0"
        "   AND (:model = '' OR device_id IN (SELECT id FROM devices WHERE model_key = :model))"
        "   AND (:family = '' OR problem_id IN (SELECT id FROM problems WHERE family = :family))"
        "   AND ((:hash <> '' AND template_hash IS NOT :hash) OR (:nvrtc <> 0 AND nvrtc_version IS NOT :nvrtc)"
        "        OR (:driver <> 0 AND driver_version IS NOT :driver))");
    // A template hash identifies the template of one family only.
    q.bind(":hash", current.family.empty() ? std::string() : current.template_hash);
    q.bind(":family", current.family);
    q.bind(":nvrtc", current.nvrtc_version);
    q.bind(":driver", current.driver_version);
    q.bind(":model", model_key);
    return static_cast<std::size_t>(q.exec());
  });
}

std::size_t Cache::gc() {
  Impl& self = *impl_;
  return guarded(self.path, "delete stale rows", [&] {
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    std::size_t removed = 0;
    for (const char* sql : {"DELETE FROM winners WHERE run_id IN (SELECT id FROM runs WHERE stale = 1)",
                            "DELETE FROM measurements WHERE run_id IN (SELECT id FROM runs WHERE stale = 1)",
                            "DELETE FROM runs WHERE stale = 1"})
      removed += static_cast<std::size_t>(self.db.exec(sql));
    // A winner always has its run, so a problem without runs has no winner either. Its parameters go with it,
    // uncounted: they are part of its row.
    constexpr const char* kUnused =
        "SELECT id FROM problems WHERE id NOT IN (SELECT problem_id FROM runs)"
        "  AND id NOT IN (SELECT problem_id FROM baselines)";
    self.db.exec(fmt::format("DELETE FROM problem_parameters WHERE problem_id IN ({})", kUnused));
    removed += static_cast<std::size_t>(self.db.exec(fmt::format("DELETE FROM problems WHERE id IN ({})", kUnused)));
    removed += static_cast<std::size_t>(self.db.exec(
        "DELETE FROM templates WHERE NOT EXISTS (SELECT 1 FROM runs r JOIN problems p ON p.id = r.problem_id"
        "  WHERE r.template_hash = templates.hash AND p.family = templates.family)"));
    tx.commit();
    return removed;
  });
}

}  // namespace autotune
