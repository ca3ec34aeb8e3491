// Tests of the SQLite cache (cache/cache.cpp, cache/schema.sql). CPU only: devices are made-up DeviceInfo values.
#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <unistd.h>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"

namespace fs = std::filesystem;
using namespace autotune;

namespace {

// A fresh path in the temp directory; removes the file and SQLite's side files (and a directory tree) at the end.
struct TempPath {
  fs::path path;
  TempPath() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("autotune-test-cache-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(rd()) + std::to_string(rd()));
  }
  ~TempPath() {
    std::error_code ec;
    fs::remove_all(path, ec);
    for (const char* suffix : {"-wal", "-shm", "-journal"}) fs::remove(path.string() + suffix, ec);
  }
  std::string str() const { return path.string(); }
};

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// what() of the CacheError that opening `path` throws; "" (and a failed check) if it opens.
std::string open_error(const std::string& path) {
  try {
    Cache c(path);
  } catch (const CacheError& e) {
    return e.what();
  }
  FAIL_CHECK("opening '" << path << "' should have thrown CacheError");
  return "";
}

bool is_utc_iso8601(const std::string& s) {
  static const std::regex re(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
  return std::regex_match(s, re);
}

DeviceInfo h100() {
  DeviceInfo d;
  d.ordinal = 0;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.memory_bytes = 85'029'158'912ull;
  d.l2_bytes = 52'428'800;
  d.shared_per_block_optin = 232'448;
  d.max_threads_per_block = 1024;
  d.clock_khz = 1'980'000;
  d.memory_clock_khz = 2'619'000;
  d.driver_version = 12040;
  d.nvrtc_version = 12040;
  d.uuid = "GPU-11111111-2222-3333-4444-555555555555";
  return d;
}

DeviceInfo a100() {
  DeviceInfo d = h100();
  d.name = "NVIDIA A100-SXM4-40GB";
  d.cc_major = 8;
  d.sm_count = 108;
  d.memory_bytes = 42'505'273'344ull;
  return d;
}

HistogramProblem problem(std::uint64_t n, int bins = 256) {
  HistogramProblem p;
  p.type = SampleType::u8;
  p.bins = bins;
  p.lower = 0;
  p.upper = 256;
  p.n = n;
  p.distribution = "uniform";
  return p;
}

HistogramConfig config(int block, int ipt, bool agg = false) {
  HistogramConfig c;
  c.block = block;
  c.items_per_thread = ipt;
  c.aggregation = agg;
  return c;
}

Measurement ok_measurement(const HistogramConfig& c, double ms) {
  Measurement m;
  m.config = c;
  m.median_ms = ms;
  m.spread = 0.0125;
  m.samples = 20;
  m.gbps = 1.0 / ms;
  return m;
}

// A complete run whose only (and best) measurement uses `c`.
std::int64_t tune(Cache& cache, const DeviceInfo& d, const HistogramProblem& p, const HistogramConfig& c,
                  std::vector<char> cubin = {}) {
  const auto run = cache.begin_run(d, p, RunInfo{"exhaustive", "test"});
  const auto m = ok_measurement(c, 0.25);
  cache.add_measurement(run, m);
  cache.finish_run(run, m, cubin);
  return run;
}

constexpr std::uint64_t M = 1024 * 1024;

}  // namespace

TEST_SUITE("cache") {

TEST_CASE("a new cache has schema version 1 with the documented tables and the best view") {
  CHECK(Cache::schema_version() == 1);
  {
    Cache mem(":memory:");
    CHECK(mem.path() == ":memory:");
    CHECK(mem.winners().empty());
  }
  TempPath file;
  { Cache c(file.str()); }
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == 1);
  CHECK(raw.execAndGet("PRAGMA journal_mode").getString() == "wal");
  auto columns = [&](const char* object) {
    SQLite::Statement q(raw, "SELECT group_concat(name, ',') FROM pragma_table_info(?)");
    q.bind(1, object);
    q.executeStep();
    return q.getColumn(0).getString();
  };
  auto type_of = [&](const char* object) {
    SQLite::Statement q(raw, "SELECT type FROM sqlite_master WHERE name = ?");
    q.bind(1, object);
    return q.executeStep() ? q.getColumn(0).getString() : std::string("missing");
  };
  for (const char* table : {"devices", "problems", "runs", "measurements", "winners"}) {
    CAPTURE(table);
    CHECK(type_of(table) == "table");
  }
  CHECK(type_of("best") == "view");
  CHECK(columns("devices") ==
        "id,model_key,name,arch,cc_major,cc_minor,sm_count,memory_bytes,l2_bytes,shared_per_block_optin,"
        "max_threads_per_block,clock_khz,memory_clock_khz,driver_version,nvrtc_version,uuid");
  CHECK(columns("problems") == "id,key,shape_key,family,sample_type,bins,lower,upper,n,distribution");
  CHECK(columns("runs") == "id,device_id,problem_id,started_at,finished_at,strategy,tool_version");
  CHECK(columns("measurements") == "id,run_id,config,status,log,median_ms,spread,samples,gbps");
  CHECK(columns("winners") == "device_id,problem_id,run_id,config,median_ms,gbps,arch,cubin,tuned_at");
  CHECK(columns("best") == "device,arch,problem,config,gbps,median_ms,tuned_at");
}

TEST_CASE("a run round-trips its measurements and its winner, and a later run replaces the winner") {
  Cache c(":memory:");
  const DeviceInfo dev = h100();
  const HistogramProblem p = problem(64 * M);
  const auto run = c.begin_run(dev, p, RunInfo{"exhaustive", "1.2.3"});
  CHECK(run > 0);

  std::vector<Measurement> written;
  written.push_back(ok_measurement(config(512, 8, true), 1.0 / 3.0));
  const std::pair<MeasurementStatus, const char*> failures[] = {
      {MeasurementStatus::compile_error, "error: identifier \"x\" is undefined\nline 2"},
      {MeasurementStatus::invalid_config, "block 2048 exceeds 1024 threads"},
      {MeasurementStatus::launch_error, "cudaErrorLaunchOutOfResources"},
      {MeasurementStatus::wrong_result, "bin 7: 12 != 13 (O'Brien's \"test\")"}};
  int block = 32;
  for (const auto& [status, log] : failures) {
    Measurement m;
    m.config = config(block *= 2, 1);
    m.config.privatization = Privatization::global;
    m.config.partitioning = Partitioning::contiguous;
    m.status = status;
    m.log = log;
    m.samples = status == MeasurementStatus::wrong_result ? 1 : 0;
    written.push_back(m);
  }
  for (const auto& m : written) c.add_measurement(run, m);

  const auto read = c.measurements(run);
  REQUIRE(read.size() == written.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    CAPTURE(i);
    CHECK(read[i].config == written[i].config);
    CHECK(read[i].status == written[i].status);
    CHECK(read[i].log == written[i].log);
    CHECK(read[i].median_ms == written[i].median_ms);
    CHECK(read[i].spread == written[i].spread);
    CHECK(read[i].samples == written[i].samples);
    CHECK(read[i].gbps == written[i].gbps);
  }
  CHECK_FALSE(c.find_winner(dev.model_key(), p));  // no winner before the run finishes

  const std::vector<char> cubin{'\x7f', 'E', 'L', 'F', '\0', '\0', '\x01', '\xff', '\0', 'z', '\0'};
  c.finish_run(run, written[0], cubin);
  const auto w = c.find_winner(dev.model_key(), p);
  REQUIRE(w);
  CHECK(w->model_key == dev.model_key());
  CHECK(w->device_name == dev.name);
  CHECK(w->arch == "sm_90");
  CHECK(w->problem == p);
  CHECK(w->config == written[0].config);
  CHECK(w->median_ms == written[0].median_ms);
  CHECK(w->gbps == written[0].gbps);
  CHECK(w->run_id == run);
  CHECK(is_utc_iso8601(w->tuned_at));
  CHECK(w->cubin == cubin);
  REQUIRE(c.winners().size() == 1);
  CHECK(c.winners()[0].cubin == cubin);

  SUBCASE("a second finished run for the same model and problem replaces the winner") {
    const auto run2 = c.begin_run(dev, p, RunInfo{"exhaustive", "1.2.4"});
    CHECK(run2 != run);
    const auto better = ok_measurement(config(1024, 16), 0.125);
    c.add_measurement(run2, better);
    c.finish_run(run2, better, {});
    const auto w2 = c.find_winner(dev.model_key(), p);
    REQUIRE(w2);
    CHECK(w2->run_id == run2);
    CHECK(w2->config == better.config);
    CHECK(w2->median_ms == better.median_ms);
    CHECK(w2->cubin.empty());
    CHECK(c.winners().size() == 1);
    CHECK(c.measurements(run).size() == written.size());  // the first run's history stays
    CHECK(c.measurements(run2).size() == 1);
  }
}

TEST_CASE("find_winner matches exactly; find_nearest_winner picks the closest tuned size in log space") {
  Cache c(":memory:");
  const DeviceInfo dev = h100();
  const auto small = config(128, 2), large = config(512, 16);
  tune(c, dev, problem(1 * M), small);
  tune(c, dev, problem(64 * M), large);

  CHECK(c.find_winner(dev.model_key(), problem(1 * M))->config == small);
  CHECK(c.find_winner(dev.model_key(), problem(64 * M))->config == large);
  CHECK_FALSE(c.find_winner(dev.model_key(), problem(48 * M)));
  CHECK_FALSE(c.find_winner(a100().model_key(), problem(1 * M)));

  const auto n48 = c.find_nearest_winner(dev.model_key(), problem(48 * M));
  REQUIRE(n48);
  CHECK(n48->problem.n == 64 * M);
  CHECK(n48->config == large);
  const auto n2 = c.find_nearest_winner(dev.model_key(), problem(2 * M));
  REQUIRE(n2);
  CHECK(n2->problem.n == 1 * M);
  CHECK(n2->config == small);
  CHECK(c.find_nearest_winner(dev.model_key(), problem(1 * M))->problem.n == 1 * M);
  CHECK(c.find_nearest_winner(dev.model_key(), problem(0))->problem.n == 1 * M);

  CHECK_FALSE(c.find_nearest_winner(dev.model_key(), problem(48 * M, 128)));  // another shape
  auto other_dist = problem(48 * M);
  other_dist.distribution = "constant";
  CHECK_FALSE(c.find_nearest_winner(dev.model_key(), other_dist));
  CHECK_FALSE(c.find_nearest_winner(a100().model_key(), problem(48 * M)));

  SUBCASE("an exact tie in log space goes to the larger size") {
    // (3 + 1) * 2 == 7 + 1 and (7 + 1) * 2 == 15 + 1: n = 7 lies exactly between 3 and 15.
    const auto p = [](std::uint64_t n) { return problem(n, 64); };
    tune(c, dev, p(3), small);
    tune(c, dev, p(15), large);
    CHECK(c.find_nearest_winner(dev.model_key(), p(7))->problem.n == 15);
    CHECK(c.find_nearest_winner(dev.model_key(), p(6))->problem.n == 3);
    CHECK(c.find_nearest_winner(dev.model_key(), p(8))->problem.n == 15);
  }
}

TEST_CASE("a file that is not an SQLite database is rejected and left unchanged") {
  TempPath file;
  std::string text;
  SUBCASE("random text") {
    std::mt19937 rng(42);
    std::uniform_int_distribution<int> printable(32, 126);
    for (int i = 0; i < 5000; ++i) text += i % 80 == 79 ? '\n' : static_cast<char>(printable(rng));
  }
  SUBCASE("a short line") { text = "not a cache\n"; }
  write_bytes(file.path, text);
  const std::string err = open_error(file.str());
  CHECK(contains(err, "'" + file.str() + "'"));
  CHECK(contains(err, "is not an SQLite database"));
  CHECK(read_bytes(file.path) == text);
}

TEST_CASE("a damaged database is rejected with a CacheError, not a crash") {
  TempPath file;
  {
    Cache c(file.str());
    const DeviceInfo dev = h100();
    std::vector<char> cubin(96 * 1024);
    for (std::size_t i = 0; i < cubin.size(); ++i) cubin[i] = static_cast<char>(i * 7 % 251);
    for (int k = 0; k < 4; ++k) {
      const auto run = c.begin_run(dev, problem((k + 1) * M), RunInfo{});
      for (int i = 0; i < 100; ++i) c.add_measurement(run, ok_measurement(config(32 * (i % 32 + 1), i + 1), 0.5));
      c.finish_run(run, ok_measurement(config(256, 4), 0.5), cubin);
    }
  }
  int page_size = 0, page_count = 0;
  {
    SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
    page_size = raw.execAndGet("PRAGMA page_size").getInt();
    page_count = raw.execAndGet("PRAGMA page_count").getInt();
    // A free page may hold anything, so garbage there would rightly go unnoticed: make sure there is none.
    REQUIRE(raw.execAndGet("PRAGMA freelist_count").getInt() == 0);
  }
  REQUIRE(page_count > 20);
  REQUIRE(fs::file_size(file.path) == std::uintmax_t(page_size) * page_count);

  SUBCASE("truncated to half its size") { fs::resize_file(file.path, fs::file_size(file.path) / 2); }
  SUBCASE("a page in the middle overwritten with garbage") {
    std::string bytes = read_bytes(file.path);
    std::mt19937 rng(7);
    const std::size_t page = page_count / 2;
    for (std::size_t i = 0; i < std::size_t(page_size); ++i) bytes[page * page_size + i] = static_cast<char>(rng());
    write_bytes(file.path, bytes);
  }
  const std::string before = read_bytes(file.path);
  const std::string err = open_error(file.str());
  CHECK(contains(err, "'" + file.str() + "'"));
  CHECK(contains(err, "corrupt"));
  CHECK(read_bytes(file.path) == before);
}

TEST_CASE("a cache written by a newer schema version is rejected and left unchanged") {
  TempPath file;
  {
    Cache c(file.str());
    tune(c, h100(), problem(M), config(256, 4));
  }
  {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA user_version = 99");
  }
  const std::string before = read_bytes(file.path);
  const std::string err = open_error(file.str());
  CHECK(contains(err, "'" + file.str() + "'"));
  CHECK(contains(err, "newer"));
  CHECK(contains(err, "99"));
  CHECK(read_bytes(file.path) == before);
}

TEST_CASE("another program's SQLite database is rejected and left unchanged") {
  TempPath file;
  {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me')");
  }
  const std::string before = read_bytes(file.path);
  const std::string err = open_error(file.str());
  CHECK(contains(err, "'" + file.str() + "'"));
  CHECK(contains(err, "not an autotune cache"));
  CHECK(read_bytes(file.path) == before);
}

TEST_CASE("default_path honours AUTOTUNE_CACHE, XDG_CACHE_HOME and HOME") {
  // Saves a variable and puts it back at the end, so other tests see the environment they started with.
  struct SavedEnv {
    const char* name;
    std::optional<std::string> value;
    explicit SavedEnv(const char* n) : name(n) {
      if (const char* v = std::getenv(n)) value = v;
    }
    ~SavedEnv() {
      if (value) setenv(name, value->c_str(), 1);
      else unsetenv(name);
    }
  };
  SavedEnv cache("AUTOTUNE_CACHE"), xdg("XDG_CACHE_HOME"), home("HOME");

  setenv("AUTOTUNE_CACHE", "/somewhere/else/my.db", 1);
  setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  setenv("HOME", "/home/user", 1);
  CHECK(Cache::default_path() == "/somewhere/else/my.db");
  unsetenv("AUTOTUNE_CACHE");
  CHECK(Cache::default_path() == "/xdg/cache/autotune/autotune.db");
  setenv("XDG_CACHE_HOME", "", 1);
  CHECK(Cache::default_path() == "/home/user/.cache/autotune/autotune.db");
  unsetenv("XDG_CACHE_HOME");
  CHECK(Cache::default_path() == "/home/user/.cache/autotune/autotune.db");
  unsetenv("HOME");
  CHECK_THROWS_AS(Cache::default_path(), CacheError);
}

TEST_CASE("missing parent directories are created, and a reopened file keeps its contents") {
  TempPath dir;
  const fs::path path = dir.path / "a" / "b" / "autotune.db";
  REQUIRE_FALSE(fs::exists(dir.path));
  const auto p = problem(16 * M);
  {
    Cache c(path.string());
    CHECK(c.path() == path.string());
    tune(c, h100(), p, config(256, 8), {'c', '\0', 'b'});
  }
  CHECK(fs::is_regular_file(path));
  Cache again(path.string());
  const auto w = again.find_winner(h100().model_key(), p);
  REQUIRE(w);
  CHECK(w->config == config(256, 8));
  CHECK(w->cubin == std::vector<char>{'c', '\0', 'b'});
}

TEST_CASE("repeated runs update one device row, keep one problem row, and fill the best view") {
  TempPath file;
  DeviceInfo dev = h100();
  const auto p = problem(4 * M);
  std::int64_t run1 = 0, run2 = 0;
  {
    Cache c(file.str());
    run1 = c.begin_run(dev, p, RunInfo{"exhaustive", "0.1"});  // interrupted: never finished
  }
  dev.ordinal = 3;
  dev.driver_version = 13000;
  dev.nvrtc_version = 13000;
  dev.clock_khz = 1'755'000;
  dev.memory_clock_khz = 2'600'000;
  dev.uuid = "GPU-other-card";
  {
    Cache first(file.str());
    Cache moved(std::move(first));
    run2 = tune(moved, dev, p, config(512, 4));
    Cache assigned(":memory:");
    assigned = std::move(moved);
    CHECK(assigned.path() == file.str());
    CHECK(assigned.find_winner(dev.model_key(), p));
    tune(assigned, a100(), p, config(128, 4));
  }
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("SELECT count(*) FROM devices").getInt() == 2);
  CHECK(raw.execAndGet("SELECT count(*) FROM problems").getInt() == 1);
  SQLite::Statement d(raw,
      "SELECT name, arch, sm_count, memory_bytes, driver_version, nvrtc_version, clock_khz, memory_clock_khz, uuid"
      " FROM devices WHERE model_key = ?");
  d.bind(1, dev.model_key());
  REQUIRE(d.executeStep());
  CHECK(d.getColumn(0).getString() == dev.name);
  CHECK(d.getColumn(1).getString() == "sm_90");
  CHECK(d.getColumn(2).getInt() == 132);
  CHECK(d.getColumn(3).getInt64() == std::int64_t(dev.memory_bytes));
  CHECK(d.getColumn(4).getInt() == 13000);
  CHECK(d.getColumn(5).getInt() == 13000);
  CHECK(d.getColumn(6).getInt() == 1'755'000);
  CHECK(d.getColumn(7).getInt() == 2'600'000);
  CHECK(d.getColumn(8).getString() == "GPU-other-card");

  SQLite::Statement r(raw, "SELECT started_at, finished_at IS NULL, strategy, tool_version FROM runs WHERE id = ?");
  r.bind(1, run1);
  REQUIRE(r.executeStep());
  CHECK(is_utc_iso8601(r.getColumn(0).getString()));
  CHECK(r.getColumn(1).getInt() == 1);
  CHECK(r.getColumn(2).getString() == "exhaustive");
  CHECK(r.getColumn(3).getString() == "0.1");
  SQLite::Statement r2(raw, "SELECT finished_at FROM runs WHERE id = ?");
  r2.bind(1, run2);
  REQUIRE(r2.executeStep());
  CHECK(is_utc_iso8601(r2.getColumn(0).getString()));

  SQLite::Statement best(raw, "SELECT device, arch, problem, config FROM best");
  std::vector<std::string> rows;
  while (best.executeStep())
    rows.push_back(best.getColumn(0).getString() + " " + best.getColumn(1).getString() + " " +
                   best.getColumn(2).getString() + " " + best.getColumn(3).getString());
  CHECK(rows == std::vector<std::string>{
                    "NVIDIA A100-SXM4-40GB sm_80 " + p.key() + " " + config(128, 4).key(),
                    "NVIDIA H100 80GB HBM3 sm_90 " + p.key() + " " + config(512, 4).key()});
}

TEST_CASE("winners() is ordered by device name, then problem key") {
  Cache c(":memory:");
  DeviceInfo short_name = h100();  // a name that is a prefix of another sorts first
  short_name.name = "NVIDIA H100";
  short_name.sm_count = 114;
  tune(c, h100(), problem(2 * M), config(256, 4));
  tune(c, short_name, problem(1 * M), config(256, 4));
  tune(c, a100(), problem(2 * M), config(256, 4));
  tune(c, h100(), problem(1 * M), config(256, 4));
  std::vector<std::string> order;
  for (const auto& w : c.winners()) order.push_back(w.device_name + " " + w.problem.key());
  CHECK(order == std::vector<std::string>{
                     "NVIDIA A100-SXM4-40GB " + problem(2 * M).key(),
                     "NVIDIA H100 " + problem(1 * M).key(),
                     "NVIDIA H100 80GB HBM3 " + problem(1 * M).key(),
                     "NVIDIA H100 80GB HBM3 " + problem(2 * M).key(),
                 });
}

TEST_CASE("an unknown run id is a CacheError") {
  Cache c(":memory:");
  const auto m = ok_measurement(config(256, 4), 1.0);
  CHECK_THROWS_WITH_AS(c.add_measurement(12345, m), doctest::Contains("12345"), CacheError);
  CHECK_THROWS_WITH_AS(c.finish_run(12345, m, {}), doctest::Contains("':memory:'"), CacheError);
  CHECK_THROWS_AS(c.measurements(12345), CacheError);
  CHECK(c.winners().empty());
  // The failed calls left the cache usable.
  const auto run = tune(c, h100(), problem(M), m.config);
  CHECK(c.measurements(run).size() == 1);
}

TEST_CASE("a row with an unreadable configuration is a CacheError naming the file") {
  TempPath file;
  const auto p = problem(M);
  std::int64_t run = 0;
  {
    Cache c(file.str());
    run = tune(c, h100(), p, config(256, 4));
  }
  {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE winners SET config = 'priv=bogus'; UPDATE measurements SET config = 'block=-1'");
  }
  Cache c(file.str());
  CHECK_THROWS_WITH_AS(c.find_winner(h100().model_key(), p), doctest::Contains(file.str().c_str()), CacheError);
  CHECK_THROWS_WITH_AS(c.find_nearest_winner(h100().model_key(), p), doctest::Contains("priv=bogus"), CacheError);
  CHECK_THROWS_AS(c.winners(), CacheError);
  CHECK_THROWS_WITH_AS(c.measurements(run), doctest::Contains("block=-1"), CacheError);
}

TEST_CASE("measurement status names round-trip") {
  const std::pair<MeasurementStatus, const char*> names[] = {
      {MeasurementStatus::ok, "ok"},
      {MeasurementStatus::compile_error, "compile_error"},
      {MeasurementStatus::invalid_config, "invalid_config"},
      {MeasurementStatus::launch_error, "launch_error"},
      {MeasurementStatus::wrong_result, "wrong_result"}};
  for (const auto& [status, name] : names) {
    CHECK(to_string(status) == name);
    CHECK(parse_measurement_status(name) == status);
  }
  CHECK_FALSE(parse_measurement_status("OK"));
  CHECK_FALSE(parse_measurement_status(""));
  CHECK_FALSE(parse_measurement_status("ok "));
}

}  // TEST_SUITE("cache")
