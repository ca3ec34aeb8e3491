// Refuse before touching: a file that is not ours (another application_id, or an older file whose tables of our
// names have another shape) is refused before anything is written; a damaged file is refused by writers and said to
// be damaged by readers, with `autotune check` as the next step; only a regular file is a cache; read-only commands
// leave no side file beside a rollback-mode file with a stray -wal; an import is all or nothing as readers see it;
// every refusal is one line in our words that names the file or argument.
#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "tests/cache_writer_plan.hpp"
#include "tests/cpu/cache_fixtures.hpp"

using namespace autotune;
using namespace autotune::test;

namespace {

// Runs a command line as `autotune` does: the exit code, what it printed on stdout, and the error's message.
struct Outcome {
  int code = 0;
  std::string out, error;
};
Outcome run_cli(std::vector<std::string> args) {
  std::ostringstream o, e;
  Outcome r;
  try {
    r.code = cli::run(cli::parse_command_line(args), o, e);
  } catch (const std::exception& ex) {
    r.code = 1;
    r.error = ex.what();
  }
  r.out = o.str();
  return r;
}

// Another program's SQLite file that happens to use our table names, at our schema 3 (the finding's file).
void foreign_file(const std::string& path, int application_id) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  for (const char* table : {"devices", "problems", "runs", "measurements", "winners", "templates", "baselines"})
    db.exec(fmt::format("CREATE TABLE {} (id INTEGER PRIMARY KEY, payload TEXT)", table));
  db.exec("INSERT INTO devices (payload) VALUES ('somebody else''s data')");
  db.exec("PRAGMA user_version = 3");
  if (application_id != 0) db.exec(fmt::format("PRAGMA application_id = {}", application_id));
}

void filled_cache(const std::string& path) {
  Cache c(path);
  for (int i = 0; i < 40; ++i) tune(c, h100(), problem((i + 1) * M), config(256, 4), elf({'x'}));
}

}  // namespace

TEST_SUITE("cache_refusals") {

TEST_CASE("a file of another program is refused before anything is written, by every writer and reader") {
  TempPath file;
  SUBCASE("no application_id, tables of our names with other columns") { foreign_file(file.str(), 0); }
  SUBCASE("another program's application_id") { foreign_file(file.str(), 0x12345678); }
  const std::string before = read_bytes(file.path);
  const std::string err = open_error(file.str());
  CHECK(contains(err, "'" + file.str() + "'"));
  CHECK((contains(err, "not an autotune cache") || contains(err, "another program")));
  CHECK(contains(err, "left unchanged"));
  TempPath doc;
  write_bytes(doc.path, export_text(Cache(":memory:")));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"import", doc.str(), "--cache", file.str()},
        {"merge", file.str(), "--cache", ":memory:"}, {"gc", "--cache", file.str()},
        {"show", "--cache", file.str()}, {"export", "--cache", file.str()}}) {
    CAPTURE(args[0]);
    const Outcome r = run_cli(args);
    CHECK(r.code != 0);
    CHECK(contains(r.error, file.str()));
  }
  CHECK(read_bytes(file.path) == before);
  for (const char* side : {"-wal", "-shm", "-journal"}) CHECK_FALSE(fs::exists(file.str() + side));
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA user_version").getInt() == 3);
  CHECK(raw.execAndGet("PRAGMA journal_mode").getString() == "delete");
}

TEST_CASE("files we create carry our application_id; our older files (no id) still open and gain it") {
  TempPath fresh, old;
  { Cache c(fresh.str()); }
  SQLite::Database raw(fresh.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA application_id").getInt() == 0x6175746f);
  fs::copy_file(fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v2.db", old.path);
  { CHECK(Cache::open_read_only(old.str()).winners().size() == 1); }
  { Cache c(old.str()); }
  SQLite::Database migrated(old.str(), SQLite::OPEN_READONLY);
  CHECK(migrated.execAndGet("PRAGMA application_id").getInt() == 0x6175746f);
  CHECK(migrated.execAndGet("PRAGMA user_version").getInt() == Cache::schema_version());
}

TEST_CASE("a cache cut short by one byte is refused by writers and CLI readers, and `check` says why") {
  TempPath file;
  filled_cache(file.str());
  {
    // Checkpointed into the main file, as after the last writer closed: the cut is in the file itself.
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE");
  }
  fs::resize_file(file.path, fs::file_size(file.path) - 1);
  const std::string before = read_bytes(file.path);
  const std::string err = open_error(file.str());
  CHECK(contains(err, "'" + file.str() + "' is damaged"));
  CHECK(contains(err, "autotune check --cache " + file.str()));
  CHECK(err.find('\n') == std::string::npos);
  CHECK_THROWS_WITH_AS(Cache::open_read_only(file.str()), doctest::Contains("is damaged"), CacheError);
  for (const char* command : {"show", "export", "gc"}) {
    CAPTURE(command);
    const Outcome r = run_cli({command, "--cache", file.str()});
    CHECK(r.code != 0);
    CHECK(contains(r.error, "autotune check"));
  }
  const Outcome check = run_cli({"check", "--cache", file.str()});
  CHECK(check.code == 1);
  CHECK(contains(check.out, "cut short"));
  CHECK(read_bytes(file.path) == before);
}

TEST_CASE("a page of garbage is seen by writers (quick_check) before they write") {
  TempPath file;
  filled_cache(file.str());
  {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE");
  }
  std::string bytes = read_bytes(file.path);
  const std::size_t page = 4096;
  REQUIRE(bytes.size() >= 4 * page);
  for (std::size_t i = 2 * page + 16; i < 3 * page; ++i) bytes[i] = static_cast<char>(0xA5 ^ (i * 31));
  write_bytes(file.path, bytes);
  CHECK(contains(open_error(file.str()), "is damaged"));
  CHECK(read_bytes(file.path) == bytes);
  const Outcome r = run_cli({"show", "--cache", file.str()});
  CHECK(r.code != 0);
  CHECK(contains(r.error, "is damaged"));
}

TEST_CASE("only a regular file (or a new path) is a cache") {
  TempPath dir;
  fs::create_directories(dir.path);
  const std::string fifo = (dir.path / "fifo.db").string(), sub = (dir.path / "sub.db").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  fs::create_directory(sub);
  for (const std::string& path : {fifo, sub}) {
    CAPTURE(path);
    CHECK(contains(open_error(path), "'" + path + "' is not a regular file"));
    CHECK_THROWS_WITH_AS(Cache::open_read_only(path), doctest::Contains("is not a regular file"), CacheError);
    for (const char* side : {"-wal", "-shm", "-journal"}) CHECK_FALSE(fs::exists(path + side));
  }
}

TEST_CASE("a stray -wal beside a rollback-mode cache: read-only commands read the file and leave no -shm") {
  TempPath dir;
  fs::create_directories(dir.path);
  const std::string file = (dir.path / "old.db").string();
  filled_cache(file);
  {
    SQLite::Database raw(file, SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA journal_mode = DELETE");
  }
  write_bytes(file + "-wal", std::string(4096, '\0'));
  const std::string before = read_bytes(file);
  const Outcome r = run_cli({"show", "--cache", file});
  CHECK(r.code == 0);
  CHECK(contains(r.out, "NVIDIA H100"));
  CHECK(run_cli({"export", "--cache", file}).code == 0);
  CHECK(Cache::open_read_only(file).winners().size() == 40);
  CHECK_FALSE(fs::exists(file + "-shm"));
  CHECK(read_bytes(file) == before);
}

TEST_CASE("an import is all or nothing as readers see it") {
  namespace plan = autotune::test::writer_plan;
  Cache s(":memory:");
  for (int r = 0; r < 3000; ++r) {
    const auto run = s.begin_run(plan::device(), plan::problem(100 + r, 0), plan::run_info(100 + r));
    s.add_measurement(run, plan::measurement(100 + r, 0, 0));
    s.finish_run(run, plan::measurement(100 + r, 0, 0), {});
  }
  const std::string doc = export_text(s);
  TempPath target;
  { Cache create(target.str()); }
  std::atomic<bool> done{false};
  std::vector<std::pair<int, int>> seen;  // (runs, winners) as readers saw them
  std::vector<std::string> errors;        // what a read threw other than "busy" (a thread must not throw)
  int busy = 0;
  std::thread reader([&] {
    while (!done.load()) {
      try {
        SQLite::Database raw(target.str(), SQLite::OPEN_READONLY);
        raw.setBusyTimeout(1000);
        // One read transaction: both counts from the same snapshot.
        SQLite::Transaction snapshot(raw, SQLite::TransactionBehavior::DEFERRED);
        seen.emplace_back(raw.execAndGet("SELECT count(*) FROM runs").getInt(),
                          raw.execAndGet("SELECT count(*) FROM winners").getInt());
      } catch (const SQLite::Exception& e) {
        // A reader told to wait saw nothing, which is not a partial import; anything else is reported below.
        if (e.getErrorCode() == SQLITE_BUSY || e.getErrorCode() == SQLITE_LOCKED) ++busy;
        else errors.emplace_back(e.what());
      }
    }
  });
  Cache importer(target.str());
  std::istringstream in(doc);
  CHECK(importer.import_json(in, "doc").runs == 3000);
  done = true;
  reader.join();
  CHECK_MESSAGE(errors.empty(), (errors.empty() ? std::string() : errors.front()));
  for (const std::pair<int, int>& read : seen) {
    const int runs = read.first, winners = read.second;
    CAPTURE(runs);
    CHECK(((runs == 0 && winners == 0) || (runs == 3000 && winners == 3000)));
  }
  MESSAGE(seen.size() << " reads during the import (" << busy << " told to wait)");
}

TEST_CASE("refusals are one line in our words, naming the file or argument") {
  TempPath dir;
  fs::create_directories(dir.path);
  const std::string cache = (dir.path / "c.db").string(), bad = (dir.path / "bad.json").string();
  for (const std::string& text : {std::string("not json"), std::string("{\"format\": "), std::string("")}) {
    CAPTURE(text);
    write_bytes(bad, text);
    const Outcome r = run_cli({"import", bad, "--cache", cache});
    CHECK(r.code != 0);
    CHECK(contains(r.error, "'" + bad + "'"));
    CHECK_FALSE(contains(r.error, "json.exception"));
    CHECK(r.error.find('\n') == std::string::npos);
  }
  const Outcome directory = run_cli({"import", dir.str(), "--cache", cache});
  CHECK(contains(directory.error, "'" + dir.str() + "'"));
  CHECK(contains(directory.error, "is a directory"));
  CHECK_THROWS_WITH_AS(cli::parse_command_line({"import", bad, "second.json"}), doctest::Contains("'second.json'"),
                       UsageError);
  CHECK_THROWS_WITH_AS(cli::parse_command_line({"show", "stray"}), doctest::Contains("unexpected argument 'stray'"),
                       UsageError);
  CHECK_FALSE(fs::exists(cache));  // nothing was created by the refusals
  for (const auto& e : fs::directory_iterator(dir.path)) CHECK(e.path().filename() == "bad.json");
}

TEST_CASE("plain `tune` without a GPU prints nothing on stdout before its one-line error") {
  try {
    device_count();
    MESSAGE("skipped: this machine has a GPU (plain `tune` would tune the default set)");
    return;
  } catch (const NoDeviceError&) {
  }
  TempPath cache;
  const Outcome r = run_cli({"tune", "--cache", cache.str()});
  CHECK(r.code != 0);
  CHECK(r.out == "");
  CHECK(r.error.find('\n') == std::string::npos);
  CHECK_FALSE(fs::exists(cache.path));
}

}  // TEST_SUITE("cache_refusals")
