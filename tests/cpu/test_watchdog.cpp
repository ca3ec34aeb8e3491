// The tuning workers' watchdog (cli/watchdog.hpp) with fake workers: shell scripts that write the progress lines a
// real worker writes and then hang, finish or exit. No GPU needed. Part of the cli suite.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <variant>

#include "autotune/error.hpp"
#include "cli/options.hpp"
#include "cli/watchdog.hpp"

using namespace autotune;
using namespace autotune::cli;
using namespace std::chrono_literals;

namespace {

struct Timed {
  WorkerResult result;
  double seconds;
  std::string err;
};

Timed fake_worker(const std::string& script, std::chrono::milliseconds limit) {
  Timed t;
  const auto t0 = std::chrono::steady_clock::now();
  t.result = run_watched("/bin/sh", {"sh", "-c", script}, limit, t.err);
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

}  // namespace

TEST_SUITE("cli") {
  TEST_CASE("watchdog: progress lines name the variant in flight, across partial reads") {
    ProgressLines l;
    CHECK(l.feed("start bl") == 0);
    CHECK(l.in_flight().empty());
    CHECK(l.feed("ock=256,ipt=4\n") == 1);
    CHECK(l.in_flight() == "block=256,ipt=4");
    CHECK(l.feed("done block=128\n") == 1);  // not the one in flight
    CHECK(l.in_flight() == "block=256,ipt=4");
    CHECK(l.feed("done block=256,ipt=4\nstart a\ndone a\nstart b\n") == 4);
    CHECK(l.in_flight() == "b");
  }

  TEST_CASE("watchdog: a variant in flight longer than the limit ends the worker, naming the variant") {
    const Timed t = fake_worker("echo 'start A' >&3; echo 'done A' >&3; echo 'start B' >&3; exec sleep 30", 300ms);
    CHECK(t.result.timed_out);
    CHECK(t.result.in_flight == "B");
    CHECK(t.result.exit_code == 128 + SIGKILL);
    CHECK(t.seconds < 10.0);  // ended by the watchdog, not by sleep's 30 s
  }

  TEST_CASE("watchdog: setup, slow but progressing variants and a disabled limit are not ended") {
    // Nothing in flight for longer than the limit (setup, compilation): not timed.
    Timed t = fake_worker("sleep 0.8; echo 'start A' >&3; echo 'done A' >&3; sleep 0.8; exit 3", 400ms);
    CHECK_FALSE(t.result.timed_out);
    CHECK(t.result.exit_code == 3);
    CHECK(t.result.in_flight.empty());
    // Each line is progress: three variants of 0.3 s each under a 0.6 s limit, 0.9 s in all.
    t = fake_worker("for v in a b c; do echo \"start $v\" >&3; sleep 0.3; echo \"done $v\" >&3; done", 600ms);
    CHECK_FALSE(t.result.timed_out);
    CHECK(t.result.exit_code == 0);
    // A limit of zero never ends a worker.
    t = fake_worker("echo 'start A' >&3; sleep 0.5; exit 0", 0ms);
    CHECK_FALSE(t.result.timed_out);
    CHECK(t.result.exit_code == 0);
    CHECK(t.result.in_flight == "A");  // still named: the variant a worker died in
  }

  TEST_CASE("watchdog: a worker that cannot start is reported") {
    const Timed t = fake_worker("", 100ms);  // sh -c '' exits 0 at once
    CHECK(t.result.exit_code == 0);
    std::string err;
    const WorkerResult r = run_watched("/nonexistent/autotune", {"autotune"}, 100ms, err);
    CHECK(r.exit_code != 0);
    CHECK_FALSE(r.timed_out);
  }

  TEST_CASE("tune --variant-timeout: seconds with an optional s, 0 for never, default 10") {
    auto timeout_of = [](std::vector<std::string> args) {
      args.insert(args.begin(), "tune");
      return std::get<TuneCommand>(parse_command_line(args).command).variant_timeout_s;
    };
    CHECK(timeout_of({}) == 10.0);
    CHECK(timeout_of({"--variant-timeout", "30s"}) == 30.0);
    CHECK(timeout_of({"--variant-timeout", "2.5"}) == 2.5);
    CHECK(timeout_of({"--variant-timeout", "0"}) == 0.0);
    for (const char* bad : {"abc", "10m", "", "1e9", "s", "inf", "-5"}) {
      CAPTURE(bad);
      CHECK_THROWS_AS(timeout_of({std::string("--variant-timeout=") + bad}), UsageError);
    }
    CHECK_THROWS_AS(timeout_of({"--no-isolate", "--variant-timeout", "5"}), UsageError);
    const auto worker = std::get<TuneCommand>(
        parse_command_line({"tune", "--worker", "--timed-out", "a", "--timed-out", "b", "--progress-fd", "3"}).command);
    CHECK(worker.timed_out == std::vector<std::string>{"a", "b"});
    CHECK(worker.progress_fd == 3);
  }
}
