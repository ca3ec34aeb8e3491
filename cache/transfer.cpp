// Moving results between machines: export_json writes a portable JSON document, import_json adds one to a cache,
// merge adds a whole other cache file. All three meet in one document form, so that import and merge follow the
// same rules (documented on Cache::import_json): merge exports the other file in memory and imports that.
//
// The document (format "autotune-cache", format_version 1) has no database ids. Devices, problems and templates
// are listed once and referred to by natural key (model_key, problem key); each run carries its measurements and,
// if it won, its winner. Every list is ordered by natural key, so equal contents give equal text.
#include <SQLiteCpp/Backup.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "cache/cache_impl.hpp"

namespace autotune {

using namespace cache_detail;

namespace {

// ordered_json keeps the keys in the order written, so the document reads in a natural order (format first).
using Json = nlohmann::ordered_json;

constexpr const char* kFormat = "autotune-cache";
constexpr int kFormatVersion = 1;

// Base64 (RFC 4648, with padding) for cubins. Hand-written: it is 40 lines, nlohmann::json writes binary values as
// arrays of numbers (four times larger), and the Debian base64 libraries (libb64, cppcodec) are one more dependency
// to link statically for AUTOTUNE_PORTABLE for no gain.
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const char* data, std::size_t size) {
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (std::size_t i = 0; i < size; i += 3) {
    const auto byte = [&](std::size_t k) { return k < size ? static_cast<unsigned char>(data[k]) : 0u; };
    const unsigned v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    out += kBase64[v >> 18 & 63];
    out += kBase64[v >> 12 & 63];
    out += i + 1 < size ? kBase64[v >> 6 & 63] : '=';
    out += i + 2 < size ? kBase64[v & 63] : '=';
  }
  return out;
}

std::optional<std::vector<char>> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::vector<char> out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (pad == 1 && text[i + 2] == '=') return std::nullopt;  // "x=y=" is not padding
    unsigned v = 0;
    for (int k = 0; k < 4 - pad; ++k) {
      const int d = value(text[i + k]);
      if (d < 0) return std::nullopt;
      v |= static_cast<unsigned>(d) << (18 - 6 * k);
    }
    out.push_back(static_cast<char>(v >> 16 & 0xff));
    if (pad < 2) out.push_back(static_cast<char>(v >> 8 & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
  }
  return out;
}

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

Json export_document(SQLite::Database& db) {
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
  SQLite::Statement problems(db,
      "SELECT key, shape_key, family, op, sample_type, bins, lower, upper, n, distribution, counter_bits"
      " FROM problems ORDER BY key");
  doc["problems"] = rows_of(problems);
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
  SQLite::Statement winner(db, "SELECT config, median_ms, gbps, arch, cubin, tuned_at FROM winners WHERE run_id = ?");
  Json out_runs = Json::array();
  for (Json run : rows_of(runs)) {
    const std::int64_t id = run["id"].get<std::int64_t>();
    run.erase("id");
    run["stale"] = run["stale"].get<std::int64_t>() != 0;
    // Settings are a JSON object in the file; embed them as one (a hand-edited value that is not JSON stays text).
    if (run["settings"].is_string()) {
      Json parsed = Json::parse(run["settings"].get<std::string>(), nullptr, false);
      if (!parsed.is_discarded()) run["settings"] = std::move(parsed);
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
  return doc;
}

// Typed access to one object of a document, with errors that say where: "runs[3].measurements[0].status".
class Fields {
 public:
  Fields(const Json& j, std::string where, const std::string& source)
      : j_(j), where_(std::move(where)), source_(source) {
    if (!j_.is_object()) fail("", "is not an object");
  }
  [[noreturn]] void fail(std::string_view key, std::string_view what) const {
    throw CacheError(fmt::format("cannot import {}: {}{}{} {}", source_, where_, key.empty() ? "" : ".", key, what));
  }
  const Json& get(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "is missing");
    return *it;
  }
  std::string text(const char* key) const {
    const Json& v = get(key);
    if (!v.is_string()) fail(key, "is not a string");
    return v.get<std::string>();
  }
  std::optional<std::string> opt_text(const char* key) const {
    return get(key).is_null() ? std::nullopt : std::optional(text(key));
  }
  std::int64_t integer(const char* key) const {
    const Json& v = get(key);
    if (!v.is_number_integer()) fail(key, "is not an integer");
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(INT64_MAX)) fail(key, "is too large");
    return v.get<std::int64_t>();
  }
  std::optional<std::int64_t> opt_integer(const char* key) const {
    return get(key).is_null() ? std::nullopt : std::optional(integer(key));
  }
  double number(const char* key) const {
    const Json& v = get(key);
    if (!v.is_number()) fail(key, "is not a number");
    return v.get<double>();
  }
  std::optional<double> opt_number(const char* key) const {
    return get(key).is_null() ? std::nullopt : std::optional(number(key));
  }
  const Json& array(const char* key) const {
    const Json& v = get(key);
    if (!v.is_array()) fail(key, "is not an array");
    return v;
  }
  const std::string& where() const { return where_; }

 private:
  const Json& j_;
  std::string where_;
  const std::string& source_;
};

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

// Adds one document to `db`; the caller holds the transaction. `source` names the document in errors.
ImportStats import_document(SQLite::Database& db, const Json& doc, const std::string& source) {
  ImportStats stats;
  const Fields top(doc, "document", source);
  if (top.text("format") != kFormat)
    top.fail("format", fmt::format("is '{}', not '{}': not an autotune export", top.text("format"), kFormat));
  if (const auto v = top.integer("format_version"); v > kFormatVersion || v < 1)
    top.fail("format_version", fmt::format("is {}: written by a newer autotune (this build reads up to {})", v,
                                           kFormatVersion));

  const Json& devices = top.array("devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Fields f(devices[i], fmt::format("devices[{}]", i), source);
    DeviceInfo d;
    d.name = f.text("name");
    d.cc_major = static_cast<int>(f.integer("cc_major"));
    d.cc_minor = static_cast<int>(f.integer("cc_minor"));
    d.sm_count = static_cast<int>(f.integer("sm_count"));
    d.memory_bytes = static_cast<std::uint64_t>(f.integer("memory_bytes"));
    const std::string model_key = f.text("model_key");
    if (model_key != d.model_key()) f.fail("model_key", fmt::format("'{}' does not match the device's columns ('{}')",
                                                                    model_key, d.model_key()));
    if (f.text("arch") != d.arch())
      f.fail("arch", fmt::format("'{}' does not match the compute capability", f.text("arch")));
    const auto roof = f.opt_number("roof_gbps");
    SQLite::Statement q(db,
        "INSERT INTO devices (model_key, name, arch, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes,"
        " shared_per_block_optin, max_threads_per_block, clock_khz, memory_clock_khz, driver_version,"
        " nvrtc_version, uuid, roof_gbps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (model_key) DO NOTHING");
    q.bind(1, model_key);
    q.bind(2, d.name);
    q.bind(3, d.arch());
    q.bind(4, d.cc_major);
    q.bind(5, d.cc_minor);
    q.bind(6, d.sm_count);
    q.bind(7, f.integer("memory_bytes"));
    q.bind(8, f.integer("l2_bytes"));
    q.bind(9, f.integer("shared_per_block_optin"));
    q.bind(10, f.integer("max_threads_per_block"));
    q.bind(11, f.integer("clock_khz"));
    q.bind(12, f.integer("memory_clock_khz"));
    q.bind(13, f.integer("driver_version"));
    q.bind(14, f.integer("nvrtc_version"));
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

  const Json& problems = top.array("problems");
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const Fields f(problems[i], fmt::format("problems[{}]", i), source);
    const std::string key = f.text("key"), family = f.text("family");
    if (const KernelFamily* known = find_family(family)) {
      // This build knows the family: the problem it reads from the row must print the row's key, and the columns
      // must be the ones it would write.
      ProblemColumns columns;
      columns.sample_type = f.text("sample_type");
      columns.bins = static_cast<int>(f.integer("bins"));
      columns.lower = f.number("lower");
      columns.upper = f.number("upper");
      columns.op = f.opt_text("op");
      columns.counter_bits = static_cast<int>(f.integer("counter_bits"));
      const std::int64_t n = f.integer("n");
      if (n < 0) f.fail("n", "is negative");
      std::optional<Problem> p = known->problem_from_row(key, columns);
      if (!p) f.fail("key", fmt::format("'{}' is not a valid {} problem", key, family));
      p = p->with_n(static_cast<std::uint64_t>(n)).with_distribution(f.text("distribution"));
      try {
        p->validate();
      } catch (const UsageError& e) {
        f.fail("key", fmt::format("'{}' is not a valid problem ({})", key, e.what()));
      }
      if (p->key() != key) f.fail("key", fmt::format("'{}' does not match the problem's columns ('{}')", key, p->key()));
      if (p->shape_key() != f.text("shape_key"))
        f.fail("shape_key", fmt::format("'{}' does not match the problem's key ('{}')", f.text("shape_key"), key));
      const ProblemColumns expected = known->columns(*p);
      if (expected.sample_type != columns.sample_type || expected.bins != columns.bins ||
          expected.lower != columns.lower || expected.upper != columns.upper || expected.op != columns.op ||
          expected.counter_bits != columns.counter_bits)
        f.fail("key", fmt::format("'{}' does not match the problem's columns", key));
    }
    SQLite::Statement q(db,
        "INSERT INTO problems (key, shape_key, family, op, sample_type, bins, lower, upper, n, distribution,"
        " counter_bits) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING");
    q.bind(1, key);
    q.bind(2, f.text("shape_key"));
    q.bind(3, family);
    bind_opt(q, 4, f.opt_text("op"));
    q.bind(5, f.text("sample_type"));
    q.bind(6, f.integer("bins"));
    q.bind(7, f.number("lower"));
    q.bind(8, f.number("upper"));
    q.bind(9, f.integer("n"));
    q.bind(10, f.text("distribution"));
    q.bind(11, f.integer("counter_bits"));
    stats.problems += q.exec();
  }

  const Json& templates = top.array("templates");
  for (std::size_t i = 0; i < templates.size(); ++i) {
    const Fields f(templates[i], fmt::format("templates[{}]", i), source);
    SQLite::Statement q(db, "INSERT INTO templates (family, hash, first_seen) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
    q.bind(1, f.text("family"));
    q.bind(2, f.text("hash"));
    q.bind(3, f.text("first_seen"));
    stats.templates += q.exec();
  }

  struct WinnerCandidate {
    std::int64_t device_id, problem_id, run_id;
    const Json* winner;
    std::string where;
    std::string family;  ///< of the run's problem; empty for a family this build does not know
  };
  std::vector<WinnerCandidate> candidates;
  const Json& runs = top.array("runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Fields f(runs[i], fmt::format("runs[{}]", i), source);
    const auto device_id = id_of(db, "SELECT id FROM devices WHERE model_key = ?", f.text("device"));
    if (!device_id) f.fail("device", fmt::format("'{}' is not in the document's devices", f.text("device")));
    const auto problem_id = id_of(db, "SELECT id FROM problems WHERE key = ?", f.text("problem"));
    if (!problem_id) f.fail("problem", fmt::format("'{}' is not in the document's problems", f.text("problem")));
    // Configurations are checked against their problem's family when this build knows it.
    std::string family;
    {
      SQLite::Statement fam(db, "SELECT family FROM problems WHERE id = ?");
      fam.bind(1, *problem_id);
      if (fam.executeStep() && find_family(fam.getColumn(0).getString())) family = fam.getColumn(0).getString();
    }
    auto known_config = [&](const std::string& text) { return family.empty() || Config::parse(family, text).has_value(); };
    const auto started_at = f.text("started_at"), tool_version = f.text("tool_version"), strategy = f.text("strategy");
    const auto finished_at = f.opt_text("finished_at");
    const Json& stale_value = f.get("stale");
    if (!stale_value.is_boolean()) f.fail("stale", "is not true or false");
    const bool stale = stale_value.get<bool>();
    std::optional<std::string> settings;
    if (const Json& s = f.get("settings"); s.is_object()) settings = nlohmann::json(s).dump();  // canonical
    else if (s.is_string()) settings = s.get<std::string>();
    else if (!s.is_null()) f.fail("settings", "is neither an object nor null");

    SQLite::Statement find(db,
        "SELECT id, stale, finished_at IS NULL FROM runs WHERE device_id = ? AND problem_id = ? AND started_at = ?"
        " AND tool_version = ? AND strategy = ?");
    find.bind(1, *device_id);
    find.bind(2, *problem_id);
    find.bind(3, started_at);
    find.bind(4, tool_version);
    find.bind(5, strategy);
    std::int64_t run_id = 0;
    if (find.executeStep()) {
      run_id = find.getColumn(0).getInt64();
      // Staleness is sticky (a run stale anywhere is stale), and a copy taken mid-run learns that it finished.
      if (stale && find.getColumn(1).getInt() == 0) {
        SQLite::Statement u(db, "UPDATE runs SET stale = 1, stale_reason = ? WHERE id = ?");
        bind_opt(u, 1, f.opt_text("stale_reason"));
        u.bind(2, run_id);
        stats.runs += u.exec();
      }
      if (finished_at && find.getColumn(2).getInt() != 0) {
        SQLite::Statement u(db, "UPDATE runs SET finished_at = ? WHERE id = ?");
        u.bind(1, *finished_at);
        u.bind(2, run_id);
        stats.runs += u.exec();
      }
    } else {
      SQLite::Statement ins(db,
          "INSERT INTO runs (device_id, problem_id, started_at, finished_at, strategy, tool_version, template_hash,"
          " nvrtc_version, driver_version, settings, stale, stale_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      ins.bind(1, *device_id);
      ins.bind(2, *problem_id);
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
      ins.exec();
      run_id = db.getLastInsertRowid();
      ++stats.runs;
    }

    const Json& measurements = f.array("measurements");
    for (std::size_t k = 0; k < measurements.size(); ++k) {
      const Fields m(measurements[k], fmt::format("{}.measurements[{}]", f.where(), k), source);
      const std::string config = m.text("config"), status = m.text("status");
      if (!known_config(config)) m.fail("config", fmt::format("'{}' is not a configuration", config));
      if (!parse_measurement_status(status)) m.fail("status", fmt::format("'{}' is not a status", status));
      SQLite::Statement q(db,
          "INSERT INTO measurements (run_id, config, status, log, median_ms, spread, samples, gbps, roof_pct)"
          " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, config) DO NOTHING");
      q.bind(1, run_id);
      q.bind(2, config);
      q.bind(3, status);
      q.bind(4, m.text("log"));
      q.bind(5, m.number("median_ms"));
      q.bind(6, m.number("spread"));
      q.bind(7, m.integer("samples"));
      q.bind(8, m.number("gbps"));
      bind_opt(q, 9, m.opt_number("roof_pct"));
      stats.measurements += q.exec();
    }
    if (const Json& w = f.get("winner"); !w.is_null()) {
      if (!finished_at) f.fail("winner", "belongs to a run that did not finish");
      candidates.push_back({*device_id, *problem_id, run_id, &w, f.where() + ".winner", family});
    }
  }

  // Winners last, once every run's staleness is settled.
  for (const WinnerCandidate& c : candidates) {
    const Fields w(*c.winner, c.where, source);
    const std::string config = w.text("config"), tuned_at = w.text("tuned_at");
    const double median_ms = w.number("median_ms");
    if (!c.family.empty() && !Config::parse(c.family, config))
      w.fail("config", fmt::format("'{}' is not a configuration", config));
    std::vector<char> cubin;
    if (const auto text = w.opt_text("cubin")) {
      const auto bytes = base64_decode(*text);
      if (!bytes) w.fail("cubin", "is not base64");
      cubin = *bytes;
    }
    SQLite::Statement ours(db,
        "SELECT w.run_id, w.tuned_at, w.median_ms, r.stale, (SELECT stale FROM runs WHERE id = ?)"
        " FROM winners w JOIN runs r ON r.id = w.run_id WHERE w.device_id = ? AND w.problem_id = ?");
    ours.bind(1, c.run_id);
    ours.bind(2, c.device_id);
    ours.bind(3, c.problem_id);
    if (ours.executeStep()) {
      if (ours.getColumn(0).getInt64() == c.run_id) continue;
      const bool ours_stale = ours.getColumn(3).getInt() != 0, theirs_stale = ours.getColumn(4).getInt() != 0;
      const std::string ours_at = ours.getColumn(1).getString();
      const double ours_ms = ours.getColumn(2).getDouble();
      bool take = false;
      if (ours_stale != theirs_stale) take = ours_stale;
      else if (ours_at != tuned_at) take = tuned_at > ours_at;
      else take = median_ms < ours_ms;
      if (!take) continue;
    }
    SQLite::Statement q(db,
        "INSERT INTO winners (device_id, problem_id, run_id, config, median_ms, gbps, arch, cubin, tuned_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (device_id, problem_id) DO UPDATE SET"
        " run_id = excluded.run_id, config = excluded.config, median_ms = excluded.median_ms,"
        " gbps = excluded.gbps, arch = excluded.arch, cubin = excluded.cubin, tuned_at = excluded.tuned_at");
    q.bind(1, c.device_id);
    q.bind(2, c.problem_id);
    q.bind(3, c.run_id);
    q.bind(4, config);
    q.bind(5, median_ms);
    q.bind(6, w.number("gbps"));
    q.bind(7, w.text("arch"));
    if (cubin.empty()) q.bind(8);
    else q.bind(8, cubin.data(), static_cast<int>(cubin.size()));
    q.bind(9, tuned_at);
    stats.winners += q.exec();
  }

  // Baselines (optional: documents of schema 2 have none): the newer measurement of a model, problem and name wins.
  if (const auto it = doc.find("baselines"); it != doc.end() && !it->is_null()) {
    const Json& baselines = top.array("baselines");
    for (std::size_t i = 0; i < baselines.size(); ++i) {
      const Fields f(baselines[i], fmt::format("baselines[{}]", i), source);
      const auto device_id = id_of(db, "SELECT id FROM devices WHERE model_key = ?", f.text("device"));
      if (!device_id) f.fail("device", fmt::format("'{}' is not in the document's devices", f.text("device")));
      const auto problem_id = id_of(db, "SELECT id FROM problems WHERE key = ?", f.text("problem"));
      if (!problem_id) f.fail("problem", fmt::format("'{}' is not in the document's problems", f.text("problem")));
      const double ms = f.number("median_ms"), gbps = f.number("gbps");
      if (!(ms > 0) || !(gbps > 0)) f.fail("median_ms", "and gbps must be positive");
      SQLite::Statement q(db,
          "INSERT INTO baselines (device_id, problem_id, name, median_ms, gbps, measured_at) VALUES (?, ?, ?, ?, ?, ?)"
          " ON CONFLICT (device_id, problem_id, name) DO UPDATE SET median_ms = excluded.median_ms,"
          " gbps = excluded.gbps, measured_at = excluded.measured_at WHERE excluded.measured_at > measured_at");
      q.bind(1, *device_id);
      q.bind(2, *problem_id);
      q.bind(3, f.text("name"));
      q.bind(4, ms);
      q.bind(5, gbps);
      q.bind(6, f.text("measured_at"));
      stats.baselines += q.exec();
    }
  }
  return stats;
}

}  // namespace

void Cache::export_json(std::ostream& out) const {
  Impl& self = *impl_;
  const Json doc = guarded(self.path, "export", [&] {
    // One read transaction: the document is a consistent snapshot even while tuners write.
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::DEFERRED);
    Json d = export_document(self.db);
    tx.commit();
    return d;
  });
  // A log with bytes that are not UTF-8 is exported with U+FFFD in their place: JSON text must be Unicode.
  out << doc.dump(1, ' ', false, Json::error_handler_t::replace) << '\n';
  if (!out) throw CacheError(fmt::format("cache file '{}': the export could not be written", self.path));
}

ImportStats Cache::import_json(std::istream& in, const std::string& source) {
  Json doc;
  try {
    doc = Json::parse(in);
  } catch (const Json::exception& e) {
    throw CacheError(fmt::format("cannot import '{}': not a JSON document ({})", source, e.what()));
  }
  Impl& self = *impl_;
  const std::string label = fmt::format("'{}'", source);
  return guarded(self.path, fmt::format("import {}", label), [&] {
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    const ImportStats stats = import_document(self.db, doc, label);
    tx.commit();
    return stats;
  });
}

ImportStats Cache::merge(const std::string& other_path) {
  // The other file is read as every reader reads (cache/read_only.cpp): never created, migrated or given side
  // files; an older schema is upgraded in a copy in memory.
  Cache other = read_only_snapshot(other_path);
  Impl& copy = *other.impl_;
  const Json doc = guarded(other_path, "be read", [&] { return export_document(copy.db); });
  Impl& self = *impl_;
  const std::string source = fmt::format("cache file '{}'", other_path);
  return guarded(self.path, fmt::format("merge {}", source), [&] {
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::IMMEDIATE);
    const ImportStats stats = import_document(self.db, doc, source);
    tx.commit();
    return stats;
  });
}

}  // namespace autotune
