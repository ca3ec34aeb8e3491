// A kernel family defined only in the tests (tests/families/fill/) plugs in through the registry alone: the
// vocabulary, the CLI's options and help, the cache, `show`, `best` and export / import work with it, without any
// change outside its folder (and the one register_family call).
#include <doctest/doctest.h>

#include <sstream>

#include "autotune/cache.hpp"
#include "autotune/identity.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/family.hpp"
#include "core/jit.hpp"
#include "tests/cpu/cache_fixtures.hpp"
#include "tests/families/fill/fill.hpp"

using namespace autotune;
using namespace autotune::test;

namespace {

std::string run_ok(std::vector<std::string> args) {
  std::ostringstream o, e;
  const int code = cli::run(cli::parse_command_line(args), o, e);
  INFO("stderr: " << e.str());
  REQUIRE(code == 0);
  return o.str();
}

// A finished run of the fill problem with one measured configuration, recorded with this build's fill code.
void record_fill(Cache& cache, const DeviceInfo& d, const FillProblem& p, const FillConfig& c, double ms) {
  const auto run = cache.begin_run(d, p, run_info(current_identity("fill", 0).template_hash, nvrtc_version(), 0));
  Measurement m;
  m.config = c;
  m.median_ms = ms;
  m.samples = 10;
  m.gbps = static_cast<double>(p.bytes()) / (ms * 1e-3) / 1e9;
  cache.add_measurement(run, m);
  cache.finish_run(run, m, {});
}

}  // namespace

TEST_SUITE("plugin") {
  TEST_CASE("a family registered by a test parses its keys and configurations and generates its source") {
    register_fill_family();
    REQUIRE(find_family("fill"));
    const auto p = Problem::parse("fill/u32/value=7/n=1024/dist=uniform");
    REQUIRE(p);
    REQUIRE(p->as<FillProblem>());
    CHECK(p->as<FillProblem>()->value == 7);
    CHECK(p->n() == 1024);
    CHECK(p->bytes() == 4096);
    CHECK(p->family_name() == "fill");
    CHECK_FALSE(Problem::parse("fill/u32/value=7/n=1024/dist=zipf"));  // validate() refuses it
    CHECK_FALSE(Problem::parse("fill/u32/value=99999999999/n=1/dist=uniform"));
    const auto c = Config::parse("fill", "block=128,items=4");
    REQUIRE(c);
    CHECK(c->as<FillConfig>()->items == 4);
    CHECK(c->block() == 128);
    CHECK_FALSE(Config::parse("histogram", "block=128,items=4"));  // another family's key is not a configuration
    CHECK(Config::fallback(*p) == Config(FillConfig{}));
    const std::string source = kernel_source(*p, *c);
    CHECK(source.find("#define AT_ITEMS 4") != std::string::npos);
    CHECK(current_identity("fill", 0).template_hash.size() == 16);
    // The generated source is real CUDA: NVRTC compiles it.
    const auto compiled = jit::compile(source, "fill.cu", "sm_80");
    INFO(compiled.log);
    CHECK(compiled.ok);
  }

  TEST_CASE("the CLI offers a registered family's options and help without editing cli/") {
    register_fill_family();
    const auto help = std::get<cli::HelpCommand>(cli::parse_command_line({"tune", "--help"}).command).text;
    CHECK(help.find("--value") != std::string::npos);
    CHECK(help.find("fill: the 32-bit value to write") != std::string::npos);
    CHECK(help.find("autotune tune --kernel fill --value 7 --n 1M") != std::string::npos);
    const auto general = std::get<cli::HelpCommand>(cli::parse_command_line({"--help"}).command).text;
    CHECK(general.find("fills n 32-bit words") != std::string::npos);

    const auto t = std::get<cli::TuneCommand>(
        cli::parse_command_line({"tune", "--kernel", "fill", "--value", "7", "--n", "1M"}).command);
    REQUIRE(t.problems.size() == 1);
    CHECK(t.problems[0].key() == "fill/u32/value=7/n=1048576/dist=uniform");
    CHECK_THROWS_WITH_AS(cli::parse_command_line({"tune", "--value", "7", "--n", "1M"}),
                         doctest::Contains("--value is an option of --kernel fill, not of --kernel histogram"),
                         UsageError);
    CHECK_THROWS_WITH_AS(cli::parse_command_line({"tune", "--kernel", "fill", "--bins", "4", "--n", "1M"}),
                         doctest::Contains("--bins is an option of --kernel histogram, histogram_range, not of --kernel fill"),
                         UsageError);
  }

  TEST_CASE("the cache stores, shows, serves, exports and imports a registered family's winners") {
    register_fill_family();
    TempPath file(".db");
    const FillProblem p{7, 1 * M, "uniform"};
    {
      Cache cache(file.str());
      record_fill(cache, h100(), p, FillConfig{128, 4}, 0.01);
      const auto w = cache.find_winner(h100().model_key(), p);
      REQUIRE(w);
      CHECK(w->problem == Problem(p));
      CHECK(w->config == Config(FillConfig{128, 4}));
    }
    const std::string show = run_ok({"show", "--cache", file.str()});
    CHECK(show.find("fill/u32/value=7/n=1048576/dist=uniform") != std::string::npos);
    CHECK(show.find("block=128,items=4") != std::string::npos);
    // `best` for another size answers from the tuned one, as for every family.
    const std::string best = run_ok({"best", "--cache", file.str(), "--kernel", "fill", "--value", "7", "--n", "4M",
                                     "--device-model", h100().model_key(), "--json"});
    CHECK(best.find("nearest_size") != std::string::npos);
    CHECK(best.find("block=128,items=4") != std::string::npos);
    // Export -> import into a new cache keeps the winner.
    std::stringstream doc;
    Cache::open_read_only(file.str()).export_json(doc);
    CHECK(doc.str().find("\"family\": \"fill\"") != std::string::npos);
    Cache copy(":memory:");
    copy.import_json(doc, "doc");
    const auto w = copy.find_winner(h100().model_key(), p);
    REQUIRE(w);
    CHECK(w->config == Config(FillConfig{128, 4}));
  }
}
