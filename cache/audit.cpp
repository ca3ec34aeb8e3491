// Cache::invariant_violations: every row of a cache file that breaks an invariant of cache/schema.sql, read from
// the file itself. It is the after-the-fact counterpart of the import validator (cache/document.cpp), written from
// the schema's text rather than from the validator, so that each can catch what the other misses: the mutation
// audit (tests/mutation_audit.cpp) imports hostile documents and asks this function whether what was accepted is
// sound, and the kill -9 trials (tests/kill_trials.sh) ask it about files whose writer was killed.
//
// The invariants (schema.sql's comments and constraints, README "What a cache file is trusted for"):
//  - the file passes SQLite's integrity_check and foreign_key_check (every REFERENCES holds);
//  - numbers are of a numeric type, finite, non-negative; the counts and sizes the columns name are in range;
//  - times are UTC text as autotune writes them ("2026-11-29T16:20:00.123Z", schema 1's "...:00Z") that name a
//    real instant, no more than an hour (clock skew) after this machine's clock;
//  - a device's arch is sm_<cc_major><cc_minor> and its model_key is "name|arch|<SM>SM|<memory>MiB";
//  - a problem's key parses as a problem of its family, spelled as this build spells it, and the other columns
//    spell it out (shape_key, n, distribution); its rows of problem_parameters are exactly the key's parameters
//    (core/key_parameters.hpp), text each;
//  - a run's template_hash, when set, is listed in templates for the run's family; its settings, when set, are a
//    JSON object (export embeds them as one, so a re-import reads them); stale is 0 or 1;
//  - a measurement's configuration parses for its run's family and its status is a known one; an 'ok' row has a
//    positive time and speed and at least one sample; any other row has time, spread and speed 0;
//  - a winner belongs to a finished run of its own device and problem, is one of that run's 'ok' measurements
//    (same configuration, same median), has a positive time and speed, the device's arch, and a cubin that is an
//    ELF image whose SHA-256 is cubin_sha256 when that is recorded; the provenance columns are set only with a
//    cubin (a NULL cubin has nothing to vouch for), source_sha256 is 64 hex digits, nvrtc_options a JSON array of
//    strings;
//  - a run's and a winner's origin is local, imported or signed:<16 hex digits>, a winner's that of its run;
//  - a baseline has a non-empty name, a positive time and speed and a measured_at time.
#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/problem.hpp"
#include "cache/cache_impl.hpp"
#include "cache/document.hpp"
#include "core/family.hpp"
#include "core/integrity.hpp"
#include "core/key_parameters.hpp"

namespace autotune {

using namespace cache_detail;

namespace {

constexpr std::int64_t kClockSkewMs = 3'600'000;
constexpr std::size_t kMaxListed = 1000;  ///< violations listed; more are counted in one last line

class Audit {
 public:
  explicit Audit(SQLite::Database& db) : db_(db) {
    now_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  }

  std::vector<std::string> run() {
    sqlite_checks();
    devices();
    problems();
    templates();
    runs();
    measurements();
    winners();
    baselines();
    if (dropped_) out_.push_back(fmt::format("... and {} more violations", dropped_));
    return std::move(out_);
  }

 private:
  // --- reporting --------------------------------------------------------------------------------------------------
  void add(const std::string& row, const std::string& what) {
    if (out_.size() >= kMaxListed) {
      ++dropped_;
      return;
    }
    out_.push_back(row + ": " + what);
  }

  // --- column checks: each returns whether the value is sound, and reports it otherwise ----------------------------
  static bool numeric(const SQLite::Column& c) {
    return c.getType() == SQLITE_INTEGER || c.getType() == SQLITE_FLOAT;
  }
  std::optional<double> finite(const std::string& row, const SQLite::Column& c) {
    const std::string name = c.getName();
    if (!numeric(c)) {
      add(row, fmt::format("{} is not a number ({})", name, type_name(c)));
      return std::nullopt;
    }
    const double v = c.getDouble();
    if (!std::isfinite(v)) {
      add(row, fmt::format("{} is not finite", name));
      return std::nullopt;
    }
    return v;
  }
  /// A finite number >= 0 (> 0 when `positive`).
  std::optional<double> amount(const std::string& row, const SQLite::Column& c, bool positive) {
    const auto v = finite(row, c);
    if (!v) return std::nullopt;
    if (positive ? !(*v > 0) : !(*v >= 0)) {
      add(row, fmt::format("{} is {}, not {} 0", c.getName(), *v, positive ? ">" : ">="));
      return std::nullopt;
    }
    return v;
  }
  std::optional<std::int64_t> integer(const std::string& row, const SQLite::Column& c, std::int64_t lo,
                                      std::int64_t hi) {
    if (c.getType() != SQLITE_INTEGER) {
      add(row, fmt::format("{} is not an integer ({})", c.getName(), type_name(c)));
      return std::nullopt;
    }
    const std::int64_t v = c.getInt64();
    if (v < lo || v > hi) {
      add(row, fmt::format("{} is {}, outside [{}, {}]", c.getName(), v, lo, hi));
      return std::nullopt;
    }
    return v;
  }
  std::optional<std::string> text(const std::string& row, const SQLite::Column& c, bool non_empty = false) {
    if (c.getType() != SQLITE_TEXT) {
      add(row, fmt::format("{} is not text ({})", c.getName(), type_name(c)));
      return std::nullopt;
    }
    std::string s = c.getString();
    if (non_empty && s.empty()) {
      add(row, fmt::format("{} is empty", c.getName()));
      return std::nullopt;
    }
    return s;
  }
  /// A time as autotune writes it, naming a real instant, not in the future beyond the clock skew.
  void time(const std::string& row, const SQLite::Column& c) {
    const auto t = text(row, c);
    if (!t) return;
    const auto ms = parse_utc_ms(*t);
    // A real instant prints back as itself: "2026-02-30T..." is normalized by the parser into March.
    const bool canonical = ms && *ms >= 0 &&
                           (format_utc_ms(*ms) == *t || (t->size() == 20 && format_utc_ms(*ms).substr(0, 19) + "Z" == *t));
    if (!canonical) return add(row, fmt::format("{} '{}' is not a UTC time", c.getName(), *t));
    if (*ms > now_ms_ + kClockSkewMs) add(row, fmt::format("{} '{}' lies in the future", c.getName(), *t));
  }
  static std::string type_name(const SQLite::Column& c) {
    switch (c.getType()) {
      case SQLITE_INTEGER: return "integer";
      case SQLITE_FLOAT: return "real";
      case SQLITE_TEXT: return "text";
      case SQLITE_BLOB: return "blob";
      default: return "NULL";
    }
  }
  // "local", "imported" or "signed:<16 hex digits>" (schema.sql, winners.origin); "" when it is not.
  std::string origin(const std::string& row, const SQLite::Column& c) {
    const auto t = text(row, c);
    if (!t) return {};
    if (*t == "local" || *t == "imported" || (t->size() == 23 && t->starts_with("signed:") && hex(t->substr(7))))
      return *t;
    add(row, fmt::format("origin '{}' is not local, imported or signed:<key id>", *t));
    return {};
  }
  static bool hex(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
  }

  // --- tables -------------------------------------------------------------------------------------------------------
  void sqlite_checks() {
    SQLite::Statement integrity(db_, "PRAGMA integrity_check");
    while (integrity.executeStep()) {
      const std::string line = integrity.getColumn(0).getString();
      if (line != "ok") add("file", "integrity_check: " + one_line(line));
    }
    SQLite::Statement fk(db_, "PRAGMA foreign_key_check");
    while (fk.executeStep())
      add(fmt::format("{} row {}", fk.getColumn(0).getString(), fk.getColumn(1).getInt64()),
          fmt::format("refers to a missing row of {}", fk.getColumn(2).getString()));
  }

  void devices() {
    SQLite::Statement q(db_,
        "SELECT id, model_key, name, arch, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes,"
        " shared_per_block_optin, max_threads_per_block, clock_khz, memory_clock_khz, driver_version, nvrtc_version,"
        " uuid, roof_gbps FROM devices ORDER BY id");
    constexpr std::int64_t kInt = 2147483647, kI64 = INT64_MAX;
    while (q.executeStep()) {
      const std::string row = fmt::format("devices row {}", q.getColumn(0).getInt64());
      const auto model_key = text(row, q.getColumn(1)), name = text(row, q.getColumn(2), true),
                 arch = text(row, q.getColumn(3));
      const auto major = integer(row, q.getColumn(4), 1, 99), minor = integer(row, q.getColumn(5), 0, 9),
                 sms = integer(row, q.getColumn(6), 1, 1'000'000);
      integer(row, q.getColumn(7), 1, kI64);
      integer(row, q.getColumn(8), 0, kI64);
      for (int i : {9, 11, 12, 13, 14}) integer(row, q.getColumn(i), 0, kInt);
      integer(row, q.getColumn(10), 1, kInt);
      text(row, q.getColumn(15));
      if (!q.getColumn(16).isNull()) amount(row, q.getColumn(16), true);
      if (name && name->find('|') != std::string::npos) add(row, "name contains '|'");
      if (arch && major && minor && *arch != fmt::format("sm_{}{}", *major, *minor))
        add(row, fmt::format("arch '{}' is not that of compute capability {}.{}", *arch, *major, *minor));
      device_arch_[q.getColumn(0).getInt64()] = arch.value_or("");
      if (!model_key || !name || !arch || !sms) continue;
      // "NAME|sm_XY|NSM|MMiB" (DeviceInfo::model_key): the name, arch and SM count are the columns'.
      const std::string head = fmt::format("{}|{}|{}SM|", *name, *arch, *sms);
      bool ok = model_key->size() > head.size() + 3 && model_key->starts_with(head) && model_key->ends_with("MiB");
      if (ok)
        for (std::size_t i = head.size(); i + 3 < model_key->size(); ++i) ok &= (*model_key)[i] >= '0' && (*model_key)[i] <= '9';
      if (!ok) add(row, fmt::format("model_key '{}' does not spell out the columns ('{}<memory>MiB')", *model_key, head));
    }
  }

  void problems() {
    SQLite::Statement q(db_, "SELECT id, key, shape_key, family, n, distribution FROM problems ORDER BY id");
    while (q.executeStep()) {
      const std::int64_t id = q.getColumn(0).getInt64();
      const std::string row = fmt::format("problems row {}", id);
      const auto key = text(row, q.getColumn(1)), family_name = text(row, q.getColumn(3));
      const auto n = integer(row, q.getColumn(4), 0, INT64_MAX);
      if (!key || !family_name) continue;
      problem_family_[id] = *family_name;
      if (!find_family(*family_name)) {
        add(row, fmt::format("family '{}' is not a kernel family of this build", *family_name));
        continue;
      }
      const auto p = Problem::parse(*key);
      if (!p || p->family_name() != *family_name) {
        add(row, fmt::format("key '{}' is not a problem of family {}", *key, *family_name));
        continue;
      }
      try {
        p->validate();
      } catch (const std::exception& e) {
        add(row, fmt::format("key '{}' is not a valid problem ({})", *key, e.what()));
        continue;
      }
      if (p->key() != *key) add(row, fmt::format("key '{}' is spelled '{}' by this build", *key, p->key()));
      if (q.getColumn(2).getString() != p->shape_key() || q.getColumn(2).getType() != SQLITE_TEXT)
        add(row, fmt::format("shape_key '{}' is not the key's shape '{}'", q.getColumn(2).getString(), p->shape_key()));
      if (n && static_cast<std::uint64_t>(*n) != p->n()) add(row, fmt::format("n {} is not the key's {}", *n, p->n()));
      if (q.getColumn(5).getString() != p->distribution())
        add(row, fmt::format("distribution '{}' is not the key's", q.getColumn(5).getString()));
      parameters(row, id, *p);
    }
    // Parameters of no problem: the foreign key check reports them when foreign keys were on; say it either way.
    SQLite::Statement orphans(db_, "SELECT DISTINCT problem_id FROM problem_parameters"
                                   " WHERE problem_id NOT IN (SELECT id FROM problems) ORDER BY problem_id");
    while (orphans.executeStep())
      add(fmt::format("problem_parameters of problem {}", orphans.getColumn(0).getInt64()), "has no problems row");
  }

  // The rows of problem_parameters of problem `id`: the parameters of its key, by name, as text.
  void parameters(const std::string& row, std::int64_t id, const Problem& p) {
    std::vector<KeyParameter> want;
    try {
      want = key_parameters(p);
    } catch (const UsageError& e) {
      add(row, e.what());
      return;
    }
    std::map<std::string, std::string> stored;
    SQLite::Statement q(db_, "SELECT name, value, typeof(value) FROM problem_parameters WHERE problem_id = ?");
    q.bind(1, id);
    while (q.executeStep()) {
      if (q.getColumn(2).getString() != "text")
        add(row, fmt::format("parameter '{}' is not text", q.getColumn(0).getString()));
      stored.emplace(q.getColumn(0).getString(), q.getColumn(1).getString());
    }
    for (const KeyParameter& w : want) {
      const auto it = stored.find(w.name);
      if (it == stored.end()) {
        add(row, fmt::format("parameter {} ({}) is not in problem_parameters", w.name, w.value));
        continue;
      }
      if (it->second != w.value)
        add(row, fmt::format("parameter {} is '{}', not the key's '{}'", w.name, it->second, w.value));
      stored.erase(it);
    }
    for (const auto& [name, value] : stored)
      add(row, fmt::format("parameter '{}' = '{}' is not a parameter of the key", name, value));
  }

  void templates() {
    SQLite::Statement q(db_, "SELECT id, family, hash, first_seen FROM templates ORDER BY id");
    while (q.executeStep()) {
      const std::string row = fmt::format("templates row {}", q.getColumn(0).getInt64());
      const auto family = text(row, q.getColumn(1)), hash = text(row, q.getColumn(2));
      if (family && !find_family(*family)) add(row, fmt::format("family '{}' is not a kernel family of this build", *family));
      if (hash && !hex(*hash)) add(row, fmt::format("hash '{}' is not hexadecimal", *hash));
      time(row, q.getColumn(3));
      if (family && hash) templates_.emplace(*family, *hash);
    }
  }

  void runs() {
    SQLite::Statement q(db_,
        "SELECT id, device_id, problem_id, started_at, finished_at, strategy, tool_version, template_hash,"
        " nvrtc_version, driver_version, settings, stale, stale_reason, origin FROM runs ORDER BY id");
    while (q.executeStep()) {
      const std::int64_t id = q.getColumn(0).getInt64();
      const std::string row = fmt::format("runs row {}", id);
      const std::int64_t device = q.getColumn(1).getInt64(), problem = q.getColumn(2).getInt64();
      const auto family = problem_family_.find(problem);
      Run r{device, problem, family == problem_family_.end() ? "" : family->second, !q.getColumn(4).isNull(), {}};
      time(row, q.getColumn(3));
      if (r.finished) time(row, q.getColumn(4));
      text(row, q.getColumn(5), true);
      text(row, q.getColumn(6));
      if (!q.getColumn(7).isNull()) {
        const auto hash = text(row, q.getColumn(7));
        if (hash && !templates_.count({r.family, *hash}))
          add(row, fmt::format("template_hash '{}' is not listed in templates for family '{}'", *hash, r.family));
      }
      for (int i : {8, 9})
        if (!q.getColumn(i).isNull()) integer(row, q.getColumn(i), 0, 2147483647);
      if (!q.getColumn(10).isNull()) {
        // Export embeds the settings in the document, under the document, runs and run: they must be an object
        // that fits there, or the export of this file could not be imported again.
        const auto settings = text(row, q.getColumn(10));
        const auto parsed = settings ? parse_bounded(*settings, kMaxSettingsDepth) : std::nullopt;
        if (settings && (!parsed || !parsed->is_object()))
          add(row, "settings are not a JSON object (that an export can carry)");
      }
      integer(row, q.getColumn(11), 0, 1);
      if (!q.getColumn(12).isNull()) text(row, q.getColumn(12));
      r.origin = origin(row, q.getColumn(13));
      runs_[id] = r;
    }
  }

  void measurements() {
    SQLite::Statement q(db_,
        "SELECT id, run_id, config, status, log, median_ms, spread, samples, gbps, roof_pct FROM measurements"
        " ORDER BY id");
    while (q.executeStep()) {
      const std::string row = fmt::format("measurements row {}", q.getColumn(0).getInt64());
      const auto run = runs_.find(q.getColumn(1).getInt64());
      const auto config = text(row, q.getColumn(2)), status = text(row, q.getColumn(3));
      if (config && run != runs_.end() && !Config::parse(run->second.family, *config))
        add(row, fmt::format("config '{}' is not a configuration of family '{}'", *config, run->second.family));
      const auto s = status ? parse_measurement_status(*status) : std::nullopt;
      if (status && !s) add(row, fmt::format("status '{}' is not a status", *status));
      text(row, q.getColumn(4));
      const bool ok = s == MeasurementStatus::ok;
      const auto median = amount(row, q.getColumn(5), ok), spread = amount(row, q.getColumn(6), false),
                 gbps = amount(row, q.getColumn(8), ok);
      const auto samples = integer(row, q.getColumn(7), ok ? 1 : 0, 2147483647);
      if (!q.getColumn(9).isNull()) amount(row, q.getColumn(9), false);
      // "median_ms, spread and gbps are 0 unless status is 'ok'".
      if (s && !ok && ((median && *median != 0) || (spread && *spread != 0) || (gbps && *gbps != 0)))
        add(row, fmt::format("status '{}' is not 'ok', but the time, spread or speed is not 0", *status));
      (void)samples;
      if (ok && median && config && run != runs_.end())
        ok_measured_.emplace(q.getColumn(1).getInt64(), *config, *median);
    }
  }

  void winners() {
    SQLite::Statement q(db_,
        "SELECT device_id, problem_id, run_id, config, median_ms, gbps, arch, cubin, tuned_at, cubin_sha256,"
        " source_sha256, nvrtc_options, nvrtc_version, origin FROM winners ORDER BY device_id, problem_id");
    while (q.executeStep()) {
      const std::int64_t device = q.getColumn(0).getInt64(), problem = q.getColumn(1).getInt64(),
                         run_id = q.getColumn(2).getInt64();
      const std::string row = fmt::format("winners row (device {}, problem {})", device, problem);
      const auto run = runs_.find(run_id);
      const auto config = text(row, q.getColumn(3));
      const auto median = amount(row, q.getColumn(4), true);
      amount(row, q.getColumn(5), true);
      time(row, q.getColumn(8));
      if (run == runs_.end()) {
        add(row, fmt::format("run {} does not exist", run_id));
      } else {
        if (run->second.device != device || run->second.problem != problem)
          add(row, fmt::format("run {} is of another device or problem", run_id));
        if (!run->second.finished) add(row, fmt::format("run {} did not finish", run_id));
        if (config && !Config::parse(run->second.family, *config))
          add(row, fmt::format("config '{}' is not a configuration of family '{}'", *config, run->second.family));
        if (config && median && !ok_measured_.count({run_id, *config, *median}))
          add(row, fmt::format("'{}' with {} ms is not one of run {}'s ok measurements", *config, *median, run_id));
        // A winner is written with its run's origin (finish_run: local; import: the run's), and a run that has a
        // winner is finished, so neither changes afterwards.
        const std::string winner_origin = origin(row, q.getColumn(13));
        if (!winner_origin.empty() && !run->second.origin.empty() && winner_origin != run->second.origin)
          add(row, fmt::format("origin '{}' is not its run's '{}'", winner_origin, run->second.origin));
      }
      const auto arch = text(row, q.getColumn(6));
      const auto dev = device_arch_.find(device);
      if (arch && dev != device_arch_.end() && *arch != dev->second)
        add(row, fmt::format("arch '{}' is not the device's '{}'", *arch, dev->second));

      const SQLite::Column cubin = q.getColumn(7);
      const bool has_cubin = !cubin.isNull();
      std::vector<char> bytes;
      if (has_cubin) {
        if (cubin.getType() != SQLITE_BLOB) {
          add(row, fmt::format("cubin is not a blob ({})", type_name(cubin)));
        } else {
          const auto* b = static_cast<const char*>(cubin.getBlob());
          bytes.assign(b, b + cubin.getBytes());
          if (!integrity::is_elf(bytes)) add(row, "cubin is not an ELF image");
        }
      }
      if (!q.getColumn(9).isNull()) {
        const auto sha = text(row, q.getColumn(9));
        if (!has_cubin) add(row, "cubin_sha256 is set without a cubin");
        else if (sha && integrity::sha256_hex(bytes) != *sha) add(row, "cubin_sha256 is not the cubin's SHA-256");
      }
      if (!q.getColumn(10).isNull()) {
        const auto sha = text(row, q.getColumn(10));
        if (!has_cubin) add(row, "source_sha256 is set without a cubin");
        if (sha && !(sha->size() == 64 && hex(*sha))) add(row, fmt::format("source_sha256 '{}' is not a SHA-256", *sha));
      }
      if (!q.getColumn(11).isNull()) {
        const auto options = text(row, q.getColumn(11));
        if (!has_cubin) add(row, "nvrtc_options is set without a cubin");
        bool ok = false;
        if (options) {
          const auto j = parse_bounded(*options, 2);
          ok = j && j->is_array();
          if (ok)
            for (const auto& o : *j) ok &= o.is_string();
        }
        if (options && !ok) add(row, "nvrtc_options is not a JSON array of strings");
      }
      if (!q.getColumn(12).isNull()) {
        if (!has_cubin) add(row, "nvrtc_version is set without a cubin");
        integer(row, q.getColumn(12), 0, 2147483647);
      }
    }
  }

  void baselines() {
    SQLite::Statement q(db_,
        "SELECT device_id, problem_id, name, median_ms, gbps, measured_at FROM baselines"
        " ORDER BY device_id, problem_id, name");
    while (q.executeStep()) {
      const std::string row = fmt::format("baselines row (device {}, problem {}, '{}')", q.getColumn(0).getInt64(),
                                          q.getColumn(1).getInt64(), q.getColumn(2).getString());
      text(row, q.getColumn(2), true);
      amount(row, q.getColumn(3), true);
      amount(row, q.getColumn(4), true);
      time(row, q.getColumn(5));
    }
  }

  struct Run {
    std::int64_t device = 0, problem = 0;
    std::string family;
    bool finished = false;
    std::string origin;
  };

  SQLite::Database& db_;
  std::int64_t now_ms_ = 0;
  std::vector<std::string> out_;
  std::size_t dropped_ = 0;
  std::map<std::int64_t, std::string> device_arch_;
  std::map<std::int64_t, std::string> problem_family_;
  std::set<std::pair<std::string, std::string>> templates_;
  std::map<std::int64_t, Run> runs_;
  std::set<std::tuple<std::int64_t, std::string, double>> ok_measured_;
};

}  // namespace

std::vector<std::string> Cache::invariant_violations() const {
  Impl& self = *impl_;
  return guarded(self.path, "check its invariants", [&] {
    // One read transaction: a consistent snapshot even while writers write.
    SQLite::Transaction tx(self.db, SQLite::TransactionBehavior::DEFERRED);
    auto out = Audit(self.db).run();
    // A file cut short by less than a page can pass integrity_check (its last page read with zeros at the end).
    if (self.path != kMemory)
      if (const std::string cut = cut_short(self.path); !cut.empty()) out.insert(out.begin(), "file: " + cut);
    tx.commit();
    return out;
  });
}

}  // namespace autotune
