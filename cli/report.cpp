#include "cli/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "core/family.hpp"

namespace autotune::cli {

namespace {

// A perceptually ordered scale (viridis, 5 stops), so that a brighter cell is a faster one also in grey print.
std::string colour_at(double t) {
  static const double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  auto mix = [&](int c) { return static_cast<int>(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0), mix(1), mix(2));
}

constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 32px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; } code { font-size: 12px; background: #f3f3f3; padding: 1px 3px; }
.note { color: #555; max-width: 900px; } .empty { font-size: 18px; color: #a00; }
svg { display: block; margin: 8px 0 16px; } svg text { font: 11px system-ui, sans-serif; fill: #222; }
table { border-collapse: collapse; } td, th { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; }
)";

struct Cellvalue {
  double gbps = 0.0;
  bool winner = false;
};

// A configuration's place in the heat map: block size x loads per thread, within its algorithm (its family says
// what that is, e.g. a histogram's privatization and replicas).
using Axes = KernelFamily::ReportAxes;
Axes axes_of(const Config& c) { return c.family().report_axes(c); }

std::string heat_map(const Winner& w, const std::vector<Measurement>& ms) {
  std::map<std::pair<int, int>, Cellvalue> cells;  // (block, loads)
  std::set<int> blocks, loads;
  const Axes wa = axes_of(w.config);
  for (const Measurement& m : ms) {
    const Axes a = axes_of(m.config);
    if (m.status != MeasurementStatus::ok || a.algorithm != wa.algorithm) continue;
    blocks.insert(a.block);
    loads.insert(a.loads);
    Cellvalue& c = cells[{a.block, a.loads}];
    c.gbps = std::max(c.gbps, m.gbps);
  }
  if (cells.empty()) return "<p class=\"note\">No ok measurements of the winner's family in its run.</p>\n";
  if (auto it = cells.find({wa.block, wa.loads}); it != cells.end()) it->second.winner = true;
  double lo = INFINITY, hi = 0;
  for (const auto& [k, c] : cells) lo = std::min(lo, c.gbps), hi = std::max(hi, c.gbps);
  const int cw = 64, ch = 26, left = 70, top = 30;
  const int width = std::max(left + cw * static_cast<int>(loads.size()) + 20, 480);  // room for the legend
  const int height = top + ch * static_cast<int>(blocks.size()) + 40;
  std::string s = fmt::format(
      "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"GB/s by block size and loads per thread\">\n",
      width, height);
  s += fmt::format("<text x=\"{}\" y=\"14\">loads per thread &#8594;</text>\n", left);
  s += fmt::format("<text x=\"4\" y=\"{}\">block &#8595;</text>\n", top - 4);
  int col = 0;
  for (int l : loads) s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", left + col++ * cw + cw / 2, top - 4, l);
  int row = 0;
  for (int b : blocks) {
    const int y = top + row++ * ch;
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", left - 6, y + ch / 2 + 4, b);
    col = 0;
    for (int l : loads) {
      const int x = left + col++ * cw;
      const auto it = cells.find({b, l});
      if (it == cells.end()) {
        s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#eeeeee\"><title>block {}, loads {}: "
                         "not measured</title></rect>\n", x, y, cw - 2, ch - 2, b, l);
        continue;
      }
      const double t = hi > lo ? (it->second.gbps - lo) / (hi - lo) : 1.0;
      s += fmt::format("<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}><title>block {}, loads {}: "
                       "{:.1f} GB/s{}</title></rect>\n",
                       x, y, cw - 2, ch - 2, colour_at(t),
                       it->second.winner ? " stroke=\"#d00\" stroke-width=\"3\"" : "", b, l, it->second.gbps,
                       it->second.winner ? " (winner)" : "");
      s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" style=\"fill:{}\">{:.0f}</text>\n", x + cw / 2 - 1,
                       y + ch / 2 + 3, t > 0.6 ? "#222" : "#fff", it->second.gbps);
    }
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\">GB/s: {:.0f} (dark) to {:.0f} (bright); red outline: the winner</text>\n",
                   left, top + ch * static_cast<int>(blocks.size()) + 20, lo, hi);
  return s + "</svg>\n";
}

struct Bar {
  std::string label;
  std::optional<double> value;  ///< nullopt: a labelled place without a bar
  std::string note;             ///< after the bar
  std::string colour = "#3b528b";
};

std::string bar_chart(const std::vector<Bar>& bars, const char* css_class, const char* aria) {
  double hi = 0;
  for (const Bar& b : bars) if (b.value) hi = std::max(hi, *b.value);
  const int left = 230, span = 480, bh = 22, gap = 8;
  const int height = static_cast<int>(bars.size()) * (bh + gap) + 10;
  std::string s = fmt::format("<svg class=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                              "role=\"img\" aria-label=\"{}\">\n", css_class, left + span + 300, height, aria);
  int i = 0;
  for (const Bar& b : bars) {
    const int y = 5 + i++ * (bh + gap);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", left - 8, y + bh / 2 + 4, html_escape(b.label));
    int end = left;
    if (b.value && hi > 0) {
      const int w = std::max(1, static_cast<int>(std::lround(*b.value / hi * span)));
      s += fmt::format("<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {:.1f} GB/s"
                       "</title></rect>\n", left, y, w, bh, b.colour, html_escape(b.label), *b.value);
      end = left + w;
    }
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", end + 6, y + bh / 2 + 4, html_escape(b.note));
  }
  return s + "</svg>\n";
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_report(const Cache& cache, const std::string& title_source) {
  const std::vector<Winner> winners = cache.winners();
  std::map<std::string, std::vector<const Winner*>> by_problem;  // ordered by problem key
  for (const Winner& w : winners) by_problem[w.problem.key()].push_back(&w);

  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += fmt::format("<title>autotune report: {}</title>\n<style>{}</style>\n</head>\n<body>\n", html_escape(title_source), kStyle);
  h += fmt::format("<h1>autotune report</h1>\n<p>Cache <code>{}</code>: {} winner{} for {} problem{}.</p>\n",
                   html_escape(title_source), winners.size(), winners.size() == 1 ? "" : "s", by_problem.size(),
                   by_problem.size() == 1 ? "" : "s");
  if (winners.empty()) {
    h += "<p class=\"empty\">This cache holds no winners yet: nothing was tuned (run <code>autotune tune</code>).</p>\n";
    return h + "</body>\n</html>\n";
  }
  h += "<p class=\"note\">Heat maps: GB/s of the winning run's correct variants of the winner's algorithm (as "
       "its kernel family defines it, e.g. a privatization and its replica count) over block size and "
       "loads per thread; each cell is the best over the other parameters. Bars: the winner against the "
       "device's measured read roof and CUB, as <code>autotune bench</code> last measured it on that device.</p>\n"
       "<ul>\n";
  int index = 0;
  for (const auto& [key, ws] : by_problem)
    h += fmt::format("<li><a href=\"#p{}\">{}</a> ({} device{})</li>\n", index++, html_escape(key), ws.size(),
                     ws.size() == 1 ? "" : "s");
  h += "</ul>\n";

  index = 0;
  for (const auto& [key, ws] : by_problem) {
    h += fmt::format("<section class=\"problem\">\n<h2 id=\"p{}\">{}</h2>\n", index++, html_escape(key));
    const Winner* fastest = ws.front();
    for (const Winner* w : ws) if (w->median_ms < fastest->median_ms) fastest = w;
    for (const Winner* w : ws) {
      const std::optional<double> roof = cache.device_roof(w->model_key);
      h += fmt::format("<h3>{} ({})</h3>\n<p>Winner <code>{}</code>: {:.4f} ms, {:.1f} GB/s{}; tuned {}.</p>\n",
                       html_escape(w->device_name), html_escape(w->arch), html_escape(w->config.key()), w->median_ms,
                       w->gbps, roof ? fmt::format(", {:.1f} % of the {:.0f} GB/s read roof", w->gbps / *roof * 100, *roof) : "",
                       html_escape(w->tuned_at));
      h += heat_map(*w, cache.measurements(w->run_id));
      std::vector<Bar> bars;
      bars.push_back({"winner", w->gbps, fmt::format("{:.1f} GB/s", w->gbps), "#21918c"});
      if (roof) bars.push_back({"read roof", *roof, fmt::format("{:.1f} GB/s", *roof), "#888888"});
      else bars.push_back({"read roof", std::nullopt, "not measured for this device", ""});
      const std::string cub_name(w->problem.family().baseline_name());
      if (const auto cub = cache.baseline(w->model_key, w->problem, "cub"))
        bars.push_back({cub_name, cub->gbps,
                        fmt::format("{:.1f} GB/s (winner {:.2f}x; `autotune bench`, {})", cub->gbps,
                                    cub->median_ms / w->median_ms, cub->measured_at),
                        "#fde725"});
      else
        bars.push_back({cub_name, std::nullopt, "not measured on this device (run `autotune bench`)", ""});
      h += bar_chart(bars, "roofchart", "winner versus the read roof, GB/s");
    }
    if (ws.size() > 1) {
      h += "<h3>Devices side by side</h3>\n";
      std::vector<Bar> bars;
      for (const Winner* w : ws)
        bars.push_back({w->device_name, w->gbps,
                        fmt::format("{:.1f} GB/s, {:.2f}x the fastest's time{}", w->gbps, w->median_ms / fastest->median_ms,
                                    w->config == fastest->config ? ", same configuration" : ", other configuration"),
                        w == fastest ? "#5ec962" : "#3b528b"});
      h += bar_chart(bars, "devicechart", "winners of each device, GB/s");
    }
    h += "</section>\n";
  }
  return h + "</body>\n</html>\n";
}

}  // namespace autotune::cli
