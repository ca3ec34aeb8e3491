// `autotune report` on the fleet fixture: the page's sections, heat-map cells computed here from the recorded
// measurements, escaping, the empty cache. The page is also rendered in headless Chromium by
// tests/report_check.sh, which calls the "write the fixture report" case below with AUTOTUNE_REPORT_FIXTURE set.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/report.hpp"
#include "tests/cpu/cli_fixtures.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/tuner.hpp"

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

// Every element closed in order (void elements and self-closing tags aside), nothing left open: "" when well formed,
// else what broke.
std::string unbalanced_tags(const std::string& page) {
  static const std::regex tag(R"(<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(/?)>)");
  const std::set<std::string> voids = {"meta", "br", "hr", "img", "input", "link"};
  std::vector<std::string> open;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2];
    if ((*it)[3].length() || voids.count(name)) continue;
    if (!(*it)[1].length()) {
      open.push_back(name);
      continue;
    }
    if (open.empty() || open.back() != name)
      return fmt::format("</{}> closes {}", name, open.empty() ? std::string("nothing") : "<" + open.back() + ">");
    open.pop_back();
  }
  return open.empty() ? "" : fmt::format("<{}> left open", open.back());
}

// The numbers of an attribute in the order its elements appear, e.g. every cx="..." of the winner points.
std::vector<double> attribute_values(const std::string& text, const std::string& element_start, const std::string& attr) {
  std::vector<double> out;
  for (auto p = text.find(element_start); p != std::string::npos; p = text.find(element_start, p + 1)) {
    const std::size_t end = text.find('>', p);
    const std::size_t a = text.find(" " + attr + "=\"", p);
    REQUIRE(a < end);
    out.push_back(std::stod(text.substr(a + attr.size() + 3)));
  }
  return out;
}

// The <title> texts of the elements that start with element_start, in order.
std::vector<std::string> titles_of(const std::string& text, const std::string& element_start) {
  std::vector<std::string> out;
  for (auto p = text.find(element_start); p != std::string::npos; p = text.find(element_start, p + 1)) {
    const std::size_t t = text.find("<title>", p) + 7;
    out.push_back(text.substr(t, text.find("</title>", t) - t));
  }
  return out;
}

bool increasing(const std::vector<double>& v) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (!(v[i] > v[i - 1])) return false;
  return true;
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
    CHECK(count(page, "<svg class=\"sizechart\"") == 0);  // every shape has one size per device
    CHECK(count(page, "<section class=\"sizes\">") == 0);
    CHECK(unbalanced_tags(page) == "");
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

  // The table: a row per size, CUB's GB/s and the winner's speed over it where measured.
  void check_size_table(const std::string& page, std::size_t from) {
    const double g1 = gbps_of(u8_problem(1 * M), 0.010), g4 = gbps_of(u8_problem(4 * M), 0.030);
    const std::size_t t = page.find("<table class=\"sizetable\">", from);
    REQUIRE(t != std::string::npos);
    const std::string table = page.substr(t, page.find("</table>", t) - t);
    CHECK(count(table, "<tr><td>") == 3);
    const std::size_t r1 = table.find("<tr><td>1M ("), r2 = table.find("<tr><td>2M ("), r4 = table.find("<tr><td>4M (");
    REQUIRE(r1 != std::string::npos);
    REQUIRE(r2 != std::string::npos);
    REQUIRE(r4 != std::string::npos);
    CHECK(r1 < r2);
    CHECK(r2 < r4);
    const std::string row1 = table.substr(r1, r2 - r1), row2 = table.substr(r2, r4 - r2), row4 = table.substr(r4);
    CHECK(row1.find(fmt::format("{:.1f}</td><td class=\"num\">{:.1f}</td><td class=\"num\">2.00x", g1,
                                gbps_of(u8_problem(1 * M), 0.020))) != std::string::npos);
    CHECK(row2.find("crossover") != std::string::npos);
    CHECK(row2.find("not measured") != std::string::npos);
    CHECK(row4.find(fmt::format("{:.1f}</td><td class=\"num\">{:.1f}</td><td class=\"num\">1.33x", g4,
                                gbps_of(u8_problem(4 * M), 0.040))) != std::string::npos);
  }

  TEST_CASE("a shape tuned at several sizes: GB/s over n for the winners and CUB, with a table") {
    TempPath cache, html(".html");
    {
      Cache c(cache.str());
      c.set_device_roof(fleet_h100(), kH100Roof);
      // u8/256 on the H100 at 1M and 4M, and their crossover at 2M; CUB at 1M (2x the winner's time) and 4M.
      record_run(c, fleet_h100(), u8_problem(1 * M), 32, 512, 2, 0.010);
      RunInfo crossover;
      crossover.strategy = kCrossoverStrategy;
      record_run(c, fleet_h100(), u8_problem(2 * M), 16, 1024, 4, 0.015, crossover);
      record_run(c, fleet_h100(), u8_problem(4 * M), 32, 256, 4, 0.030);
      c.set_baseline(fleet_h100(), u8_problem(1 * M), "cub", 0.020, gbps_of(u8_problem(1 * M), 0.020));
      c.set_baseline(fleet_h100(), u8_problem(4 * M), "cub", 0.040, gbps_of(u8_problem(4 * M), 0.040));
      // One size only: no chart for f32 on the H100, nor for u8 on the H200 (its CUB figure is not the H100's).
      record_run(c, fleet_h100(), f32_problem(), 32, 256, 4, 0.080);
      record_run(c, fleet_h200(), u8_problem(1 * M), 32, 512, 2, 0.008);
      c.set_baseline(fleet_h200(), u8_problem(4 * M), "cub", 0.030, gbps_of(u8_problem(4 * M), 0.030));
    }
    const std::string page = report_of(cache.str(), html.str());
    CHECK(unbalanced_tags(page) == "");
    REQUIRE(count(page, "<svg class=\"sizechart\"") == 1);
    CHECK(count(page, "<section class=\"sizes\">") == 1);
    CHECK(page.find(html_escape(u8_problem().shape_key()) + " over n</h2>") != std::string::npos);
    CHECK(page.find(html_escape(f32_problem().shape_key()) + " over n") == std::string::npos);
    const std::size_t at = page.find("<svg class=\"sizechart\"");
    const std::string chart = page.substr(at, page.find("</svg>", at) - at);
    CHECK(chart.find("role=\"img\" aria-label=\"GB/s over n") != std::string::npos);

    // Three winner points (one a crossover), two CUB points, each left of the next larger n.
    CHECK(count(chart, "<circle class=\"point winner ") == 3);
    CHECK(count(chart, "<circle class=\"point winner crossover\"") == 1);
    CHECK(count(chart, "<rect class=\"point baseline\"") == 2);
    const std::vector<double> wx = attribute_values(chart, "<circle class=\"point winner ", "cx");
    const std::vector<double> wy = attribute_values(chart, "<circle class=\"point winner ", "cy");
    const std::vector<double> cx = attribute_values(chart, "<rect class=\"point baseline\"", "x");
    const std::vector<double> cy = attribute_values(chart, "<rect class=\"point baseline\"", "y");
    REQUIRE(wx.size() == 3);
    REQUIRE(cx.size() == 2);
    CHECK(increasing(wx));
    CHECK(increasing(cx));
    // log2 scale: 1M, 2M, 4M equally spaced; CUB's squares (8 wide) centred on the winners' x at 1M and 4M.
    CHECK(std::abs((wx[1] - wx[0]) - (wx[2] - wx[1])) < 0.2);
    CHECK(std::abs(cx[0] + 4 - wx[0]) < 0.2);
    CHECK(std::abs(cx[1] + 4 - wx[2]) < 0.2);
    // CUB is slower (lower on the chart, so a larger y) at both sizes.
    CHECK(cy[0] + 4 > wy[0]);
    CHECK(cy[1] + 4 > wy[2]);
    const std::vector<std::string> wt = titles_of(chart, "<circle class=\"point winner ");
    const std::vector<std::string> ct = titles_of(chart, "<rect class=\"point baseline\"");
    REQUIRE(wt.size() == 3);
    REQUIRE(ct.size() == 2);
    const double g1 = gbps_of(u8_problem(1 * M), 0.010), g2 = gbps_of(u8_problem(2 * M), 0.015);
    CHECK(wt[0].rfind(fmt::format("n=1M ({}): ", 1 * M), 0) == 0);
    CHECK(wt[0].find(fmt::format("{:.1f} GB/s", g1)) != std::string::npos);
    CHECK(wt[0].find("exact") != std::string::npos);
    CHECK(wt[1].rfind("n=2M (", 0) == 0);
    CHECK(wt[1].find("crossover") != std::string::npos);
    CHECK(wt[1].find(fmt::format("{:.1f} GB/s", g2)) != std::string::npos);
    CHECK(wt[2].rfind("n=4M (", 0) == 0);
    CHECK(ct[0].rfind("n=1M (", 0) == 0);
    CHECK(ct[0].find(fmt::format("{:.1f} GB/s", gbps_of(u8_problem(1 * M), 0.020))) != std::string::npos);
    CHECK(ct[1].rfind("n=4M (", 0) == 0);
    // Ticks on powers of two, spelt as sizes; the H100's roof.
    for (const char* tick : {">1M</text>", ">2M</text>", ">4M</text>"}) CHECK(chart.find(tick) != std::string::npos);
    CHECK(count(chart, "<line class=\"roof\"") == 1);
    CHECK(chart.find(fmt::format("read roof: {:.1f} GB/s", kH100Roof)) != std::string::npos);

    check_size_table(page, at);
  }

  TEST_CASE("a CUB figure at a size that was not tuned is a point and a row of its own") {
    TempPath cache, html(".html");
    {
      Cache c(cache.str());
      record_run(c, fleet_h100(), u8_problem(1 * M), 32, 512, 2, 0.010);
      record_run(c, fleet_h100(), u8_problem(4 * M), 32, 256, 4, 0.030);
      c.set_baseline(fleet_h100(), u8_problem(16 * M), "cub", 0.100, gbps_of(u8_problem(16 * M), 0.100));
    }
    const std::string page = report_of(cache.str(), html.str());
    CHECK(unbalanced_tags(page) == "");
    REQUIRE(count(page, "<svg class=\"sizechart\"") == 1);
    const std::size_t at = page.find("<svg class=\"sizechart\"");
    const std::string chart = page.substr(at, page.find("</svg>", at) - at);
    CHECK(count(chart, "<circle class=\"point winner exact\"") == 2);
    CHECK(count(chart, "<circle class=\"point winner crossover\"") == 0);
    const std::vector<double> wx = attribute_values(chart, "<circle class=\"point winner ", "cx");
    const std::vector<double> cx = attribute_values(chart, "<rect class=\"point baseline\"", "x");
    REQUIRE(wx.size() == 2);
    REQUIRE(cx.size() == 1);
    CHECK(cx[0] + 4 > wx[1]);  // 16M lies right of 4M
    CHECK(count(chart, "<line class=\"roof\"") == 0);  // no roof recorded
    CHECK(page.find("<tr><td>16M (16777216)</td><td>not tuned at this size</td>") != std::string::npos);
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
    {  // u8 on the H100 also at 16M and at the crossover 32M, with CUB at 16M and 64M: a size chart to render
      Cache c(db);
      record_run(c, fleet_h100(), u8_problem(16 * M), 32, 256, 4, 0.014);
      RunInfo crossover;
      crossover.strategy = kCrossoverStrategy;
      record_run(c, fleet_h100(), u8_problem(32 * M), 32, 512, 2, 0.026, crossover);
      c.set_baseline(fleet_h100(), u8_problem(16 * M), "cub", 0.025, gbps_of(u8_problem(16 * M), 0.025));
      c.set_baseline(fleet_h100(), u8_problem(), "cub", 0.090, gbps_of(u8_problem(), 0.090));
    }
    report_of(db, html);
  }
}
