// Schema migrations (cache/migrate.cpp), tested on the golden file tests/data/cache_v1.db: a cache written by the
// first released schema (version 1) with the version-1 code. tests/data/README.md lists what it holds; the
// expected values below are those inputs, written out by hand.
#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "core/integrity.hpp"
#include "tests/cpu/cache_fixtures.hpp"

using namespace autotune;
using namespace autotune::test;

namespace {

const std::string kH100 = "NVIDIA H100 80GB HBM3|sm_90|132SM|81090MiB";
const std::string kA100 = "NVIDIA A100-SXM4-40GB|sm_80|108SM|40536MiB";
const std::string kU8 = "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform";
const std::string kF32 = "histogram/f32/bins=1024/range=[0,1)/n=16777216/dist=uniform";
const std::string kU16 = "histogram/u16/bins=4096/range=[0,65536)/n=1048576/dist=runs";

// The cubins of the golden file: an ELF magic, then a pattern with a zero byte every fifth byte.
std::vector<char> golden_cubin(char tag, std::size_t size) {
  std::vector<char> b(size);
  const char elf[] = {'\x7f', 'E', 'L', 'F', 2, 1, 1, 0x33};
  for (std::size_t i = 0; i < size; ++i) b[i] = i < 8 ? elf[i] : (i % 5 == 0 ? '\0' : static_cast<char>(tag + i % 7));
  return b;
}

HistogramConfig v1(const char* key) {
  const auto c = HistogramConfig::parse(key);
  REQUIRE_MESSAGE(c, "schema-1 configuration no longer parses: " << key);
  return *c;
}

// Structure of a file, for comparing a migrated file with a new one: every table's columns (name, type, not null,
// default, primary key), every index (unique, columns), and every view's SQL.
std::string structure(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  std::string out;
  for (const auto& t : rows(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
    const std::string name = t.substr(2);
    out += "table " + name + "\n";
    for (const auto& c : rows(db, "SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('" +
                                      name + "')"))
      out += "  column " + c + "\n";
    for (const auto& i : rows(db, "SELECT name, \"unique\", origin, partial FROM pragma_index_list('" + name +
                                      "') ORDER BY name")) {
      out += "  index " + i + "\n";
      const std::string index = i.substr(2, i.find(" | ") - 2);
      for (const auto& c : rows(db, "SELECT seqno, name FROM pragma_index_info('" + index + "')"))
        out += "    " + c + "\n";
    }
  }
  for (const auto& v : rows(db, "SELECT name, sql FROM sqlite_master WHERE type IN ('view', 'trigger') ORDER BY name"))
    out += v + "\n";
  return out;
}

// The schema-1 golden file's four winners, field by field, as the migrated cache serves them.
void check_v1_winners(const Cache& c) {
  const auto winners = c.winners();
  REQUIRE(winners.size() == 4);
  struct Expected {
    std::string model_key, device, arch, problem;
    const char* config;
    double median_ms, gbps;
    std::int64_t run_id;
    std::string tuned_at;
    std::vector<char> cubin;
  };
  const Expected expected[] = {
      {kA100, "NVIDIA A100-SXM4-40GB", "sm_80", kU16, "priv=shared,block=256,ipt=16,agg=1,part=contiguous", 0.0042,
       499.3, 5, "2026-03-04T08:03:27.000Z", {}},
      {kA100, "NVIDIA A100-SXM4-40GB", "sm_80", kU8, "priv=shared,block=512,ipt=8,agg=1,part=interleaved", 0.0399,
       1681.9, 3, "2026-03-03T17:09:45.000Z", golden_cubin('g', 1024)},
      {kH100, "NVIDIA H100 80GB HBM3", "sm_90", kF32, "priv=shared,block=256,ipt=8,agg=0,part=interleaved", 0.0352,
       1906.5, 2, "2026-03-02T09:30:02.000Z", golden_cubin('f', 2048)},
      {kH100, "NVIDIA H100 80GB HBM3", "sm_90", kU8, "priv=shared,block=512,ipt=16,agg=1,part=interleaved", 0.0203,
       3305.7, 1, "2026-03-02T09:20:58.000Z", golden_cubin('a', 1536)},
  };
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    const Winner& w = winners[i];
    const Expected& e = expected[i];
    CHECK(w.model_key == e.model_key);
    CHECK(w.device_name == e.device);
    CHECK(w.arch == e.arch);
    CHECK(w.problem.key() == e.problem);
    CHECK(w.config == v1(e.config));
    CHECK(w.median_ms == e.median_ms);
    CHECK(w.gbps == e.gbps);
    CHECK(w.run_id == e.run_id);
    CHECK(w.tuned_at == e.tuned_at);
    CHECK(w.cubin == e.cubin);
    CHECK_FALSE(w.stale);
  }
  const auto f32 = c.find_winner(kH100, winners[2].problem);
  REQUIRE(f32);
  REQUIRE(f32->problem.as<HistogramProblem>());
  CHECK(f32->problem.as<HistogramProblem>()->type == SampleType::f32);
  CHECK(f32->problem.as<HistogramProblem>()->lower == 0.0);
  CHECK(f32->problem.as<HistogramProblem>()->upper == 1.0);
  CHECK(f32->problem.as<HistogramProblem>()->bins == 1024);
}

void check_v1_run1_measurements(const Cache& c) {
  // Every status of run 1, with its log, in the order measured.
  const auto ms = c.measurements(1);
  REQUIRE(ms.size() == 7);
  const std::tuple<const char*, MeasurementStatus, std::string, double, double, int, double> m1[] = {
      {"priv=shared,block=256,ipt=4,agg=0,part=interleaved", MeasurementStatus::ok, "", 0.0241, 0.0125, 15, 2784.6},
      {"priv=shared,block=512,ipt=16,agg=1,part=interleaved", MeasurementStatus::ok, "", 0.0203, 0.0098, 15, 3305.7},
      {"priv=global,block=256,ipt=1,agg=0,part=interleaved", MeasurementStatus::ok, "", 0.5123, 0.0311, 15, 131.0},
      {"priv=shared,block=1024,ipt=64,agg=1,part=contiguous", MeasurementStatus::compile_error,
       "histogram.cu(41): error: too many resources requested\n1 error detected in the compilation of "
       "\"histogram.cu\".",
       0, 0, 0, 0},
      {"priv=shared,block=2048,ipt=4,agg=0,part=interleaved", MeasurementStatus::invalid_config,
       "block 2048 exceeds 1024 threads per block", 0, 0, 0, 0},
      {"priv=global,block=1024,ipt=32,agg=1,part=contiguous", MeasurementStatus::launch_error,
       "cudaErrorLaunchOutOfResources: too many resources requested for launch", 0, 0, 0, 0},
      {"priv=shared,block=128,ipt=8,agg=1,part=contiguous", MeasurementStatus::wrong_result,
       "bin 7: 12 != 13 (first of 3 differing bins)", 0, 0, 1, 0},
  };
  for (std::size_t i = 0; i < 7; ++i) {
    CAPTURE(i);
    const auto& [config, status, log, median, spread, samples, gbps] = m1[i];
    CHECK(ms[i].config == v1(config));
    CHECK(ms[i].status == status);
    CHECK(ms[i].log == log);
    CHECK(ms[i].median_ms == median);
    CHECK(ms[i].spread == spread);
    CHECK(ms[i].samples == samples);
    CHECK(ms[i].gbps == gbps);
    CHECK(ms[i].roof_pct == 0.0);
  }
}

// The migrated file's rows as SQLite holds them: runs, devices, problems and the views.
void check_v1_migrated_rows(const std::string& path) {
  SQLite::Database raw(path, SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == Cache::schema_version());
  // Runs 4 and 5 started in the same second (two tuners, two A100 cards): both kept, a millisecond apart.
  CHECK(rows(raw, "SELECT id, started_at, finished_at, strategy, tool_version, template_hash, nvrtc_version,"
                  " driver_version, settings, stale, stale_reason FROM runs ORDER BY id") ==
        std::vector<std::string>{
            "i:1 | t:2026-03-02T09:14:05.000Z | t:2026-03-02T09:20:58.000Z | t:exhaustive | t:0.1.0 | NULL | NULL | "
            "NULL | NULL | i:0 | NULL",
            "i:2 | t:2026-03-02T09:21:40.000Z | t:2026-03-02T09:30:02.000Z | t:exhaustive | t:0.1.0 | NULL | NULL | "
            "NULL | NULL | i:0 | NULL",
            "i:3 | t:2026-03-03T17:02:11.000Z | t:2026-03-03T17:09:45.000Z | t:exhaustive | t:0.1.0 | NULL | NULL | "
            "NULL | NULL | i:0 | NULL",
            "i:4 | t:2026-03-04T08:00:00.000Z | NULL | t:exhaustive | t:0.1.0 | NULL | NULL | NULL | NULL | i:0 | NULL",
            "i:5 | t:2026-03-04T08:00:00.001Z | t:2026-03-04T08:03:27.000Z | t:exhaustive | t:0.1.0 | NULL | NULL | "
            "NULL | NULL | i:0 | NULL"});
  CHECK(rows(raw, "SELECT model_key, roof_gbps, driver_version, uuid FROM devices ORDER BY id") ==
        std::vector<std::string>{"t:" + kH100 + " | NULL | i:12040 | t:GPU-6a3c1f2e-8b9d-4c7a-9e01-23456789abcd",
                                 "t:" + kA100 + " | NULL | i:12020 | t:GPU-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"});
  CHECK(rows(raw, "SELECT key, family, n, distribution FROM problems ORDER BY id") ==
        std::vector<std::string>{"t:" + kU8 + " | t:histogram | i:67108864 | t:uniform",
                                 "t:" + kF32 + " | t:histogram | i:16777216 | t:uniform",
                                 "t:" + kU16 + " | t:histogram | i:1048576 | t:runs"});
  CHECK(raw.execAndGet("SELECT count(*) FROM templates").getInt() == 0);  // schema 1 did not know its templates
  CHECK(raw.execAndGet("SELECT count(*) FROM best").getInt() == 4);
  CHECK(rows(raw, "SELECT problem, device, rank, devices, time_vs_fastest FROM device_comparison WHERE problem = '" +
                      kU8 + "'") ==
        std::vector<std::string>{"t:" + kU8 + " | t:NVIDIA H100 80GB HBM3 | i:1 | i:2 | r:1",
                                 "t:" + kU8 + " | t:NVIDIA A100-SXM4-40GB | i:2 | i:2 | r:" +
                                     fmt::format("{}", 0.0399 / 0.0203)});
}

}  // namespace

TEST_SUITE("cache_migration") {

TEST_CASE("the golden schema-1 file opens with the current code and keeps every row") {
  const std::string golden = read_bytes(fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v1.db");
  REQUIRE(golden.size() > 0);
  REQUIRE(golden.size() < 200 * 1024);
  TempPath file;
  copy_golden_v1(file.path);
  {
    SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
    REQUIRE(raw.execAndGet("PRAGMA user_version").getInt() == 1);
  }
  Cache c(file.str());

  check_v1_winners(c);
  check_v1_run1_measurements(c);
  CHECK(c.measurements(2).size() == 3);
  CHECK(c.measurements(3).size() == 2);
  CHECK(c.measurements(4).size() == 1);  // the interrupted run keeps its measurement
  CHECK(c.measurements(5).size() == 3);

  check_v1_migrated_rows(file.str());

  // The original was never opened.
  CHECK(read_bytes(fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v1.db") == golden);
}

TEST_CASE("a schema-1 file in WAL mode, as schema-1 autotune left its files, migrates too") {
  TempPath file;
  copy_golden_v1(file.path);
  {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    REQUIRE(raw.execAndGet("PRAGMA journal_mode = WAL").getString() == "wal");
  }
  Cache c(file.str());
  CHECK(c.winners().size() == 4);
  CHECK(c.measurements(5).size() == 3);
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == Cache::schema_version());
}

TEST_CASE("a migrated file has the same tables, columns, indexes and views as a new file") {
  TempPath migrated, fresh;
  copy_golden_v1(migrated.path);
  { Cache c(migrated.str()); }
  { Cache c(fresh.str()); }
  const std::string want = structure(fresh.str());
  CHECK(structure(migrated.str()) == want);
  // The comparison sees what it should: a sample of what schema 2 added.
  CHECK(contains(want, "column i:11 | t:stale | t:INTEGER | i:1 | t:0 | i:0"));
  CHECK(contains(want, "index t:runs_natural_key | i:1"));
  CHECK(contains(want, "CREATE VIEW device_comparison"));
  CHECK_FALSE(contains(want, "measurements_by_run"));
}

TEST_CASE("opening a migrated file again changes nothing") {
  TempPath file;
  copy_golden_v1(file.path);
  { Cache c(file.str()); }
  const std::string once = dump_everything(file.str());
  { Cache c(file.str()); }
  CHECK(dump_everything(file.str()) == once);
}

TEST_CASE("runs from schema 1 do not know their code, so the first mark_stale marks them") {
  TempPath file;
  copy_golden_v1(file.path);
  Cache c(file.str());
  const CodeIdentity now = current_identity("histogram", 0);  // no driver known: only the template and NVRTC are compared
  CHECK(c.mark_stale(now, kH100) == 2);
  CHECK(c.winners().size() == 2);
  CHECK(c.mark_stale(now) == 3);
  CHECK(c.winners().empty());
  const auto all = c.winners(true);
  REQUIRE(all.size() == 4);
  for (const Winner& w : all) {
    CHECK(w.stale);
    CHECK(w.stale_reason == fmt::format("template unknown -> {}; NVRTC unknown -> {}", now.template_hash,
                                        now.nvrtc_version));
  }
  CHECK(c.gc() == 4 + 16 + 5 + 3);  // winners, measurements, runs, problems (no templates were recorded)
}

TEST_CASE("a failed migration leaves the file as it was") {
  TempPath file;
  copy_golden_v1(file.path);
  {
    // Something the v1 -> v2 step cannot get past: a table with a name schema 2 needs.
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("CREATE TABLE templates (note TEXT)");
  }
  const std::string before = read_bytes(file.path);
  const std::string err = open_error(file.str());
  CHECK(contains(err, "'" + file.str() + "'"));
  CHECK(contains(err, fmt::format("cannot be migrated from schema 1 to {}", Cache::schema_version())));
  CHECK(contains(err, "templates"));
  CHECK(read_bytes(file.path) == before);
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == 1);
}

}  // TEST_SUITE("cache_migration")

// The golden file of schema 2 (tests/data/cache_v2.db, see tests/data/README.md): migrated to the current schema, every row
// kept, the new baselines table usable, and the same structure as a new file.
TEST_SUITE("cache_migration") {
TEST_CASE("the golden schema-2 file opens with the current code, keeps its rows and gains the baselines table") {
  TempPath file, fresh;
  fs::copy_file(fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v2.db", file.path, fs::copy_options::overwrite_existing);
  const std::string golden = read_bytes(fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v2.db");
  const std::string h200 = "NVIDIA H200|sm_90|132SM|143155MiB";
  const std::string fast =
      "priv=shared,R=32,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0";
  {
    Cache c(file.str());
    const auto winners = c.winners();
    REQUIRE(winners.size() == 1);
    CHECK(winners[0].model_key == h200);
    CHECK(winners[0].problem.key() == "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform");
    CHECK(winners[0].config.key() == fast);
    CHECK(winners[0].median_ms == 0.0276);
    CHECK(winners[0].cubin.size() == 1024);
    CHECK(winners[0].tuned_at == "2026-11-29T16:20:09.456Z");
    const auto ms = c.measurements(winners[0].run_id);
    REQUIRE(ms.size() == 2);
    CHECK(ms[0].config.key() == fast);
    CHECK(ms[1].gbps == 44.7);
    REQUIRE(c.device_roof(h200));
    CHECK(*c.device_roof(h200) == 4117.0);
    // A stale check still knows the run's code: only a changed template is reported.
    CodeIdentity other{"0123456789abcdef", 13000, 13000, "histogram"};
    CHECK(c.mark_stale(other, h200) == 1);
    CHECK(c.winners(true).at(0).stale_reason == "template 1f2e3d4c5b6a7988 -> 0123456789abcdef");
    // The new table works on the migrated file.
    CHECK_FALSE(c.baseline(h200, winners[0].problem, "cub"));
  }
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == Cache::schema_version());
  { Cache c(fresh.str()); }
  CHECK(structure(file.str()) == structure(fresh.str()));
  CHECK(read_bytes(fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v2.db") == golden);  // the golden file is never touched
}
}

// The golden file of schema 4 (tests/data/cache_v4.db, see tests/data/README.md), written by autotune's schema-4 code
// without an application_id: ours by the shape of its tables, it migrates to the current schema, every row kept and
// counted as local (its user put it there), and gains the application_id.
TEST_SUITE("cache_migration") {
TEST_CASE("the golden schema-4 file opens with the current code: its rows are local, it gains the application_id") {
  TempPath file, fresh;
  const fs::path golden = fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v4.db";
  const std::string golden_bytes = read_bytes(golden);
  {
    SQLite::Database raw(golden.string(), SQLite::OPEN_READONLY);
    REQUIRE(raw.execAndGet("PRAGMA user_version").getInt() == 4);
    REQUIRE(raw.execAndGet("PRAGMA application_id").getInt() == 0);
  }
  const std::string h200 = "NVIDIA H200|sm_90|132SM|143155MiB";
  const auto problem16m = *Problem::parse("histogram/u8/bins=256/range=[0,256)/n=16777216/dist=uniform");
  {
    const Cache c = Cache::open_read_only(golden.string());  // read through an upgraded copy in memory
    const auto w = c.find_winner(h200, problem16m);
    REQUIRE(w);
    CHECK(w->origin == "local");
    CHECK(w->cubin.size() == 1024);
    CHECK(w->cubin_sha256 == integrity::sha256_hex(w->cubin));
  }
  fs::copy_file(golden, file.path);
  {
    Cache c(file.str());
    const auto w = c.find_winner(h200, problem16m);
    REQUIRE(w);
    CHECK(w->origin == "local");
    CHECK(w->median_ms == 0.0091);
    CHECK(c.measurements(w->run_id).size() == 2);
    REQUIRE(c.baseline(h200, problem16m, "cub"));
    CHECK(c.invariant_violations().empty());
  }
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == Cache::schema_version());
  CHECK(raw.execAndGet("PRAGMA application_id").getInt() == 0x6175746f);
  CHECK(raw.execAndGet("SELECT group_concat(DISTINCT origin) FROM runs").getString() == "local");
  { Cache c(fresh.str()); }
  CHECK(structure(file.str()) == structure(fresh.str()));
  CHECK(read_bytes(golden) == golden_bytes);  // the golden file is never touched
}
}

// Schema 6 keeps a problem's parameters by name in problem_parameters instead of columns shaped like the histogram's.
// Every older schema migrates to it: the golden files of schemas 1, 2, 4 and 5, and a schema-3 file made from the
// schema-2 one (no golden file of schema 3 was kept).
TEST_SUITE("cache_migration") {

namespace {

const std::string kH200 = "NVIDIA H200|sm_90|132SM|143155MiB";

// The golden file of `version` copied to `to`; for 3, the schema-2 file given the table schema 3 added, as schema 3
// created it (cache/schema.sql at that version).
void copy_golden(int version, const fs::path& to) {
  const char* name = version == 1   ? "cache_v1.db"
                     : version <= 3 ? "cache_v2.db"
                     : version == 4 ? "cache_v4.db"
                                    : "cache_v5.db";
  fs::copy_file(fs::path(AUTOTUNE_TEST_DATA_DIR) / name, to, fs::copy_options::overwrite_existing);
  if (version != 3) return;
  SQLite::Database raw(to.string(), SQLite::OPEN_READWRITE);
  raw.exec(
      "CREATE TABLE baselines (device_id INTEGER NOT NULL REFERENCES devices (id), problem_id INTEGER NOT NULL "
      "REFERENCES problems (id), name TEXT NOT NULL, median_ms REAL NOT NULL, gbps REAL NOT NULL, measured_at TEXT "
      "NOT NULL, PRIMARY KEY (device_id, problem_id, name));"
      "INSERT INTO baselines VALUES (1, 1, 'cub', 0.03, 2000.0, '2026-11-29T17:00:00.000Z');"
      "PRAGMA user_version = 3;");
}

std::int64_t count(const std::string& path, const std::string& sql) {
  SQLite::Database raw(path, SQLite::OPEN_READONLY);
  return raw.execAndGet(sql).getInt64();
}

// A copy of the golden schema-1 file at `to`, changed by `sql` as the sqlite3 shell would.
void copy_golden_v1_with(const fs::path& to, const std::string& sql) {
  copy_golden_v1(to);
  SQLite::Database raw(to.string(), SQLite::OPEN_READWRITE);
  raw.exec(sql);
}

// The parameters of problem `key` as plain SQL reads them, "name=value" ordered by name.
std::vector<std::string> parameters_of(const std::string& path, const std::string& key) {
  SQLite::Database raw(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(raw, "SELECT name || '=' || value FROM problem_parameters WHERE problem_id ="
                           " (SELECT id FROM problems WHERE key = ?) ORDER BY name");
  q.bind(1, key);
  std::vector<std::string> out;
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

}  // namespace

TEST_CASE("a file of every older schema migrates to the tables of a new file, every problem with its parameters") {
  TempPath fresh;
  { Cache c(fresh.str()); }
  for (int version = 1; version < Cache::schema_version(); ++version) {
    CAPTURE(version);
    TempPath file;
    copy_golden(version, file.path);
    REQUIRE(count(file.str(), "PRAGMA user_version") == version);
    const auto problems = count(file.str(), "SELECT count(*) FROM problems");
    const auto winners = count(file.str(), "SELECT count(*) FROM winners");
    {
      Cache c(file.str());
      CHECK(c.winners().size() == static_cast<std::size_t>(winners));
      for (const std::string& v : c.invariant_violations()) {
        CHECK_FALSE(contains(v, "problems row"));
        CHECK_FALSE(contains(v, "problem_parameters"));
      }
    }
    CHECK(count(file.str(), "PRAGMA user_version") == Cache::schema_version());
    CHECK(structure(file.str()) == structure(fresh.str()));
    CHECK(count(file.str(), "SELECT count(*) FROM problems") == problems);
    CHECK(count(file.str(), "SELECT count(*) FROM problems WHERE id NOT IN"
                            " (SELECT problem_id FROM problem_parameters)") == 0);
  }
}

TEST_CASE("the golden schema-5 file: a problem of every family keeps its winner and gains its parameters") {
  TempPath file;
  copy_golden(5, file.path);
  const std::pair<std::string, std::vector<std::string>> expected[] = {
      {"reduce/sum/f32/acc=f32/n=1048576/dist=uniform", {"acc=f32", "op=sum", "type=f32"}},
      {"reduce/sum/f32/acc=f32/n=4096/dist=sorted/mode=fast", {"acc=f32", "mode=fast", "op=sum", "type=f32"}},
      {"argreduce/argmax/f32/n=65536/dist=uniform", {"op=argmax", "type=f32"}},
      {"segreduce/sum/f32/acc=f32/n=16777216/dist=power-law", {"acc=f32", "op=sum", "type=f32"}},
      {"histogram_range/u8/bins=255/edges=even/n=1048576/dist=uniform", {"bins=255", "edges=even", "type=u8"}},
      {"histogram/u8/bins=256/range=[0,256)/n=4000/dist=uniform/channels=4/active=3/ch1=64:[0,256)/ch2=17:[10,200)",
       {"active=3", "bins=256", "ch1=64:[0,256)", "ch2=17:[10,200)", "channels=4", "range=[0,256)", "type=u8"}},
      {"histogram/u16/bins=65536/range=[0,65536)/n=1048576/dist=uniform/counters=64",
       {"bins=65536", "counters=64", "range=[0,65536)", "type=u16"}},
  };
  {
    Cache c(file.str());
    for (std::size_t i = 0; i < std::size(expected); ++i) {
      const std::string& key = expected[i].first;  // not a binding: CAPTURE refers to it (clang 14)
      CAPTURE(key);
      const auto problem = Problem::parse(key);
      REQUIRE(problem);
      const auto w = c.find_winner(kH200, *problem);
      REQUIRE(w);
      CHECK(w->problem.key() == key);
      CHECK(w->median_ms == 0.01 * static_cast<double>(i + 1));  // cache_v5.py: run i's median is 0.01 * i
      CHECK(w->origin == "local");
    }
    CHECK(c.baseline(kH200, *Problem::parse(expected[0].first), "cub"));
  }
  for (const auto& entry : expected) {
    const std::string& key = entry.first;
    CAPTURE(key);
    CHECK(parameters_of(file.str(), key) == entry.second);
  }
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(rows(raw, "SELECT DISTINCT family FROM parameters WHERE name = 'op' ORDER BY family") ==
        std::vector<std::string>{"t:argreduce", "t:reduce", "t:segreduce"});
}

TEST_CASE("the golden schema-1 file's problems gain the parameters of their keys") {
  TempPath file;
  copy_golden_v1(file.path);
  { Cache c(file.str()); }
  CHECK(parameters_of(file.str(), kU8) == std::vector<std::string>{"bins=256", "range=[0,256)", "type=u8"});
  CHECK(parameters_of(file.str(), kF32) == std::vector<std::string>{"bins=1024", "range=[0,1)", "type=f32"});
  CHECK(parameters_of(file.str(), kU16) == std::vector<std::string>{"bins=4096", "range=[0,65536)", "type=u16"});
}

TEST_CASE("a schema-1 key spelled otherwise than this build spells it is respelled, and its winner is served") {
  TempPath file;
  const std::string spelled = "histogram/f32/bins=1024/range=[0.0,1.0)/n=16777216/dist=uniform";
  copy_golden_v1_with(file.path, "UPDATE problems SET key = '" + spelled +
                                     "', shape_key = 'histogram/f32/bins=1024/range=[0.0,1.0)/dist=uniform'"
                                     " WHERE key = '" + kF32 + "'");
  REQUIRE_FALSE(Problem::parse(spelled));
  Cache c(file.str());
  const auto w = c.find_winner(kH100, *Problem::parse(kF32));
  REQUIRE(w);
  CHECK(w->median_ms == 0.0352);
  CHECK(count(file.str(), "SELECT count(*) FROM problems WHERE key = '" + spelled + "'") == 0);
  CHECK(count(file.str(), "SELECT count(*) FROM problems"
                          " WHERE shape_key = 'histogram/f32/bins=1024/range=[0,1)/dist=uniform'") == 1);
  CHECK(parameters_of(file.str(), kF32) == std::vector<std::string>{"bins=1024", "range=[0,1)", "type=f32"});
}

TEST_CASE("a schema-1 key whose respelling another row has keeps its spelling, and its winner is still listed") {
  TempPath file;
  const std::string spelled = "histogram/u8/bins=256/range=[0.0,256.0)/n=67108864/dist=uniform";
  // A second row of the u8 problem, spelled otherwise, with a run of the A100 and its winner.
  copy_golden_v1_with(file.path,
             "INSERT INTO problems (id, key, shape_key, family, sample_type, bins, lower, upper, n, distribution)"
             " VALUES (4, '" + spelled + "', 'histogram/u8/bins=256/range=[0.0,256.0)/dist=uniform', 'histogram',"
             " 'u8', 256, 0.0, 256.0, 67108864, 'uniform');"
             "INSERT INTO runs (id, device_id, problem_id, started_at, finished_at, strategy, tool_version)"
             " VALUES (6, 2, 4, '2026-03-05T08:00:00Z', '2026-03-05T08:01:00Z', 'exhaustive', '0.1.0');"
             "INSERT INTO measurements (run_id, config, status, median_ms, spread, samples, gbps)"
             " VALUES (6, 'priv=shared,block=256,ipt=4,agg=0,part=interleaved', 'ok', 0.05, 0.01, 15, 1300.0);"
             "INSERT INTO winners (device_id, problem_id, run_id, config, median_ms, gbps, arch, tuned_at)"
             " VALUES (2, 4, 6, 'priv=shared,block=256,ipt=4,agg=0,part=interleaved', 0.05, 1300.0, 'sm_80',"
             " '2026-03-05T08:01:00Z');");
  Cache c(file.str());
  CHECK(count(file.str(), "SELECT count(*) FROM problems WHERE key = '" + spelled + "'") == 1);
  const auto winners = c.winners();
  REQUIRE(winners.size() == 5);
  int u8 = 0;
  for (const Winner& w : winners) u8 += w.problem.key() == kU8 ? 1 : 0;
  CHECK(u8 == 3);  // the H100's, the A100's and the A100's of the row spelled otherwise
  CHECK(parameters_of(file.str(), spelled) == std::vector<std::string>{"bins=256", "range=[0.0,256.0)", "type=u8"});
}

}  // TEST_SUITE("cache_migration")

TEST_SUITE("cache_migration") {
TEST_CASE("a problem of a family this build does not know keeps its row; its positional parts are numbered") {
  TempPath file;
  fs::copy_file(fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v5.db", file.path);
  {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("INSERT INTO problems (key, shape_key, family, sample_type, bins, lower, upper, n, distribution, op)"
             " VALUES ('scan/inclusive/f32/acc=f64/n=64/dist=uniform', 'scan/inclusive/f32/acc=f64/dist=uniform',"
             " 'scan', 'f32', 0, 0, 0, 64, 'uniform', 'inclusive')");
  }
  { Cache c(file.str()); }
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(rows(raw, "SELECT name, value FROM parameters WHERE family = 'scan'") ==
        std::vector<std::string>{"t:acc | t:f64", "t:part1 | t:inclusive", "t:part2 | t:f32"});
}
}  // TEST_SUITE("cache_migration")
