// A problem's parameters by name (core/key_parameters.hpp): derived from its key by one rule for every family,
// stored in the cache's problem_parameters table (cache/schema.sql) where plain SQL reads them, carried by export
// documents and checked on import. The expected parameters below are read off the keys by hand.
#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "core/key_parameters.hpp"
#include "tests/cpu/cache_fixtures.hpp"

using namespace autotune;
using namespace autotune::test;

namespace {

// "name=value" per parameter, in key order.
std::vector<std::string> named(const std::vector<KeyParameter>& parameters) {
  std::vector<std::string> out;
  for (const KeyParameter& p : parameters) out.push_back(p.name + "=" + p.value);
  return out;
}

std::vector<std::string> derived(const std::string& key, const std::vector<std::string>& part_names) {
  return named(key_parameters(key, part_names));
}

// Why the derivation refuses `key`, or "" when it does not.
std::string refusal(const std::string& key, const std::vector<std::string>& part_names) {
  try {
    key_parameters(key, part_names);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// One problem of each built-in family, with its parameters read off its key by hand, ordered by name.
struct Stored {
  std::string key;
  std::vector<std::string> parameters;  ///< "t:name | t:value", as rows() prints them
};
const Stored kEveryFamily[] = {
    {"reduce/sum/f32/acc=f32/n=1048576/dist=uniform", {"t:acc | t:f32", "t:op | t:sum", "t:type | t:f32"}},
    {"reduce/sum/f32/acc=f32/n=4096/dist=sorted/mode=fast",
     {"t:acc | t:f32", "t:mode | t:fast", "t:op | t:sum", "t:type | t:f32"}},
    {"argreduce/argmin/i64/n=1000003/dist=skewed", {"t:op | t:argmin", "t:type | t:i64"}},
    {"segreduce/argmax/f32/acc=f32/n=2147483653/dist=fixed:1M/offsets=64",
     {"t:acc | t:f32", "t:offsets | t:64", "t:op | t:argmax", "t:type | t:f32"}},
    {"histogram_range/f32/bins=999/edges=irregular/n=67108864/dist=narrow/counters=64",
     {"t:bins | t:999", "t:counters | t:64", "t:edges | t:irregular", "t:type | t:f32"}},
    {"histogram/u8/bins=256/range=[0,256)/n=4000/dist=uniform/channels=4/active=3/ch1=64:[0,256)/ch2=17:[10,200)",
     {"t:active | t:3", "t:bins | t:256", "t:ch1 | t:64:[0,256)", "t:ch2 | t:17:[10,200)", "t:channels | t:4",
      "t:range | t:[0,256)", "t:type | t:u8"}},
    {"histogram/f32/bins=1024/range=[-1,1)/n=5/dist=runs/counters=64",
     {"t:bins | t:1024", "t:counters | t:64", "t:range | t:[-1,1)", "t:type | t:f32"}},
};

std::vector<std::string> stored_parameters(SQLite::Database& db, const std::string& key) {
  SQLite::Statement q(db, "SELECT pp.name, pp.value FROM problem_parameters pp JOIN problems p ON p.id = pp.problem_id"
                          " WHERE p.key = ? ORDER BY pp.name");
  q.bind(1, key);
  std::vector<std::string> out;
  while (q.executeStep()) out.push_back(cell(q.getColumn(0)) + " | " + cell(q.getColumn(1)));
  return out;
}

// A cache file holding one run of each problem of kEveryFamily.
void record_every_family(const std::string& path) {
  Cache c(path);
  for (const Stored& s : kEveryFamily) {
    const auto p = Problem::parse(s.key);
    REQUIRE_MESSAGE(p, s.key);
    c.begin_run(h100(), *p, run_info());
  }
}

}  // namespace

TEST_SUITE("problem_parameters") {

TEST_CASE("named parts are parameters by their name; n and dist are left to the problems table") {
  CHECK(derived("fam/u8/bins=256/range=[0,256)/n=64/dist=uniform/counters=64", {"type"}) ==
        std::vector<std::string>{"type=u8", "bins=256", "range=[0,256)", "counters=64"});
}

TEST_CASE("positional parts take the names their family declares, in order") {
  CHECK(derived("fam/sum/f32/acc=f32/n=1048576/dist=uniform", {"op", "type"}) ==
        std::vector<std::string>{"op=sum", "type=f32", "acc=f32"});
  // A value keeps every character of its part: a user operator's op, a channel's levels.
  CHECK(derived("fam/user:0123456789abcdef/f32/ch1=64:[0,256)", {"op", "type"}) ==
        std::vector<std::string>{"op=user:0123456789abcdef", "type=f32", "ch1=64:[0,256)"});
}

TEST_CASE("a key with no named parts has its positional parameters only") {
  CHECK(derived("fam/argmax/f64", {"op", "type"}) == std::vector<std::string>{"op=argmax", "type=f64"});
  CHECK(derived("fam", {}).empty());
  CHECK(derived("fam/n=5/dist=uniform", {}).empty());
}

TEST_CASE("keys that do not name their parameters one way are refused, saying why") {
  CHECK(contains(refusal("", {}), "names no family"));
  CHECK(contains(refusal("/u8/bins=1", {"type"}), "names no family"));
  CHECK(contains(refusal("fam/u8//bins=1", {"type"}), "part 2 is empty"));
  CHECK(contains(refusal("fam/u8/bins=1/", {"type"}), "part 3 is empty"));
  CHECK(contains(refusal("fam/sum/f32/i32/acc=f32", {"op", "type"}), "'i32' is one more"));
  CHECK(contains(refusal("fam/sum/acc=f32", {"op", "type"}), "it has 1"));
  CHECK(contains(refusal("fam/u8/bins=1/extra", {"type"}), "follows named parts"));
  CHECK(contains(refusal("fam/u8/Bins=1", {"type"}), "'Bins' is not a parameter name"));
  CHECK(contains(refusal("fam/u8/1bins=1", {"type"}), "'1bins' is not a parameter name"));
  CHECK(contains(refusal("fam/u8/=1", {"type"}), "'' is not a parameter name"));
  CHECK(contains(refusal("fam/u8/bins;drop=1", {"type"}), "is not a parameter name"));
  CHECK(contains(refusal("fam/u8/bins=", {"type"}), "has no value"));
  CHECK(contains(refusal("fam/u8/bins=1/bins=2", {"type"}), "'bins' is given twice"));
  CHECK(contains(refusal("fam/u8/type=u16", {"type"}), "'type' is given twice"));
  CHECK(contains(refusal("fam/u8/bins=1", {"Type"}), "'Type' is not a parameter name"));
  CHECK(refusal("fam/u8/bins=1", {"type"}).empty());
}

TEST_CASE("every built-in family names the parts of its keys, and each parses back to its problem") {
  for (const KernelFamily* f : families()) {
    CAPTURE(f->name());
    CHECK_FALSE(f->key_part_names().empty());
  }
  // The built-in families' names, from their key tables (problem_key::WithKey): "reduce/sum/f32/..." is op, type.
  const std::vector<std::string> op_type{"op", "type"}, type{"type"};
  CHECK(family_named("reduce").key_part_names() == op_type);
  CHECK(family_named("argreduce").key_part_names() == op_type);
  CHECK(family_named("segreduce").key_part_names() == op_type);
  CHECK(family_named("histogram").key_part_names() == type);
  CHECK(family_named("histogram_range").key_part_names() == type);
  for (const Stored& s : kEveryFamily) {
    CAPTURE(s.key);
    const auto p = Problem::parse(s.key);
    REQUIRE(p);
    CHECK(key_parameters(*p).size() == s.parameters.size());
  }
}

TEST_CASE("the parameters of a problem of every built-in family are stored and read with plain SQL") {
  TempPath file;
  record_every_family(file.str());
  SQLite::Database db(file.str(), SQLite::OPEN_READONLY);
  for (const Stored& s : kEveryFamily) {
    CAPTURE(s.key);
    CHECK(stored_parameters(db, s.key) == s.parameters);
  }
  // The view joins them to their problem: the histograms of 999 bins or more, by a numeric comparison (as text,
  // '1024' sorts before '999').
  CHECK(rows(db, "SELECT DISTINCT problem FROM parameters WHERE family LIKE 'histogram%' AND name = 'bins'"
                 " AND CAST(value AS INTEGER) >= 999 ORDER BY problem") ==
        std::vector<std::string>{"t:histogram/f32/bins=1024/range=[-1,1)/n=5/dist=runs/counters=64",
                                 "t:histogram_range/f32/bins=999/edges=irregular/n=67108864/dist=narrow/counters=64"});
  CHECK(rows(db, "SELECT family, n, distribution, name, value FROM parameters WHERE problem LIKE 'argreduce/%'") ==
        std::vector<std::string>{"t:argreduce | i:1000003 | t:skewed | t:op | t:argmin",
                                 "t:argreduce | i:1000003 | t:skewed | t:type | t:i64"});
  Cache c(file.str());
  CHECK(c.invariant_violations().empty());
}

TEST_CASE("gc deletes the parameters with their problem") {
  TempPath file;
  record_every_family(file.str());
  Cache c(file.str());
  CHECK(c.mark_stale(current_identity("reduce", 0)) > 0);
  c.gc();
  SQLite::Database db(file.str(), SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("SELECT count(*) FROM problem_parameters WHERE problem_id IN"
                      " (SELECT id FROM problems WHERE family = 'reduce')").getInt() == 0);
  CHECK(db.execAndGet("SELECT count(*) FROM problem_parameters WHERE problem_id NOT IN (SELECT id FROM problems)")
            .getInt() == 0);
  CHECK(db.execAndGet("SELECT count(*) FROM problem_parameters").getInt() > 0);  // the other families' stay
}

}  // TEST_SUITE("problem_parameters")

// Export documents carry each problem's parameters (format_version 2); import checks them against the key.
TEST_SUITE("problem_parameters") {

namespace {

using Json = nlohmann::json;

std::string every_family_export() {
  TempPath file;
  record_every_family(file.str());
  return export_text(Cache(file.str()));
}

// What importing the export of every family's problems, edited by `edit`, into a new file says ("" when accepted),
// and whether the file was left without a row.
std::string import_edited(const std::function<void(Json&)>& edit, bool* unchanged = nullptr) {
  Json doc = Json::parse(every_family_export());
  edit(doc);
  TempPath file;
  std::string error;
  {
    Cache c(file.str());
    const std::string before = dump_everything(file.str());
    std::istringstream in(doc.dump());
    try {
      c.import_json(in, "edited.json");
    } catch (const CacheError& e) {
      error = e.what();
    }
    if (unchanged) *unchanged = dump_everything(file.str()) == before;
  }
  return error;
}

Json& problem_of(Json& doc, const std::string& key) {
  for (Json& p : doc["problems"])
    if (p["key"] == key) return p;
  FAIL("no problem " << key);
  return doc;
}

const std::string kChannels = kEveryFamily[5].key;

}  // namespace

TEST_CASE("an export lists each problem's parameters by name, and imports into the same stored parameters") {
  const Json doc = Json::parse(every_family_export());
  CHECK(doc["format_version"] == 2);
  bool found = false;
  for (const Json& p : doc["problems"]) {
    if (p["key"] != "reduce/sum/f32/acc=f32/n=1048576/dist=uniform") continue;
    found = true;
    CHECK(p["parameters"] == Json{{"acc", "f32"}, {"op", "sum"}, {"type", "f32"}});
    CHECK_FALSE(p.contains("sample_type"));
  }
  CHECK(found);
  bool unchanged = false;
  CHECK(import_edited([](Json&) {}, &unchanged).empty());
  CHECK_FALSE(unchanged);
}

TEST_CASE("an import whose parameters disagree with the key is refused, naming the problem, and writes nothing") {
  struct Edit {
    const char* what;
    std::function<void(Json&)> edit;
    std::string expect;
  };
  const Edit edits[] = {
      {"another value", [](Json& d) { problem_of(d, kChannels)["parameters"]["bins"] = "512"; },
       "parameters bins is '512', not the key's '256'"},
      {"a number for text", [](Json& d) { problem_of(d, kChannels)["parameters"]["bins"] = 256; },
       "'bins' is not text"},
      {"a name the key does not have",
       [](Json& d) { problem_of(d, kChannels)["parameters"]["x'); DROP TABLE runs; --"] = "1"; },
       "is not a parameter of the key"},
      {"n as a parameter", [](Json& d) { problem_of(d, kChannels)["parameters"]["n"] = "4000"; },
       "'n' is not a parameter of the key"},
      {"one missing", [](Json& d) { problem_of(d, kChannels)["parameters"].erase("ch2"); }, "lack the key's ch2"},
      {"none", [](Json& d) { problem_of(d, kChannels).erase("parameters"); }, "parameters is missing"},
      {"not an object", [](Json& d) { problem_of(d, kChannels)["parameters"] = Json::array({"bins=256"}); },
       "is not an object"},
      {"a positional part under another name",
       [](Json& d) {
         Json& p = problem_of(d, kChannels)["parameters"];
         p["sample_type"] = p["type"];
         p.erase("type");
       },
       "'sample_type' is not a parameter of the key"},
  };
  for (const Edit& e : edits) {
    CAPTURE(e.what);
    bool unchanged = false;
    const std::string error = import_edited(e.edit, &unchanged);
    CHECK(contains(error, "problems["));
    CHECK(contains(error, e.expect));
    CHECK(unchanged);
  }
}

TEST_CASE("a format-1 document, whose problems list columns, imports with the parameters of its keys") {
  const std::pair<const char*, std::vector<std::string>> documents[] = {
      {"range_u8.json", {"t:bins | t:255", "t:edges | t:even", "t:type | t:u8"}},
      {"argreduce_f32.json", {"t:op | t:argmax", "t:type | t:f32"}},
      {"histogram_channels.json", kEveryFamily[5].parameters}};
  for (const auto& document : documents) {
    const char* name = document.first;  // not a binding: CAPTURE refers to it (clang 14)
    const std::vector<std::string>& want = document.second;
    CAPTURE(name);
    std::ifstream in(std::string(AUTOTUNE_SOURCE_DIR) + "/tests/fuzz/corpus/import/" + name);
    REQUIRE(in);
    const Json doc = Json::parse(in);
    REQUIRE(doc["format_version"] == 1);
    REQUIRE(doc["problems"][0].contains("sample_type"));
    const std::string key = doc["problems"][0]["key"];
    TempPath file;
    {
      Cache c(file.str());
      std::istringstream text(doc.dump());
      ImportOptions no_cubins;
      no_cubins.cubins = false;
      c.import_json(text, name, no_cubins);
      CHECK(c.invariant_violations().empty());
    }
    SQLite::Database db(file.str(), SQLite::OPEN_READONLY);
    CHECK(stored_parameters(db, key) == want);
  }
}

}  // TEST_SUITE("problem_parameters")
