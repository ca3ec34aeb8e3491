// Moving results between caches (cache/transfer.cpp): export -> import round trips, idempotent re-imports, the
// winner rule, merges of whole files, and documents or files that must be refused without changing anything.
#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <nlohmann/json.hpp>

#include <fmt/chrono.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/histogram_problem.hpp"
#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "tests/cpu/cache_fixtures.hpp"
#include "tests/cpu/trust_fixtures.hpp"
#include "runtime/nearest.hpp"

using namespace autotune;
using namespace autotune::test;
using Json = nlohmann::json;

namespace {

HistogramProblem f32_problem() {
  HistogramProblem p;
  p.type = SampleType::f32;
  p.bins = 1024;
  p.lower = -0.5;
  p.upper = 1.25;
  p.n = 16 * M;
  return p;
}

HistogramProblem wide_counters() {
  HistogramProblem p = problem(64 * M);
  p.counter_bits = 64;
  return p;
}

// Two models (one with a measured roof), four problems (an f32 one and one with 64-bit counters), five finished
// runs with winners (made-up cubins with zero bytes, one without), every failure status with awkward logs, an interrupted
// run, a stale run and recorded settings. Counts: 2 devices, 4 problems, 2 templates, 6 runs, 13 measurements,
// 5 winners.
void fill(Cache& c) {
  const DeviceInfo h = h100(), a = a100();
  c.set_device_roof(h, 3000.0);
  RunInfo info = run_info("00000000000000aa");
  info.settings_json = R"({"samples": 15, "flush_l2": true})";
  const auto r1 = c.begin_run(h, problem(64 * M), info);
  const Measurement best = ok_measurement(config(512, 8, true), 0.02);
  for (const Measurement& m :
       {ok_measurement(config(256, 4), 0.03), best,
        failed_measurement(config(1024, 64, true), MeasurementStatus::compile_error,
                           "histogram.cu(41): error: \"x\" undefined\n\ttab, backslash \\ and UTF-8: é — ✓"),
        failed_measurement(config(2048, 4), MeasurementStatus::invalid_config, "block 2048 > 1024"),
        failed_measurement(config(1024, 32, true, true), MeasurementStatus::launch_error, "cudaErrorIllegalAddress"),
        failed_measurement(config(128, 8, true, false, true), MeasurementStatus::wrong_result, "bin 7: 12 != 13")})
    c.add_measurement(r1, m);
  c.finish_run(r1, best, elf({'\0', 'a', '\xff'}));

  const auto r2 = c.begin_run(a, problem(64 * M), run_info("00000000000000aa"));
  c.add_measurement(r2, ok_measurement(config(256, 4), 0.05));
  c.add_measurement(r2, ok_measurement(config(512, 8), 0.04));
  c.finish_run(r2, ok_measurement(config(512, 8), 0.04), elf({'\0'}));

  tune(c, h, f32_problem(), config(256, 8), elf({'a', 'b'}), run_info("00000000000000aa"), 0.01);
  tune(c, h, wide_counters(), config(256, 2), {}, run_info("00000000000000aa"), 0.04);

  const auto cut = c.begin_run(a, problem(M), run_info("00000000000000aa"));  // interrupted
  c.add_measurement(cut, ok_measurement(config(256, 4), 0.003));
  c.add_measurement(cut, ok_measurement(config(256, 8), 0.002));

  tune(c, h, problem(M), config(128, 4), elf({'s'}), run_info("00000000000000a0"), 0.002);
  REQUIRE(c.mark_stale({"00000000000000aa", 0, 0, "histogram"}, h.model_key()) == 1);
}

// Signed with a trusted key, so that the rows count as the user's own, cubins included: these tests are about what
// survives a transfer (tests/cpu/test_cache_signed.cpp is about what an unsigned import is trusted for).
ImportStats import_text(Cache& c, const std::string& text, const std::string& source = "test.json") {
  return import_signed(c, text, source);
}

// Unsigned: the rows are recorded as imported and the cubins dropped, as merge() records another file's.
ImportStats import_as_data(Cache& c, const std::string& text) {
  std::istringstream in(text);
  return c.import_json(in, "test.json");
}

std::string describe(const Winner& w) {
  std::string cubin;
  for (char b : w.cubin) cubin += fmt::format("{:02x}", static_cast<unsigned char>(b));
  return fmt::format("{} {} {} {} {} {} {} {} {} {} {}", w.model_key, w.device_name, w.arch, w.problem.key(),
                     w.config.key(), w.median_ms, w.gbps, w.tuned_at, cubin, w.stale, w.stale_reason);
}

std::vector<std::string> describe_all(const Cache& c) {
  std::vector<std::string> out;
  for (const Winner& w : c.winners(true)) out.push_back(describe(w));
  return out;
}

// The keys of every object in a document, recursively.
void collect_keys(const Json& j, std::vector<std::string>& keys) {
  if (j.is_object())
    for (const auto& [k, v] : j.items()) {
      keys.push_back(k);
      collect_keys(v, keys);
    }
  else if (j.is_array())
    for (const auto& v : j) collect_keys(v, keys);
}

}  // namespace

TEST_SUITE("cache_transfer") {

TEST_CASE("export -> import into an empty cache gives identical contents, queries and export") {
  TempPath from, to;
  Cache a(from.str());
  fill(a);
  const std::string text = export_text(a);
  Cache b(to.str());
  const ImportStats s = import_text(b, text);
  CHECK(s == ImportStats{2, 4, 2, 6, 13, 5});
  CHECK(dump_contents(to.str()) == dump_contents(from.str()));
  CHECK(describe_all(b) == describe_all(a));
  CHECK(export_text(b) == text);
  // The same lookups give the same answers.
  for (const auto& p : {problem(64 * M), f32_problem(), wide_counters(), problem(M), problem(2 * M)}) {
    CAPTURE(p.key());
    for (const auto& model : {h100().model_key(), a100().model_key()}) {
      const auto wa = a.find_winner(model, p), wb = b.find_winner(model, p);
      REQUIRE(wa.has_value() == wb.has_value());
      if (wa) CHECK(describe(*wa) == describe(*wb));
      const auto na = nearest_winner(a, model, p), nb = nearest_winner(b, model, p);
      REQUIRE(na.has_value() == nb.has_value());
      if (na) CHECK(describe(*na) == describe(*nb));
    }
  }
  // The f32 range and the 64-bit counters survive the text form exactly.
  const auto f32 = b.find_winner(h100().model_key(), f32_problem());
  REQUIRE(f32);
  CHECK(f32->problem == f32_problem());
  const auto wide = b.find_winner(h100().model_key(), wide_counters());
  REQUIRE(wide);
  CHECK(wide->problem.as<HistogramProblem>()->counter_bits == 64);
}

TEST_CASE("importing the same document twice changes nothing the second time") {
  TempPath from, to;
  Cache a(from.str());
  fill(a);
  const std::string text = export_text(a);
  Cache b(to.str());
  tune(b, h100(), problem(4 * M), config(256, 4));  // data of its own, kept alongside
  CHECK(import_text(b, text).total() == 2 + 4 + 2 + 6 + 13 + 5 - 2);  // the H100 and template aa were known
  const std::string once = dump_everything(to.str());
  CHECK(import_text(b, text) == ImportStats{});
  CHECK(dump_everything(to.str()) == once);
  SQLite::Database raw(to.str(), SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("SELECT count(*) FROM runs").getInt() == 7);
  CHECK(raw.execAndGet("SELECT count(*) FROM measurements").getInt() == 14);
  CHECK(raw.execAndGet("SELECT count(*) FROM winners").getInt() == 6);
}

TEST_CASE("the export is portable JSON: a format version, natural keys instead of ids, base64 cubins") {
  Cache c(":memory:");
  fill(c);
  const Json doc = Json::parse(export_text(c));
  CHECK(doc["format"] == "autotune-cache");
  CHECK(doc["format_version"] == 2);
  CHECK(doc["schema_version"] == Cache::schema_version());
  std::vector<std::string> keys;
  collect_keys(doc, keys);
  for (const char* id : {"id", "run_id", "device_id", "problem_id"})
    CHECK(std::count(keys.begin(), keys.end(), id) == 0);
  std::vector<std::string> cubins;
  for (const Json& run : doc["runs"])
    if (const Json& w = run["winner"]; !w.is_null())
      cubins.push_back(w["cubin"].is_null() ? "null" : w["cubin"].get<std::string>());
  std::sort(cubins.begin(), cubins.end());
  // The ELF magic 7f 45 4c 46 followed by 00, by 00 61 ff, by 61 62, by 73, and no cubin, written out by hand.
  CHECK(cubins == std::vector<std::string>{"f0VMRgA=", "f0VMRgBh/w==", "f0VMRmFi", "f0VMRnM=", "null"});
  const Json& first = doc["runs"][0];
  CHECK(first["device"] == a100().model_key());
  CHECK(first["problem"] == problem(M).key());
  CHECK(first["settings"].is_null());
  bool found_settings = false;
  for (const Json& run : doc["runs"])
    if (run["settings"].is_object()) {
      CHECK(run["settings"] == Json::parse(R"({"flush_l2": true, "samples": 15})"));
      found_settings = true;
    }
  CHECK(found_settings);
}

TEST_CASE("an imported winner of the same model and problem: fresh beats stale, then newer, then faster") {
  Cache c(":memory:");
  const DeviceInfo h = h100();
  tune(c, h, problem(M), config(256, 4), elf({'o'}), run_info("00000000000000aa"), 0.5);
  const Json base = Json::parse(export_text(c));
  const std::string ours_at = base["runs"][0]["winner"]["tuned_at"];
  // Later than ours but not in the future beyond the hour of clock skew import allows.
  const std::string newer = fmt::format("{:%Y-%m-%dT%H:%M:%S}.000Z",
                                        fmt::gmtime(std::time(nullptr) + 30 * 60));
  // Another run of the same model and problem, with a winner whose time, speed and staleness the cases choose (a
  // winner is always one of its run's ok measurements).
  // Each call is a run of its own (its own start): a second copy of one run with other times would be a winner
  // that is not its run's measurement in this file, which import does not take.
  int runs = 0;
  auto incoming = [&](const std::string& tuned_at, double ms, bool stale) {
    Json doc = base;
    Json& run = doc["runs"][0];
    run["started_at"] = fmt::format("2020-01-01T00:00:{:02}.000Z", runs++);
    run["finished_at"] = "2020-01-01T00:10:00.000Z";
    run["stale"] = stale;
    run["measurements"][0]["config"] = config(1024, 2).key();
    run["measurements"][0]["median_ms"] = ms;
    run["winner"]["tuned_at"] = tuned_at;
    run["winner"]["median_ms"] = ms;
    run["winner"]["config"] = config(1024, 2).key();
    return doc.dump();
  };
  auto winner_config = [&] { return c.winners(true).at(0).config; };

  SUBCASE("a fresh, newer winner replaces ours") {
    CHECK(import_text(c, incoming(newer, 0.9, false)).winners == 1);
    CHECK(winner_config() == config(1024, 2));
  }
  SUBCASE("a stale winner never replaces a fresh one, however new") {
    CHECK(import_text(c, incoming(newer, 0.1, true)).winners == 0);
    CHECK(winner_config() == config(256, 4));
  }
  SUBCASE("a fresh winner replaces a stale one, however old") {
    REQUIRE(c.mark_stale({"00000000000000bb", 0, 0, "histogram"}) == 1);
    CHECK(import_text(c, incoming("2000-01-01T00:00:00.000Z", 0.9, false)).winners == 1);
    CHECK(winner_config() == config(1024, 2));
    CHECK_FALSE(c.winners(true).at(0).stale);
  }
  SUBCASE("an older winner does not replace ours, however fast") {
    CHECK(import_text(c, incoming("2000-01-01T00:00:00.000Z", 0.001, false)).winners == 0);
    CHECK(winner_config() == config(256, 4));
  }
  SUBCASE("tuned at the same time: the faster one wins, a full tie keeps ours") {
    CHECK(import_text(c, incoming(ours_at, 0.5, false)).winners == 0);
    CHECK(winner_config() == config(256, 4));
    CHECK(import_text(c, incoming(ours_at, 0.6, false)).winners == 0);
    CHECK(winner_config() == config(256, 4));
    CHECK(import_text(c, incoming(ours_at, 0.4, false)).winners == 1);
    CHECK(winner_config() == config(1024, 2));
    CHECK(c.invariant_violations().empty());
  }
}

TEST_CASE("a copy taken mid-run gains the rest of the run; staleness is sticky") {
  TempPath src, dst;
  Cache s(src.str()), d(dst.str());
  const auto run = s.begin_run(h100(), problem(M), run_info());
  s.add_measurement(run, ok_measurement(config(256, 4), 0.4));
  s.add_measurement(run, ok_measurement(config(256, 8), 0.3));
  CHECK(import_text(d, export_text(s)) == ImportStats{1, 1, 1, 1, 2, 0});
  CHECK(d.winners(true).empty());

  s.add_measurement(run, ok_measurement(config(512, 8), 0.2));
  s.finish_run(run, ok_measurement(config(512, 8), 0.2), elf({'w'}));
  const std::string finished = export_text(s);
  // The run is the same run (natural key): it learns that it finished, gains a measurement and its winner.
  CHECK(import_text(d, finished) == ImportStats{0, 0, 0, 1, 1, 1});
  CHECK(dump_contents(dst.str()) == dump_contents(src.str()));

  REQUIRE(s.mark_stale({"00000000000000ff", 0, 0, "histogram"}) == 1);
  CHECK(import_text(d, export_text(s)) == ImportStats{0, 0, 0, 1, 0, 0});
  CHECK(dump_contents(dst.str()) == dump_contents(src.str()));
  CHECK(import_text(d, finished) == ImportStats{});  // the fresh copy does not make it fresh again
  REQUIRE(d.winners(true).size() == 1);
  CHECK(d.winners(true)[0].stale);
  CHECK(d.winners(true)[0].stale_reason == "template 00000000000000aa -> 00000000000000ff");
}

TEST_CASE("a bad document is refused, naming the document and the field, and changes nothing") {
  TempPath file;
  Cache c(file.str());
  tune(c, a100(), problem(8 * M), config(256, 4));
  std::string good;
  {
    Cache src(":memory:");
    fill(src);
    good = export_text(src);
  }
  const std::string before = dump_everything(file.str());
  auto edited = [&](auto&& edit) {
    Json doc = Json::parse(good);
    edit(doc);
    return doc.dump();
  };
  std::string text, expect;
  SUBCASE("not JSON") {
    text = good.substr(0, good.size() / 2);
    expect = "not a JSON document";
  }
  SUBCASE("another format") {
    text = R"({"format": "sqlite-dump", "format_version": 1})";
    expect = "not an autotune export";
  }
  SUBCASE("a newer format") {
    text = edited([](Json& d) { d["format_version"] = 3; });
    expect = "newer";
  }
  // The remaining errors sit in the last run, after everything else was inserted: the transaction undoes it all.
  SUBCASE("an unknown status") {
    text = edited([](Json& d) { d["runs"].back()["measurements"][0]["status"] = "okay"; });
    expect = "runs[5].measurements[0].status 'okay' is not a status";
  }
  SUBCASE("a cubin that is not base64") {
    text = edited([](Json& d) { d["runs"].back()["winner"]["cubin"] = "AG=H"; });
    expect = "runs[5].winner.cubin is not base64";
  }
  SUBCASE("a missing field") {
    text = edited([](Json& d) { d["runs"].back().erase("strategy"); });
    expect = "runs[5].strategy is missing";
  }
  SUBCASE("a winner of an unfinished run") {
    text = edited([](Json& d) { d["runs"].back()["finished_at"] = nullptr; });
    expect = "runs[5].winner belongs to a run that did not finish";
  }
  SUBCASE("a problem key that does not match its parameters") {
    text = edited([](Json& d) { d["problems"][0]["parameters"]["bins"] = "512"; });
    expect = "problems[0].parameters bins is '512'";
  }
  SUBCASE("a device key that does not match its columns") {
    text = edited([](Json& d) { d["devices"][0]["sm_count"] = 7; });
    expect = "devices[0].model_key";
  }
  std::istringstream in(text);
  try {
    c.import_json(in, "fleet/node17.json");
    FAIL("accepted");
  } catch (const CacheError& e) {
    const std::string what = e.what();
    CHECK(contains(what, "'fleet/node17.json'"));
    CHECK(contains(what, expect));
  }
  CHECK(dump_everything(file.str()) == before);
}

TEST_CASE("merge adds another cache file, which it never modifies; merging again adds nothing") {
  TempPath mine, theirs, expected;
  {
    Cache t(theirs.str());
    fill(t);
  }
  {
    Cache m(mine.str());
    tune(m, h100(), problem(4 * M), config(256, 4));
    tune(m, a100(), problem(64 * M), config(1024, 8), elf({'n'}), run_info("00000000000000aa"), 0.01);
  }
  fs::copy_file(mine.path, expected.path);
  {
    // What the merge must give: the same as importing their export, unsigned.
    Cache e(expected.str());
    const Cache t(theirs.str());
    import_as_data(e, export_text(t));
  }
  const std::string theirs_bytes = read_bytes(theirs.path);  // after every connection of ours to it closed
  Cache m(mine.str());
  const ImportStats s = m.merge(theirs.str());
  CHECK(s.runs == 6);
  CHECK(s.measurements == 13);
  CHECK(dump_contents(mine.str()) == dump_contents(expected.str()));
  CHECK(m.merge(theirs.str()) == ImportStats{});
  CHECK(read_bytes(theirs.path) == theirs_bytes);
  // A fleet's comparison: both models side by side for the problem they share.
  SQLite::Database raw(mine.str(), SQLite::OPEN_READONLY);
  CHECK(rows(raw, "SELECT device, rank, devices FROM device_comparison WHERE problem = '" + problem(64 * M).key() +
                      "'") ==
        std::vector<std::string>{"t:NVIDIA A100-SXM4-40GB | i:1 | i:2", "t:NVIDIA H100 80GB HBM3 | i:2 | i:2"});
}

TEST_CASE("merging a schema-1 file upgrades a copy in memory and leaves the file alone") {
  TempPath old_file, migrated, merged;
  copy_golden_v1(old_file.path);
  copy_golden_v1(migrated.path);
  { Cache c(migrated.str()); }
  const std::string before = read_bytes(old_file.path);
  {
    Cache c(merged.str());
    // Its three cubins have no recorded SHA-256 (schema 1 had none): nothing vouches for them, so they stay out.
    CHECK(c.merge(old_file.str()) == ImportStats{2, 3, 0, 5, 16, 4, 0, 3});
  }
  CHECK(read_bytes(old_file.path) == before);
  {
    SQLite::Database raw(migrated.str(), SQLite::OPEN_READWRITE);
    CHECK(raw.exec("UPDATE winners SET cubin = NULL WHERE cubin IS NOT NULL") == 3);
  }
  CHECK(dump_contents(merged.str()) == dump_contents(migrated.str()));
}

TEST_CASE("merging a missing, foreign, corrupt or newer file is an error naming it; neither file changes") {
  TempPath mine, other;
  {
    Cache m(mine.str());
    tune(m, h100(), problem(M), config(256, 4));
  }
  std::string expect;
  SUBCASE("missing") { expect = "does not exist"; }
  SUBCASE("not SQLite") {
    write_bytes(other.path, "just some text\n");
    expect = "not an SQLite database";
  }
  SUBCASE("another program's database") {
    SQLite::Database raw(other.str(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("CREATE TABLE notes (text TEXT)");
    expect = "not an autotune cache";
  }
  SUBCASE("newer") {
    {
      Cache o(other.str());
      tune(o, a100(), problem(M), config(256, 4));
    }
    SQLite::Database raw(other.str(), SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA user_version = 7");
    expect = "newer";
  }
  SUBCASE("corrupt") {
    {
      Cache o(other.str());
      for (int k = 0; k < 4; ++k) {
        const auto run = o.begin_run(a100(), problem((k + 1) * M), run_info());
        for (int i = 0; i < 100; ++i) o.add_measurement(run, ok_measurement(config(32 * (i % 32 + 1), i + 1), 0.5));
      }
    }
    int page_size = 0, page_count = 0;
    {
      SQLite::Database raw(other.str(), SQLite::OPEN_READONLY);
      page_size = raw.execAndGet("PRAGMA page_size").getInt();
      page_count = raw.execAndGet("PRAGMA page_count").getInt();
      REQUIRE(raw.execAndGet("PRAGMA freelist_count").getInt() == 0);  // garbage on a free page would go unseen
    }
    REQUIRE(page_count > 20);
    std::string bytes = read_bytes(other.path);
    REQUIRE(bytes.size() == std::size_t(page_size) * page_count);
    std::mt19937 rng(3);
    for (int i = 0; i < page_size; ++i) bytes[std::size_t(page_count / 2) * page_size + i] = static_cast<char>(rng());
    write_bytes(other.path, bytes);
    expect = "is damaged";
  }
  const bool exists = fs::exists(other.path);
  const std::string other_before = exists ? read_bytes(other.path) : "";
  const std::string mine_before = dump_everything(mine.str());
  Cache m(mine.str());
  CHECK_THROWS_WITH_AS(m.merge(other.str()), doctest::Contains(("'" + other.str() + "'").c_str()), CacheError);
  try {
    m.merge(other.str());
  } catch (const CacheError& e) {
    CHECK(contains(e.what(), expect));
  }
  CHECK(fs::exists(other.path) == exists);
  if (exists) CHECK(read_bytes(other.path) == other_before);
  CHECK(dump_everything(mine.str()) == mine_before);
}

TEST_CASE("a filtered export ships only the problems and GPU models asked for; the file then opens read-only") {
  TempPath from, to;
  Cache a(from.str());
  fill(a);
  const auto winner_of = [&](const Cache& c, const DeviceInfo& d, const HistogramProblem& p) {
    const auto w = c.find_winner(d.model_key(), p);
    return w ? describe(*w) : std::string("none");
  };

  // One problem (by a substring of its key) on one model: one run, its winner and the rows it refers to.
  ExportFilter f32_on_h100{{"histogram/f32/"}, {h100().model_key()}};
  std::ostringstream doc;
  const ExportStats exported = a.export_json(doc, f32_on_h100);
  CHECK(exported.runs == 1);
  CHECK(exported.winners == 1);
  {
    Cache b(to.str());
    CHECK(import_text(b, doc.str()) == ImportStats{1, 1, 1, 1, 1, 1});
    const std::vector<Winner> all = b.winners(true);
    REQUIRE(all.size() == 1);
    CHECK(all[0].problem == Problem(f32_problem()));
    CHECK(all[0].model_key == h100().model_key());
    CHECK(winner_of(b, h100(), f32_problem()) == winner_of(a, h100(), f32_problem()));
    CHECK(winner_of(b, a100(), problem(64 * M)) == "none");  // in the source cache, not asked for
    CHECK(winner_of(b, h100(), problem(64 * M)) == "none");
  }

  // The shipped file, made read-only (0444), answers lookups and stays as it was: lookups never write.
  std::filesystem::permissions(to.path, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                            std::filesystem::perms::others_read);
  const std::string before = read_bytes(to.path);
  {
    const Cache shipped = Cache::open_read_only(to.str());
    CHECK(winner_of(shipped, h100(), f32_problem()) == winner_of(a, h100(), f32_problem()));
    HistogramProblem bigger = f32_problem();
    bigger.n *= 4;
    const auto near = nearest_winner(shipped, h100().model_key(), bigger);
    REQUIRE(near.has_value());
    CHECK(near->problem == Problem(f32_problem()));
  }
  CHECK(read_bytes(to.path) == before);
  for (const char* side : {"-wal", "-shm", "-journal"}) CHECK_FALSE(std::filesystem::exists(to.str() + side));

  // Several substrings, either may match; a model the runs were not measured on exports nothing.
  std::ostringstream two;
  CHECK(a.export_json(two, ExportFilter{{"/n=67108864/", "/counters=64"}, {a100().model_key()}}).winners == 1);
  const Json two_doc = Json::parse(two.str());
  REQUIRE(two_doc["runs"].size() == 1);
  CHECK(two_doc["runs"][0]["device"] == a100().model_key());
  CHECK(two_doc["devices"].size() == 1);
  CHECK(two_doc["problems"].size() == 1);
  std::ostringstream counters;
  CHECK(a.export_json(counters, ExportFilter{{"/counters=64"}, {}}).runs == 1);  // on the H100 only
  std::ostringstream none;
  CHECK(a.export_json(none, ExportFilter{{"histogram/f32/"}, {a100().model_key()}}).runs == 0);
  const Json none_doc = Json::parse(none.str());
  CHECK(none_doc["devices"].empty());
  CHECK(none_doc["problems"].empty());
  CHECK(none_doc["templates"].empty());

  // No filter: the whole cache, as before.
  std::ostringstream whole;
  CHECK(a.export_json(whole, ExportFilter{}).runs == 6);
  CHECK(whole.str() == export_text(a));
}

}  // TEST_SUITE("cache_transfer")
