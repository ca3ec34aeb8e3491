// `autotune report`: one self-contained HTML page about a cache (inline CSS and SVG generated here; no scripts, no
// fonts or images fetched, so it opens offline and renders the same everywhere). Per problem:
//   - per device with a winner, a heat map of GB/s over block size x loads per thread. The slice shown is the
//     winner's own family: the latest run's ok measurements with the winner's privatization and replica count;
//     a cell holds the best GB/s over the other parameters (vector width, aggregation, partitioning, merge,
//     counter width, grid). The winner's cell is outlined.
//   - the winner's GB/s against the device's measured read roof (devices.roof_gbps). CUB's bar shows what
//     `autotune bench` recorded in the cache (Cache::baseline); without a record its row says so instead of a number.
//   - when several devices tuned the problem, their winners side by side (GB/s and time relative to the fastest).
// Before those, per problem shape (Problem::shape_key) and device model with winners at 2 or more sizes (a size
// ladder, `autotune tune --n 4K..1G`), a line chart of GB/s (input bytes / median time) over n on a log2 scale: the
// tuned winners through every tuned size (filled circles; crossover runs as open circles), the family's baseline
// (CUB) at the sizes `autotune bench` recorded it (Cache::shape_baselines), the read roof as a horizontal line; and
// a table of the same numbers (n, winner configuration, GB/s, the baseline's GB/s, their ratio).
// Every text that comes from the cache is escaped.
#pragma once

#include <string>

#include "autotune/cache.hpp"

namespace autotune::cli {

/// The whole page for `cache` (only read). `title_source` names the cache file in the page.
std::string render_report(const Cache& cache, const std::string& title_source);

/// Text escaped for HTML and SVG content and attribute values (& < > " ').
std::string html_escape(const std::string& text);

}  // namespace autotune::cli
