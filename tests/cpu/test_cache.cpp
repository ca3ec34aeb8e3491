// Tests of the SQLite cache (cache/*.cpp, cache/schema.sql): schema, runs, lookups, staleness, gc, damaged files.
// CPU only: devices are made-up DeviceInfo values. Migrations, export / import / merge and concurrent processes
// have their own files (test_cache_migration.cpp, test_cache_transfer.cpp, test_cache_concurrency.cpp).
#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "autotune/resolution.hpp"
#include "core/family.hpp"
#include "tests/cpu/cache_fixtures.hpp"
#include "embedded.hpp"
#include "runtime/nearest.hpp"


using namespace autotune;
using namespace autotune::test;

TEST_SUITE("cache") {

TEST_CASE("a new cache has schema version 6 with the documented tables, indexes and views") {
  CHECK(Cache::schema_version() == 6);
  {
    Cache mem(":memory:");
    CHECK(mem.path() == ":memory:");
    CHECK(mem.winners().empty());
  }
  TempPath file;
  { Cache c(file.str()); }
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == 6);
  CHECK(raw.execAndGet("PRAGMA application_id").getInt() == 0x6175746f);
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
  for (const char* table :
       {"devices", "problems", "problem_parameters", "runs", "measurements", "winners", "templates", "baselines"}) {
    CAPTURE(table);
    CHECK(type_of(table) == "table");
  }
  CHECK(type_of("best") == "view");
  CHECK(type_of("device_comparison") == "view");
  CHECK(type_of("parameters") == "view");
  CHECK(type_of("runs_natural_key") == "index");
  CHECK(type_of("measurements_natural_key") == "index");
  CHECK(columns("devices") ==
        "id,model_key,name,arch,cc_major,cc_minor,sm_count,memory_bytes,l2_bytes,shared_per_block_optin,"
        "max_threads_per_block,clock_khz,memory_clock_khz,driver_version,nvrtc_version,uuid,roof_gbps");
  CHECK(columns("problems") == "id,key,shape_key,family,n,distribution");
  CHECK(columns("problem_parameters") == "problem_id,name,value");
  CHECK(columns("parameters") == "problem,family,n,distribution,name,value");
  CHECK(columns("runs") ==
        "id,device_id,problem_id,started_at,finished_at,strategy,tool_version,template_hash,nvrtc_version,"
        "driver_version,settings,stale,stale_reason,origin");
  CHECK(columns("measurements") == "id,run_id,config,status,log,median_ms,spread,samples,gbps,roof_pct");
  CHECK(columns("winners") == "device_id,problem_id,run_id,config,median_ms,gbps,arch,cubin,tuned_at,cubin_sha256,"
                              "source_sha256,nvrtc_options,nvrtc_version,origin");
  CHECK(columns("templates") == "id,family,hash,first_seen");
  CHECK(columns("baselines") == "device_id,problem_id,name,median_ms,gbps,measured_at");
  CHECK(columns("best") == "device,arch,problem,config,gbps,median_ms,tuned_at");
  CHECK(columns("device_comparison") ==
        "problem,device,arch,config,median_ms,gbps,roof_pct,rank,devices,time_vs_fastest");
  // The natural keys are enforced by the file itself, for every writer (the sqlite3 shell included).
  SQLite::Statement unique(raw, "SELECT \"unique\", (SELECT group_concat(name, ',') FROM pragma_index_info(?))"
                                " FROM pragma_index_list(?) WHERE name = ?");
  for (const auto& [table, index, cols] :
       {std::tuple{"runs", "runs_natural_key", "device_id,problem_id,started_at,tool_version,strategy"},
        std::tuple{"measurements", "measurements_natural_key", "run_id,config"}}) {
    const std::string index_name = index;  // clang 14 (the sanitizer build) cannot capture a structured binding
    CAPTURE(index_name);
    unique.reset();
    unique.bind(1, index);
    unique.bind(2, table);
    unique.bind(3, index);
    REQUIRE(unique.executeStep());
    CHECK(unique.getColumn(0).getInt() == 1);
    CHECK(unique.getColumn(1).getString() == cols);
  }
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
    m.config = config(block *= 2, 1, false, true, true);
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
    CHECK(read[i].roof_pct == 0.0);  // no roof recorded for the device
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
  CHECK(is_utc_time(w->tuned_at));
  CHECK_FALSE(w->stale);
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

TEST_CASE("finish_run stores the cubin's origin as given and generates none: NULL parts without one") {
  Cache c(":memory:");
  const DeviceInfo dev = h100();
  const std::vector<char> cubin = elf({'o'});
  const std::string hash(64, 'a');
  const auto with = c.begin_run(dev, problem(M), RunInfo{"exhaustive", "1.2.3"});
  c.add_measurement(with, ok_measurement(config(256, 4), 0.5));
  c.finish_run(with, ok_measurement(config(256, 4), 0.5), cubin, CubinOrigin{hash, {"--gpu-architecture=x", "-y"}, 4321});
  auto w = c.find_winner(dev.model_key(), problem(M));
  REQUIRE(w);
  CHECK(w->source_sha256 == hash);  // not the hash of this build's source: the cache computes none
  CHECK(w->nvrtc_options == R"(["--gpu-architecture=x","-y"])");
  CHECK(w->nvrtc_version == 4321);
  const auto without = c.begin_run(dev, problem(2 * M), RunInfo{"exhaustive", "1.2.3"});
  c.add_measurement(without, ok_measurement(config(256, 4), 0.5));
  c.finish_run(without, ok_measurement(config(256, 4), 0.5), cubin);
  w = c.find_winner(dev.model_key(), problem(2 * M));
  REQUIRE(w);
  CHECK(w->cubin == cubin);
  CHECK(w->source_sha256.empty());
  CHECK(w->nvrtc_options.empty());  // NULL
  CHECK(w->nvrtc_version == 0);
  CHECK(cubin_unusable(*w, "sm_90", kernel_source(Problem(problem(2 * M)), Config(config(256, 4)))) ==
        "the stored cubin was compiled from another source than this build's");
  const auto bad = c.begin_run(dev, problem(4 * M), RunInfo{"exhaustive", "1.2.3"});
  c.add_measurement(bad, ok_measurement(config(256, 4), 0.5));
  CHECK_THROWS_AS(c.finish_run(bad, ok_measurement(config(256, 4), 0.5), cubin, CubinOrigin{"not hex", {}, 0}),
                  UsageError);
}

TEST_CASE("find_winner matches exactly; nearest_winner (runtime/nearest.hpp) picks the closest tuned size in log space") {
  Cache c(":memory:");
  const DeviceInfo dev = h100();
  const auto small = config(128, 2), large = config(512, 16);
  tune(c, dev, problem(1 * M), small);
  tune(c, dev, problem(64 * M), large);

  CHECK(c.find_winner(dev.model_key(), problem(1 * M))->config == small);
  CHECK(c.find_winner(dev.model_key(), problem(64 * M))->config == large);
  CHECK_FALSE(c.find_winner(dev.model_key(), problem(48 * M)));
  CHECK_FALSE(c.find_winner(a100().model_key(), problem(1 * M)));

  const auto n48 = nearest_winner(c, dev.model_key(), problem(48 * M));
  REQUIRE(n48);
  CHECK(n48->problem.n() == 64 * M);
  CHECK(n48->config == large);
  const auto n2 = nearest_winner(c, dev.model_key(), problem(2 * M));
  REQUIRE(n2);
  CHECK(n2->problem.n() == 1 * M);
  CHECK(n2->config == small);
  CHECK(nearest_winner(c, dev.model_key(), problem(1 * M))->problem.n() == 1 * M);
  CHECK(nearest_winner(c, dev.model_key(), problem(0))->problem.n() == 1 * M);

  CHECK_FALSE(nearest_winner(c, dev.model_key(), problem(48 * M, 128)));  // another shape
  auto other_dist = problem(48 * M);
  other_dist.distribution = "constant";
  CHECK_FALSE(nearest_winner(c, dev.model_key(), other_dist));
  CHECK_FALSE(nearest_winner(c, a100().model_key(), problem(48 * M)));

  SUBCASE("an exact tie in log space goes to the larger size") {
    // (3 + 1) * 2 == 7 + 1 and (7 + 1) * 2 == 15 + 1: n = 7 lies exactly between 3 and 15.
    const auto p = [](std::uint64_t n) { return problem(n, 64); };
    tune(c, dev, p(3), small);
    tune(c, dev, p(15), large);
    CHECK(nearest_winner(c, dev.model_key(), p(7))->problem.n() == 15);
    CHECK(nearest_winner(c, dev.model_key(), p(6))->problem.n() == 3);
    CHECK(nearest_winner(c, dev.model_key(), p(8))->problem.n() == 15);
  }
}

TEST_CASE("shape_winners and family_winners leave the cubins and the columns stored after them unread; read_cubin "
          "reads each winner's own back, and nearest_winner returns its winner with its cubin") {
  Cache c(":memory:");
  const DeviceInfo dev = h100();
  tune(c, dev, problem(1 * M), config(128, 2), elf({'s', 'm'}));
  tune(c, dev, problem(64 * M), config(512, 16), elf({'l', 'a', 'r', 'g', 'e'}));
  tune(c, dev, problem(4 * M, 128), config(256, 4));  // no cubin stored
  for (auto winners : {c.shape_winners(dev.model_key(), problem(0)), c.family_winners(dev.model_key(), "histogram")}) {
    REQUIRE(winners.size() >= 2);
    for (Winner& w : winners) {
      CHECK(w.cubin.empty());
      CHECK(w.cubin_unread);
      CHECK(w.tuned_at.empty());
      CHECK(w.cubin_sha256.empty());
      CHECK(w.source_sha256.empty());
      CHECK(w.origin == "local");  // its run's
      const auto full = c.find_winner(dev.model_key(), w.problem);  // every column read
      REQUIRE(full);
      c.read_cubin(w);
      CHECK_FALSE(w.cubin_unread);
      CHECK(w.tuned_at == full->tuned_at);
      CHECK_FALSE(w.tuned_at.empty());
      CHECK(w.cubin_sha256 == full->cubin_sha256);
      CHECK(w.source_sha256 == full->source_sha256);
      CHECK(w.nvrtc_options == full->nvrtc_options);
      CHECK(w.nvrtc_version == full->nvrtc_version);
      CHECK(w.origin == full->origin);
      CHECK(w.cubin_sha256.empty() == (w.problem.n() == 4 * M));  // recorded with the cubin
      const auto expect = w.problem.n() == 1 * M ? elf({'s', 'm'}) : w.problem.n() == 64 * M ? elf({'l', 'a', 'r', 'g', 'e'})
                                                                                             : std::vector<char>{};
      CHECK(w.cubin == expect);
      c.read_cubin(w);  // read once: nothing changes
      CHECK(w.cubin == expect);
    }
  }
  const auto near = nearest_winner(c, dev.model_key(), problem(48 * M));
  REQUIRE(near);
  CHECK_FALSE(near->cubin_unread);
  CHECK(near->cubin == elf({'l', 'a', 'r', 'g', 'e'}));
}

TEST_CASE("closest_model (runtime/nearest.hpp): the nearest SM count, then the larger memory, then the model key; "
          "then the nearest size of that model") {
  const auto winner = [](const char* model, int sms, std::uint64_t memory, std::uint64_t n) {
    Winner w;
    w.model_key = model, w.sm_count = sms, w.memory_bytes = memory, w.problem = problem(n);
    return w;
  };
  constexpr std::uint64_t G = 1ull << 30;
  // Wanted: 132 SMs and n = 8M. The 114-SM model holds the exact size but is farther away than the two 132-SM models.
  std::vector<Winner> rows{winner("pcie", 114, 80 * G, 8 * M), winner("sxm-80", 132, 80 * G, 1 * M),
                           winner("sxm-141", 132, 141 * G, 1 * M), winner("sxm-141", 132, 141 * G, 64 * M),
                           winner("sxm-141", 132, 141 * G, 16 * M)};
  auto best = closest_model(rows, 132, 8 * M);
  REQUIRE(best);
  CHECK(best->model_key == "sxm-141");  // of the two 132-SM models, the larger memory
  CHECK(best->problem.n() == 16 * M);   // of its sizes, the nearest 8M
  // Equal SM count and memory: the smaller model key, whatever the row order.
  std::vector<Winner> twins{winner("b", 132, 80 * G, 8 * M), winner("a", 132, 80 * G, 1 * M)};
  CHECK(closest_model(twins, 130, 8 * M)->model_key == "a");
  CHECK(closest_model(rows, 114, 1 * M)->model_key == "pcie");
  CHECK_FALSE(closest_model({}, 132, 8 * M));
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
    std::copy_n("\x7f" "ELF", 4, cubin.begin());
    for (int k = 0; k < 4; ++k) {
      const auto run = c.begin_run(dev, problem((k + 1) * M), RunInfo{});
      for (int i = 0; i < 100; ++i) c.add_measurement(run, ok_measurement(config(32 * (i % 32 + 1), i + 1), 0.5));
      c.add_measurement(run, ok_measurement(config(256, 4), 0.5));  // a winner is one of its run's measurements
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
  CHECK(contains(err, "is damaged"));
  CHECK(contains(err, "autotune check"));
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
    tune(c, h100(), p, config(256, 8), elf({'c', '\0', 'b'}));
  }
  CHECK(fs::is_regular_file(path));
  Cache again(path.string());
  const auto w = again.find_winner(h100().model_key(), p);
  REQUIRE(w);
  CHECK(w->config == config(256, 8));
  CHECK(w->cubin == elf({'c', '\0', 'b'}));
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
  CHECK(is_utc_time(r.getColumn(0).getString()));
  CHECK(r.getColumn(1).getInt() == 1);
  CHECK(r.getColumn(2).getString() == "exhaustive");
  CHECK(r.getColumn(3).getString() == "0.1");
  SQLite::Statement r2(raw, "SELECT finished_at FROM runs WHERE id = ?");
  r2.bind(1, run2);
  REQUIRE(r2.executeStep());
  CHECK(is_utc_time(r2.getColumn(0).getString()));

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
  const auto run = tune(c, h100(), problem(M), *m.config.as<HistogramConfig>());
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
    // Both rows, so that the winner is still its run's measurement (lookups serve only such winners).
    raw.exec("UPDATE winners SET config = 'priv=bogus'; UPDATE measurements SET config = 'priv=bogus'");
  }
  Cache c(file.str());
  CHECK_THROWS_WITH_AS(c.find_winner(h100().model_key(), p), doctest::Contains(file.str().c_str()), CacheError);
  CHECK_THROWS_WITH_AS(nearest_winner(c, h100().model_key(), p), doctest::Contains("priv=bogus"), CacheError);
  CHECK_THROWS_AS(c.winners(), CacheError);
  CHECK_THROWS_WITH_AS(c.measurements(run), doctest::Contains("priv=bogus"), CacheError);
}

TEST_CASE("begin_run records the code identity, the canonical settings and the template") {
  TempPath file;
  const DeviceInfo dev = h100();
  std::int64_t given = 0, defaulted = 0;
  {
    Cache c(file.str());
    RunInfo info = run_info("0123456789abcdef", 12080, 12090, "9.9.9");
    info.settings_json = R"({ "samples": 15, "flush_l2": true, "warmup": 2 })";
    given = c.begin_run(dev, problem(M), info);
    defaulted = c.begin_run(dev, problem(2 * M), RunInfo{"exhaustive", "9.9.9"});  // what an old caller passes

    RunInfo bad = run_info();
    bad.settings_json = "{samples: 15";
    CHECK_THROWS_AS(c.begin_run(dev, problem(4 * M), bad), UsageError);
    bad.settings_json = "[1, 2]";  // JSON, but not an object
    CHECK_THROWS_AS(c.begin_run(dev, problem(4 * M), bad), UsageError);
  }
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("SELECT count(*) FROM runs").getInt() == 2);  // the refused runs left nothing behind
  CHECK(rows(raw, "SELECT template_hash, nvrtc_version, driver_version, settings, stale, stale_reason FROM runs"
                  " WHERE id = " + std::to_string(given)) ==
        std::vector<std::string>{
            R"(t:0123456789abcdef | i:12080 | i:12090 | t:{"flush_l2":true,"samples":15,"warmup":2} | i:0 | NULL)"});
  // Fields left empty come from the device and from this build's code of the family: its embedded template and the
  // sources of its preamble generator (KernelFamily::code_text).
  const std::string hash = template_hash(family_named("histogram").code_text());
  CHECK(family_named("histogram").code_text().find(embedded::histogram_template) != std::string::npos);
  CHECK(family_named("histogram").code_text().find(embedded::histogram_source_cpp) != std::string::npos);
  CHECK(rows(raw, "SELECT template_hash, nvrtc_version, driver_version, settings FROM runs WHERE id = " +
                      std::to_string(defaulted)) ==
        std::vector<std::string>{"t:" + hash + " | i:12040 | i:12040 | NULL"});
  CHECK(hash == current_identity("histogram", dev.driver_version).template_hash);
  auto templates = rows(raw, "SELECT family, hash FROM templates");
  std::vector<std::string> expected{"t:histogram | t:0123456789abcdef", "t:histogram | t:" + hash};
  std::sort(templates.begin(), templates.end());
  std::sort(expected.begin(), expected.end());
  CHECK(templates == expected);
  SQLite::Statement seen(raw, "SELECT first_seen FROM templates");
  while (seen.executeStep()) CHECK(is_utc_time(seen.getColumn(0).getString()));
}

TEST_CASE("runs that start in the same millisecond get distinct start times") {
  Cache c(":memory:");
  std::set<std::int64_t> ids;
  // Far more runs than milliseconds pass: several land in the same millisecond, which the unique natural key
  // would refuse if begin_run did not move them on.
  for (int i = 0; i < 50; ++i) ids.insert(c.begin_run(h100(), problem(M), run_info()));
  CHECK(ids.size() == 50);
  // Each is a separate, usable run.
  for (const auto id : ids) c.add_measurement(id, ok_measurement(config(256, 4), 1.0));
  for (const auto id : ids) CHECK(c.measurements(id).size() == 1);
}

TEST_CASE("a re-measured configuration replaces its row; a finished run's measurements are final") {
  Cache c(":memory:");
  const auto run = c.begin_run(h100(), problem(M), run_info());
  c.add_measurement(run, ok_measurement(config(256, 4), 2.0));
  c.add_measurement(run, ok_measurement(config(512, 4), 3.0));
  c.add_measurement(run, failed_measurement(config(256, 4), MeasurementStatus::launch_error, "lost"));
  auto ms = c.measurements(run);
  REQUIRE(ms.size() == 2);
  CHECK(ms[0].config == config(256, 4));  // keeps its place
  CHECK(ms[0].status == MeasurementStatus::launch_error);
  CHECK(ms[0].log == "lost");
  CHECK(ms[0].median_ms == 0.0);
  CHECK(ms[1].median_ms == 3.0);

  c.finish_run(run, ms[1], {});
  CHECK_THROWS_WITH_AS(c.add_measurement(run, ok_measurement(config(128, 4), 1.0)),
                       doctest::Contains("already finished"), CacheError);
  CHECK(c.measurements(run).size() == 2);
}

TEST_CASE("roof_pct comes from the device's measured roof") {
  TempPath file;
  Cache c(file.str());
  const DeviceInfo dev = h100();
  CHECK_FALSE(c.device_roof(dev.model_key()));
  const auto before = c.begin_run(dev, problem(M), run_info());
  c.add_measurement(before, ok_measurement(config(256, 4), 0.5));  // 2 GB/s, no roof yet

  c.set_device_roof(dev, 8.0);
  REQUIRE(c.device_roof(dev.model_key()));
  CHECK(*c.device_roof(dev.model_key()) == 8.0);
  CHECK_FALSE(c.device_roof(a100().model_key()));
  const auto run = c.begin_run(dev, problem(M), run_info());
  c.add_measurement(run, ok_measurement(config(256, 4), 0.5));   // 2 GB/s of 8
  c.add_measurement(run, ok_measurement(config(512, 4), 0.25));  // 4 GB/s of 8
  Measurement given = ok_measurement(config(128, 4), 1.0);
  given.roof_pct = 12.5;  // the caller knows better: kept
  c.add_measurement(run, given);
  c.add_measurement(run, failed_measurement(config(64, 4), MeasurementStatus::wrong_result, "bin 1"));
  const auto ms = c.measurements(run);
  REQUIRE(ms.size() == 4);
  CHECK(ms[0].roof_pct == doctest::Approx(25.0));
  CHECK(ms[1].roof_pct == doctest::Approx(50.0));
  CHECK(ms[2].roof_pct == 12.5);
  CHECK(ms[3].roof_pct == 0.0);
  CHECK(c.measurements(before)[0].roof_pct == 0.0);
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(rows(raw, "SELECT roof_pct FROM measurements ORDER BY id") ==
        std::vector<std::string>{"NULL", "r:25", "r:50", "r:12.5", "NULL"});

  // A new roof replaces the old one; the device row is created when the roof is the first thing recorded.
  c.set_device_roof(dev, 10.0);
  CHECK(*c.device_roof(dev.model_key()) == 10.0);
  c.set_device_roof(a100(), 1555.0);
  CHECK(*c.device_roof(a100().model_key()) == 1555.0);
  for (double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()})
    CHECK_THROWS_AS(c.set_device_roof(dev, bad), UsageError);
  CHECK(*c.device_roof(dev.model_key()) == 10.0);
}

TEST_CASE("a changed template, NVRTC or driver marks the model's runs stale; stale winners are never served") {
  TempPath file;
  Cache c(file.str());
  const DeviceInfo h = h100(), a = a100();
  const auto p1 = problem(M), p64 = problem(64 * M);
  const auto h_run = tune(c, h, p1, config(256, 4), elf({'c'}), run_info("00000000000000aa", 12040, 12040));
  tune(c, h, p64, config(512, 8), {}, run_info("00000000000000aa", 12040, 12040));
  const auto a_run = tune(c, a, p1, config(128, 2), {}, run_info("00000000000000aa", 12040, 12040));
  const CodeIdentity same{"00000000000000aa", 12040, 12040, "histogram"};

  CHECK(c.mark_stale(same) == 0);
  CHECK(c.mark_stale(CodeIdentity{}) == 0);  // nothing known about the current code: nothing compared

  SUBCASE("a new template, for one model") {
    CHECK(c.mark_stale({"00000000000000bb", 12040, 12040, "histogram"}, h.model_key()) == 2);
    CHECK(c.mark_stale({"00000000000000bb", 12040, 12040, "histogram"}, h.model_key()) == 0);  // only newly marked ones count
    CHECK_FALSE(c.find_winner(h.model_key(), p1));
    CHECK_FALSE(nearest_winner(c, h.model_key(), problem(2 * M)));
    REQUIRE(c.find_winner(a.model_key(), p1));  // the other model is untouched
    CHECK(c.find_winner(a.model_key(), p1)->run_id == a_run);
    REQUIRE(c.winners().size() == 1);
    CHECK(c.winners()[0].model_key == a.model_key());

    const auto all = c.winners(true);
    REQUIRE(all.size() == 3);
    for (const Winner& w : all) {
      CAPTURE(w.model_key);
      CHECK(w.stale == (w.model_key == h.model_key()));
      CHECK(w.stale_reason ==
            (w.stale ? "template 00000000000000aa -> 00000000000000bb" : std::string()));
    }
    CHECK(c.measurements(h_run).size() == 1);  // kept, not deleted

    SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
    CHECK(rows(raw, "SELECT device FROM best") == std::vector<std::string>{"t:" + a.name});
    CHECK(rows(raw, "SELECT device FROM device_comparison") == std::vector<std::string>{"t:" + a.name});

    // Tuning again with the new code brings a fresh winner back.
    tune(c, h, p1, config(1024, 4), {}, run_info("00000000000000bb", 12040, 12040));
    REQUIRE(c.find_winner(h.model_key(), p1));
    CHECK(c.find_winner(h.model_key(), p1)->config == config(1024, 4));
  }
  SUBCASE("a new driver and NVRTC, for every model") {
    CHECK(c.mark_stale({"", 13000, 13010}) == 3);
    CHECK(c.winners().empty());
    for (const Winner& w : c.winners(true)) {
      CHECK(w.stale);
      CHECK(w.stale_reason == "NVRTC 12040 -> 13000; driver 12040 -> 13010");
    }
  }
  SUBCASE("a run that does not know its code counts as different") {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE runs SET template_hash = NULL, driver_version = NULL WHERE id = " + std::to_string(a_run));
    CHECK(c.mark_stale(same) == 1);
    const auto w = c.winners(true);
    REQUIRE(w.size() == 3);
    CHECK(w[0].model_key == a.model_key());
    CHECK(w[0].stale_reason == "template unknown -> 00000000000000aa; driver unknown -> 12040");
  }
}

TEST_CASE("gc deletes stale runs with their measurements and winners, and what nothing refers to any more") {
  TempPath file;
  const DeviceInfo h = h100();
  std::int64_t fresh_run = 0;
  {
    Cache c(file.str());
    c.set_device_roof(h, 3000.0);
    // Stale: a run of p1 (winner, 3 measurements) and an interrupted run of p2 (1 measurement), old template.
    const auto old = c.begin_run(h, problem(M), run_info("00000000000000aa"));
    for (int ipt : {1, 2, 4}) c.add_measurement(old, ok_measurement(config(256, ipt), ipt));
    c.finish_run(old, ok_measurement(config(256, 1), 1), elf({'x'}));
    const auto cut = c.begin_run(h, problem(2 * M), run_info("00000000000000aa"));
    c.add_measurement(cut, ok_measurement(config(256, 4), 1));
    // Fresh: p1 again with the new template; its winner replaces the old one.
    fresh_run = tune(c, h, problem(M), config(512, 4), elf({'y'}), run_info("00000000000000bb"));
    CHECK(c.mark_stale({"00000000000000bb", 0, 0, "histogram"}) == 2);
    CHECK(c.winners(true).size() == 1);  // the fresh run's winner replaced the stale one
  }
  const std::string before = dump_everything(file.str());
  std::size_t removed = 0;
  {
    Cache c(file.str());
    // 2 runs + 3 + 1 measurements + problem 2M (no run left) + template aa; no winner was stale any more.
    removed = c.gc();
    CHECK(removed == 2 + 4 + 1 + 1);
    CHECK(c.gc() == 0);
    REQUIRE(c.winners(true).size() == 1);
    CHECK(c.winners()[0].run_id == fresh_run);
    CHECK(c.measurements(fresh_run).size() == 1);
    CHECK(c.device_roof(h.model_key()) == 3000.0);  // devices stay
  }
  CHECK(dump_everything(file.str()) != before);
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("SELECT count(*) FROM runs").getInt() == 1);
  CHECK(raw.execAndGet("SELECT count(*) FROM measurements").getInt() == 1);
  CHECK(rows(raw, "SELECT key FROM problems") == std::vector<std::string>{"t:" + problem(M).key()});
  CHECK(rows(raw, "SELECT hash FROM templates") == std::vector<std::string>{"t:00000000000000bb"});
  CHECK(raw.execAndGet("SELECT count(*) FROM devices").getInt() == 1);

  SUBCASE("a stale winner goes with its run") {
    Cache c(file.str());
    CHECK(c.mark_stale({"00000000000000cc", 0, 0, "histogram"}) == 1);
    CHECK(c.gc() == 1 + 1 + 1 + 1 + 1);  // winner, measurement, run, problem, template
    CHECK(c.winners(true).empty());
  }
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
