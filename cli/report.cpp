#include "cli/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "autotune/tuner.hpp"
#include "core/family.hpp"
#include "core/ladder.hpp"

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
table.sizetable td, table.sizetable th { white-space: nowrap; } table.sizetable .num { text-align: right; }
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

// One point of a size chart: a tuned winner or a baseline at one n.
struct SizePoint {
  std::uint64_t n = 0;
  double ms = 0.0;
  double gbps = 0.0;     ///< input bytes / median time
  std::string config;    ///< the winner's configuration key; empty for a baseline
  bool crossover = false;
  std::string note;      ///< a baseline's provenance
};

double gbps_from(std::uint64_t bytes, double ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) / 1e9 : 0.0; }

// A round step for about `parts` intervals up to `hi` (1, 2 or 5 times a power of ten).
double nice_step(double hi, int parts) {
  const double raw = hi / parts;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double f : {1.0, 2.0, 5.0})
    if (f * mag >= raw) return f * mag;
  return 10.0 * mag;
}

// The size chart's legend at x = lx, right of the plot.
std::string size_legend(int lx, int y0, const std::string& base_name, std::optional<double> roof, const char* winner,
                        const char* base) {
  std::string s = fmt::format(
      "<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">winner, tuned size</text>\n", lx + 6,
      y0 + 10, winner, lx + 18, y0 + 14);
  s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"2\"/>"
                   "<text x=\"{}\" y=\"{}\">winner, crossover run</text>\n", lx + 6, y0 + 30, winner, lx + 18, y0 + 34);
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                   lx + 2, y0 + 46, base, lx + 18, y0 + 54, html_escape(base_name));
  if (roof)
    s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888888\" stroke-width=\"2\" "
                     "stroke-dasharray=\"6 4\"/><text x=\"{}\" y=\"{}\">read roof {:.0f} GB/s</text>\n",
                     lx, y0 + 70, lx + 12, y0 + 70, lx + 18, y0 + 74, *roof);
  return s;
}

// "GB/s over n": x = n on a log2 scale (ticks at powers of two, 2, 4 or 16 apart, labelled as `--n` spells sizes),
// y = GB/s from 0. The tuned winners as one line through every tuned size (filled circles: sizes tuned as such;
// open circles: crossover runs), the baseline as a dashed line with squares at the sizes it was measured, the read
// roof as a horizontal dashed line. Points are drawn by ascending n.
std::string size_chart(const std::vector<SizePoint>& tuned, const std::vector<SizePoint>& base,
                       const std::string& base_name, std::optional<double> roof) {
  const int x0 = 70, x1 = 610, y0 = 20, y1 = 250, width = 800, height = 300;
  double lo = INFINITY, hi = -INFINITY, top = roof.value_or(0.0);
  for (const auto* series : {&tuned, &base})
    for (const SizePoint& p : *series) {
      lo = std::min(lo, std::log2(static_cast<double>(p.n)));
      hi = std::max(hi, std::log2(static_cast<double>(p.n)));
      top = std::max(top, p.gbps);
    }
  int step = 1;
  for (int s : {1, 2, 4, 8, 16}) {
    step = s;
    if (std::ceil(hi / s) - std::floor(lo / s) <= 8) break;
  }
  const int a = static_cast<int>(std::floor(lo / step)) * step;
  int b = static_cast<int>(std::ceil(hi / step)) * step;
  if (b <= a) b = a + step;
  const double ystep = nice_step(top > 0 ? top * 1.05 : 1.0, 5);
  const double ytop = std::ceil((top > 0 ? top * 1.05 : 1.0) / ystep) * ystep;
  auto xof = [&](std::uint64_t n) { return x0 + (std::log2(static_cast<double>(n)) - a) / (b - a) * (x1 - x0); };
  auto yof = [&](double v) { return y1 - v / ytop * (y1 - y0); };

  std::string s = fmt::format(
      "<svg class=\"sizechart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"GB/s over n (log2 scale): the tuned winners and {}\">\n",
      width, height, html_escape(base_name));
  for (double v = 0; v <= ytop * (1 + 1e-9); v += ystep) {
    const double y = yof(v);
    s += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#eeeeee\"/>\n", x0, y, x1, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", x0 - 6, y + 4, v);
  }
  for (int e = a; e <= b; e += step) {
    const double x = xof(std::uint64_t(1) << e);
    s += fmt::format("<line class=\"tick\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#888888\"/>\n", x, y1, x, y1 + 5);
    s += fmt::format("<text class=\"xtick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x, y1 + 18,
                     format_size(std::uint64_t(1) << e));
  }
  s += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#222222\"/>\n", x0, y1, x1);
  s += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#222222\"/>\n", x0, y0, y1);
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">n (log2 scale) &#8594;</text>\n", (x0 + x1) / 2, y1 + 40);
  s += fmt::format("<text x=\"4\" y=\"{}\">GB/s</text>\n", y0 - 6);
  if (roof) {
    const double y = yof(*roof);
    s += fmt::format("<line class=\"roof\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#888888\" "
                     "stroke-width=\"2\" stroke-dasharray=\"6 4\"><title>read roof: {:.1f} GB/s</title></line>\n",
                     x0, y, x1, y, *roof);
  }
  auto polyline = [&](const std::vector<SizePoint>& ps, const char* cls, const char* colour, const char* dash) {
    if (ps.size() < 2) return std::string();
    std::string pts;
    for (const SizePoint& p : ps) pts += fmt::format("{}{:.1f},{:.1f}", pts.empty() ? "" : " ", xof(p.n), yof(p.gbps));
    return fmt::format("<polyline class=\"series {}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>\n",
                       cls, colour, dash, pts);
  };
  const char* kWinner = "#21918c";
  const char* kBase = "#440154";
  s += polyline(base, "baseline", kBase, " stroke-dasharray=\"5 3\"");
  s += polyline(tuned, "winner", kWinner, "");
  for (const SizePoint& p : base)
    s += fmt::format("<rect class=\"point baseline\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"8\" height=\"8\" fill=\"{}\">"
                     "<title>n={} ({}): {}, {:.1f} GB/s, {:.4f} ms{}</title></rect>\n",
                     xof(p.n) - 4, yof(p.gbps) - 4, kBase, format_size(p.n), p.n, html_escape(base_name), p.gbps, p.ms,
                     html_escape(p.note));
  for (const SizePoint& p : tuned)
    s += fmt::format("<circle class=\"point winner {}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\" stroke=\"{}\" "
                     "stroke-width=\"2\"><title>n={} ({}): {}, {:.1f} GB/s, {:.4f} ms, {}</title></circle>\n",
                     p.crossover ? "crossover" : "exact", xof(p.n), yof(p.gbps), p.crossover ? 5 : 4,
                     p.crossover ? "#ffffff" : kWinner, kWinner, format_size(p.n), p.n, html_escape(p.config), p.gbps,
                     p.ms, p.crossover ? "crossover run" : "exact (tuned at this size)");
  return s + size_legend(x1 + 20, y0, base_name, roof, kWinner, kBase) + "</svg>\n";
}

// The chart's numbers: one row per size that has a tuned winner or a baseline, by ascending n.
std::string size_table(const std::vector<SizePoint>& tuned, const std::vector<SizePoint>& base,
                       const std::string& base_name) {
  std::map<std::uint64_t, std::pair<const SizePoint*, const SizePoint*>> rows;
  for (const SizePoint& p : tuned) rows[p.n].first = &p;
  for (const SizePoint& p : base) rows[p.n].second = &p;
  const std::string name = html_escape(base_name);
  std::string s = fmt::format("<table class=\"sizetable\">\n<tr><th>n</th><th>winner configuration</th><th>run</th>"
                              "<th class=\"num\">GB/s</th><th class=\"num\">{0} GB/s</th>"
                              "<th class=\"num\">winner / {0}</th></tr>\n", name);
  for (const auto& [n, row] : rows) {
    const SizePoint* w = row.first;
    const SizePoint* c = row.second;
    s += fmt::format("<tr><td>{} ({})</td>", format_size(n), n);
    if (w) s += fmt::format("<td><code>{}</code></td><td>{}</td><td class=\"num\">{:.1f}</td>", html_escape(w->config),
                            w->crossover ? "crossover" : "exact", w->gbps);
    else s += "<td>not tuned at this size</td><td></td><td class=\"num\">&#8212;</td>";
    s += c ? fmt::format("<td class=\"num\">{:.1f}</td>", c->gbps) : std::string("<td class=\"num\">not measured</td>");
    s += w && c ? fmt::format("<td class=\"num\">{:.2f}x</td>", c->ms / w->ms) : std::string("<td class=\"num\">&#8212;</td>");
    s += "</tr>\n";
  }
  return s + "</table>\n";
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

namespace {

using ByProblem = std::map<std::string, std::vector<const Winner*>>;  // ordered by problem key
// Per problem shape (ordered by shape key), per device model, the winners by ascending n: the shapes tuned at 2 or
// more sizes on a model, for the size charts.
using ByShape = std::map<std::string, std::map<std::string, std::vector<const Winner*>>>;

ByShape shapes_over_sizes(const std::vector<Winner>& winners) {
  ByShape by_shape;
  for (const Winner& w : winners) by_shape[w.problem.shape_key()][w.model_key].push_back(&w);
  for (auto it = by_shape.begin(); it != by_shape.end();) {
    auto& models = it->second;
    for (auto m = models.begin(); m != models.end();) {
      std::sort(m->second.begin(), m->second.end(),
                [](const Winner* x, const Winner* y) { return x->problem.n() < y->problem.n(); });
      m = m->second.size() >= 2 ? std::next(m) : models.erase(m);
    }
    it = models.empty() ? by_shape.erase(it) : std::next(it);
  }
  return by_shape;
}

// The notes and the two tables of contents: problems, then shapes over n.
std::string contents(const ByProblem& by_problem, const ByShape& by_shape) {
  std::string h =
      "<p class=\"note\">Heat maps: GB/s of the winning run's correct variants of the winner's algorithm (as "
      "its kernel family defines it, e.g. a privatization and its replica count) over block size and "
      "loads per thread; each cell is the best over the other parameters. Bars: the winner against the "
      "device's measured read roof and CUB, as <code>autotune bench</code> last measured it on that device.</p>\n"
      "<ul>\n";
  int index = 0;
  for (const auto& [key, ws] : by_problem)
    h += fmt::format("<li><a href=\"#p{}\">{}</a> ({} device{})</li>\n", index++, html_escape(key), ws.size(),
                     ws.size() == 1 ? "" : "s");
  h += "</ul>\n";
  if (by_shape.empty()) return h;
  h += "<p class=\"note\">Sizes: GB/s (input bytes / median time) over n on a log2 scale, for every problem shape "
       "tuned at 2 or more sizes on a device: the tuned winners (filled circles: sizes tuned as such; open circles: "
       "crossover runs, measured between two tuned sizes whose winners differ; a size-adaptive handle serves each n "
       "from the nearest of them), the reference implementation at the sizes <code>autotune bench</code> measured "
       "it, and the device's read roof.</p>\n<ul>\n";
  index = 0;
  for (const auto& [shape, models] : by_shape)
    h += fmt::format("<li><a href=\"#s{}\">{}</a> over n ({} device{})</li>\n", index++, html_escape(shape),
                     models.size(), models.size() == 1 ? "" : "s");
  return h + "</ul>\n";
}

// One shape's size charts and tables, a device model each.
std::string shape_section(const Cache& cache, const std::string& shape,
                          const std::map<std::string, std::vector<const Winner*>>& models, int index) {
  std::string h = fmt::format("<section class=\"sizes\">\n<h2 id=\"s{}\">{} over n</h2>\n", index, html_escape(shape));
  for (const auto& [model, ws] : models) {
    const Winner& first = *ws.front();
    const std::string base_name(first.problem.family().baseline_name());
    std::vector<SizePoint> tuned, base;
    int crossovers = 0;
    for (const Winner* w : ws) {
      const bool crossover = w->strategy == kCrossoverStrategy;
      crossovers += crossover;
      tuned.push_back({w->problem.n(), w->median_ms, gbps_from(w->problem.bytes(), w->median_ms), w->config.key(),
                       crossover, ""});
    }
    for (const auto& [p, b] : cache.shape_baselines(model, first.problem, "cub"))
      if (p.n() > 0)
        base.push_back({p.n(), b.median_ms, gbps_from(p.bytes(), b.median_ms), "", false,
                        fmt::format(" (`autotune bench`, {})", b.measured_at)});
    h += fmt::format("<h3>{} ({}): {} sizes tuned ({} crossover{}), {} at {} size{}</h3>\n",
                     html_escape(first.device_name), html_escape(first.arch), tuned.size(), crossovers,
                     crossovers == 1 ? "" : "s", html_escape(base_name), base.size(), base.size() == 1 ? "" : "s");
    h += size_chart(tuned, base, base_name, cache.device_roof(model));
    h += size_table(tuned, base, base_name);
  }
  return h + "</section>\n";
}

// One winner's heading, heat map and bars against the read roof and CUB.
std::string winner_part(const Cache& cache, const Winner& w) {
  const std::optional<double> roof = cache.device_roof(w.model_key);
  std::string h = fmt::format("<h3>{} ({})</h3>\n<p>Winner <code>{}</code>: {:.4f} ms, {:.1f} GB/s{}; tuned {}.</p>\n",
                              html_escape(w.device_name), html_escape(w.arch), html_escape(w.config.key()), w.median_ms,
                              w.gbps,
                              roof ? fmt::format(", {:.1f} % of the {:.0f} GB/s read roof", w.gbps / *roof * 100, *roof)
                                   : "",
                              html_escape(w.tuned_at));
  h += heat_map(w, cache.measurements(w.run_id));
  std::vector<Bar> bars;
  bars.push_back({"winner", w.gbps, fmt::format("{:.1f} GB/s", w.gbps), "#21918c"});
  if (roof) bars.push_back({"read roof", *roof, fmt::format("{:.1f} GB/s", *roof), "#888888"});
  else bars.push_back({"read roof", std::nullopt, "not measured for this device", ""});
  const std::string cub_name(w.problem.family().baseline_name());
  if (const auto cub = cache.baseline(w.model_key, w.problem, "cub"))
    bars.push_back({cub_name, cub->gbps,
                    fmt::format("{:.1f} GB/s (winner {:.2f}x; `autotune bench`, {})", cub->gbps,
                                cub->median_ms / w.median_ms, cub->measured_at),
                    "#fde725"});
  else
    bars.push_back({cub_name, std::nullopt, "not measured on this device (run `autotune bench`)", ""});
  return h + bar_chart(bars, "roofchart", "winner versus the read roof, GB/s");
}

// One problem's section: each device's winner, then the devices side by side.
std::string problem_section(const Cache& cache, const std::string& key, const std::vector<const Winner*>& ws,
                            int index) {
  std::string h = fmt::format("<section class=\"problem\">\n<h2 id=\"p{}\">{}</h2>\n", index, html_escape(key));
  const Winner* fastest = ws.front();
  for (const Winner* w : ws)
    if (w->median_ms < fastest->median_ms) fastest = w;
  for (const Winner* w : ws) h += winner_part(cache, *w);
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
  return h + "</section>\n";
}

}  // namespace

std::string render_report(const Cache& cache, const std::string& title_source) {
  const std::vector<Winner> winners = cache.winners();
  ByProblem by_problem;
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
  const ByShape by_shape = shapes_over_sizes(winners);
  h += contents(by_problem, by_shape);
  int index = 0;
  for (const auto& [shape, models] : by_shape) h += shape_section(cache, shape, models, index++);
  index = 0;
  for (const auto& [key, ws] : by_problem) h += problem_section(cache, key, ws, index++);
  return h + "</body>\n</html>\n";
}

}  // namespace autotune::cli
