// Moving results between machines: export_json writes a portable JSON document, import_json adds one to a cache,
// merge adds a whole other cache file. All three meet in one document form, so that import and merge follow the
// same rules (documented on Cache::import_json): merge exports the other file in memory and imports that.
//
// The document (format "autotune-cache", format_version 2) has no database ids. Devices, problems and templates
// are listed once and referred to by natural key (model_key, problem key); each run carries its measurements and,
// if it won, its winner. Every list is ordered by natural key, so equal contents give equal text.
#include <SQLiteCpp/Backup.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "autotune/device.hpp"
#include "cache/cache_impl.hpp"
#include "cache/document.hpp"
#include "cache/signature.hpp"
#include "core/integrity.hpp"
#include "core/jit.hpp"
#include "core/signing.hpp"

namespace autotune {

using namespace cache_detail;

namespace {

// One column as a JSON value: NULL -> null, numbers as numbers, text as text, a blob in base64.
Json value_of(const SQLite::Column& c) {
  switch (c.getType()) {
    case SQLITE_NULL: return nullptr;
    case SQLITE_INTEGER: return c.getInt64();
    case SQLITE_FLOAT: return c.getDouble();
    case SQLITE_BLOB: return base64_encode(static_cast<const char*>(c.getBlob()), c.getBytes());
    default: return c.getString();
  }
}

// Every row of `sql` as an object named by the result columns.
std::vector<Json> rows_of(SQLite::Statement& q) {
  std::vector<Json> rows;
  while (q.executeStep()) {
    Json row = Json::object();
    for (int i = 0; i < q.getColumnCount(); ++i) row[q.getColumnName(i)] = value_of(q.getColumn(i));
    rows.push_back(std::move(row));
  }
  return rows;
}

// The problems with their parameters (format_version 2), an object of name -> value ordered by name, as stored.
Json problem_rows(SQLite::Database& db) {
  SQLite::Statement problems(db, "SELECT id, key, shape_key, family, n, distribution FROM problems ORDER BY key");
  SQLite::Statement parameters(db, "SELECT name, value FROM problem_parameters WHERE problem_id = ? ORDER BY name");
  Json out = Json::array();
  for (Json row : rows_of(problems)) {
    parameters.reset();
    parameters.bind(1, row["id"].get<std::int64_t>());
    row.erase("id");
    Json named = Json::object();
    while (parameters.executeStep()) named[parameters.getColumn(0).getString()] = parameters.getColumn(1).getString();
    row["parameters"] = std::move(named);
    out.push_back(std::move(row));
  }
  return out;
}

// The document, or with a non-empty filter the matching runs and baselines with the rows they refer to (an
// unfiltered export also lists devices, problems and templates that no run uses).
// Leaves in `doc` the runs and baselines `filter` matches, and the devices, problems and templates they name.
void keep_matching(Json& doc, const ExportFilter& filter) {
  std::set<std::string> devices, problems, templates;
  auto keep = [&](Json& list, bool is_run) {
    Json kept = Json::array();
    for (Json& row : list) {
      const std::string device = row["device"].get<std::string>(), problem = row["problem"].get<std::string>();
      if (!filter.matches(problem, device)) continue;
      devices.insert(device);
      problems.insert(problem);
      if (is_run && row["template_hash"].is_string()) templates.insert(row["template_hash"].get<std::string>());
      kept.push_back(std::move(row));
    }
    list = std::move(kept);
  };
  keep(doc["runs"], true);
  keep(doc["baselines"], false);
  auto only = [](Json& list, const char* field, const std::set<std::string>& names) {
    Json kept = Json::array();
    for (Json& row : list)
      if (row[field].is_string() && names.count(row[field].get<std::string>())) kept.push_back(std::move(row));
    list = std::move(kept);
  };
  only(doc["devices"], "model_key", devices);
  only(doc["problems"], "key", problems);
  only(doc["templates"], "hash", templates);
}

Json export_document(SQLite::Database& db, const ExportFilter& filter = {}) {
  Json doc = Json::object();
  doc["format"] = kFormat;
  doc["format_version"] = kFormatVersion;
  doc["schema_version"] = kSchemaVersion;
  doc["exported_by"] = std::string("autotune ") + AUTOTUNE_VERSION;

  SQLite::Statement devices(db,
      "SELECT model_key, name, arch, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, shared_per_block_optin,"
      " max_threads_per_block, clock_khz, memory_clock_khz, driver_version, nvrtc_version, uuid, roof_gbps"
      " FROM devices ORDER BY model_key");
  doc["devices"] = rows_of(devices);
  doc["problems"] = problem_rows(db);
  SQLite::Statement templates(db, "SELECT family, hash, first_seen FROM templates ORDER BY family, hash");
  doc["templates"] = rows_of(templates);

  SQLite::Statement runs(db,
      "SELECT r.id, d.model_key AS device, p.key AS problem, r.started_at, r.finished_at, r.strategy,"
      " r.tool_version, r.template_hash, r.nvrtc_version, r.driver_version, r.settings, r.stale, r.stale_reason"
      " FROM runs r JOIN devices d ON d.id = r.device_id JOIN problems p ON p.id = r.problem_id"
      " ORDER BY d.model_key, p.key, r.started_at, r.tool_version, r.strategy");
  SQLite::Statement measurements(db,
      "SELECT config, status, log, median_ms, spread, samples, gbps, roof_pct FROM measurements"
      " WHERE run_id = ? ORDER BY id");
  SQLite::Statement winner(db,
      "SELECT config, median_ms, gbps, arch, cubin, tuned_at, cubin_sha256, source_sha256, nvrtc_options,"
      " nvrtc_version FROM winners WHERE run_id = ?");
  Json out_runs = Json::array();
  for (Json run : rows_of(runs)) {
    const std::int64_t id = run["id"].get<std::int64_t>();
    run.erase("id");
    run["stale"] = run["stale"].get<std::int64_t>() != 0;
    // Settings are a JSON object in the file; embed them as one. A hand-edited value that is not a JSON object,
    // or is nested too deep to handle safely, stays text (which import refuses, naming it).
    if (run["settings"].is_string()) {
      auto parsed = parse_bounded(run["settings"].get<std::string>(), kMaxSettingsDepth);
      if (parsed && parsed->is_object()) run["settings"] = std::move(*parsed);
    }
    measurements.reset();
    measurements.bind(1, id);
    run["measurements"] = rows_of(measurements);
    winner.reset();
    winner.bind(1, id);
    const auto w = rows_of(winner);
    run["winner"] = w.empty() ? Json(nullptr) : w.front();
    out_runs.push_back(std::move(run));
  }
  doc["runs"] = std::move(out_runs);
  // Schema 3; an older reader of format_version 1 ignores the key.
  SQLite::Statement baselines(db,
      "SELECT d.model_key AS device, p.key AS problem, b.name, b.median_ms, b.gbps, b.measured_at FROM baselines b"
      " JOIN devices d ON d.id = b.device_id JOIN problems p ON p.id = b.problem_id"
      " ORDER BY d.model_key, p.key, b.name");
  doc["baselines"] = rows_of(baselines);
  if (!filter.empty()) keep_matching(doc, filter);
  return doc;
}

void bind_opt(SQLite::Statement& q, int i, const std::optional<std::string>& v) {
  if (v) q.bind(i, *v);
  else q.bind(i);
}
void bind_opt(SQLite::Statement& q, int i, const std::optional<std::int64_t>& v) {
  if (v) q.bind(i, *v);
  else q.bind(i);
}
void bind_opt(SQLite::Statement& q, int i, const std::optional<double>& v) {
  if (v) q.bind(i, *v);
  else q.bind(i);
}

std::optional<std::int64_t> id_of(SQLite::Database& db, const char* sql, const std::string& key) {
  SQLite::Statement q(db, sql);
  q.bind(1, key);
  if (!q.executeStep()) return std::nullopt;
  return q.getColumn(0).getInt64();
}

// Whether this machine compiles the winner's cubin to the same bytes: the recorded source is the one this build
// compiles for its problem and configuration, with the options and NVRTC version used here. Decided before the
// import's transaction, since a compile takes seconds and other writers wait for the transaction.
bool reproduced_here(const Fields& run, const Fields& w, const std::vector<char>& cubin) {
  const auto problem = Problem::parse(run.text("problem"));
  if (!problem) return false;
  const auto config = Config::parse(problem->family_name(), w.text("config"));
  const auto source_sha256 = w.opt_text("source_sha256"), options = w.opt_text("nvrtc_options");
  const auto version = w.opt_integer("nvrtc_version");
  if (!config || !source_sha256 || !options || !version || *version != nvrtc_version()) return false;
  const std::string arch = w.text("arch");
  if (nlohmann::json::parse(*options, nullptr, false) != nlohmann::json(jit::options_for(arch))) return false;
  const std::string source = kernel_source(*problem, *config);
  return integrity::sha256_hex(source) == *source_sha256 && jit::reproduces(source, arch, cubin);
}

// For each run of the document, whether its winner's cubin may be stored: cubins wanted, a recorded SHA-256 (the
// document's validation checked the bytes against it), and a trusted document or a cubin this machine reproduces.
std::vector<bool> cubins_to_keep(const Json& doc, const std::string& source, const ImportOptions& options,
                                 bool trusted) {
  const Fields top(doc, "document", source);
  const Json& runs = top.array("runs");
  std::vector<bool> keep(runs.size(), false);
  if (!options.cubins) return keep;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Fields run(runs[i], fmt::format("runs[{}]", i), source);
    const Json& winner = run.get("winner");
    if (winner.is_null()) continue;
    const Fields w(winner, run.where() + ".winner", source);
    if (!w.has("cubin") || !w.has("cubin_sha256")) continue;
    if (trusted) {
      keep[i] = true;
      continue;
    }
    if (options.verify_cubins) keep[i] = reproduced_here(run, w, *base64_decode(w.text("cubin", (kMaxCubin + 2) / 3 * 4)));
  }
  return keep;
}

bool trusted_origin(const std::string& origin) { return origin == "local" || origin.starts_with("signed:"); }

// Whether a document's winner (of run `run_id`, recorded as `origin`) replaces the file's winner of the same model and
// problem: there is none; or a fresh one beats a stale one; then local or signed evidence beats imported evidence (an
// import never displaces what the user measured or trusts); then the later tuned_at; then the lower median time. A
// full tie, or the same run, keeps the file's.
bool take_winner(SQLite::Database& db, std::int64_t device_id, std::int64_t problem_id, std::int64_t run_id,
                 const std::string& tuned_at, double median_ms, const std::string& origin) {
  SQLite::Statement ours(db,
      "SELECT w.run_id, w.tuned_at, w.median_ms, r.stale, (SELECT stale FROM runs WHERE id = ?), w.origin"
      " FROM winners w JOIN runs r ON r.id = w.run_id WHERE w.device_id = ? AND w.problem_id = ?");
  ours.bind(1, run_id);
  ours.bind(2, device_id);
  ours.bind(3, problem_id);
  if (!ours.executeStep()) return true;
  if (ours.getColumn(0).getInt64() == run_id) return false;
  const bool ours_stale = ours.getColumn(3).getInt() != 0, theirs_stale = ours.getColumn(4).getInt() != 0;
  if (ours_stale != theirs_stale) return ours_stale;
  const bool ours_trusted = trusted_origin(ours.getColumn(5).getString()), theirs_trusted = trusted_origin(origin);
  if (ours_trusted != theirs_trusted) return theirs_trusted;
  const std::string ours_at = ours.getColumn(1).getString();
  if (ours_at != tuned_at) return tuned_at > ours_at;
  return median_ms < ours.getColumn(2).getDouble();
}

// The phases of import_document, in its order; each adds what it reads from the document `top` to `db` and counts it.
void import_devices(SQLite::Database& db, const Fields& top, const std::string& source, ImportStats& stats) {
  const Json& devices = top.array("devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Fields f(devices[i], fmt::format("devices[{}]", i), source);
    const std::string model_key = f.text("model_key");
    const auto roof = f.opt_number("roof_gbps");
    SQLite::Statement q(db,
        "INSERT INTO devices (model_key, name, arch, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes,"
        " shared_per_block_optin, max_threads_per_block, clock_khz, memory_clock_khz, driver_version,"
        " nvrtc_version, uuid, roof_gbps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (model_key) DO NOTHING");
    q.bind(1, model_key);
    q.bind(2, f.text("name"));
    q.bind(3, f.text("arch"));
    int k = 4;
    for (const char* column : {"cc_major", "cc_minor", "sm_count", "memory_bytes", "l2_bytes", "shared_per_block_optin",
                               "max_threads_per_block", "clock_khz", "memory_clock_khz", "driver_version",
                               "nvrtc_version"})
      q.bind(k++, f.integer(column));
    q.bind(15, f.text("uuid"));
    bind_opt(q, 16, roof);
    stats.devices += q.exec();
    // A known model keeps its row; it only learns a roof it did not have.
    if (roof) {
      SQLite::Statement r(db, "UPDATE devices SET roof_gbps = ? WHERE model_key = ? AND roof_gbps IS NULL");
      r.bind(1, *roof);
      r.bind(2, model_key);
      r.exec();
    }
  }
}

void import_problems(SQLite::Database& db, const Fields& top, const std::string& source, ImportStats& stats) {
  const Json& problems = top.array("problems");
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const Fields f(problems[i], fmt::format("problems[{}]", i), source);
    // validate_document() checked the key, and that the parameters a format-2 document lists are the key's.
    const std::string key = f.text("key");
    SQLite::Statement q(db,
        "INSERT INTO problems (key, shape_key, family, n, distribution) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (key) DO NOTHING");
    q.bind(1, key);
    q.bind(2, f.text("shape_key"));
    q.bind(3, f.text("family"));
    q.bind(4, f.integer("n"));
    q.bind(5, f.text("distribution"));
    stats.problems += q.exec();
    const auto id = id_of(db, "SELECT id FROM problems WHERE key = ?", key);
    write_parameters(db, *id, key_parameters(*Problem::parse(key)));
  }
}

void import_templates(SQLite::Database& db, const Fields& top, const std::string& source, ImportStats& stats) {
  const Json& templates = top.array("templates");
  for (std::size_t i = 0; i < templates.size(); ++i) {
    const Fields f(templates[i], fmt::format("templates[{}]", i), source);
    SQLite::Statement q(db, "INSERT INTO templates (family, hash, first_seen) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
    q.bind(1, f.text("family"));
    q.bind(2, f.text("hash"));
    q.bind(3, f.text("first_seen"));
    stats.templates += q.exec();
  }
}

// A run's winner, taken once every run's staleness is settled (import_winners).
struct WinnerCandidate {
  std::int64_t device_id, problem_id, run_id;
  const Json* winner;
  std::string where;
  bool keep_cubin;
};

// The run of `f` in this file (found by its natural key with `find`, else inserted), and whether the document's copy
// finishes a run this file holds unfinished (its measurements then replace ours). A signed document adopts a run held
// only as imported; staleness is sticky.
struct SettledRun {
  std::int64_t run_id = 0;
  bool finishes_ours = false;
};
SettledRun settle_run(SQLite::Database& db, SQLite::Statement& find, const Fields& f, std::int64_t device_id,
                      std::int64_t problem_id, const std::string& origin, ImportStats& stats) {
  const auto started_at = f.text("started_at"), tool_version = f.text("tool_version"), strategy = f.text("strategy");
  const auto finished_at = f.opt_text("finished_at");
  const bool stale = f.get("stale").get<bool>();
  std::optional<std::string> settings;
  if (const Json& s = f.get("settings"); s.is_object()) settings = nlohmann::json(s).dump();  // canonical
  find.reset();
  find.bind(1, device_id);
  find.bind(2, problem_id);
  find.bind(3, started_at);
  find.bind(4, tool_version);
  find.bind(5, strategy);
  std::int64_t run_id = 0;
  bool finishes_ours = false;
  if (find.executeStep()) {
    run_id = find.getColumn(0).getInt64();
    const bool ours_stale = find.getColumn(1).getInt() != 0, ours_unfinished = find.getColumn(2).getInt() != 0;
    // A signed document vouches for a run this file holds only as imported: the run becomes the signed one, its
    // measurements and winner the document's (an unsigned copy of the same natural key may have said otherwise).
    const bool adopts = find.getColumn(3).getString() == "imported" && trusted_origin(origin);
    find.reset();
    if (adopts) {
      SQLite::Statement u(db, "UPDATE runs SET origin = ?, finished_at = coalesce(?, finished_at) WHERE id = ?");
      u.bind(1, origin);
      bind_opt(u, 2, finished_at);
      u.bind(3, run_id);
      stats.runs += u.exec();
      for (const char* sql : {"DELETE FROM winners WHERE run_id = ?", "DELETE FROM measurements WHERE run_id = ?"}) {
        SQLite::Statement clear(db, sql);
        clear.bind(1, run_id);
        clear.exec();
      }
    }
    // Staleness is sticky (a run stale anywhere is stale), and a copy taken mid-run learns that it finished.
    if (stale && !ours_stale) {
      SQLite::Statement u(db, "UPDATE runs SET stale = 1, stale_reason = ? WHERE id = ?");
      bind_opt(u, 1, f.opt_text("stale_reason"));
      u.bind(2, run_id);
      stats.runs += u.exec();
    }
    // The document's measurements replace ours then: the run is the document's evidence from now on.
    if (finished_at && ours_unfinished) {
      finishes_ours = true;
      SQLite::Statement u(db, "UPDATE runs SET finished_at = ?, origin = ? WHERE id = ?");
      u.bind(1, *finished_at);
      u.bind(2, origin);
      u.bind(3, run_id);
      stats.runs += u.exec();
    }
  } else {
    find.reset();
    SQLite::Statement ins(db,
        "INSERT INTO runs (device_id, problem_id, started_at, finished_at, strategy, tool_version, template_hash,"
        " nvrtc_version, driver_version, settings, stale, stale_reason, origin)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    ins.bind(1, device_id);
    ins.bind(2, problem_id);
    ins.bind(3, started_at);
    bind_opt(ins, 4, finished_at);
    ins.bind(5, strategy);
    ins.bind(6, tool_version);
    bind_opt(ins, 7, f.opt_text("template_hash"));
    bind_opt(ins, 8, f.opt_integer("nvrtc_version"));
    bind_opt(ins, 9, f.opt_integer("driver_version"));
    bind_opt(ins, 10, settings);
    ins.bind(11, stale ? 1 : 0);
    bind_opt(ins, 12, f.opt_text("stale_reason"));
    ins.bind(13, origin);
    ins.exec();
    run_id = db.getLastInsertRowid();
    ++stats.runs;
  }
  return {run_id, finishes_ours};
}

// The runs and their measurements; returns their winners for import_winners.
std::vector<WinnerCandidate> import_runs(SQLite::Database& db, const Fields& top, const std::string& source,
                                         const std::string& origin, const std::vector<bool>& keep_cubin,
                                         ImportStats& stats) {
  std::vector<WinnerCandidate> candidates;
  SQLite::Statement find(db,
      "SELECT id, stale, finished_at IS NULL, origin FROM runs WHERE device_id = ? AND problem_id = ? AND started_at = ?"
      " AND tool_version = ? AND strategy = ?");
  SQLite::Statement insert_measurement(db,
      "INSERT INTO measurements (run_id, config, status, log, median_ms, spread, samples, gbps, roof_pct)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, config) DO NOTHING");
  // For a run this file has unfinished and the document finished: the finished copy's rows are final (finish_run
  // re-measures the winner, replacing its row), so they replace ours, or the winner would not be one of them.
  SQLite::Statement replace_measurement(db,
      "INSERT INTO measurements (run_id, config, status, log, median_ms, spread, samples, gbps, roof_pct)"
      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, config) DO UPDATE SET status = excluded.status,"
      " log = excluded.log, median_ms = excluded.median_ms, spread = excluded.spread, samples = excluded.samples,"
      " gbps = excluded.gbps, roof_pct = excluded.roof_pct WHERE (status, log, median_ms, spread, samples, gbps,"
      " roof_pct) IS NOT (excluded.status, excluded.log, excluded.median_ms, excluded.spread, excluded.samples,"
      " excluded.gbps, excluded.roof_pct)");  // a row that is already the same is not counted as updated
  const Json& runs = top.array("runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Fields f(runs[i], fmt::format("runs[{}]", i), source);
    const auto device_id = id_of(db, "SELECT id FROM devices WHERE model_key = ?", f.text("device"));
    if (!device_id) f.fail("device", fmt::format("'{}' is not in the document's devices", f.text("device")));
    const auto problem_id = id_of(db, "SELECT id FROM problems WHERE key = ?", f.text("problem"));
    if (!problem_id) f.fail("problem", fmt::format("'{}' is not in the document's problems", f.text("problem")));
    const SettledRun run = settle_run(db, find, f, *device_id, *problem_id, origin, stats);
    const Json& measurements = f.array("measurements");
    for (std::size_t k = 0; k < measurements.size(); ++k) {
      const Fields m(measurements[k], fmt::format("{}.measurements[{}]", f.where(), k), source);
      SQLite::Statement& q = run.finishes_ours ? replace_measurement : insert_measurement;
      q.reset();
      q.bind(1, run.run_id);
      q.bind(2, m.text("config"));
      q.bind(3, m.text("status"));
      q.bind(4, m.text("log", kMaxLog));
      q.bind(5, m.number("median_ms"));
      q.bind(6, m.number("spread"));
      q.bind(7, m.integer("samples"));
      q.bind(8, m.number("gbps"));
      bind_opt(q, 9, m.opt_number("roof_pct"));
      stats.measurements += q.exec();
    }
    if (const Json& w = f.get("winner"); !w.is_null())
      candidates.push_back({*device_id, *problem_id, run.run_id, &w, f.where() + ".winner", keep_cubin[i]});
  }
  return candidates;
}

void import_winners(SQLite::Database& db, const std::vector<WinnerCandidate>& candidates, const std::string& source,
                    ImportStats& stats) {
  for (const WinnerCandidate& c : candidates) {
    const Fields w(*c.winner, c.where, source);
    const std::string config = w.text("config"), tuned_at = w.text("tuned_at");
    const double median_ms = w.number("median_ms");
    // The winner's origin is its run's in this file: a run this file measured itself stays local.
    const std::string run_origin = db.execAndGet(fmt::format("SELECT origin FROM runs WHERE id = {}", c.run_id)).getString();
    if (!take_winner(db, c.device_id, c.problem_id, c.run_id, tuned_at, median_ms, run_origin)) continue;
    // A winner is one of its run's ok measurements in this file too: when this file already held the run, finished,
    // with another time for the configuration (two copies of one run that disagree, which autotune never writes),
    // the document's winner is not taken.
    SQLite::Statement backed(db,
        "SELECT 1 FROM measurements WHERE run_id = ? AND config = ? AND status = 'ok' AND median_ms = ?");
    backed.bind(1, c.run_id);
    backed.bind(2, config);
    backed.bind(3, median_ms);
    if (!backed.executeStep()) continue;
    // A cubin is stored only as cubins_to_keep decided: with the SHA-256 recorded when it was built (validated
    // against it), and signed or reproduced here. Otherwise the winner comes without it and applications compile
    // from source.
    std::vector<char> cubin;
    if (const auto text = w.opt_text("cubin", (kMaxCubin + 2) / 3 * 4)) {
      if (c.keep_cubin) cubin = *base64_decode(*text);
      else ++stats.cubins_dropped;
    }
    if (!cubin.empty() && run_origin == "imported") ++stats.cubins_verified;
    auto provenance = [&](const char* key) { return cubin.empty() || !w.has(key) ? std::nullopt : w.opt_text(key); };
    SQLite::Statement q(db, kUpsertWinner);
    q.bind(1, c.device_id);
    q.bind(2, c.problem_id);
    q.bind(3, c.run_id);
    q.bind(4, config);
    q.bind(5, median_ms);
    q.bind(6, w.number("gbps"));
    q.bind(7, w.text("arch"));
    if (cubin.empty()) q.bind(8);
    else bind_blob(q, 8, cubin.data(), cubin.size(), source);
    q.bind(9, tuned_at);
    bind_opt(q, 10, provenance("cubin_sha256"));
    bind_opt(q, 11, provenance("source_sha256"));
    bind_opt(q, 12, provenance("nvrtc_options"));
    bind_opt(q, 13, cubin.empty() || !w.has("nvrtc_version") ? std::nullopt : w.opt_integer("nvrtc_version"));
    q.bind(14, run_origin);
    stats.winners += q.exec();
  }
}

void import_baselines(SQLite::Database& db, const Json& doc, const Fields& top, const std::string& source,
                      ImportStats& stats) {
  // Baselines (optional: documents of schema 2 have none): the newer measurement of a model, problem and name wins.
  if (const auto it = doc.find("baselines"); it != doc.end() && !it->is_null()) {
    const Json& baselines = top.array("baselines");
    for (std::size_t i = 0; i < baselines.size(); ++i) {
      const Fields f(baselines[i], fmt::format("baselines[{}]", i), source);
      const auto device_id = id_of(db, "SELECT id FROM devices WHERE model_key = ?", f.text("device"));
      if (!device_id) f.fail("device", fmt::format("'{}' is not in the document's devices", f.text("device")));
      const auto problem_id = id_of(db, "SELECT id FROM problems WHERE key = ?", f.text("problem"));
      if (!problem_id) f.fail("problem", fmt::format("'{}' is not in the document's problems", f.text("problem")));
      SQLite::Statement q(db,
          "INSERT INTO baselines (device_id, problem_id, name, median_ms, gbps, measured_at) VALUES (?, ?, ?, ?, ?, ?)"
          " ON CONFLICT (device_id, problem_id, name) DO UPDATE SET median_ms = excluded.median_ms,"
          " gbps = excluded.gbps, measured_at = excluded.measured_at WHERE excluded.measured_at > measured_at");
      q.bind(1, *device_id);
      q.bind(2, *problem_id);
      q.bind(3, f.text("name"));
      q.bind(4, f.number("median_ms"));
      q.bind(5, f.number("gbps"));
      q.bind(6, f.text("measured_at"));
      stats.baselines += q.exec();
    }
  }
}

// Adds one document, which validate_document accepted, to `db` in one transaction, its new rows recorded as
// `origin` ("imported" or "signed:<key id>"). `keep_cubin` (cubins_to_keep) says which winners' cubins are stored.
// `source` names the document in errors.
ImportStats import_document(SQLite::Database& db, const Json& doc, const std::string& source, const std::string& origin,
                            const std::vector<bool>& keep_cubin) {
  ImportStats stats;
  // One transaction: readers see the whole import or none of it, and a kill -9 leaves the file as it was.
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  const Fields top(doc, "document", source);
  import_devices(db, top, source, stats);
  import_problems(db, top, source, stats);
  import_templates(db, top, source, stats);
  const std::vector<WinnerCandidate> candidates = import_runs(db, top, source, origin, keep_cubin, stats);
  import_winners(db, candidates, source, stats);  // last, once every run's staleness is settled
  import_baselines(db, doc, top, source, stats);
  tx.commit();
  return stats;
}

}  // namespace

bool ExportFilter::matches(std::string_view problem_key, std::string_view model_key) const {
  const bool problem_ok = problems.empty() || std::any_of(problems.begin(), problems.end(), [&](const std::string& p) {
                            return problem_key.find(p) != std::string_view::npos;
                          });
  const bool model_ok = device_models.empty() || std::find(device_models.begin(), device_models.end(), model_key) !=
                                                     device_models.end();
  return problem_ok && model_ok;
}

ExportStats Cache::export_json(std::ostream& out, const ExportFilter& filter, const std::string& signing_key) const {
  // The key is read first: a key that cannot be used fails before anything is written.
  const std::optional<signing::PrivateKey> key =
      signing_key.empty() ? std::nullopt : std::optional(signing::read_private_key(signing_key));
  Impl& self = *impl_;
  const Json doc = guarded(self.path, "export", [&] {
    // One read transaction: the document is a consistent snapshot even while tuners write.
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::DEFERRED);
    Json d = export_document(self.db, filter);
    tx.commit();
    return d;
  });
  ExportStats stats;
  for (const Json& run : doc["runs"]) {
    ++stats.runs;
    if (!run["winner"].is_null()) ++stats.winners;
  }
  // A log with bytes that are not UTF-8 is exported with U+FFFD in their place: JSON text must be Unicode.
  std::string text = doc.dump(1, ' ', false, Json::error_handler_t::replace);
  if (key) {
    // Signed as a reader will parse it: the text read back, so that replaced bytes are signed as replaced.
    Json written = Json::parse(text);
    sign_document(written, *key);
    text = written.dump(1, ' ', false, Json::error_handler_t::strict);
  }
  out << text << '\n';
  if (!out) throw CacheError(fmt::format("cache file '{}': the export could not be written", self.path));
  return stats;
}

ImportStats Cache::import_json(std::istream& in, const std::string& source, const ImportOptions& options) {
  const std::string label = fmt::format("'{}'", source);
  // Everything is read and checked before the first write: a refused document changes nothing.
  const Json doc = read_document(in, label, options.max_document_bytes);
  validate_document(doc, label);
  const std::string signer = trusted_signer(doc, options.trusted_keys, label);
  const std::vector<bool> keep = cubins_to_keep(doc, label, options, !signer.empty());
  Impl& self = *impl_;
  return guarded(self.path, fmt::format("import {}", label), [&] {
    return import_document(self.db, doc, label, signer.empty() ? "imported" : "signed:" + signer, keep);
  });
}

ImportStats Cache::merge(const std::string& other_path, const ImportOptions& options) {
  // The other file is read as every reader reads (cache/read_only.cpp): never created, migrated or given side
  // files; an older schema is upgraded in a copy in memory. Its rows are checked as an imported document's are, and
  // are imported: a cache file carries no signature, whatever its rows say of their origin.
  Cache other = read_only_snapshot(other_path);
  Impl& copy = *other.impl_;
  const Json doc = guarded(other_path, "be read", [&] { return export_document(copy.db); });
  const std::string source = fmt::format("cache file '{}'", other_path);
  validate_document(doc, source);
  const std::vector<bool> keep = cubins_to_keep(doc, source, options, false);
  Impl& self = *impl_;
  return guarded(self.path, fmt::format("merge {}", source),
                 [&] { return import_document(self.db, doc, source, "imported", keep); });
}

}  // namespace autotune
