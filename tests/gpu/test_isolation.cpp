// The tuner's robustness and strategies on the GPU: a variant planted to fault (illegal address) does not stop
// `autotune tune` (a worker process is restarted and resumes the run); random and halving strategies measure fewer
// variants and still record a correct winner; reductions tune through the same engine.
#include <doctest/doctest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "gpu_fixtures.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/tuner.hpp"
#include "kernel_templates/reduce/space.hpp"
#include "kernel_templates/histogram/space.hpp"

using namespace autotune;
using namespace autotune::testing;
namespace fs = std::filesystem;

namespace {

// The `autotune` binary built beside this test binary (bin/autotune), as a user runs it.
fs::path cli_binary() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return self.parent_path() / "autotune";
}

struct Ran {
  int code = -1;
  std::string output;  // stdout and stderr together
};

Ran run_cli(const std::string& args) {
  Ran r;
  const std::string command = fmt::format("'{}' {} 2>&1", cli_binary().string(), args);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  REQUIRE(pipe);
  std::array<char, 4096> buf{};
  for (std::size_t got; (got = std::fread(buf.data(), 1, buf.size(), pipe.get())) > 0;) r.output.append(buf.data(), got);
  const int status = ::pclose(pipe.release());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& name)
      : path(fs::temp_directory_path() / fmt::format("autotune_isolation_{}_{}", ::getpid(), name)) {
    remove();
  }
  ~TempFile() { remove(); }
  void remove() const {
    std::error_code ec;
    for (const char* side : {"", "-wal", "-shm"}) fs::remove(path.string() + side, ec);
  }
};

}  // namespace

TEST_SUITE("gpu_tuner") {
  TEST_CASE("a variant that faults is recorded and the run goes on in a new worker process") {
    REQUIRE_MESSAGE(fs::exists(cli_binary()), cli_binary().string());
    const HistogramProblem p = tuner_problem(1ull << 20);
    const auto space = histogram_space(p);
    REQUIRE(space.size() > 10);
    const HistogramConfig planted = space[space.size() / 2];  // mid-run: variants before and after it
    TempFile db("fault.db");
    const Ran r = run_cli(fmt::format("tune {} --n 1M --samples 3 --cache '{}' --inject-fault '{}'",
                                      tuner_problem_flags(p), db.path.string(), planted.key()));
    INFO(r.output);
    CHECK(r.code == 0);
    CHECK(r.output.find("a new worker resumes the run") != std::string::npos);

    Cache cache(db.path.string());
    const DeviceInfo dev = query_device(0);
    const auto w = cache.find_winner(dev.model_key(), p);
    REQUIRE(w);  // the run finished, with a winner
    CHECK_FALSE(w->config == Config(planted));
    const auto ms = cache.measurements(w->run_id);
    CHECK(ms.size() == space.size());  // every variant recorded once, in one run
    int faulted = 0, ok = 0;
    for (const Measurement& m : ms) {
      if (m.config == Config(planted)) {
        CHECK(m.status == MeasurementStatus::launch_error);
        CHECK(m.log.find("illegal") != std::string::npos);
        ++faulted;
      } else {
        CAPTURE(m.config.key());
        CAPTURE(m.log);
        CHECK(m.status == MeasurementStatus::ok);  // nothing after the fault was lost or poisoned
        ok += m.status == MeasurementStatus::ok;
      }
    }
    CHECK(faulted == 1);
    CHECK(ok == static_cast<int>(space.size()) - 1);
  }

  TEST_CASE("a variant that hangs is ended by the watchdog, recorded as timed out, and the run goes on") {
    REQUIRE_MESSAGE(fs::exists(cli_binary()), cli_binary().string());
    const HistogramProblem p = tuner_problem(1ull << 20);
    const auto space = histogram_space(p);
    REQUIRE(space.size() > 10);
    const HistogramConfig planted = space[space.size() / 3];
    TempFile db("hang.db");
    // The worker stops when it starts the planted variant (after telling the parent), as on a kernel that never ends.
    const auto t0 = std::chrono::steady_clock::now();
    const Ran r = run_cli(fmt::format("tune {} --n 1M --samples 3 --cache '{}' --inject-hang '{}' --variant-timeout 2s",
                                      tuner_problem_flags(p), db.path.string(), planted.key()));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(r.output);
    CHECK(r.code == 0);
    CHECK(r.output.find("ran 2 s without finishing") != std::string::npos);
    CHECK(seconds < 300);

    Cache cache(db.path.string());
    const auto w = cache.find_winner(query_device(0).model_key(), p);
    REQUIRE(w);
    CHECK_FALSE(w->config == Config(planted));
    const auto ms = cache.measurements(w->run_id);
    CHECK(ms.size() == space.size());  // one run, every variant recorded once
    int timed_out = 0;
    for (const Measurement& m : ms)
      if (m.config == Config(planted)) {
        CHECK(m.status == MeasurementStatus::launch_error);
        CHECK(m.log.find("timed out after 2 s") != std::string::npos);
        ++timed_out;
      } else {
        CAPTURE(m.config.key());
        CHECK(m.status == MeasurementStatus::ok);
      }
    CHECK(timed_out == 1);
  }

  TEST_CASE("random and halving measure fewer variants fully and still record a correct winner") {
    const HistogramProblem p = tuner_problem(4ull << 20);
    const std::size_t space = histogram_space(p).size();
    Cache cache(":memory:");
    TuneOptions o;
    o.samples = 10;

    o.strategy = "random";
    o.budget = 24;
    const TuneReport random = tune(p, cache, o);
    REQUIRE(random.winner);
    CHECK(random.strategy == "random");
    std::size_t measured = 0;
    for (const auto& m : random.measurements) measured += m.status == MeasurementStatus::ok;
    CHECK(measured == 24);  // the budget, the built-in default among them
    CHECK(random.fallback.has_value());

    o.strategy = "halving";
    o.budget = 0;
    const TuneReport halving = tune(p, cache, o);
    REQUIRE(halving.winner);
    CHECK(halving.measurements.size() == space);
    CHECK(halving.fully_measured <= static_cast<int>((space + 3) / 4) + 8);
    CHECK(halving.fully_measured >= 8);
    CHECK(halving.winner->samples >= 5);  // the winner comes from the full measurements, not the 3-sample round

    // Each strategy's winner is stored under its own run; the latest finished run's winner is served.
    CHECK(cache.find_winner(halving.device.model_key(), p)->run_id == halving.run_id);
    MESSAGE(fmt::format("random({}): {} in {:.1f} s; halving: {} ({} fully measured of {}) in {:.1f} s", 24,
                        random.winner->config.key(), random.seconds, halving.winner->config.key(),
                        halving.fully_measured, space, halving.seconds));
  }

  TEST_CASE("a reduction tunes through the same engine: every variant verified, a winner recorded") {
    ReduceProblem p;
    p.op = ReduceOp::sum;
    p.type = ValueType::f32;
    p.n = 1ull << 20;
    Cache cache(":memory:");
    TuneOptions o;
    o.samples = 3;
    const TuneReport r = tune(p, cache, o);
    CHECK(r.measurements.size() == reduce_space(p).size());
    for (const auto& m : r.measurements) {
      INFO(m.config.key(), " ", to_string(m.status), " ", m.log);
      CHECK((m.status == MeasurementStatus::ok || m.status == MeasurementStatus::invalid_config));
    }
    REQUIRE(r.winner);
    const auto w = cache.find_winner(r.device.model_key(), p);
    REQUIRE(w);
    CHECK(w->config == r.winner->config);
    CHECK_FALSE(w->cubin.empty());
    MESSAGE(fmt::format("reduce sum f32 1M: {} {:.1f} GB/s ({:.1f} % of roof)", r.winner->config.key(), r.winner->gbps,
                        r.winner->roof_pct));
  }
}
