// `autotune report` on the fleet fixture: the page's sections, heat-map cells computed here from the recorded
// measurements, escaping, the empty cache. The page is also rendered in headless Chromium by
// tests/report_check.sh, which calls the "write the fixture report" case below with AUTOTUNE_REPORT_FIXTURE set.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/report.hpp"
#include "tests/cpu/cli_fixtures.hpp"
#include "autotune/histogram_problem.hpp"

using namespace autotune;
using namespace autotune::cli;
using namespace autotune::test;

namespace {

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
}

std::string report_of(const std::string& cache_path, const std::string& html_path) {
  std::ostringstream o, e;
  REQUIRE(run(parse_command_line({"report", "--cache", cache_path, "--output", html_path}), o, e) == 0);
  CHECK(o.str() == "wrote the report of " + cache_path + " to " + html_path + "\n");
  return read_bytes(html_path);
}

}  // namespace

TEST_SUITE("report") {
  TEST_CASE("a CUB time recorded by `autotune bench` appears as its bar, with the winner's ratio to it") {
    TempPath cache, html(".html");
    const Fleet fleet = build_fleet(cache.str());
    {
      Cache c(cache.str());
      // The H100 u8 winner takes 0.050 ms (cli_fixtures.hpp); CUB 0.090 ms: 1.80x.
      c.set_baseline(fleet_h100(), u8_problem(), "cub", 0.090, u8_problem().bytes() / 0.090e-3 / 1e9);
    }
    const std::string page = report_of(cache.str(), html.str());
    CHECK(count(page, "not measured on this device") == 2);  // the other two winners
    const std::string bar = fmt::format("{:.1f} GB/s (winner 1.80x; `autotune bench`, ", u8_problem().bytes() / 0.090e-3 / 1e9);
    CHECK(count(page, bar) == 1);
  }

  TEST_CASE("html_escape escapes markup and quotes") {
    CHECK(html_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
    CHECK(html_escape("range=[0,256)") == "range=[0,256)");
  }

  TEST_CASE("the fleet report: a section per problem, heat maps, roof bars, a device comparison") {
    TempPath cache, html(".html");
    const Fleet fleet = build_fleet(cache.str());
    const std::string page = report_of(cache.str(), html.str());
    CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(count(page, "<section class=\"problem\">") == 2);
    CHECK(count(page, "<svg class=\"heatmap\"") == 3);     // u8 on two devices, f32 on one
    CHECK(count(page, "<svg class=\"roofchart\"") == 3);
    CHECK(count(page, "<svg class=\"devicechart\"") == 1);  // only u8 was tuned on several devices
    CHECK(count(page, "not measured on this device (run `autotune bench`)") == 3);  // CUB: a labelled place, no
                                                                                    // invented number
    // Self-contained: no scripts, nothing fetched.
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("http://") == page.find("http://www.w3.org/2000/svg"));
    CHECK(page.find("https://") == std::string::npos);
    CHECK(page.find("src=") == std::string::npos);

    // The H100's u8 heat map: per (block, loads) the best GB/s of the winner's family (shared, R=32).
    std::map<std::pair<int, int>, double> cells;
    for (const Measurement& m : fleet.h100_u8.ok)
      if (const HistogramConfig& h = *m.config.as<HistogramConfig>(); h.privatization == Privatization::shared && h.replicas == 32) {
        double& c = cells[{h.block, h.loads}];
        c = std::max(c, m.gbps);
      }
    REQUIRE(cells.size() >= 4);
    const std::size_t h100_u8 = page.find("<h3>NVIDIA H100 80GB HBM3 (sm_90)</h3>",
                                         page.find("\">" + u8_problem().key() + "</h2>"));
    const std::size_t h100_u8_end = page.find("</svg>", h100_u8);
    REQUIRE(h100_u8 != std::string::npos);
    const std::string section = page.substr(h100_u8, h100_u8_end - h100_u8);
    for (const auto& [key, gbps] : cells) {
      const bool winner = key.first == fleet.h100_u8.winner.block && key.second == fleet.h100_u8.winner.loads;
      const auto block = key.first, loads = key.second;  // clang 14 cannot capture a structured binding
      CAPTURE(block);
      CAPTURE(loads);
      CHECK(section.find(fmt::format("block {}, loads {}: {:.1f} GB/s{}", key.first, key.second, gbps,
                                     winner ? " (winner)" : "")) != std::string::npos);
    }
    CHECK(count(section, "<rect class=\"cell\"") == cells.size());
    // The R=16 measurements are another family: not in this map.
    CHECK(section.find("(winner)") != std::string::npos);
    // Roof: 0.050 ms for 64 MiB against 3000 GB/s.
    CHECK(page.find(fmt::format("{:.1f} % of the 3000 GB/s read roof", 64.0 * 1048576 / 0.050e-3 / 1e9 / kH100Roof * 100)) !=
          std::string::npos);
    // Device comparison: the H100 takes 1.25x the H200's time.
    CHECK(page.find("1.25x the fastest&#39;s time, other configuration") != std::string::npos);
  }

  TEST_CASE("text from the cache is escaped") {
    TempPath cache, html(".html");
    {
      Cache c(cache.str());
      DeviceInfo d = fleet_h100();
      d.name = "Evil <script>alert(1)</script> & \"GPU\"";
      record_run(c, d, u8_problem(), 32, 512, 2, 0.05);
    }
    const std::string page = report_of(cache.str(), html.str());
    CHECK(page.find("<script>") == std::string::npos);
    CHECK(page.find("Evil &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;GPU&quot;") != std::string::npos);
  }

  TEST_CASE("an empty cache gives a page that says so") {
    TempPath cache, html(".html");
    { Cache c(cache.str()); }
    const std::string page = report_of(cache.str(), html.str());
    CHECK(page.find("holds no winners yet") != std::string::npos);
    CHECK(page.find("<svg") == std::string::npos);
  }

  // Not a check: tests/report_check.sh runs this case with AUTOTUNE_REPORT_FIXTURE=DIR to get DIR/fleet.db and
  // DIR/report.html, then renders the page in headless Chromium. Without the variable it does nothing.
  TEST_CASE("write the fixture report") {
    const char* dir = std::getenv("AUTOTUNE_REPORT_FIXTURE");
    if (!dir || !*dir) return;
    const std::string db = std::string(dir) + "/fleet.db", html = std::string(dir) + "/report.html";
    std::filesystem::remove(db);
    build_fleet(db);
    report_of(db, html);
  }
}
