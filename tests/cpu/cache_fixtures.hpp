// Shared by the cache test files (test_cache*.cpp): temporary files, made-up devices and problems, and dumps of a
// cache file's rows. CPU only: devices are made-up DeviceInfo values.
#pragma once

#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "autotune/histogram_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "tests/test_devices.hpp"
#include "tuner/origin.hpp"

namespace autotune::test {

namespace fs = std::filesystem;

/// A fresh path in the temp directory; removes the file and SQLite's side files (and a directory tree) at the end.
struct TempPath {
  fs::path path;
  explicit TempPath(const std::string& suffix = "") {
    static std::atomic<int> counter{0};
    std::random_device rd;
    path = fs::temp_directory_path() / fmt::format("autotune-test-cache-{}-{}{}-{}{}", ::getpid(), rd(), rd(),
                                                   counter++, suffix);
  }
  ~TempPath() {
    std::error_code ec;
    fs::remove_all(path, ec);
    for (const char* side : {"-wal", "-shm", "-journal"}) fs::remove(path.string() + side, ec);
  }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  std::string str() const { return path.string(); }
};

inline std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// what() of the CacheError that opening `path` throws; "" (and a failed check) if it opens.
inline std::string open_error(const std::string& path) {
  try {
    Cache c(path);
  } catch (const CacheError& e) {
    return e.what();
  }
  FAIL_CHECK("opening '" << path << "' should have thrown CacheError");
  return "";
}

/// The form schema 2 stores times in: UTC, ISO 8601, milliseconds.
inline bool is_utc_time(const std::string& s) {
  static const std::regex re(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)");
  return std::regex_match(s, re);
}

inline DeviceInfo h100() {
  DeviceInfo d = h100_device("GPU-11111111-2222-3333-4444-555555555555");
  d.ordinal = 0;
  return d;
}

inline DeviceInfo a100() {
  DeviceInfo d = a100_device("GPU-11111111-2222-3333-4444-555555555555");
  d.ordinal = 0;
  return d;
}

inline HistogramProblem problem(std::uint64_t n, int bins = 256) {
  HistogramProblem p;
  p.type = SampleType::u8;
  p.bins = bins;
  p.lower = 0;
  p.upper = 256;
  p.n = n;
  p.distribution = "uniform";
  return p;
}

/// A configuration, spelled as schema 1 did ("priv=shared,block=256,ipt=4,agg=0,part=interleaved"), which every
/// version of HistogramConfig::parse reads: the tests do not depend on the configuration's current fields.
inline HistogramConfig config(int block, int ipt, bool agg = false, bool global = false, bool contiguous = false) {
  const std::string key = fmt::format("priv={},block={},ipt={},agg={},part={}", global ? "global" : "shared", block,
                                      ipt, agg ? 1 : 0, contiguous ? "contiguous" : "interleaved");
  const auto c = HistogramConfig::parse(key);
  REQUIRE_MESSAGE(c, "cannot parse " << key);
  return *c;
}

inline Measurement ok_measurement(const HistogramConfig& c, double ms) {
  Measurement m;
  m.config = c;
  m.median_ms = ms;
  m.spread = 0.0125;
  m.samples = 20;
  m.gbps = 1.0 / ms;
  return m;
}

inline Measurement failed_measurement(const HistogramConfig& c, MeasurementStatus s, std::string log) {
  Measurement m;
  m.config = c;
  m.status = s;
  m.log = std::move(log);
  return m;
}

/// A run with a fixed code identity, so that tests decide what is stale.
inline RunInfo run_info(std::string template_hash = "00000000000000aa", int nvrtc = 12040, int driver = 12040,
                        std::string tool_version = "test") {
  RunInfo info;
  info.strategy = "exhaustive";
  info.tool_version = std::move(tool_version);
  info.code = CodeIdentity{std::move(template_hash), nvrtc, driver};
  return info;
}

/// A complete run whose only (and best) measurement uses `c`.
inline std::int64_t tune(Cache& cache, const DeviceInfo& d, const HistogramProblem& p, const HistogramConfig& c,
                         std::vector<char> cubin = {}, const RunInfo& info = run_info(), double ms = 0.25) {
  const auto run = cache.begin_run(d, p, info);
  const auto m = ok_measurement(c, ms);
  cache.add_measurement(run, m);
  cache.finish_run(run, m, cubin, cubin.empty() ? CubinOrigin{} : cubin_origin(Problem(p), Config(c), d.arch()));
  return run;
}

constexpr std::uint64_t M = 1024 * 1024;

/// A made-up cubin: the ELF magic (which the cache requires of a cubin) followed by `tail`.
inline std::vector<char> elf(std::initializer_list<char> tail = {}) {
  std::vector<char> b{'\x7f', 'E', 'L', 'F'};
  b.insert(b.end(), tail.begin(), tail.end());
  return b;
}

/// A complete run of `p` (any family) recorded with this build's code, so that the lookup's staleness check serves it.
template <class P, class Cfg>
void record_current(Cache& cache, const DeviceInfo& d, const P& p, const Cfg& c, double ms = 0.25) {
  RunInfo info = run_info(current_identity(Problem(p).family_name(), 0).template_hash, nvrtc_version(), 0);
  info.code.family = std::string(Problem(p).family_name());
  const auto run = cache.begin_run(d, p, info);
  Measurement m;
  m.config = c;
  m.median_ms = ms;
  m.samples = 10;
  m.gbps = 4.0;
  cache.add_measurement(run, m);
  cache.finish_run(run, m, elf(), cubin_origin(Problem(p), Config(c), d.arch()));
}

/// One column as text that tells types apart (a double prints with every digit it needs to round-trip).
inline std::string cell(const SQLite::Column& c) {
  switch (c.getType()) {
    case SQLITE_NULL: return "NULL";
    case SQLITE_INTEGER: return fmt::format("i:{}", c.getInt64());
    case SQLITE_FLOAT: return fmt::format("r:{}", c.getDouble());
    case SQLITE_BLOB: {
      std::string hex = "x:";
      const auto* b = static_cast<const unsigned char*>(c.getBlob());
      for (int i = 0; i < c.getBytes(); ++i) hex += fmt::format("{:02x}", b[i]);
      return hex;
    }
    default: return "t:" + c.getString();
  }
}

/// Every row of a query, one line per row.
inline std::vector<std::string> rows(SQLite::Database& db, const std::string& sql) {
  SQLite::Statement q(db, sql);
  std::vector<std::string> out;
  while (q.executeStep()) {
    std::string line;
    for (int i = 0; i < q.getColumnCount(); ++i) line += (i ? " | " : "") + cell(q.getColumn(i));
    out.push_back(std::move(line));
  }
  return out;
}

/// Every row of every table, ids included, with the schema objects: "nothing changed" means this is equal.
inline std::string dump_everything(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  std::string out;
  for (const auto& line : rows(db, "SELECT type, name, sql FROM sqlite_master ORDER BY type, name")) out += line + "\n";
  out += fmt::format("user_version {}\n", db.execAndGet("PRAGMA user_version").getInt());
  SQLite::Statement tables(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  while (tables.executeStep()) {
    const std::string t = tables.getColumn(0).getString();
    out += "== " + t + "\n";
    for (const auto& line : rows(db, "SELECT * FROM \"" + t + "\" ORDER BY rowid")) out += line + "\n";
  }
  return out;
}

/// The contents by natural keys, without database ids: equal for two files that hold the same results however
/// their rows were numbered (export -> import, merge).
inline std::string dump_contents(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  const char* queries[] = {
      "SELECT model_key, name, arch, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, shared_per_block_optin,"
      " max_threads_per_block, clock_khz, memory_clock_khz, driver_version, nvrtc_version, uuid, roof_gbps"
      " FROM devices ORDER BY model_key",
      "SELECT p.key, p.shape_key, p.family, p.n, p.distribution, pp.name, pp.value FROM problems p"
      " LEFT JOIN problem_parameters pp ON pp.problem_id = p.id ORDER BY p.key, pp.name",
      "SELECT family, hash, first_seen FROM templates ORDER BY family, hash",
      "SELECT d.model_key, p.key, r.started_at, r.finished_at, r.strategy, r.tool_version, r.template_hash,"
      " r.nvrtc_version, r.driver_version, r.settings, r.stale, r.stale_reason FROM runs r"
      " JOIN devices d ON d.id = r.device_id JOIN problems p ON p.id = r.problem_id"
      " ORDER BY d.model_key, p.key, r.started_at, r.tool_version, r.strategy",
      "SELECT d.model_key, p.key, r.started_at, r.tool_version, r.strategy, m.config, m.status, m.log, m.median_ms,"
      " m.spread, m.samples, m.gbps, m.roof_pct FROM measurements m JOIN runs r ON r.id = m.run_id"
      " JOIN devices d ON d.id = r.device_id JOIN problems p ON p.id = r.problem_id"
      " ORDER BY d.model_key, p.key, r.started_at, r.tool_version, r.strategy, m.config",
      "SELECT d.model_key, p.key, r.started_at, w.config, w.median_ms, w.gbps, w.arch, w.cubin, w.tuned_at,"
      " w.cubin_sha256, w.source_sha256, w.nvrtc_options, w.nvrtc_version"
      " FROM winners w JOIN runs r ON r.id = w.run_id JOIN devices d ON d.id = w.device_id"
      " JOIN problems p ON p.id = w.problem_id ORDER BY d.model_key, p.key",
      "SELECT * FROM best",
      "SELECT * FROM device_comparison"};
  std::string out;
  for (const char* q : queries) {
    out += std::string("== ") + q + "\n";
    for (const auto& line : rows(db, q)) out += line + "\n";
  }
  return out;
}

/// Copies the golden schema-1 file kept in tests/data to `to` (opening migrates a file, so never open the original).
inline void copy_golden_v1(const fs::path& to) {
  fs::copy_file(fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v1.db", to, fs::copy_options::overwrite_existing);
}

/// The cache as `autotune export` writes it (the whole cache, unfiltered).
inline std::string export_text(const Cache& c) {
  std::ostringstream out;
  c.export_json(out);
  return out.str();
}

}  // namespace autotune::test
