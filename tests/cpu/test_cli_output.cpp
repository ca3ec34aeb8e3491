// `autotune show`, `best`, `compare` and the output formats (table, JSON, CSV) on the fleet fixture cache; the
// progress display of `tune`. Expected values come from the fixture's recorded numbers, computed here by hand.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include <sstream>

#include "autotune/histogram_problem.hpp"
#include "autotune/problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "cli/commands.hpp"
#include "cli/format.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "runtime/policy.hpp"
#include "tests/cpu/cli_fixtures.hpp"
#include "tests/scoped_env.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

using namespace autotune;
using namespace autotune::cli;
using namespace autotune::test;
using Json = nlohmann::json;

namespace {

std::string run_ok(std::vector<std::string> args) {
  std::ostringstream o, e;
  const int code = run(parse_command_line(args), o, e);
  CHECK_MESSAGE(code == 0, e.str());
  return o.str();
}

struct FleetFile {
  TempPath file;
  Fleet fleet = build_fleet(file.str());
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("cli_output") {
  TEST_CASE("CSV quotes what RFC 4180 requires and reads back") {
    CHECK(csv_field("plain") == "plain");
    CHECK(csv_field("a,b") == "\"a,b\"");
    CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
    CHECK(csv_field("two\nlines") == "\"two\nlines\"");
    Listing l;
    l.columns = {{"name", "name"}, {"value", "value"}};
    l.rows.push_back({text_cell("NVIDIA \"H100\", 80GB"), number_cell(2.5, 1)});
    const std::string csv = render(l, OutputFormat::csv);
    CHECK(csv == "name,value\r\n\"NVIDIA \"\"H100\"\", 80GB\",2.5\r\n");
    const auto rows = parse_csv(csv);
    REQUIRE(rows.size() == 2);
    CHECK(rows[1][0] == "NVIDIA \"H100\", 80GB");
    CHECK(rows[1][1] == "2.5");
    const Json j = Json::parse(render(l, OutputFormat::json));
    CHECK(j[0]["name"] == "NVIDIA \"H100\", 80GB");
    CHECK(j[0]["value"] == 2.5);
    CHECK(render_record(l, OutputFormat::table) == "name:   NVIDIA \"H100\", 80GB\nvalue:  2.5\n");
  }

  TEST_CASE("show: table, filters, JSON and CSV on the fleet cache") {
    FleetFile f;
    const std::string table = run_ok({"show", "--cache", f.file.str()});
    CHECK(has(table, "NVIDIA H100 80GB HBM3"));
    CHECK(has(table, "NVIDIA H200"));
    CHECK(has(table, f.fleet.h200_u8.winner.key()));

    const std::string h200 = run_ok({"show", "--cache", f.file.str(), "--device", "H200"});
    CHECK(has(h200, "NVIDIA H200"));
    CHECK_FALSE(has(h200, "H100"));
    // The model key matches too: only the H100 has 81090 MiB.
    const std::string by_key = run_ok({"show", "--cache", f.file.str(), "--device", "81090MiB", "--json"});
    CHECK(Json::parse(by_key).size() == 2);
    const std::string f32 = run_ok({"show", "--cache", f.file.str(), "--problem", "f32/", "--json"});
    const Json jf = Json::parse(f32);
    REQUIRE(jf.size() == 1);
    CHECK(jf[0]["device"] == "NVIDIA H100 80GB HBM3");
    CHECK(jf[0]["problem"] == f32_problem().key());
    CHECK(jf[0]["config"] == f.fleet.h100_f32.winner.key());
    CHECK(jf[0]["median_ms"].get<double>() == doctest::Approx(0.080));
    CHECK(jf[0]["gbps"].get<double>() == doctest::Approx(16.0 * 1048576 * 4 / 0.080e-3 / 1e9));
    CHECK(jf[0]["model_key"] == fleet_h100().model_key());
    CHECK(has(run_ok({"show", "--cache", f.file.str(), "--device", "A100"}), "no winners in"));
    CHECK(run_ok({"show", "--cache", f.file.str(), "--device", "A100", "--json"}) == "[]\n");

    const auto rows = parse_csv(run_ok({"show", "--cache", f.file.str(), "--csv"}));
    REQUIRE(rows.size() == 4);  // header + 3 winners
    CHECK(rows[0] == std::vector<std::string>{"device", "arch", "problem", "config", "median_ms", "gbps", "tuned_at",
                                              "model_key"});
    // Ordered by device name, then problem key; problem and config keys hold commas: quoted, read back whole.
    CHECK(rows[1][0] == "NVIDIA H100 80GB HBM3");
    CHECK(rows[1][2] == f32_problem().key());
    CHECK(rows[2][2] == u8_problem().key());
    CHECK(rows[2][3] == f.fleet.h100_u8.winner.key());
    CHECK(std::stod(rows[2][4]) == doctest::Approx(0.050));
    CHECK(rows[3][0] == "NVIDIA H200");
    CHECK(rows[3][7] == fleet_h200().model_key());
  }

  TEST_CASE("best answers from each of the three sources, as the runtime API's lookup order") {
    FleetFile f;
    const std::string before = dump_everything(f.file.str());
    const std::string h100 = fleet_h100().model_key();

    // exact: the u8/256/64M winner of the H100
    Json j = Json::parse(run_ok({"best", "--type", "u8", "--bins", "256", "--n", "64M", "--device-model", h100,
                                 "--cache", f.file.str(), "--json"}));
    CHECK(j["source"] == "exact");
    CHECK(j["config"] == f.fleet.h100_u8.winner.key());
    CHECK(j["tuned_n"] == 64 * M);
    CHECK(j["gbps"].get<double>() == doctest::Approx(64.0 * 1048576 / 0.050e-3 / 1e9));
    CHECK(j["roof_pct"].get<double>() == doctest::Approx(64.0 * 1048576 / 0.050e-3 / 1e9 / kH100Roof * 100));
    CHECK(j["device"] == "NVIDIA H100 80GB HBM3");

    // nearest_size: 20M is closer to 64M than to nothing else; the same histogram's only tuned size.
    const std::string table = run_ok({"best", "--n", "20M", "--device-model", h100, "--cache", f.file.str()});
    CHECK(table.rfind("source:", 0) == 0);
    CHECK(has(table, "nearest_size"));
    CHECK(has(table, f.fleet.h100_u8.winner.key()));
    CHECK(has(table, std::to_string(64 * M)));

    // policy: a shape nobody tuned (u16/4096) is served from the shipped policy. On the policy's own GPU (an H200),
    // from its closest shape, u16/1024 (a shape with more bins counts twice its log distance: u16/65536 is farther),
    // at the nearest size, 1M.
    const std::string h200 = fleet_h200().model_key();
    j = Json::parse(run_ok({"best", "--type", "u16", "--bins", "4096", "--n", "1M", "--device-model", h200, "--cache",
                            f.file.str(), "--json"}));
    CHECK(j["source"] == "policy");
    const Policy& policy = family_policy("histogram");
    const auto entry = std::find_if(policy.entries.begin(), policy.entries.end(), [](const PolicyEntry& e) {
      return e.problem.key() == "histogram/u16/bins=1024/range=[0,65536)/n=1048576/dist=uniform";
    });
    REQUIRE(entry != policy.entries.end());
    REQUIRE(entry->gpu.empty());  // measured on the policy's GPU
    CHECK(j["config"] == entry->config.key());
    CHECK(j["gbps"].is_null());
    CHECK(j["tuned_n"].is_null());
    CHECK(has(run_ok({"best", "--type", "u16", "--bins", "4096", "--n", "1M", "--device-model", h200, "--cache",
                      f.file.str()}),
              "policy: policy fitted for histogram/u16/bins=1024"));
    // On an H100 every far shape is predicted alike (past the policy curve's last point, times another model's
    // factor): the tie goes to an entry measured on the H100 itself (runtime/rank.hpp's tie rules).
    const std::string on_h100 = run_ok({"best", "--type", "u16", "--bins", "4096", "--n", "1M", "--device-model", h100,
                                        "--cache", f.file.str()});
    CHECK(has(on_h100, "source:              policy"));
    CHECK(has(on_h100.substr(0, on_h100.find('\n')), "(measured on NVIDIA H100 80GB HBM3)"));
    // fallback: a problem the policy holds nothing for (64-bit counters) on a model nobody tuned
    const auto rows = parse_csv(run_ok({"best", "--n", "64M", "--counters", "64", "--device-model",
                                        "NVIDIA B200|sm_100|148SM|183359MiB", "--cache", f.file.str(), "--csv"}));
    REQUIRE(rows.size() == 2);
    CHECK(rows[1][0] == "fallback");
    HistogramProblem wide = u8_problem();
    wide.counter_bits = 64;
    CHECK(rows[1][4] == HistogramConfig::fallback(wide).key());

    // 64-bit counters are another problem: not the 32-bit winner, and not its nearest size either.
    j = Json::parse(run_ok({"best", "--n", "64M", "--counters", "64", "--device-model", h100, "--cache",
                            f.file.str(), "--json"}));
    CHECK(j["source"] == "fallback");

    // A missing cache file is a miss, as for the API, and is not created.
    TempPath missing;
    j = Json::parse(run_ok({"best", "--n", "64M", "--device-model", h100, "--cache", missing.str(), "--json"}));
    CHECK(j["source"] == "policy");
    CHECK_FALSE(std::filesystem::exists(missing.path));

    CHECK(dump_everything(f.file.str()) == before);  // best only reads
  }

  TEST_CASE("best skips runs measured with other code, as the API does, without marking them in the file") {
    TempPath file;
    {
      Cache c(file.str());
      record_run(c, fleet_h100(), u8_problem(), 32, 512, 2, 0.05, run_info("00000000000000aa", nvrtc_version(), 0));
    }
    const std::string before = dump_everything(file.str());
    const Json j = Json::parse(run_ok({"best", "--n", "64M", "--device-model", fleet_h100().model_key(), "--cache",
                                       file.str(), "--json"}));
    CHECK(j["source"] == "policy");  // the stale run is not served
    CHECK(j["stale_runs_skipped"] == 1);
    CHECK(dump_everything(file.str()) == before);
  }

  TEST_CASE("best prints the size table a handle builds and the range of --n, in each format") {
    // The tuned sizes' ranges as ranked: the evict-first size rule (tests/cpu/test_streaming.cpp) would also split
    // them where they reach a quarter of the L2 (12.5 MiB of this H100), so it is off here, and put back after.
    const ScopedEnv loads_as_measured("AUTOTUNE_LOADS_AS_MEASURED", "1");
    TempPath file;
    FixtureRun small, large;
    {
      Cache c(file.str());
      small = record_run(c, fleet_h100(), u8_problem(4 * M), 32, 512, 2, 0.005);
      large = record_run(c, fleet_h100(), u8_problem(64 * M), 16, 1024, 4, 0.050);
    }
    REQUIRE(!(small.winner == large.winner));
    {
      // Neither tuning timed the other's winner (the fixture's made-up times would price them between 4M and 64M,
      // runtime/rank.hpp's measured_between, tests/cpu/test_rank.cpp): here the size curves place the switch.
      SQLite::Database db(file.str(), SQLite::OPEN_READWRITE);
      SQLite::Statement drop(db, "DELETE FROM measurements WHERE config IN (?, ?) AND config <> "
                                 "(SELECT w.config FROM winners w WHERE w.run_id = measurements.run_id)");
      drop.bind(1, small.winner.key());
      drop.bind(2, large.winner.key());
      REQUIRE(drop.exec() == 2);
    }
    const std::string h100 = fleet_h100().model_key();
    Json j = Json::parse(
        run_ok({"best", "--n", "20M", "--device-model", h100, "--cache", file.str(), "--json"}));
    CHECK(j["source"] == "nearest_size");
    CHECK(j["config"] == large.winner.key());
    const Json sizes = j["sizes"];  // a copy: j is read again below
    CHECK(j["size_ranges"] == sizes.size());
    // The ranges of the two tuned sizes, whatever else the ranking adds around them (the shipped policy's sizes
    // where it is predicted to run better, far from 4M and 64M).
    auto holding = [&](std::uint64_t n) {
      for (const Json& r : sizes)
        if (r["n_from"].get<std::uint64_t>() <= n && (r["n_to"].is_null() || n <= r["n_to"].get<std::uint64_t>()))
          return r;
      FAIL("no range holds n=" << n);
      return Json();
    };
    CHECK(holding(4 * M)["config"] == small.winner.key());
    CHECK(holding(4 * M)["tuned_n"] == std::to_string(4 * M));
    CHECK(holding(4 * M)["selected"] == false);
    const Json large_range = holding(64 * M);
    CHECK(large_range["config"] == large.winner.key());
    CHECK(large_range["source"] == "nearest_size");
    CHECK(large_range["why"] == "tuned for n=" + std::to_string(64 * M));
    CHECK(large_range["selected"] == true);
    CHECK(j["range_n_from"] == large_range["n_from"]);
    // A histogram winner of a larger n carries down better than the reverse (runtime/transfer_costs.json): 64M takes
    // over below the geometric mean of 4M and 64M (2^24 + 2, the first n with (n+1)^2 >= (2^22+1)(2^26+1)).
    const std::uint64_t first_large = large_range["n_from"].get<std::uint64_t>();
    CHECK(first_large > 4 * M);
    CHECK(first_large < (1u << 24) + 2);

    // Just below the switch: the 4M winner.
    j = Json::parse(run_ok({"best", "--n", std::to_string(first_large - 1), "--device-model", h100, "--cache",
                            file.str(), "--json"}));
    CHECK(j["config"] == small.winner.key());
    CHECK(holding(first_large - 1)["config"] == small.winner.key());

    const std::string table = run_ok({"best", "--n", "4M", "--device-model", h100, "--cache", file.str()});
    CHECK(has(table, "size table"));
    CHECK(has(table, "=>"));
    CHECK(has(table, std::to_string(first_large)));
    CHECK(has(table, "exact"));

    const auto rows = parse_csv(run_ok({"best", "--n", "20M", "--device-model", h100, "--cache", file.str(), "--csv"}));
    REQUIRE(rows.size() == 1 + sizes.size());  // the header and one row per range
    const auto& header = rows[0];
    const auto col = std::find(header.begin(), header.end(), "sizes.n_from") - header.begin();
    REQUIRE(col < static_cast<long>(header.size()));
    CHECK(rows[1][col] == "0");
    CHECK(std::any_of(rows.begin() + 1, rows.end(), [&](const auto& r) { return r[col] == std::to_string(first_large); }));
    CHECK(rows[1][0] == "nearest_size");  // the record's fields on every row
    CHECK(rows.back()[0] == "nearest_size");
  }

  TEST_CASE("best --source writes the answered configuration's CUDA source, before printing, as a handle compiles it") {
    FleetFile f;
    const std::string h100 = fleet_h100().model_key();
    TempPath source(".cu");
    // The exact answer: the fixture's H100 winner of u8/256/64M, R=32 copies, 512 threads, 2 loads in flight.
    const std::string table = run_ok({"best", "--type", "u8", "--bins", "256", "--n", "64M", "--device-model", h100,
                                      "--cache", f.file.str(), "--source", source.str()});
    const std::string text = read_bytes(source.path);
    CHECK(has(text, "constexpr int kReplicas = 32;"));
    CHECK(has(text, "constexpr int kBlock = 512;"));
    CHECK(has(text, "constexpr int kLoads = 2;"));
    CHECK(has(text, "extern \"C\" __global__"));
    CHECK(text == kernel_source(Problem(u8_problem()), Config(f.fleet.h100_u8.winner)));  // what a handle compiles
    // The table's last line says where, with the configuration and NVRTC's options for the model's architecture.
    CHECK(has(table, fmt::format("wrote the CUDA source of {} to {} (NVRTC options: --gpu-architecture=sm_90 "
                                 "-std=c++17)\n",
                                 f.fleet.h100_u8.winner.key(), source.str())));

    // JSON stays one document: the file is written, nothing is printed after it.
    TempPath json_source(".cu");
    const Json j = Json::parse(run_ok({"best", "--type", "u8", "--bins", "256", "--n", "64M", "--device-model", h100,
                                       "--cache", f.file.str(), "--source", json_source.str(), "--json"}));
    CHECK(j["config"] == f.fleet.h100_u8.winner.key());
    CHECK(read_bytes(json_source.path) == text);

    // A path that cannot be written is an error before anything is printed; the directory is left as it was.
    TempPath dir;
    std::filesystem::create_directory(dir.path);
    std::ostringstream o, e;
    CHECK_THROWS_AS(run(parse_command_line({"best", "--n", "64M", "--device-model", h100, "--cache", f.file.str(),
                                            "--source", dir.str()}),
                        o, e),
                    Error);
    CHECK(o.str().empty());
    CHECK(std::filesystem::is_directory(dir.path));
  }

  TEST_CASE("best --device without a GPU fails with the device error (exit 1 in main)") {
    bool have_gpu = true;
    try {
      device_count();
    } catch (const NoDeviceError&) {
      have_gpu = false;
    }
    if (have_gpu) return;
    std::ostringstream o, e;
    CHECK_THROWS_AS(run(parse_command_line({"best", "--n", "1M", "--device", "0", "--cache", ":memory:"}), o, e),
                    NoDeviceError);
    CHECK(o.str().empty());
  }

  TEST_CASE("compare: ratios, roof and same-configuration column, by hand") {
    FleetFile f;
    const Json j = Json::parse(run_ok({"compare", "--cache", f.file.str(), "--json"}));
    REQUIRE(j.size() == 3);
    // f32 sorts before u8; the f32 problem has one device: ratio 1, rank 1, its own configuration.
    CHECK(j[0]["problem"] == f32_problem().key());
    CHECK(j[0]["device"] == "NVIDIA H100 80GB HBM3");
    CHECK(j[0]["time_vs_fastest"].get<double>() == doctest::Approx(1.0));
    CHECK(j[0]["same_config_as_fastest"] == true);
    // u8: the H200 (0.040 ms) first, then the H100 (0.050 ms): 0.050 / 0.040 = 1.25, another configuration.
    CHECK(j[1]["device"] == "NVIDIA H200");
    CHECK(j[1]["rank"] == 1);
    CHECK(j[1]["time_vs_fastest"].get<double>() == doctest::Approx(1.0));
    CHECK(j[1]["same_config_as_fastest"] == true);
    CHECK(j[1]["roof_pct"].get<double>() == doctest::Approx(64.0 * 1048576 / 0.040e-3 / 1e9 / kH200Roof * 100));
    CHECK(j[2]["device"] == "NVIDIA H100 80GB HBM3");
    CHECK(j[2]["rank"] == 2);
    CHECK(j[2]["time_vs_fastest"].get<double>() == doctest::Approx(0.050 / 0.040));
    CHECK(j[2]["same_config_as_fastest"] == false);
    CHECK(j[2]["config"] == f.fleet.h100_u8.winner.key());
    CHECK(j[2]["gbps"].get<double>() == doctest::Approx(64.0 * 1048576 / 0.050e-3 / 1e9));

    const std::string table = run_ok({"compare", "--cache", f.file.str(), "--problem", "u8/"});
    CHECK(has(table, "1.25x"));
    CHECK(has(table, "same config as fastest"));
    CHECK_FALSE(has(table, "f32"));
    const auto rows = parse_csv(run_ok({"compare", "--cache", f.file.str(), "--csv"}));
    REQUIRE(rows.size() == 4);
    CHECK(rows[0].back() == "same_config_as_fastest");
    CHECK(rows[3][1] == "NVIDIA H100 80GB HBM3");
    CHECK(std::stod(rows[3][7]) == doctest::Approx(1.25));
    CHECK(rows[3][9] == "false");
    CHECK(has(run_ok({"compare", "--cache", ":memory:"}), "no winners recorded"));
  }

  TEST_CASE("read-only commands never create a missing cache file") {
    TempPath missing;
    CHECK(has(run_ok({"show", "--cache", missing.str()}), "no winners recorded"));
    CHECK(run_ok({"compare", "--cache", missing.str(), "--json"}) == "[]\n");
    CHECK_FALSE(std::filesystem::exists(missing.path));
  }

  TEST_CASE("progress across a ladder: the bar's fill and ETA cover every size; the scope travels as text") {
    Measurement ok;
    ok.config = config(256, 4);
    ok.median_ms = 0.5;
    ok.gbps = 134.2;
    double now = 100.0;
    std::ostringstream out;
    Progress p(out, true, false, [&] { return now; });
    // Size 2 of 3, started at t=60 with 10 variants measured by size 1; this size has 10, one more size follows.
    p.start(ProgressScope{60.0, 10, 1, 2, 3});
    now = 110.0;  // 15 of ~30 in 50 s: 15 more take 50 s
    for (std::size_t i = 1; i <= 5; ++i) p.update(i, 10, ok);
    const std::string s = out.str();
    CHECK(has(s, "size 2/3: 5/10"));
    CHECK(has(s, "all  50%"));
    CHECK(has(s, "ETA 50s"));
    const ProgressScope scope{12.5, 7, 3, 4, 8};
    const auto back = ProgressScope::parse(scope.text());
    REQUIRE(back);
    CHECK(back->started == 12.5);
    CHECK(back->done_before == 7);
    CHECK(back->sizes_after == 3);
    CHECK(back->number == 4);
    CHECK(back->sizes == 8);
    CHECK_FALSE(ProgressScope::parse("1,2,3"));
    CHECK_FALSE(ProgressScope::parse("1,2,3,4,5x"));
  }

  TEST_CASE("progress: plain lines off a terminal, a bar with ETA on one, colour only when allowed") {
    Measurement ok;
    ok.config = config(256, 4);
    ok.median_ms = 0.5;
    ok.gbps = 134.2;
    Measurement bad = failed_measurement(config(512, 4), MeasurementStatus::compile_error, "too big\nmore");
    {
      std::ostringstream out;
      Progress p(out, false, true, [] { return 0.0; });
      p.update(1, 10, ok);
      p.update(2, 10, bad);
      p.finish();
      const std::string s = out.str();
      CHECK(s.find('\r') == std::string::npos);
      CHECK(s.find('\033') == std::string::npos);
      CHECK(has(s, "[  1/10] " + ok.config.key()));
      CHECK(has(s, "134.2 GB/s\n"));
      CHECK(has(s, "compile_error: too big\n"));
      CHECK_FALSE(has(s, "more"));
    }
    {
      double now = 100.0;
      std::ostringstream out;
      Progress p(out, true, false, [&] { return now; });
      now = 104.0;  // 2 of 10 in 4 s: 8 more take 16 s
      p.update(1, 10, ok);
      p.update(2, 10, ok);
      const std::string s = out.str();
      CHECK(has(s, "2/10"));
      CHECK(has(s, "ETA 16s"));
      CHECK(has(s, "best 134.2 GB/s"));
      CHECK(has(s, "\r"));
      CHECK_FALSE(has(s, "\033[3"));  // no colour
      p.finish();
      CHECK(has(out.str(), "done in 4s\n"));
    }
    {
      std::ostringstream out;
      Progress p(out, true, true, [] { return 0.0; });
      p.update(1, 2, bad);
      CHECK(has(out.str(), "\033[31m"));
    }
    CHECK(use_colour(true, nullptr));
    CHECK(use_colour(true, ""));
    CHECK_FALSE(use_colour(true, "1"));
    CHECK_FALSE(use_colour(false, nullptr));
    CHECK(format_duration(42) == "42s");
    CHECK(format_duration(185) == "3m05s");
    CHECK(format_duration(3720) == "1h02m");
  }
}
