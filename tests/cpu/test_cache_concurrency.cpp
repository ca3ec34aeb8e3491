// Several processes on one cache file: writer processes (tests/cache_writer.cpp) tune runs with many measurements
// while this process reads winners, measurements and exports. Readers must never see half a run (a winner, or a
// finished run, whose measurements are not all there), and at the end every row of every writer must be present.
#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <chrono>
#include <csignal>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "autotune/cache.hpp"
#include "tests/cache_writer_plan.hpp"
#include "tests/cpu/cache_fixtures.hpp"

extern char** environ;

using namespace autotune;
using namespace autotune::test;
namespace plan = autotune::test::writer_plan;

namespace {

// The writer processes, started with posix_spawn; the destructor kills (by pid) and reaps any still running, so
// a failing test leaves no process behind.
class Writers {
 public:
  Writers(const std::string& file, int count) {
    for (int w = 0; w < count; ++w) {
      const std::string exe = AUTOTUNE_CACHE_WRITER, id = std::to_string(w);
      std::vector<char*> argv{const_cast<char*>(exe.c_str()), const_cast<char*>(file.c_str()),
                              const_cast<char*>(id.c_str()), nullptr};
      pid_t pid = 0;
      const int rc = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ);
      REQUIRE_MESSAGE(rc == 0, "cannot start " << exe << ": " << std::strerror(rc));
      running_.push_back(pid);
    }
  }
  ~Writers() {
    for (pid_t pid : running_) {
      ::kill(pid, SIGKILL);
      int status = 0;
      ::waitpid(pid, &status, 0);
    }
  }
  Writers(const Writers&) = delete;
  Writers& operator=(const Writers&) = delete;

  /// Reaps the writers that exited; returns whether any is still running.
  bool poll() {
    for (auto it = running_.begin(); it != running_.end();) {
      int status = 0;
      if (::waitpid(*it, &status, WNOHANG) == *it) {
        exit_codes_.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        it = running_.erase(it);
      } else {
        ++it;
      }
    }
    return !running_.empty();
  }
  const std::vector<int>& exit_codes() const { return exit_codes_; }

 private:
  std::vector<pid_t> running_;
  std::vector<int> exit_codes_;
};

// A finished run with fewer than all its measurements, as seen in one statement (one snapshot) of `db`.
int half_runs(SQLite::Database& db) {
  return db.execAndGet("SELECT count(*) FROM runs r WHERE r.finished_at IS NOT NULL AND"
                       " (SELECT count(*) FROM measurements m WHERE m.run_id = r.id) <> " +
                       std::to_string(plan::kMeasurements))
      .getInt();
}

// Every row of every writer, as the reader and SQLite see them once the writers are done.
void check_every_writers_rows(const Cache& reader, SQLite::Database& raw) {
  const std::string model = plan::device().model_key();
  CHECK(raw.execAndGet("SELECT count(*) FROM runs WHERE finished_at IS NOT NULL").getInt() ==
        plan::kWriters * (plan::kRuns + 1));
  CHECK(raw.execAndGet("SELECT count(*) FROM runs").getInt() == plan::kWriters * (plan::kRuns + 1));
  CHECK(raw.execAndGet("SELECT count(*) FROM measurements").getInt() ==
        plan::kWriters * (plan::kRuns + 1) * plan::kMeasurements);
  CHECK(half_runs(raw) == 0);
  SQLite::Statement run_of(raw,
      "SELECT r.id FROM runs r JOIN problems p ON p.id = r.problem_id WHERE p.key = ? AND r.tool_version = ?");
  int rows_checked = 0;
  for (int w = 0; w < plan::kWriters; ++w)
    for (int r = 0; r <= plan::kRuns; ++r) {
      CAPTURE(w);
      CAPTURE(r);
      run_of.reset();
      run_of.bind(1, plan::problem(w, r).key());
      run_of.bind(2, plan::run_info(w).tool_version);
      REQUIRE(run_of.executeStep());
      const auto ms = reader.measurements(run_of.getColumn(0).getInt64());
      REQUIRE(ms.size() == plan::kMeasurements);
      for (int i = 0; i < plan::kMeasurements; ++i) {
        const Measurement want = plan::measurement(w, r, i);
        rows_checked += ms[i].config == want.config && ms[i].median_ms == want.median_ms && ms[i].log == want.log &&
                        ms[i].gbps == want.gbps && ms[i].samples == want.samples;
      }
      if (r == plan::kRuns) continue;  // the shared problem's winner is whichever writer finished last
      const auto winner = reader.find_winner(model, plan::problem(w, r));
      REQUIRE(winner);
      CHECK(winner->run_id == run_of.getColumn(0).getInt64());
      CHECK(winner->config == plan::config(0));
      CHECK(winner->median_ms == plan::median_ms(w, r, 0));
      CHECK(winner->cubin == plan::cubin(w, r));
    }
  CHECK(rows_checked == plan::kWriters * (plan::kRuns + 1) * plan::kMeasurements);
  const auto shared = reader.find_winner(model, plan::problem(0, plan::kRuns));
  REQUIRE(shared);
  SQLite::Statement who(raw, "SELECT tool_version FROM runs WHERE id = ?");
  who.bind(1, shared->run_id);
  REQUIRE(who.executeStep());
  const std::string tool = who.getColumn(0).getString();
  REQUIRE(tool.starts_with("writer-"));
  const int w = std::stoi(tool.substr(7));
  CHECK(shared->median_ms == plan::median_ms(w, plan::kRuns, 0));
  CHECK(shared->cubin == plan::cubin(w, plan::kRuns));
  CHECK(reader.winners().size() == std::size_t(plan::kWriters * plan::kRuns + 1));
}

}  // namespace

TEST_SUITE("cache_concurrency") {

TEST_CASE("writer processes and a reader share one file: nothing is lost and no reader sees half a run") {
  TempPath file;
  { Cache create(file.str()); }  // the race under test is writing, not creating the file
  const auto start = std::chrono::steady_clock::now();
  Writers writers(file.str(), plan::kWriters);

  Cache reader(file.str());
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY, 5000);
  int rounds = 0, half_winners = 0, half_finished = 0, half_exported = 0;
  std::size_t most_winners = 0;
  bool partial_seen = false;  // a round that saw some but not all runs: the reads did overlap the writes
  while (writers.poll()) {
    REQUIRE_MESSAGE(std::chrono::steady_clock::now() - start < std::chrono::seconds(60), "the writers hang");
    ++rounds;
    const auto winners = reader.winners();
    most_winners = std::max(most_winners, winners.size());
    partial_seen |= !winners.empty() && winners.size() < std::size_t(plan::kWriters * plan::kRuns + 1);
    for (const Winner& w : winners) half_winners += reader.measurements(w.run_id).size() != plan::kMeasurements;
    half_finished += half_runs(raw);
    if (rounds % 8 == 0) {  // an export is one snapshot too
      std::ostringstream out;
      reader.export_json(out);
      // Named: a range-for over parse(...)["runs"] would iterate a member of a temporary already destroyed.
      const nlohmann::json exported = nlohmann::json::parse(out.str());
      for (const auto& run : exported["runs"])
        half_exported += !run["finished_at"].is_null() && run["measurements"].size() != plan::kMeasurements;
    }
  }
  MESSAGE(rounds << " read rounds while " << plan::kWriters << " writers ran; partial states seen: " << partial_seen);
  CHECK(rounds > 0);
  CHECK(writers.exit_codes() == std::vector<int>(plan::kWriters, 0));
  CHECK(half_winners == 0);
  CHECK(half_finished == 0);
  CHECK(half_exported == 0);

  check_every_writers_rows(reader, raw);
  CHECK(most_winners <= std::size_t(plan::kWriters * plan::kRuns + 1));
}

TEST_CASE("eight writers wait out a writer that holds the lock longer than 5 s, while readers read") {
  TempPath file;
  { Cache create(file.str()); }
  constexpr int kWriters = 8;
  std::optional<Writers> writers;
  {
    // Another writer (a long import) holds the write lock for 6 s: longer than the 5 s autotune used to wait.
    SQLite::Database holder(file.str(), SQLite::OPEN_READWRITE, 1000);
    holder.exec("BEGIN IMMEDIATE");
    writers.emplace(file.str(), kWriters);
    const auto held = std::chrono::steady_clock::now();
    Cache reader(file.str());
    int reads = 0;
    while (std::chrono::steady_clock::now() - held < std::chrono::seconds(6)) {
      reads += reader.winners().empty();  // readers are never blocked by a writer (WAL)
      ::usleep(50'000);
    }
    CHECK(reads > 0);
    holder.exec("COMMIT");
  }
  const auto start = std::chrono::steady_clock::now();
  while (writers->poll()) {
    REQUIRE_MESSAGE(std::chrono::steady_clock::now() - start < std::chrono::seconds(60), "the writers hang");
    ::usleep(20'000);
  }
  CHECK(writers->exit_codes() == std::vector<int>(kWriters, 0));
  SQLite::Database raw(file.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("SELECT count(*) FROM runs WHERE finished_at IS NOT NULL").getInt() ==
        kWriters * (plan::kRuns + 1));
  CHECK(raw.execAndGet("SELECT count(*) FROM measurements").getInt() ==
        kWriters * (plan::kRuns + 1) * plan::kMeasurements);
}

TEST_CASE("a writer and a long import at once: both complete, whichever gets the lock first") {
  // A document of 3000 runs (one measurement each) imports in one transaction (readers see all of it or nothing:
  // tests/cpu/test_cache_refusals.cpp); a tuner-like writer started at the same time waits for the lock, or takes
  // it first (the import validates the document before it writes), and completes either way.
  TempPath target;
  Cache s(":memory:");
  {
    for (int r = 0; r < 3000; ++r) {
      const auto run = s.begin_run(plan::device(), plan::problem(100 + r, 0), plan::run_info(100 + r));
      s.add_measurement(run, plan::measurement(100 + r, 0, 0));
      s.finish_run(run, plan::measurement(100 + r, 0, 0), {});
    }
  }
  std::ostringstream doc;
  s.export_json(doc);
  { Cache create(target.str()); }
  Cache importer(target.str());
  std::atomic<bool> import_done{false};
  std::atomic<bool> writer_done_first{false};
  std::thread writer([&] {
    Cache w(target.str());
    const auto run = w.begin_run(plan::device(), plan::problem(0, 0), plan::run_info(0));
    w.add_measurement(run, plan::measurement(0, 0, 0));
    w.finish_run(run, plan::measurement(0, 0, 0), {});
    writer_done_first = !import_done.load();
  });
  std::istringstream in(doc.str());
  const ImportStats stats = importer.import_json(in, "doc");
  import_done = true;
  writer.join();
  CHECK(stats.runs == 3000);
  SQLite::Database raw(target.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("SELECT count(*) FROM runs").getInt() == 3001);
  MESSAGE("the writer finished before the import ended: " << writer_done_first.load());
}

}  // TEST_SUITE("cache_concurrency")
