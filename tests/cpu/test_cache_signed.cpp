// What travels between machines is data, never code nobody vouches for (README "What a cache file is trusted for"):
// a self-consistent forged export is imported as data (its cubin dropped, its winner never exact), an imported
// winner never displaces local evidence nor resumes as a local run, and a document signed by a trusted key
// (keygen, export --sign, import --trust, or opened as an application's shipped cache) is served as tuned, cubins
// and all, with no compile. The signature covers a canonical form: any changed value breaks it, formatting does not.
#include <doctest/doctest.h>

#include <fmt/chrono.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <ctime>
#include <sstream>
#include <string>
#include <vector>

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

using namespace autotune;
using namespace autotune::test;
using Json = nlohmann::ordered_json;

namespace {

constexpr const char* kEvilName = "NVIDIA H100 80GB HBM3 (evil)";

// The run of this build's histogram code, so that a lookup serves it (template hash and NVRTC of this process).
RunInfo current_run() { return run_info(current_identity("histogram", 0).template_hash, nvrtc_version(), 0); }

// A real-looking export of one finished H100 run of u8/256/64M, measured with this build's code.
Json honest_export() {
  Cache c(":memory:");
  tune(c, h100(), problem(64 * M), config(512, 8), elf({'\0', 'o', 'k'}), current_run(), 0.5);
  return Json::parse(export_text(c));
}

// The forgery of the finding this file answers: a self-consistent document with its own cubin (1,164 bytes) and
// cubin_sha256, the source_sha256 anyone computes from the public template, the options and NVRTC version of the
// importing machine, and one made-up measurement dated ten minutes ago, on `device_name` (our model's name, or a
// made-up model).
Json forgery(const std::string& device_name) {
  Json doc = honest_export();
  const std::string model_key = fmt::format("{}|sm_90|132SM|81090MiB", device_name);
  doc["devices"][0]["name"] = device_name;
  doc["devices"][0]["model_key"] = model_key;
  const std::string when = fmt::format("{:%Y-%m-%dT%H:%M:%S}.000Z", fmt::gmtime(std::time(nullptr) - 600));
  const HistogramConfig c = config(1024, 16, true);
  std::string cubin = std::string("\x7f" "ELF", 4) + std::string(1160, '\x90');
  Json& run = doc["runs"][0];
  run["device"] = model_key;
  run["started_at"] = when;
  run["finished_at"] = when;
  run["measurements"] = Json::array({Json{{"config", c.key()}, {"status", "ok"}, {"log", ""}, {"median_ms", 0.001},
                                          {"spread", 0.0}, {"samples", 20}, {"gbps", 67108.864}, {"roof_pct", nullptr}}});
  Json& w = run["winner"];
  w["config"] = c.key();
  w["median_ms"] = 0.001;
  w["gbps"] = 67108.864;
  w["tuned_at"] = when;
  w["cubin"] = cache_detail::base64_encode(cubin.data(), cubin.size());
  w["cubin_sha256"] = integrity::sha256_hex(cubin);
  w["source_sha256"] = integrity::sha256_hex(kernel_source(Problem(problem(64 * M)), Config(c)));
  w["nvrtc_options"] = nlohmann::json(jit::options_for("sm_90")).dump();
  w["nvrtc_version"] = nvrtc_version();
  return doc;
}

// Runs a command line as `autotune` does; the exit code (1 for what main reports as an error).
int run_line(std::vector<std::string> args, std::string* out = nullptr) {
  std::ostringstream o, e;
  try {
    const int code = cli::run(cli::parse_command_line(args), o, e);
    if (out) *out = o.str();
    return code;
  } catch (const std::exception& ex) {
    if (out) *out = ex.what();
    return 1;
  }
}

LookupTarget h100_target() { return LookupTarget{h100().model_key(), "sm_90", 132, 0}; }

std::string import_error(Cache& c, const std::string& text, const ImportOptions& options) {
  std::istringstream in(text);
  try {
    c.import_json(in, "doc.json", options);
  } catch (const CacheError& e) {
    return e.what();
  }
  FAIL_CHECK("the document was accepted");
  return "";
}

}  // namespace

TEST_SUITE("cache_signed") {

TEST_CASE("a self-consistent forgery on this GPU model is imported as data: its cubin dropped, never exact") {
  TempPath dir;
  fs::create_directories(dir.path);
  const std::string doc = (dir.path / "forged.json").string(), cache = (dir.path / "cache.db").string();
  write_bytes(doc, forgery(h100().name).dump());
  std::string out;
  // `import` as a user runs it: NVRTC here compiles the recorded source (when it can) and gets other bytes.
  REQUIRE(run_line({"import", doc, "--cache", cache}, &out) == 0);
  CHECK(contains(out, "recorded as imported"));
  CHECK(contains(out, "1 cubin left out"));
  const Cache c = Cache::open_read_only(cache);
  const auto w = c.find_winner(h100().model_key(), problem(64 * M));
  REQUIRE(w);
  CHECK(w->origin == "imported");
  CHECK_FALSE(w->trusted());
  CHECK(w->cubin.empty());
  CHECK(w->cubin_sha256.empty());
  // The configuration is served (it is one of our own variants) but not as exact, and strict mode refuses it.
  const Lookup l = lookup_config(c, h100_target(), problem(64 * M));
  REQUIRE(l.winner);
  CHECK(l.source == ConfigSource::similar_device);
  CHECK(contains(l.distance, "imported from another machine"));
  const SizeLookup sizes = lookup_sizes(c, h100_target(), problem(64 * M));
  CHECK(size_table_violation(sizes.sizes, sizes.at_hint, 64 * M, Requirement::exact) != "");
  CHECK(size_table_violation(sizes.sizes, sizes.at_hint, 0, Requirement::exact) != "");
  for (const SizeRange& r : sizes.sizes) CHECK(r.source_at(64 * M) != ConfigSource::exact);
  CHECK(size_table_violation(sizes.sizes, sizes.at_hint, 64 * M, Requirement::tuned) == "");
  CHECK(c.invariant_violations().empty());
}

TEST_CASE("a forgery on a made-up GPU model is served to a real one of its arch without its cubin") {
  Cache c(":memory:");
  ImportOptions options;
  options.verify_cubins = true;
  std::istringstream in(forgery(kEvilName).dump());
  const ImportStats s = c.import_json(in, "forged.json", options);
  CHECK(s.winners == 1);
  CHECK(s.cubins_dropped == 1);
  CHECK(s.cubins_verified == 0);
  const Lookup l = lookup_config(c, LookupTarget{"NVIDIA H200|sm_90|132SM|143155MiB", "sm_90", 132, 0}, problem(64 * M));
  REQUIRE(l.winner);
  CHECK(l.source == ConfigSource::similar_device);
  CHECK(l.winner->device_name == kEvilName);
  CHECK(l.winner->cubin.empty());
  CHECK(cubin_unusable(*l.winner, "sm_90", kernel_source(Problem(problem(64 * M)), l.config)) == "no cubin stored");
}

TEST_CASE("an imported winner never replaces a local one, nor resumes as a local run; a signed copy vouches for it") {
  Cache c(":memory:");
  tune(c, h100(), problem(64 * M), config(256, 4), elf({'L'}), current_run(), 0.9);  // local, slower, newer
  const Json forged = forgery(h100().name);
  std::istringstream in(forged.dump());
  CHECK(c.import_json(in, "forged.json").winners == 0);
  CHECK(c.find_winner(h100().model_key(), problem(64 * M))->origin == "local");
  CHECK(c.find_winner(h100().model_key(), problem(64 * M))->config == config(256, 4));
  CHECK(lookup_config(c, h100_target(), problem(64 * M)).source == ConfigSource::exact);

  // Imported first as data, then signed by a trusted key: the same run becomes the signed one, its winner exact.
  Cache d(":memory:");
  std::istringstream first(forged.dump());
  CHECK(d.import_json(first, "forged.json").winners == 1);
  CHECK(lookup_config(d, h100_target(), problem(64 * M)).source == ConfigSource::similar_device);
  CHECK(import_signed(d, forged.dump()).winners == 1);
  const auto w = d.find_winner(h100().model_key(), problem(64 * M));
  REQUIRE(w);
  CHECK(w->origin == "signed:" + test_key().public_key.id());
  CHECK(w->trusted());
  CHECK(!w->cubin.empty());  // kept as signed, without any compile
  CHECK(lookup_config(d, h100_target(), problem(64 * M)).source == ConfigSource::exact);
  CHECK(d.invariant_violations().empty());

  // An interrupted run from another machine is not resumed by `tune` here: its measurements are not ours.
  Cache source(":memory:");
  const auto run = source.begin_run(h100(), problem(64 * M), run_info("00000000000000aa", 12040, 12040));
  source.add_measurement(run, ok_measurement(config(256, 4), 0.5));
  const CodeIdentity code{"00000000000000aa", 12040, 12040};
  REQUIRE(source.resumable_run(h100().model_key(), problem(64 * M), code, "exhaustive"));  // where it was measured
  Cache e(":memory:");
  std::istringstream cut_in(export_text(source));
  CHECK(e.import_json(cut_in, "cut.json").runs == 1);
  CHECK_FALSE(e.resumable_run(h100().model_key(), problem(64 * M), code, "exhaustive"));
}

TEST_CASE("keygen, export --sign and import --trust: signed results are exact and keep their cubins") {
  TempPath dir;
  fs::create_directories(dir.path);
  const std::string key = (dir.path / "release.key").string(), source = (dir.path / "source.db").string(),
                    doc = (dir.path / "app.json").string(), target = (dir.path / "app.db").string();
  std::string out;
  REQUIRE(run_line({"keygen", "--output", key}, &out) == 0);
  CHECK(contains(out, "created key "));
  struct stat st {};
  REQUIRE(::stat(key.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(contains(read_bytes(key + ".pub"), "autotune-ed25519-public "));
  CHECK(run_line({"keygen", "--output", key}, &out) == 1);  // never overwritten
  CHECK(contains(out, "exists already"));
  {
    Cache c(source);
    tune(c, h100(), problem(64 * M), config(512, 8), elf({'\0', 's'}), current_run(), 0.5);
  }
  REQUIRE(run_line({"export", "--cache", source, "--sign", key, "--output", doc}, &out) == 0);
  const Json signed_doc = Json::parse(read_bytes(doc));
  REQUIRE(signed_doc.contains("signature"));
  CHECK(signed_doc["signature"]["algorithm"] == "ed25519");
  CHECK(signed_doc.back() == signed_doc["signature"]);  // the last member
  REQUIRE(run_line({"import", doc, "--trust", key + ".pub", "--cache", target}, &out) == 0);
  CHECK(contains(out, "signed by trusted key " + std::string(signed_doc["signature"]["key_id"])));
  const Cache c = Cache::open_read_only(target);
  const auto w = c.find_winner(h100().model_key(), problem(64 * M));
  REQUIRE(w);
  CHECK(w->origin == "signed:" + std::string(signed_doc["signature"]["key_id"]));
  CHECK(w->cubin == elf({'\0', 's'}));
  CHECK(lookup_config(c, h100_target(), problem(64 * M)).source == ConfigSource::exact);

  // A signing key others can read is refused before anything is written.
  fs::permissions(key, fs::perms::group_read, fs::perm_options::add);
  const std::string loose = (dir.path / "loose.json").string();
  CHECK(run_line({"export", "--cache", source, "--sign", key, "--output", loose}, &out) == 1);
  CHECK(contains(out, "'" + key + "'"));
  CHECK(contains(out, "chmod 600"));
  CHECK_FALSE(fs::exists(loose));
}

TEST_CASE("import --trust refuses what its key did not sign, or what was changed after signing, naming it") {
  Cache c(":memory:");
  const Json doc = honest_export();
  const std::string text = signed_copy(doc.dump());
  SUBCASE("a value changed after signing: one measurement's time") {
    Json changed = Json::parse(text);
    changed["runs"][0]["measurements"][0]["median_ms"] = 0.25;
    changed["runs"][0]["winner"]["median_ms"] = 0.25;
    CHECK(contains(import_error(c, changed.dump(), trusting()), "does not match the document"));
  }
  SUBCASE("a byte of the cubin changed, with its hash") {
    Json changed = Json::parse(text);
    std::vector<char> cubin = elf({'\0', 'o', 'K'});
    changed["runs"][0]["winner"]["cubin"] = cache_detail::base64_encode(cubin.data(), cubin.size());
    changed["runs"][0]["winner"]["cubin_sha256"] = integrity::sha256_hex(cubin);
    CHECK(contains(import_error(c, changed.dump(), trusting()), "does not match the document"));
  }
  SUBCASE("signed by another key") {
    const signing::PrivateKey other = signing::generate();
    CHECK(contains(import_error(c, signed_copy(doc.dump(), other), trusting()),
                   "signed by key " + other.public_key.id() + ", which is not a trusted key"));
  }
  SUBCASE("not signed") {
    CHECK(contains(import_error(c, doc.dump(), trusting()), "the document is not signed"));
  }
  SUBCASE("a signature whose key id is not its key's") {
    Json changed = Json::parse(text);
    changed["signature"]["key_id"] = "0000000000000000";
    CHECK(contains(import_error(c, changed.dump(), trusting()), "signature.key_id is not the id"));
  }
  CHECK(c.winners().empty());
  // The formatting of the text is not signed: reindented, with the members in another order, it still verifies.
  Json reordered = Json::object();
  const Json original = Json::parse(text);
  for (auto it = original.rbegin(); it != original.rend(); ++it) reordered[it.key()] = it.value();
  std::istringstream in(reordered.dump(4));
  CHECK(c.import_json(in, "reordered.json", trusting()).winners == 1);
  // Without --trust, a signed document is imported as unverified data.
  Cache d(":memory:");
  std::istringstream plain(text);
  CHECK(d.import_json(plain, "doc.json").winners == 1);
  CHECK(d.find_winner(h100().model_key(), problem(64 * M))->origin == "imported");
}

TEST_CASE("an application's shipped cache: a signed document opened as the cache, trusted by its public key") {
  TempPath dir;
  fs::create_directories(dir.path);
  const std::string shipped = (dir.path / "app-tuned.json").string();
  const signing::PrivateKey developers = signing::generate();  // the process trusts it below, for good
  write_bytes(shipped, signed_copy(honest_export().dump(), developers));
  SUBCASE("no trusted key: read as imported data, the cubin dropped") {
    const Cache c = Cache::open_read_only(shipped);
    const auto w = c.find_winner(h100().model_key(), problem(64 * M));
    REQUIRE(w);
    CHECK(w->origin == "imported");
    CHECK(w->cubin.empty());
    CHECK(lookup_config(c, h100_target(), problem(64 * M)).source == ConfigSource::similar_device);
  }
  SUBCASE("trusted through $AUTOTUNE_TRUSTED_KEYS: exact, with its cubin as it was signed") {
    const std::string pub = (dir.path / "developers.pub").string();
    write_bytes(pub, developers.public_key.text());
    ::setenv("AUTOTUNE_TRUSTED_KEYS", ("/nonexistent-first-is-skipped-not:" + pub).c_str(), 1);
    CHECK_THROWS_WITH_AS(Cache::open_read_only(shipped), doctest::Contains("AUTOTUNE_TRUSTED_KEYS"), Error);
    ::setenv("AUTOTUNE_TRUSTED_KEYS", pub.c_str(), 1);
    const Cache c = Cache::open_read_only(shipped);
    ::unsetenv("AUTOTUNE_TRUSTED_KEYS");
    const auto w = c.find_winner(h100().model_key(), problem(64 * M));
    REQUIRE(w);
    CHECK(w->origin == "signed:" + developers.public_key.id());
    CHECK(w->cubin == elf({'\0', 'o', 'k'}));
    CHECK(lookup_config(c, h100_target(), problem(64 * M)).source == ConfigSource::exact);
  }
  SUBCASE("trusted in code (trust_public_key): a changed document is refused, naming it") {
    trust_public_key(developers.public_key.text());
    CHECK(Cache::open_read_only(shipped).find_winner(h100().model_key(), problem(64 * M))->trusted());
    Json changed = Json::parse(read_bytes(shipped));
    changed["runs"][0]["measurements"][0]["samples"] = 21;
    write_bytes(shipped, changed.dump());
    CHECK_THROWS_WITH_AS(Cache::open_read_only(shipped),
                         doctest::Contains(("'" + shipped + "'").c_str()), CacheError);
    CHECK_THROWS_AS(trust_public_key("not a key"), UsageError);
  }
}

TEST_CASE("a cubin this machine's NVRTC compiles to the same bytes is kept from an unsigned document") {
  if (nvrtc_version() == 0) {
    MESSAGE("skipped: NVRTC cannot be loaded here");
    return;
  }
  const HistogramProblem p = problem(64 * M);
  const HistogramConfig cfg = config(512, 8);
  const jit::CompileResult real = jit::compile(kernel_source(Problem(p), Config(cfg)), "histogram.cu", "sm_90");
  REQUIRE_MESSAGE(real.ok, real.log);
  Cache source(":memory:");
  tune(source, h100(), p, cfg, real.cubin, current_run(), 0.5);
  ImportOptions verify;
  verify.verify_cubins = true;
  Cache c(":memory:");
  std::istringstream in(export_text(source));
  const ImportStats s = c.import_json(in, "real.json", verify);
  CHECK(s.cubins_verified == 1);
  CHECK(s.cubins_dropped == 0);
  const auto w = c.find_winner(h100().model_key(), p);
  REQUIRE(w);
  CHECK(w->cubin == real.cubin);
  CHECK(w->origin == "imported");  // the code is verified, the timing is still another machine's
  CHECK(cubin_unusable(*w, "sm_90", kernel_source(Problem(p), Config(cfg))) == "");
}

}  // TEST_SUITE("cache_signed")
