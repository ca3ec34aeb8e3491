// A cache is untrusted input (caches travel between machines, and the cubins they carry run on users' GPUs):
// import refuses documents that break the schema's invariants, without writing anything; what it accepts is data
// recorded as imported (never served as exact, its cubins dropped unless this machine compiles the same bytes)
// unless the document is signed by a trusted key; lookups serve a stored cubin only when it is verifiably what this
// build compiles; merge of the repository's own golden files works; a refused import into a new path leaves no file.
#include <doctest/doctest.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/chrono.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "autotune/resolution.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/integrity.hpp"
#include "core/jit.hpp"
#include "runtime/size_table.hpp"
#include "tests/cpu/cache_fixtures.hpp"
#include "tests/cpu/trust_fixtures.hpp"
#include "tuner/origin.hpp"
#include "runtime/nearest.hpp"

using namespace autotune;
using namespace autotune::test;
using Json = nlohmann::json;

namespace {

ImportStats import_text(Cache& c, const std::string& text, const ImportOptions& options = {}) {
  std::istringstream in(text);
  return c.import_json(in, "doc.json", options);
}

/// what() of the CacheError importing `text` throws ("" and a failed check when it is accepted).
std::string import_error(Cache& c, const std::string& text) {
  try {
    import_text(c, text);
  } catch (const CacheError& e) {
    return e.what();
  }
  FAIL_CHECK("the document was accepted");
  return "";
}

// A cache with one finished H100 run: two ok measurements and one failure, the winner with an ELF cubin.
std::vector<char> good_cubin() { return elf({'\0', 'c', 'u', 'b', 'i', 'n'}); }
void fill(Cache& c) {
  const auto run = c.begin_run(h100(), problem(M), run_info());
  c.add_measurement(run, ok_measurement(config(256, 4), 0.5));
  c.add_measurement(run, failed_measurement(config(2048, 4), MeasurementStatus::invalid_config, "too big"));
  const Measurement best = ok_measurement(config(512, 8), 0.25);
  c.add_measurement(run, best);
  c.finish_run(run, best, good_cubin(), cubin_origin(Problem(problem(M)), best.config, h100().arch()));
}

Json exported() {
  Cache c(":memory:");
  fill(c);
  return Json::parse(export_text(c));
}

std::string hex_sha256_of(const std::vector<char>& bytes) {
  // An independent check of the stored hash: sha256sum of the bytes, through the shell.
  TempPath f;
  write_bytes(f.path, std::string(bytes.begin(), bytes.end()));
  FILE* p = ::popen(("sha256sum " + f.str()).c_str(), "r");
  REQUIRE(p);
  char buf[65] = {};
  const std::size_t n = std::fread(buf, 1, 64, p);
  ::pclose(p);
  REQUIRE(n == 64);
  return std::string(buf, 64);
}

}  // namespace

TEST_SUITE("cache_trust") {

TEST_CASE("a finished run records the SHA-256 of its cubin and what produced it; export carries them") {
  Cache c(":memory:");
  fill(c);
  const auto w = c.find_winner(h100().model_key(), problem(M));
  REQUIRE(w);
  CHECK(w->cubin == good_cubin());
  CHECK(w->cubin_sha256 == hex_sha256_of(good_cubin()));
  CHECK(w->source_sha256.size() == 64);
  CHECK(Json::parse(w->nvrtc_options) == Json::array({"--gpu-architecture=sm_90", "-std=c++17"}));
  const Json doc = Json::parse(export_text(c));
  CHECK(doc["runs"][0]["winner"]["cubin_sha256"] == w->cubin_sha256);
  // A winner must be one of its run's ok measurements, and a cubin an ELF image.
  const auto run = c.begin_run(h100(), problem(2 * M), run_info());
  c.add_measurement(run, ok_measurement(config(256, 4), 0.5));
  CHECK_THROWS_AS(c.finish_run(run, ok_measurement(config(512, 4), 0.5), {}), UsageError);
  CHECK_THROWS_AS(c.finish_run(run, ok_measurement(config(256, 4), 0.5), {'M', 'Z'}), UsageError);
  CHECK_FALSE(c.find_winner(h100().model_key(), problem(2 * M)));
}

TEST_CASE("a document with a foreign cubin, a lying winner or an impossible value is refused, naming it") {
  TempPath file;
  { Cache c(file.str()); }
  const std::string before = dump_everything(file.str());
  Cache c(file.str());
  const std::string future = fmt::format("{:%Y-%m-%dT%H:%M:%S}.000Z", fmt::gmtime(std::time(nullptr) + 3 * 3600));
  struct Case {
    const char* name;
    std::function<void(Json&)> edit;
    const char* expect;
  };
  const std::vector<Case> cases = {
      {"cubin not ELF", [](Json& d) { d["runs"][0]["winner"]["cubin"] = "TVqQAAMAAAAEAAAA"; }, "not an ELF image"},
      {"cubin does not match its hash",
       [](Json& d) { d["runs"][0]["winner"]["cubin"] = "f0VMRgBjdWJpTg=="; },  // 7f 'E' 'L' 'F' 0 'cubiN'
       "does not match the cubin's SHA-256"},
      {"cubin not base64", [](Json& d) { d["runs"][0]["winner"]["cubin"] = "f0VMRg*A"; }, "not base64"},
      {"winner arch is not the device's", [](Json& d) { d["runs"][0]["winner"]["arch"] = "sm_80"; },
       "is not the device's arch"},
      {"tuned_at far in the future", [&](Json& d) { d["runs"][0]["winner"]["tuned_at"] = future; }, "in the future"},
      {"tuned_at not a time", [](Json& d) { d["runs"][0]["winner"]["tuned_at"] = "yesterday"; }, "not a UTC time"},
      {"started_at impossible date", [](Json& d) { d["runs"][0]["started_at"] = "2026-02-30T10:00:00.000Z"; },
       "not a UTC time"},
      {"winner not among the measurements",
       [](Json& d) { d["runs"][0]["winner"]["config"] = config(1024, 2).key(); }, "not one of the run's ok"},
      {"winner with another median", [](Json& d) { d["runs"][0]["winner"]["median_ms"] = 0.01; },
       "not one of the run's ok"},
      {"winner is a failed measurement",
       [](Json& d) { d["runs"][0]["winner"]["config"] = d["runs"][0]["measurements"][1]["config"]; },
       "not one of the run's ok"},
      {"negative time", [](Json& d) { d["runs"][0]["measurements"][0]["median_ms"] = -1.0; }, "median_ms is -1"},
      {"infinite speed", [](Json& d) { d["runs"][0]["measurements"][0]["gbps"] = std::numeric_limits<double>::infinity(); }, "gbps"},
      {"ok with time 0", [](Json& d) { d["runs"][0]["measurements"][0]["median_ms"] = 0.0; }, "median_ms is 0"},
      {"ok with no samples", [](Json& d) { d["runs"][0]["measurements"][0]["samples"] = 0; }, "samples is 0"},
      {"negative spread", [](Json& d) { d["runs"][0]["measurements"][0]["spread"] = -0.5; }, "spread"},
      {"unknown status", [](Json& d) { d["runs"][0]["measurements"][0]["status"] = "great"; }, "not a status"},
      {"config of no family", [](Json& d) { d["runs"][0]["measurements"][0]["config"] = "block=-1"; },
       "not a histogram configuration"},
      {"settings a string", [](Json& d) { d["runs"][0]["settings"] = "[[[[1]]]]"; }, "neither a JSON object"},
      {"template hash not in templates", [](Json& d) { d["runs"][0]["template_hash"] = "00000000000000ff"; },
       "not in the document's templates"},
      {"memory beyond int64", [](Json& d) { d["devices"][0]["memory_bytes"] = 18446744073709551615ull; },
       "too large"},
      {"negative SM count", [](Json& d) { d["devices"][0]["sm_count"] = -132; }, "sm_count"},
      {"problem key that does not parse", [](Json& d) { d["problems"][0]["key"] = "histogram/zzz"; },
       "not a valid histogram problem"},
      {"duplicate measurement",
       [](Json& d) { d["runs"][0]["measurements"].push_back(d["runs"][0]["measurements"][0]); }, "appears twice"},
      {"negative roof", [](Json& d) { d["devices"][0]["roof_gbps"] = -3.0; }, "roof_gbps"},
  };
  for (const Case& k : cases) {
    CAPTURE(k.name);
    Json doc = exported();
    k.edit(doc);
    const std::string err = import_error(c, doc.dump());
    CHECK(contains(err, "'doc.json'"));
    CHECK(contains(err, k.expect));
    CHECK(err.find('\n') == std::string::npos);
  }
  CHECK(dump_everything(file.str()) == before);
  // The unedited document is accepted (the cases fail for their edit, not for something else).
  CHECK(import_text(c, exported().dump()).winners == 1);
}

TEST_CASE("cubins: a cubin without a recorded hash and --no-cubins import the results without it") {
  Json doc = exported();
  doc["runs"][0]["winner"].erase("cubin_sha256");
  {
    Cache c(":memory:");
    const ImportStats s = import_text(c, doc.dump());
    CHECK(s.winners == 1);
    CHECK(s.cubins_dropped == 1);
    const auto w = c.find_winner(h100().model_key(), problem(M));
    REQUIRE(w);
    CHECK(w->cubin.empty());
    CHECK(w->cubin_sha256.empty());
    CHECK(w->config == config(512, 8));
  }
  {
    Cache c(":memory:");
    const ImportStats s = import_text(c, exported().dump(), ImportOptions{false});
    CHECK(s.cubins_dropped == 1);
    const auto w = c.find_winner(h100().model_key(), problem(M));
    REQUIRE(w);
    CHECK(w->cubin.empty());
  }
  {
    // Unsigned, without verify_cubins: the cubin is another machine's code that nothing here vouches for.
    Cache c(":memory:");
    CHECK(import_text(c, exported().dump()).cubins_dropped == 1);
    CHECK(c.find_winner(h100().model_key(), problem(M))->cubin.empty());
  }
  {
    Cache c(":memory:");
    CHECK(import_signed(c, exported().dump()).cubins_dropped == 0);
    CHECK(c.find_winner(h100().model_key(), problem(M))->cubin == good_cubin());
  }
}

TEST_CASE("a stored cubin is served only when it is what this build compiles, hash for hash") {
  TempPath file;
  {
    Cache c(file.str());
    fill(c);
  }
  const std::string source = kernel_source(Problem(problem(M)), Config(config(512, 8)));
  {
    const Cache c = Cache::open_read_only(file.str());
    const auto w = c.find_winner(h100().model_key(), problem(M));
    REQUIRE(w);
    CHECK(cubin_unusable(*w, "sm_90", source) == "");
    CHECK(contains(cubin_unusable(*w, "sm_80", source), "for sm_90, not sm_80"));
    CHECK(contains(cubin_unusable(*w, "sm_90", source + " "), "another source"));
  }
  SUBCASE("a cubin replaced in the file") {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE winners SET cubin = X'7f454c460062616421'");
    const auto w = Cache::open_read_only(file.str()).find_winner(h100().model_key(), problem(M));
    REQUIRE(w);
    CHECK(contains(cubin_unusable(*w, "sm_90", source), "does not match its recorded SHA-256"));
  }
  SUBCASE("a cubin without a hash (written before schema 4)") {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE winners SET cubin_sha256 = NULL");
    const auto w = Cache::open_read_only(file.str()).find_winner(h100().model_key(), problem(M));
    REQUIRE(w);
    CHECK(contains(cubin_unusable(*w, "sm_90", source), "no recorded SHA-256"));
  }
  SUBCASE("a winner that is not its run's measurement is not served at all") {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE winners SET median_ms = 0.001");
    const Cache c = Cache::open_read_only(file.str());
    CHECK_FALSE(c.find_winner(h100().model_key(), problem(M)));
    CHECK_FALSE(nearest_winner(c, h100().model_key(), problem(2 * M)));
    CHECK(c.count_unbacked_winners(h100().model_key(), problem(M)) == 1);
    const Lookup l = lookup_config(c, LookupTarget{h100().model_key(), "sm_90", 132, 0}, problem(M));
    CHECK(l.source == ConfigSource::policy);  // nothing measured is served: the shipped policy answers
    CHECK_FALSE(l.winner);
    CHECK(l.unbacked_skipped == 1);
  }
}

TEST_CASE("a deeply nested document is refused quickly, without building it") {
  Cache c(":memory:");
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& deep :
       {std::string(100'000, '[') + std::string(100'000, ']'),
        [] {
          std::string s;
          for (int i = 0; i < 100'000; ++i) s += "{\"a\":";
          return s + "1" + std::string(100'000, '}');
        }()}) {
    const std::string err = import_error(c, deep);
    CHECK(contains(err, "nested more than 64 levels"));
  }
  // Inside an otherwise valid document (as a run's settings) too.
  Json doc = exported();
  std::string settings = "1";
  for (int i = 0; i < 70; ++i) settings = "{\"a\":" + settings + "}";
  doc["runs"][0]["settings"] = Json::parse(settings);
  CHECK(contains(import_error(c, doc.dump()), "nested more than 64 levels"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(c.winners().empty());
}

TEST_CASE("export and merge of a file with a deeply nested settings text neither crash nor leave files") {
  TempPath file, target;
  {
    Cache c(file.str());
    fill(c);
  }
  {
    SQLite::Database raw(file.str(), SQLite::OPEN_READWRITE);
    SQLite::Statement q(raw, "UPDATE runs SET settings = ?");
    q.bind(1, std::string(100'000, '[') + std::string(100'000, ']'));
    q.exec();
  }
  const Cache c = Cache::open_read_only(file.str());
  const Json doc = Json::parse(export_text(c));
  CHECK(doc["runs"][0]["settings"].is_string());  // kept as text, not parsed
  Cache t(target.str());
  CHECK_THROWS_WITH_AS(t.merge(file.str()), doctest::Contains("settings is neither a JSON object"), CacheError);
  CHECK(t.winners().empty());
}

TEST_CASE("a document larger than the limit is refused before it is parsed whole") {
  // A stream that yields '[' forever stands for a huge document: the limit stops the read, not the end of input.
  struct Endless : std::streambuf {
    char buf[4096];
    Endless() { std::fill(std::begin(buf), std::end(buf), ' '); }
    int_type underflow() override {
      setg(buf, buf, buf + sizeof buf);
      return traits_type::to_int_type(buf[0]);
    }
  } endless;
  std::istream in(&endless);
  Cache c(":memory:");
  CHECK(ImportOptions{}.max_document_bytes == 1024ull * 1024 * 1024);  // the documented default: 1 GiB
  ImportOptions small;
  small.max_document_bytes = 1 << 20;  // the default's behaviour, in a fraction of the time
  CHECK_THROWS_WITH_AS(c.import_json(in, "endless", small), doctest::Contains("larger than the limit of 1048576 bytes"),
                       CacheError);
  // At the limit exactly, a document is read.
  const std::string doc = exported().dump();
  small.max_document_bytes = doc.size();
  std::istringstream exact(doc);
  CHECK(c.import_json(exact, "exact", small).winners == 1);
  small.max_document_bytes = doc.size() - 1;
  std::istringstream over(doc);
  CHECK_THROWS_WITH_AS(c.import_json(over, "over", small), doctest::Contains("larger than the limit"), CacheError);
}

TEST_CASE("the repository's golden schema-2 file merges into a new cache") {
  TempPath target;
  const std::string golden = (fs::path(AUTOTUNE_TEST_DATA_DIR) / "cache_v2.db").string();
  const std::string before = read_bytes(golden);
  Cache c(target.str());
  const ImportStats s = c.merge(golden);
  // 1 device, 1 problem, 1 template, 1 run, 2 measurements, 1 winner; its cubin has no recorded hash.
  CHECK(s == ImportStats{1, 1, 1, 1, 2, 1, 0, 1});
  const auto w = c.find_winner("NVIDIA H200|sm_90|132SM|143155MiB", problem(64 * M));
  REQUIRE(w);
  CHECK(w->config.key() ==
        "priv=shared,R=32,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0");
  CHECK(w->median_ms == 0.0276);
  CHECK(c.merge(golden) == ImportStats{});
  CHECK(read_bytes(golden) == before);
  // The model key's name, arch and SM count must still agree with the columns.
  Json doc = Json::parse(export_text(c));
  doc["devices"][0]["model_key"] = "NVIDIA H200|sm_80|132SM|143155MiB";
  Cache other(":memory:");
  CHECK(contains(import_error(other, doc.dump()), "model_key"));
}

TEST_CASE("a refused import or merge into a path that did not exist leaves no file") {
  TempPath dir;
  fs::create_directories(dir.path);
  const std::string target = (dir.path / "new.db").string();
  const std::string bad = (dir.path / "bad.json").string();
  Json doc = exported();
  doc["runs"][0]["winner"]["cubin"] = "TVqQAAMAAAAEAAAA";
  write_bytes(bad, doc.dump());
  // The exit status, as main maps errors (cli::run throws them).
  auto run_line = [](std::vector<std::string> args) {
    std::ostringstream o, e;
    try {
      return cli::run(cli::parse_command_line(args), o, e);
    } catch (const std::exception&) {
      return 1;
    }
  };
  CHECK(run_line({"import", bad, "--cache", target}) != 0);
  CHECK_FALSE(fs::exists(target));
  const std::string not_a_cache = (dir.path / "x.db").string();
  write_bytes(not_a_cache, "not sqlite at all, not sqlite at all, not sqlite at all, not sqlite at all, not sqlite");
  CHECK(run_line({"merge", not_a_cache, "--cache", target}) != 0);
  CHECK_FALSE(fs::exists(target));
  for (const char* side : {"-wal", "-shm", "-journal"}) CHECK_FALSE(fs::exists(target + side));
  // The good document creates it, with --no-cubins leaving the cubin out.
  write_bytes(bad, exported().dump());
  CHECK(run_line({"import", bad, "--no-cubins", "--cache", target}) == 0);
  const Cache c = Cache::open_read_only(target);
  const auto w = c.find_winner(h100().model_key(), problem(M));
  REQUIRE(w);
  CHECK(w->cubin.empty());
}

}  // TEST_SUITE("cache_trust")
