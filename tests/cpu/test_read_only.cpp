// Lookups and read-only commands never write a cache (Cache::open_read_only, cache/read_only.cpp): not the file,
// not its directory (no -wal / -shm / -journal side files), not even when it is of an older schema.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "autotune/histogram_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "autotune/resolution.hpp"
#include "tests/cpu/cache_fixtures.hpp"

using namespace autotune;
using namespace autotune::test;

namespace {

// A run measured with this build's histogram code, so that a lookup serves it.
std::int64_t record_current(Cache& cache, const DeviceInfo& d, const HistogramProblem& p, const HistogramConfig& c) {
  return tune(cache, d, p, c, {'\x7f', 'E', 'L', 'F'}, run_info(current_identity("histogram", 0).template_hash,
                                                                nvrtc_version(), 0));
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

LookupTarget target_of(const DeviceInfo& d) { return LookupTarget{d.model_key(), d.arch(), d.sm_count, 0}; }

// A cache in WAL mode (as `autotune tune` leaves it) with a fresh winner at 64M and one of other code at 1M.
void make_tuned_cache(const fs::path& file) {
  Cache c(file.string());
  record_current(c, h100(), problem(64 * M), config(512, 4));
  tune(c, h100(), problem(1 * M, 128), config(256, 2), {}, run_info("00000000000000aa", nvrtc_version(), 0));
}

}  // namespace

TEST_SUITE("read_only") {
  TEST_CASE("lookups from a 0444 cache in a directory the reader cannot write leave it byte-identical") {
    TempPath dir;
    fs::create_directories(dir.path);
    const fs::path file = dir.path / "fleet.db";
    make_tuned_cache(file);
    fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                  fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    const std::string before = read_bytes(file);
    const auto names = listing(dir.path);

    // The reader runs in a child process: as root it becomes `nobody`, for whom the directory really is read-only
    // (root ignores permission bits). Exit codes say what failed.
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(10);
      const int probe = ::open((dir.path / "probe").c_str(), O_CREAT | O_WRONLY, 0644);
      if (probe >= 0) ::_exit(11);  // the directory is writable after all: the test would prove nothing
      try {
        const Cache cache = Cache::open_read_only(file.string());
        const Lookup exact = lookup_config(cache, target_of(h100()), problem(64 * M));
        if (exact.source != ConfigSource::exact || exact.config != Config(config(512, 4))) ::_exit(12);
        const Lookup near = lookup_config(cache, target_of(h100()), problem(16 * M));
        if (near.source != ConfigSource::nearest_size || near.winner->problem.n() != 64 * M) ::_exit(13);
        // Measured with another template: skipped and counted, never served, and not marked (the similar tuned
        // problem, u8/256 bins, one doubling away, is served instead).
        const Lookup other = lookup_config(cache, target_of(h100()), problem(32 * M, 128));
        if (other.source != ConfigSource::similar_problem || other.config != Config(config(512, 4)) ||
            other.stale_skipped != 1)
          ::_exit(14);
        if (cache.winners().size() != 2) ::_exit(15);
      } catch (const std::exception&) {
        ::_exit(16);
      }
      ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    fs::permissions(dir.path, fs::perms::owner_all);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(read_bytes(file) == before);
    CHECK(listing(dir.path) == names);
  }

  TEST_CASE("an older schema is read through an upgraded copy: the file and its directory are unchanged") {
    TempPath dir;
    fs::create_directories(dir.path);
    const fs::path file = dir.path / "v1.db";
    copy_golden_v1(file);
    fs::permissions(file, fs::perms::owner_read);
    const std::string before = read_bytes(file);
    const auto names = listing(dir.path);
    const Cache cache = Cache::open_read_only(file.string());
    CHECK_FALSE(cache.winners(true).empty());
    CHECK(read_bytes(file) == before);
    CHECK(listing(dir.path) == names);
  }

  TEST_CASE("a reader's statements prepared once (read_cubin, shape_winners) hold no read open: a winner committed "
            "after them is seen by the next lookup of the same reader") {
    TempPath dir;
    fs::create_directories(dir.path);
    const fs::path file = dir.path / "reused.db";
    Cache writer(file.string());
    record_current(writer, h100(), problem(64 * M), config(512, 4));
    const Cache reader = Cache::open_read_only(file.string());
    auto first = reader.shape_winners(h100().model_key(), problem(0));
    REQUIRE(first.size() == 1);
    reader.read_cubin(first[0]);  // one row of its statement read, not stepped to its end
    CHECK_FALSE(first[0].tuned_at.empty());
    record_current(writer, h100(), problem(16 * M), config(256, 4));
    CHECK(reader.shape_winners(h100().model_key(), problem(0)).size() == 2);
    auto second = reader.shape_winners(h100().model_key(), problem(0));
    for (Winner& w : second) reader.read_cubin(w);  // the same statement, bound again for each
    CHECK(second[0].config != second[1].config);
    CHECK_FALSE(second[0].tuned_at.empty());
    CHECK_FALSE(second[1].tuned_at.empty());
  }

  TEST_CASE("a reader beside an active writer sees its committed winners and leaves the writer's files alone") {
    TempPath dir;
    fs::create_directories(dir.path);
    const fs::path file = dir.path / "busy.db";
    Cache writer(file.string());
    record_current(writer, h100(), problem(64 * M), config(512, 4));
    REQUIRE(fs::exists(file.string() + "-wal"));  // the writer's connection is open: its WAL is in use
    const Cache reader = Cache::open_read_only(file.string());
    CHECK(reader.find_winner(h100().model_key(), problem(64 * M)));
    record_current(writer, h100(), problem(16 * M), config(256, 4));  // the writer goes on while the reader is open
    CHECK(Cache::open_read_only(file.string()).winners().size() == 2);
  }

  TEST_CASE("writes through a read-only cache are refused with CacheError and change nothing") {
    TempPath dir;
    fs::create_directories(dir.path);
    const fs::path file = dir.path / "ro.db";
    make_tuned_cache(file);
    const std::string before = read_bytes(file);
    {
      Cache cache = Cache::open_read_only(file.string());
      CHECK_THROWS_AS(record_current(cache, h100(), problem(4 * M), config(256, 4)), CacheError);
      CHECK_THROWS_AS(cache.gc(), CacheError);
    }
    CHECK(read_bytes(file) == before);
    CHECK(listing(dir.path) == std::set<std::string>{"ro.db"});
  }

  TEST_CASE("a missing or non-regular cache path is an error that creates nothing") {
    TempPath dir;
    const fs::path missing = dir.path / "no" / "such.db";
    CHECK_THROWS_AS(Cache::open_read_only(missing.string()), CacheError);
    CHECK_FALSE(fs::exists(dir.path));
    fs::create_directories(dir.path);
    CHECK_THROWS_WITH_AS(Cache::open_read_only(dir.path.string()), doctest::Contains("not a regular file"),
                         CacheError);
  }
}
