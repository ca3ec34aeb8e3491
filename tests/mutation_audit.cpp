// The seeded mutation audit of `autotune import` (issue #16): valid export documents, mutated in structured ways a
// hostile or broken document could be, each imported with the real command (cli::run, as `autotune import FILE
// --cache FILE` runs it). For each mutated document:
//   refused   -> the target cache is as before: a new path was not created (nor side files), an existing file's
//                rows are unchanged;
//   accepted  -> the cache keeps every invariant of the schema (Cache::invariant_violations(), written from
//                schema.sql, not from the validator), `autotune export` of it imports again into a fresh cache, and
//                `autotune show`, `autotune report` and `autotune check` run on it.
// Two thirds of the documents go into a new cache, one third into a cache that already holds the unmutated document (an
// import meets rows of the same runs). The counts (documents, refused, accepted, accepted but invalid, and each
// other failure) are printed; the exit status is 1 when anything but "refused" or "accepted and sound" happened.
//
// Usage: cache_mutation_audit [--seed S] [--count N] [--dir D] [--verbose] [--show-refusals K]
// CTest (tests/CMakeLists.txt) runs a fixed seed and a small count; bench/results/ has the figures of a large one.
#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/histogram_problem.hpp"
#include "autotune/reduce_problem.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/integrity.hpp"
#include "core/jit.hpp"
#include "tests/test_devices.hpp"

using namespace autotune;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// --- files ----------------------------------------------------------------------------------------------------------

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}
void remove_cache(const fs::path& p) {
  std::error_code ec;
  for (const char* side : {"", "-wal", "-shm", "-journal"}) fs::remove(p.string() + side, ec);
}
bool any_cache_file(const fs::path& p) {
  for (const char* side : {"", "-wal", "-shm", "-journal"})
    if (fs::exists(p.string() + side)) return true;
  return false;
}

/// Every row of every table, by rowid, with the types of the values: equal iff nothing was written.
std::string dump_rows(const fs::path& p) {
  SQLite::Database db(p.string(), SQLite::OPEN_READONLY);
  std::string out;
  SQLite::Statement tables(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  while (tables.executeStep()) {
    const std::string t = tables.getColumn(0).getString();
    out += "== " + t + "\n";
    SQLite::Statement q(db, "SELECT * FROM \"" + t + "\" ORDER BY rowid");
    while (q.executeStep()) {
      for (int i = 0; i < q.getColumnCount(); ++i) {
        const SQLite::Column c = q.getColumn(i);
        out += fmt::format("{}:", c.getType());
        if (c.getType() == SQLITE_FLOAT) out += fmt::format("{}", c.getDouble());
        else if (!c.isNull()) out += std::string(static_cast<const char*>(c.getBlob()), c.getBytes());
        out += '|';
      }
      out += '\n';
    }
  }
  return out;
}

/// `autotune ARGS...` in this process, as main runs it: the exit status and what it printed.
struct Ran {
  int status = 0;
  std::string out;
};
Ran autotune_cli(std::vector<std::string> args) {
  std::ostringstream out, err;
  Ran r;
  try {
    r.status = cli::run(cli::parse_command_line(args), out, err);
  } catch (const UsageError& e) {
    r.status = 2;
    out << e.what();
  } catch (const Error& e) {
    r.status = 1;
    out << e.what();
  }
  r.out = out.str() + err.str();
  return r;
}

// --- the valid documents ------------------------------------------------------------------------------------------

DeviceInfo h100() { return test::h100_device("GPU-audit"); }
DeviceInfo a100() { return test::a100_device("GPU-audit"); }

HistogramConfig hconfig(int block, int loads) {
  HistogramConfig c;
  c.block = block;
  c.loads = loads;
  return c;
}

Measurement ok(const Config& c, double ms) {
  Measurement m;
  m.config = c;
  m.median_ms = ms;
  m.spread = 0.02;
  m.samples = 15;
  m.gbps = 64.0 / ms;
  return m;
}
Measurement failed(const Config& c, MeasurementStatus s, const std::string& log) {
  Measurement m;
  m.config = c;
  m.status = s;
  m.log = log;
  return m;
}

/// A real cubin: NVRTC compiles the winner's source for sm_90 when it can; otherwise (no NVRTC) an ELF header
/// and padding stand for one.
std::vector<char> make_cubin(const Problem& p, const Config& c, std::string& origin) {
  try {
    const auto r = jit::compile(kernel_source(p, c), "audit", "sm_90");
    if (r.ok) {
      origin = fmt::format("a real cubin compiled by NVRTC ({} bytes)", r.cubin.size());
      return r.cubin;
    }
  } catch (const std::exception&) {
  }
  origin = "a made-up ELF image (NVRTC unavailable)";
  std::vector<char> b(512, '\0');
  b[0] = '\x7f', b[1] = 'E', b[2] = 'L', b[3] = 'F';
  return b;
}

/// The base documents: every table, both families, stale and unfinished runs, settings, baselines, roofs, cubins.
std::vector<std::string> base_documents(const fs::path& dir, std::string& cubin_origin) {
  HistogramProblem hp;
  hp.n = 1 << 20;
  ReduceProblem rp;
  rp.n = 1 << 20;
  const std::vector<char> cubin = make_cubin(Problem(hp), Config(hconfig(512, 4)), cubin_origin);

  std::vector<std::string> docs;
  auto doc_of = [&](const std::function<void(Cache&)>& fill) {
    const fs::path f = dir / "base.db";
    remove_cache(f);
    {
      Cache c(f.string());
      fill(c);
    }
    const Ran r = autotune_cli({"export", "--cache", f.string()});
    if (r.status != 0) throw std::runtime_error("cannot export a base document: " + r.out);
    docs.push_back(r.out);
    remove_cache(f);
  };
  RunInfo info;
  info.tool_version = "audit";
  info.code = CodeIdentity{"00000000000000aa", 12040, 12040};
  info.settings_json = R"({"samples":15,"warmup":2,"flush_l2":true,"nested":{"a":[1,2,{"b":null}]}})";

  // 1. A histogram run with a failed variant and a cubin; the device has a roof; a CUB baseline.
  doc_of([&](Cache& c) {
    c.set_device_roof(h100(), 3000.0);
    const auto run = c.begin_run(h100(), hp, info);
    c.add_measurement(run, ok(hconfig(256, 2), 0.5));
    c.add_measurement(run, failed(hconfig(1024, 16), MeasurementStatus::invalid_config, "too much shared memory"));
    c.add_measurement(run, failed(hconfig(128, 1), MeasurementStatus::compile_error, "error: \x1b[31mred\x1b[0m\n"));
    const Measurement best = ok(hconfig(512, 4), 0.25);
    c.add_measurement(run, best);
    c.finish_run(run, best, cubin);
    c.set_baseline(h100(), hp, "cub", 0.3, 213.0);
  });
  // 2. Two devices, both families; a stale run with a winner, an unfinished run, a run without settings.
  doc_of([&](Cache& c) {
    RunInfo old = info;
    old.code.template_hash = "00000000000000bb";
    const auto r1 = c.begin_run(a100(), hp, old);
    c.add_measurement(r1, ok(hconfig(256, 2), 0.7));
    c.finish_run(r1, ok(hconfig(256, 2), 0.7), {});
    c.mark_stale(CodeIdentity{"00000000000000aa", 0, 0, std::string(HistogramProblem::kFamily)});
    const auto r2 = c.begin_run(a100(), hp, info);
    c.add_measurement(r2, ok(hconfig(256, 4), 0.6));
    c.add_measurement(r2, failed(hconfig(64, 1), MeasurementStatus::wrong_result, "bin 3: 7 != 8"));
    c.finish_run(r2, ok(hconfig(256, 4), 0.6), {});
    RunInfo plain = info;
    plain.settings_json.clear();
    plain.strategy = "random";
    const auto r3 = c.begin_run(h100(), rp, plain);
    const ReduceConfig rc;
    c.add_measurement(r3, ok(Config(rc), 0.05));
    ReduceConfig rc2;
    rc2.block = 512;
    c.add_measurement(r3, ok(Config(rc2), 0.04));
    c.finish_run(r3, ok(Config(rc2), 0.04), {});
    const auto r4 = c.begin_run(h100(), hp, plain);  // interrupted
    c.add_measurement(r4, ok(hconfig(256, 8), 0.33));
    c.set_baseline(a100(), hp, "cub", 0.8, 80.0);
  });
  // 3. The repository's golden schema-2 file (its cubin has no recorded hash), as merged into a new cache.
  doc_of([&](Cache& c) {
    c.merge((fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v2.db").string());
  });
  return docs;
}

// --- mutations ------------------------------------------------------------------------------------------------------

// Values that cannot be written as a JSON value (infinities, bytes that are not UTF-8, duplicate keys, raw text) go
// into the document as unique placeholder strings, replaced in its text after dump().
struct Placeholders {
  std::vector<std::pair<std::string, std::string>> items;  // "\"@@k@@\"" -> raw text
  std::string add(std::string raw) {
    const std::string token = fmt::format("@@raw{}@@", items.size());
    items.emplace_back("\"" + token + "\"", std::move(raw));
    return token;
  }
  std::string apply(std::string text) const {
    for (const auto& [token, raw] : items)
      for (std::size_t at = text.find(token); at != std::string::npos; at = text.find(token, at + raw.size()))
        text.replace(at, token.size(), raw);
    return text;
  }
};

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += digits[v >> 18 & 63];
    out += digits[v >> 12 & 63];
    out += i + 1 < bytes.size() ? digits[v >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? digits[v & 63] : '=';
  }
  return out;
}

std::string utc(std::int64_t seconds_from_now) {
  const std::time_t t = std::time(nullptr) + seconds_from_now;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(buf) + ".000Z";
}

class Mutator {
 public:
  Mutator(std::mt19937_64& rng, Placeholders& raw) : rng_(rng), raw_(raw) {}

  /// One mutation somewhere in `doc`; returns what it did.
  std::string mutate(Json& doc) {
    const int kind = pick(10);
    // An earlier edit may have changed what this one expects (an array that became an object): skip it then.
    try {
      if (kind < 4) return mutate_value(doc);   // any value anywhere: type and range confusion
      if (kind < 9) return targeted(doc);        // the schema's invariants, one by one
      return structural(doc);                   // keys, duplicates, nesting
    } catch (const Json::exception&) {
      return "an edit that did not apply";
    }
  }

 private:
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  template <class T>
  const T& one_of(const std::vector<T>& v) { return v[pick(v.size())]; }

  // Every value of the document with its JSON pointer.
  static void paths(const Json& j, const std::string& at, std::vector<std::string>& out) {
    out.push_back(at);
    if (j.is_object())
      for (auto it = j.begin(); it != j.end(); ++it) paths(*it, at + "/" + escape(it.key()), out);
    else if (j.is_array())
      for (std::size_t i = 0; i < j.size(); ++i) paths(j[i], at + "/" + std::to_string(i), out);
  }
  static std::string escape(const std::string& key) {
    std::string out;
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  }

  Json odd_value() {
    switch (pick(26)) {
      case 0: return -1;
      case 1: return -0.0;
      case 2: return 0;
      case 3: return raw_.add("1e999");
      case 4: return raw_.add("-1e999");
      case 5: return 1e308;
      case 6: return 18446744073709551615ull;
      case 7: return std::numeric_limits<std::int64_t>::min();
      case 8: return 9223372036854775807ll;
      case 9: return 0.5;
      case 10: return 4.9e-324;
      case 11: return "5";
      case 12: return "";
      case 13: return true;
      case 14: return nullptr;
      case 15: return Json::array();
      case 16: return Json::object();
      case 17: return std::string(5000, 'x');
      case 18: return raw_.add("\"\xff\xfe bytes\"");
      case 19: return std::string("nul\0inside", 10);
      case 20: return "\x1b[2J\r\n";
      case 21: return 2147483648ll;
      case 22: return -2147483649ll;
      case 23: return 1e-300;
      case 24: return raw_.add("1.0e0");
      default: return "2026-11-29T16:20:00.123Z";
    }
  }

  std::string mutate_value(Json& doc) {
    std::vector<std::string> all;
    paths(doc, "", all);
    const std::string at = one_of(all);
    if (at.empty()) return "left the document";  // the root itself: leave it
    Json v = odd_value();
    const std::string shown = v.dump(-1, ' ', false, Json::error_handler_t::replace).substr(0, 24);
    doc[Json::json_pointer(at)] = std::move(v);
    return fmt::format("{} = {}", at, shown);
  }

  // A JSON value nested `depth` levels (arrays and objects), for settings and elsewhere.
  static Json nested(int depth) {
    Json j = 1;
    for (int i = 0; i < depth; ++i) j = (i % 2) ? Json::array({std::move(j)}) : Json{{"a", std::move(j)}};
    return j;
  }

  std::string bad_time() {
    static const std::vector<std::string> times = {
        "2026-02-30T10:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-11-29T24:00:00.000Z",
        "2026-11-29T23:59:60.000Z", "2026-11-29 16:20:00.123Z", "2026-11-29T16:20:00.123", "yesterday", "",
        "1969-12-31T23:59:59.999Z", "0000-01-01T00:00:00.000Z", "2026-11-29T16:20:00.1234Z",
        "2026-11-29T16:20:00+01:00", "+2026-11-29T16:20:00Z", "2026-11-29T16:20:00.12Z", "9999-12-31T23:59:59.999Z",
        "2026-11-29T16:20:00.000z", "2026-1-29T16:20:00.000Z", "2026-11-29T16:20:00Z", "1970-01-01T00:00:00.000Z",
        "2026-11-29T16:20:00.-12Z", "2026-11-29T16:20:0a.000Z"};
    switch (pick(5)) {
      case 0: return utc(2 * 3600);           // beyond the clock skew
      case 1: return utc(30 * 60);            // within it
      case 2: return utc(400LL * 24 * 3600);  // next year
      default: return one_of(times);
    }
  }

  Json* random_run(Json& doc) {
    if (!doc.contains("runs") || !doc["runs"].is_array() || doc["runs"].empty()) return nullptr;
    return &doc["runs"][pick(doc["runs"].size())];
  }
  Json* run_with_winner(Json& doc) {
    std::vector<Json*> with;
    if (doc.contains("runs") && doc["runs"].is_array())
      for (auto& r : doc["runs"])
        if (r.is_object() && r.contains("winner") && r["winner"].is_object()) with.push_back(&r);
    return with.empty() ? random_run(doc) : with[pick(with.size())];
  }
  Json* random_measurement(Json& doc, bool want_ok) {
    std::vector<Json*> ms;
    if (doc.contains("runs") && doc["runs"].is_array())
      for (auto& r : doc["runs"])
        if (r.is_object() && r.contains("measurements") && r["measurements"].is_array())
          for (auto& m : r["measurements"])
            if (!want_ok || (m.is_object() && m.value("status", "") == "ok")) ms.push_back(&m);
    return ms.empty() ? nullptr : ms[pick(ms.size())];
  }
  template <class F>
  std::string on_winner(Json& doc, const char* what, F&& edit) {
    Json* run = run_with_winner(doc);
    if (!run || !(*run)["winner"].is_object()) return "no winner to edit";
    edit(*run, (*run)["winner"]);
    return what;
  }

  // Targeted mutations 0..8: a winner's cubin, its hash or an architecture.
  std::string cubin_or_arch(Json& doc, std::size_t k) {
    switch (k) {
      case 0: return on_winner(doc, "winner arch swapped", [](Json&, Json& w) { w["arch"] = w["arch"] == "sm_90" ? "sm_80" : "sm_90"; });
      case 1: {
        if (!doc["devices"].is_array() || doc["devices"].empty()) return "no device";
        Json& d = doc["devices"][pick(doc["devices"].size())];
        d["arch"] = d["arch"] == "sm_90" ? "sm_80" : "sm_90";
        if (pick(2)) d["cc_major"] = d["arch"] == "sm_90" ? 9 : 8;
        return "device arch swapped";
      }
      case 2: return on_winner(doc, "cubin not ELF", [](Json&, Json& w) { w["cubin"] = "TVqQAAMAAAAEAAAA"; });
      case 3: return on_winner(doc, "cubin ELF but not the hash's", [](Json&, Json& w) { w["cubin"] = "f0VMRgBiYWQh"; });
      case 4: return on_winner(doc, "cubin_sha256 one digit off", [&](Json&, Json& w) {
        if (!w["cubin_sha256"].is_string()) w["cubin_sha256"] = std::string(64, '0');
        std::string s = w["cubin_sha256"];
        s[pick(s.size())] ^= 1;
        w["cubin_sha256"] = s;
      });
      case 5: return on_winner(doc, "cubin_sha256 removed", [](Json&, Json& w) { w.erase("cubin_sha256"); });
      case 6: return on_winner(doc, "cubin removed, hash kept", [](Json&, Json& w) { w["cubin"] = nullptr; });
      case 7: return on_winner(doc, "cubin not base64", [](Json&, Json& w) { w["cubin"] = "f0VMRg*A"; });
      case 8: return on_winner(doc, "cubin replaced, with its own SHA-256", [&](Json&, Json& w) {
        // Bytes that are not an ELF image (a PE header, nothing, 3 bytes of the magic, a script), or are one, each
        // with the hash that matches it: only the ELF check can tell them apart.
        const std::vector<std::string> cubins = {std::string("MZ\x90\0\3\0\0\0", 8), "", "\x7f" "EL",
                                                 "#!/bin/sh\nrm -rf ~\n", "\x7f" "ELF", "\x7f" "ELF\2\1\1"};
        const std::string& bytes = one_of(cubins);
        w["cubin"] = base64(bytes);
        w["cubin_sha256"] = integrity::sha256_hex(bytes);
      });
    }
    throw std::logic_error(fmt::format("mutation {} is not one of {}..{}", k, 0, 8));
  }

  // Targeted mutations 9..18: a measurement, or the winner against its measurements.
  std::string measurement_or_winner(Json& doc, std::size_t k) {
    switch (k) {
      case 9: {
        Json* m = random_measurement(doc, true);
        if (!m) return "no ok measurement";
        (*m)["median_ms"] = one_of(std::vector<Json>{0, -0.0, -1e-9, -5});
        return "ok measurement with time <= 0";
      }
      case 10: {
        Json* m = random_measurement(doc, true);
        if (!m) return "no ok measurement";
        (*m)[one_of(std::vector<std::string>{"gbps", "samples", "spread", "roof_pct"})] =
            one_of(std::vector<Json>{0, -1, raw_.add("1e999"), 1e308});
        return "ok measurement with a zero, negative or huge number";
      }
      case 11: {
        Json* m = random_measurement(doc, false);
        if (!m) return "no measurement";
        (*m)["status"] = one_of(std::vector<Json>{"ok", "great", "OK", "", "launch_error"});
        return "measurement status changed";
      }
      case 12: {
        Json* m = random_measurement(doc, false);
        if (!m || (*m).value("status", "") == "ok") return "no failed measurement";
        (*m)[one_of(std::vector<std::string>{"median_ms", "gbps", "spread"})] = one_of(std::vector<Json>{0.5, 7, 1e300});
        return "failed measurement with a time or speed";
      }
      case 13: return on_winner(doc, "winner config is another measurement's", [&](Json& r, Json& w) {
        const Json& ms = r["measurements"];
        if (ms.is_array() && !ms.empty()) w["config"] = ms[pick(ms.size())]["config"];
      });
      case 14: return on_winner(doc, "winner config not among the measurements", [](Json&, Json& w) {
        w["config"] = HistogramConfig{}.key();
      });
      case 15: return on_winner(doc, "winner median changed", [&](Json&, Json& w) {
        w["median_ms"] = one_of(std::vector<Json>{0.001, 0.25000000000000006, 0, -0.25, "0.25"});
      });
      case 16: return on_winner(doc, "winner and its measurement changed together", [&](Json& r, Json& w) {
        for (auto& m : r["measurements"])
          if (m["config"] == w["config"]) m["median_ms"] = 0.125;
        w["median_ms"] = 0.125;
      });
      case 17: return on_winner(doc, "winner's measurement removed", [](Json& r, Json& w) {
        Json kept = Json::array();
        for (auto& m : r["measurements"])
          if (m["config"] != w["config"]) kept.push_back(m);
        r["measurements"] = kept;
      });
      case 18: return on_winner(doc, "winner of an unfinished run", [](Json& r, Json&) { r["finished_at"] = nullptr; });
    }
    throw std::logic_error(fmt::format("mutation {} is not one of {}..{}", k, 9, 18));
  }

  // Targeted mutations 19..28: a run's settings, hash, times, or a problem, device, template or baseline row.
  std::string run_or_table(Json& doc, std::size_t k) {
    switch (k) {
      case 19: {
        Json* r = random_run(doc);
        if (!r) return "no run";
        (*r)["settings"] = one_of(std::vector<Json>{Json::array({1, 2}), "{\"a\":1}", 5, true, "", Json::object()});
        return "settings not an object";
      }
      case 20: {
        Json* r = random_run(doc);
        if (!r) return "no run";
        const int depth = 57 + static_cast<int>(pick(5));  // around the limits of import and export
        (*r)["settings"] = Json{{"deep", nested(depth)}};
        return fmt::format("settings nested {} deep", depth + 1);
      }
      case 21: {
        Json* r = random_run(doc);
        if (!r) return "no run";
        (*r)["template_hash"] = one_of(std::vector<Json>{"00000000000000ff", "00000000000000AA", "", "zz", std::string(64, 'a'), 12});
        return "template hash not listed";
      }
      case 22: {
        if (!doc["templates"].is_array() || doc["templates"].empty()) return "no template";
        doc["templates"].erase(doc["templates"].begin() + static_cast<std::ptrdiff_t>(pick(doc["templates"].size())));
        return "a template removed";
      }
      case 23: {
        Json* r = random_run(doc);
        if (!r) return "no run";
        const char* key = one_of(std::vector<const char*>{"started_at", "finished_at"});
        (*r)[key] = bad_time();
        return fmt::format("run {} = {}", key, (*r)[key].dump());
      }
      case 24: return on_winner(doc, "tuned_at odd", [&](Json&, Json& w) { w["tuned_at"] = bad_time(); });
      case 25: {
        const std::vector<std::pair<const char*, const char*>> where = {
            {"templates", "first_seen"}, {"baselines", "measured_at"}};
        const auto& [table, key] = one_of(where);
        if (!doc.contains(table) || !doc[table].is_array() || doc[table].empty()) return "nothing to edit";
        doc[table][pick(doc[table].size())][key] = bad_time();
        return fmt::format("{}.{} odd", table, key);
      }
      case 26: {
        if (!doc["problems"].is_array() || doc["problems"].empty()) return "no problem";
        Json& p = doc["problems"][pick(doc["problems"].size())];
        switch (pick(6)) {
          case 0: p["n"] = p["n"].get<std::int64_t>() + 1; break;
          case 1: p["parameters"]["type"] = "u16"; break;
          case 2: p["parameters"]["x"] = "1"; break;
          case 3: p["shape_key"] = "x"; break;
          case 4: p["family"] = "scan"; break;
          default: p["key"] = std::string(p["key"]) + "/extra"; break;
        }
        return "problem columns disagree with the key";
      }
      case 27: {
        if (!doc["devices"].is_array() || doc["devices"].empty()) return "no device";
        Json& d = doc["devices"][pick(doc["devices"].size())];
        switch (pick(5)) {
          case 0: d["sm_count"] = 133; break;
          case 1: d["name"] = "Other|GPU"; break;
          case 2: d["model_key"] = std::string(d["model_key"]) + "x"; break;
          case 3: d["roof_gbps"] = one_of(std::vector<Json>{0, -3.0, raw_.add("1e999")}); break;
          default: d["cc_minor"] = 10; break;
        }
        return "device columns odd";
      }
      case 28: {
        if (!doc.contains("baselines") || !doc["baselines"].is_array() || doc["baselines"].empty()) return "no baseline";
        Json& b = doc["baselines"][pick(doc["baselines"].size())];
        b[one_of(std::vector<std::string>{"median_ms", "gbps", "name", "device", "problem"})] =
            one_of(std::vector<Json>{0, -1, "", "nope", raw_.add("1e999")});
        return "baseline odd";
      }
    }
    throw std::logic_error(fmt::format("mutation {} is not one of {}..{}", k, 19, 28));
  }

  // Targeted mutations 29..34: provenance without or beside a cubin, staleness, copied runs.
  std::string provenance_or_copy(Json& doc, std::size_t k) {
    switch (k) {
      case 29: return on_winner(doc, "source_sha256 odd", [&](Json&, Json& w) {
        w["source_sha256"] = one_of(std::vector<Json>{"abc", std::string(64, 'G'), std::string(63, 'a'), 5});
      });
      case 30: return on_winner(doc, "nvrtc_options odd", [&](Json&, Json& w) {
        w["nvrtc_options"] = one_of(std::vector<Json>{"[\"a\",1]", "{}", "\"x\"", "[[\"a\"]]", "", "not json", Json::array({"a"})});
      });
      case 31: return on_winner(doc, "provenance without a cubin", [](Json&, Json& w) {
        w["cubin"] = nullptr;
        w["cubin_sha256"] = nullptr;
        w["source_sha256"] = std::string(64, 'a');
        w["nvrtc_options"] = "[\"x\"]";
        w["nvrtc_version"] = 12040;
      });
      case 32: {
        Json* r = random_run(doc);
        if (!r) return "no run";
        (*r)["stale"] = one_of(std::vector<Json>{0, 1, "true", nullptr});
        return "stale not a boolean";
      }
      case 33: {  // a second copy of a run under another start time, or the same
        Json* r = random_run(doc);
        if (!r) return "no run";
        Json copy = *r;
        if (pick(2)) copy["started_at"] = utc(-86400);
        doc["runs"].push_back(copy);
        return "a run copied";
      }
      case 34: {  // the same run, started_at spelled without milliseconds
        Json* r = random_run(doc);
        if (!r || !(*r)["started_at"].is_string()) return "no run";
        std::string t = (*r)["started_at"];
        Json copy = *r;
        copy["started_at"] = t.substr(0, 19) + "Z";
        doc["runs"].push_back(copy);
        return "a run copied with a second-resolution start";
      }
    }
    throw std::logic_error(fmt::format("mutation {} is not one of {}..{}", k, 29, 34));
  }

  // Targeted mutations 35..40: a measurement's config, a run's references and text, a log, a finished copy, versions.
  std::string references_or_text(Json& doc, std::size_t k) {
    switch (k) {
      case 35: {
        Json* m = random_measurement(doc, false);
        if (!m) return "no measurement";
        (*m)["config"] = one_of(std::vector<Json>{"block=-1", "", ReduceConfig{}.key(), HistogramConfig{}.key() + ",x=1"});
        return "measurement config odd";
      }
      case 36: {
        Json* r = random_run(doc);
        if (!r) return "no run";
        (*r)[one_of(std::vector<std::string>{"device", "problem"})] = "not there";
        return "run refers to nothing";
      }
      case 37: {
        Json* r = random_run(doc);
        if (!r) return "no run";
        (*r)[one_of(std::vector<std::string>{"strategy", "tool_version", "stale_reason"})] =
            one_of(std::vector<Json>{"", std::string(4097, 's'), raw_.add("\"\xc3\x28\""), 7});
        return "run text odd";
      }
      case 38: {
        Json* m = random_measurement(doc, false);
        if (!m) return "no measurement";
        (*m)["log"] = one_of(std::vector<Json>{std::string((1 << 20) + 1, 'l'), raw_.add("\"\xed\xa0\x80\""), "\\u0000"});
        return "measurement log odd";
      }
      case 39: {  // as a copy of the run taken after it finished: the winner re-measured (finish_run's last step)
        Json* r = nullptr;
        for (auto& run : doc["runs"])
          if (run.is_object() && run["finished_at"].is_null() && run["measurements"].is_array() &&
              !run["measurements"].empty())
            r = &run;
        if (!r) return "no interrupted run";
        Json& m = (*r)["measurements"][0];
        if (!m.is_object()) return "no measurement";
        m["status"] = "ok", m["median_ms"] = 0.03125, m["gbps"] = 2048.0, m["samples"] = 9, m["spread"] = 0.0;
        (*r)["finished_at"] = utc(-60);
        std::string arch = "sm_90";
        for (const auto& d : doc["devices"])
          if (d.is_object() && d["model_key"] == (*r)["device"]) arch = d["arch"];
        (*r)["winner"] = Json{{"config", m["config"]}, {"median_ms", 0.03125}, {"gbps", 2048.0}, {"arch", arch},
                              {"cubin", nullptr}, {"tuned_at", utc(-60)}, {"cubin_sha256", nullptr},
                              {"source_sha256", nullptr}, {"nvrtc_options", nullptr}, {"nvrtc_version", nullptr}};
        return "an interrupted run finished, its winner re-measured";
      }
      default: {
        Json* r = random_run(doc);
        if (!r) return "no run";
        (*r)["nvrtc_version"] = one_of(std::vector<Json>{-1, 1.5, "12040", 4294967296ll});
        return "run nvrtc_version odd";
      }
    }
  }

  // One of 41 targeted mutations (kinds of value that import must refuse, or accept soundly).
  std::string targeted(Json& doc) {
    const std::size_t k = pick(41);
    if (k <= 8) return cubin_or_arch(doc, k);
    if (k <= 18) return measurement_or_winner(doc, k);
    if (k <= 28) return run_or_table(doc, k);
    if (k <= 34) return provenance_or_copy(doc, k);
    return references_or_text(doc, k);
  }

  std::string structural(Json& doc) {
    std::vector<std::string> all;
    paths(doc, "", all);
    const std::string at = one_of(all);
    Json& target = doc[Json::json_pointer(at)];
    switch (pick(5)) {
      case 0:
        if (target.is_object() && !target.empty()) {
          auto it = target.begin();
          std::advance(it, static_cast<std::ptrdiff_t>(pick(target.size())));
          const std::string key = it.key();
          target.erase(key);
          return fmt::format("{}/{} deleted", at, key);
        }
        return "nothing deleted";
      case 1:
        if (target.is_object() && !target.empty()) {  // a duplicate key, later in the object, with another value
          auto it = target.begin();
          std::advance(it, static_cast<std::ptrdiff_t>(pick(target.size())));
          const std::string key = it.key();
          const std::string token = raw_.add(Json(key).dump());
          target[token] = odd_value();
          return fmt::format("{}/{} duplicated", at, key);
        }
        return "nothing duplicated";
      case 2:
        if (target.is_object()) {
          target["unknown_key"] = nested(3);
          return at + " gained an unknown key";
        }
        return "no unknown key";
      case 3: {
        const int depth = 40 + static_cast<int>(pick(40));
        target = nested(depth);
        return fmt::format("{} nested {} deep", at, depth);
      }
      default:
        if (target.is_array()) {
          target = Json::object();
          return at + " became an object";
        }
        if (target.is_object()) {
          target = Json::array();
          return at + " became an array";
        }
        return "no container";
    }
  }

  std::mt19937_64& rng_;
  Placeholders& raw_;
};

// --- one trial ----------------------------------------------------------------------------------------------------

struct Counts {
  std::size_t documents = 0, refused = 0, accepted = 0, accepted_invalid = 0, refused_but_changed = 0,
              reimport_failed = 0, readers_failed = 0, crashed = 0;
  std::map<std::string, std::size_t> refusal_kinds;
  bool bad() const {
    return accepted_invalid + refused_but_changed + reimport_failed + readers_failed + crashed > 0;
  }
};

std::string first_line(const std::string& s) { return s.substr(0, std::min(s.find('\n'), std::size_t(300))); }

// One document's trial: imported into a new cache or over an unmutated import of its base. A refusal must leave the
// target as it was; an acceptance must leave a sound cache that exports, imports again and every reader can read.
struct Trial {
  fs::path doc_file, target, again, export_file, report_file;
  bool verbose = false;
  Counts n;

  void fail(std::size_t& counter, const std::string& what, const std::string& mutation) {
    ++counter;
    std::printf("FAIL %s\n  mutation: %s\n", what.c_str(), mutation.c_str());
  }

  void run(const std::string& base_text, bool pristine, bool into_existing, const std::string& what) {
    remove_cache(target);
    std::string before;
    if (into_existing) {
      write_file(export_file, base_text);
      if (autotune_cli({"import", export_file.string(), "--cache", target.string()}).status != 0) {
        fail(n.crashed, "the unmutated document does not import", what);
        return;
      }
      before = dump_rows(target);
    }
    try {
      const Ran r = autotune_cli({"import", doc_file.string(), "--cache", target.string()});
      if (r.status != 0) {
        ++n.refused;
        if (pristine) fail(n.crashed, "an unmutated document was refused: " + first_line(r.out), what);
        const auto colon = r.out.find(": ", r.out.find("doc.json"));
        ++n.refusal_kinds[colon == std::string::npos ? first_line(r.out) : first_line(r.out.substr(colon + 2, 60))];
        if (verbose) std::printf("refused  [%s] %s\n", what.c_str(), first_line(r.out).c_str());
        const bool changed = into_existing ? dump_rows(target) != before : any_cache_file(target);
        if (changed) fail(n.refused_but_changed, "a refused import changed the target", what + " / " + first_line(r.out));
        return;
      }
      ++n.accepted;
      if (verbose) std::printf("accepted [%s]\n", what.c_str());
      check_accepted(what);
    } catch (const std::exception& e) {
      fail(n.crashed, std::string("exception: ") + e.what(), what);
    }
  }

  void check_accepted(const std::string& what) {
    const auto violations = Cache::open_read_only(target.string()).invariant_violations();
    if (!violations.empty()) {
      std::string all;
      for (std::size_t v = 0; v < violations.size() && v < 5; ++v) all += "\n    " + violations[v];
      fail(n.accepted_invalid, "accepted, but the cache breaks invariants:" + all, what);
    }
    // What was accepted exports, and that export imports again into a new cache.
    const Ran exported = autotune_cli({"export", "--output", export_file.string(), "--cache", target.string()});
    remove_cache(again);
    const Ran reimported = exported.status == 0
        ? autotune_cli({"import", export_file.string(), "--cache", again.string()}) : exported;
    if (reimported.status != 0) fail(n.reimport_failed, "its export does not import again: " + first_line(reimported.out), what);
    for (const std::vector<std::string>& reader :
         {std::vector<std::string>{"show", "--all", "--cache", target.string()},
          std::vector<std::string>{"show", "--json", "--cache", target.string()},
          std::vector<std::string>{"compare", "--cache", target.string()},
          std::vector<std::string>{"report", "--output", report_file.string(), "--cache", target.string()}}) {
      const Ran r2 = autotune_cli(reader);
      if (r2.status != 0) fail(n.readers_failed, "`autotune " + reader[0] + "` refuses it: " + first_line(r2.out), what);
    }
    const Ran checked = autotune_cli({"check", "--cache", target.string()});
    if (checked.status != 0 && violations.empty())
      fail(n.readers_failed, "`autotune check` disagrees: " + first_line(checked.out), what);
  }
};

void print_summary(const Counts& n, std::uint64_t seed, std::size_t bases, const std::string& cubin_origin,
                   double seconds) {
  std::printf("\nmutation audit: seed %llu, %zu documents (%zu unmutated), cubin: %s, %.1f s\n",
              static_cast<unsigned long long>(seed), n.documents, bases, cubin_origin.c_str(), seconds);
  std::printf("  refused %zu, accepted %zu, accepted but invalid %zu\n", n.refused, n.accepted, n.accepted_invalid);
  std::printf("  refused but changed the target %zu, export not re-importable %zu, readers failing %zu, other "
              "failures %zu\n",
              n.refused_but_changed, n.reimport_failed, n.readers_failed, n.crashed);
  std::printf("  refusals by message (first 60 characters after the document's name):\n");
  std::vector<std::pair<std::size_t, std::string>> kinds;
  for (const auto& [k, c] : n.refusal_kinds) kinds.emplace_back(c, k);
  std::sort(kinds.rbegin(), kinds.rend());
  for (std::size_t i = 0; i < kinds.size() && i < 25; ++i) std::printf("    %5zu  %s\n", kinds[i].first, kinds[i].second.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 16;
  std::size_t count = 200;
  fs::path dir;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) throw std::runtime_error("missing value after " + a);
      return std::string(argv[++i]);
    };
    if (a == "--seed") seed = std::stoull(next());
    else if (a == "--count") count = std::stoull(next());
    else if (a == "--dir") dir = next();
    else if (a == "--verbose") verbose = true;
    else {
      std::fprintf(stderr, "usage: cache_mutation_audit [--seed S] [--count N] [--dir D] [--verbose]\n");
      return 2;
    }
  }
  const bool own_dir = dir.empty();
  // In memory when the machine has /dev/shm: the audit is about what import writes, not the disk, and a few
  // thousand cache files created and synced on a busy disk take minutes.
  std::error_code ec;
  const fs::path base_dir = ::access("/dev/shm", W_OK) == 0 ? fs::path("/dev/shm") : fs::temp_directory_path(ec);
  if (own_dir) dir = base_dir / fmt::format("autotune-mutation-audit-{}", ::getpid());
  fs::create_directories(dir);
  const auto start = std::chrono::steady_clock::now();

  std::string cubin_origin;
  const std::vector<std::string> bases = base_documents(dir, cubin_origin);
  std::vector<Json> base_json;
  for (const auto& b : bases) base_json.push_back(Json::parse(b));

  // The base documents themselves must import into a sound cache (else the audit measures nothing).
  std::mt19937_64 rng(seed);
  Trial trial{dir / "doc.json", dir / "target.db", dir / "again.db", dir / "export.json", dir / "report.html", verbose};
  for (std::size_t k = 0; k < count + bases.size(); ++k) {
    const bool pristine = k < bases.size();  // the unmutated documents first
    const std::size_t b = pristine ? k : rng() % bases.size();
    Json doc = base_json[b];
    Placeholders raw;
    Mutator mutator(rng, raw);
    std::string what = pristine ? "none" : "";
    const int edits = pristine ? 0 : 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) what += (e ? "; " : "") + mutator.mutate(doc);
    const bool into_existing = !pristine && rng() % 3 == 0;
    write_file(trial.doc_file, raw.apply(doc.dump(-1, ' ', false, Json::error_handler_t::replace)));
    ++trial.n.documents;
    trial.run(bases[b], pristine, into_existing, what);
  }
  remove_cache(trial.target);
  remove_cache(trial.again);
  if (own_dir) fs::remove_all(dir);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  print_summary(trial.n, seed, bases.size(), cubin_origin, seconds);
  return trial.n.bad() ? 1 : 0;
}
