// libFuzzer target: `autotune import` of an untrusted document into an empty cache in memory. A document is either
// imported or refused with autotune::Error (CacheError naming what is wrong); anything else (a crash, a sanitizer
// report, another exception, a hang) is a bug, and so is an accepted document that leaves the cache breaking an
// invariant of cache/schema.sql: after every import that succeeds, the cache's own audit (Cache::invariant_violations,
// what `autotune check` prints) must find nothing. Seeds: corpus/import/ (exports of the test caches, and documents of
// every family: arg-reductions, segmented reductions with 32- and 64-bit offsets, range histograms, channels, rows).
// Each input is imported three ways: unsigned; as given while trusting a fixed key (the signature checks: unsigned,
// malformed, another key, altered); and, when it is a JSON object, signed with that key first (the trusted path).
// A JSON object is imported twice more, its runs marked as measured by this build's code (as_current_code) so that
// the lookup serves its winners: as given (another machine's evidence) and signed (this GPU model's own). Once such
// a document is accepted, its winners' shapes are looked up as an application on their GPU model would
// (lookups_hold): each size table must cover every n once, in order, each range's configuration valid for the
// problem. A cache from another machine is the input a handle reads.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "autotune/resolution.hpp"
#include "cache/document.hpp"
#include "cache/signature.hpp"
#include "core/signing.hpp"
#include "tests/size_table_check.hpp"

namespace {

const autotune::signing::PrivateKey& fuzz_key() {
  static const autotune::signing::PrivateKey key = [] {
    autotune::signing::PrivateKey k;
    k.seed.fill(7);  // fixed, so that a crash replays
    k.public_key = *autotune::signing::parse_public_key(k.text());
    return k;
  }();
  return key;
}

// The shapes of the first kLookedUp winners (a lookup ranks the whole cache: each costs milliseconds), each at its
// own n, with no hint (n = 0) and at n = 1, looked up in `cache` on the winner's GPU model: a table in which
// autotune::test::size_table_fault finds nothing wrong (no device: the family's shape rules). An autotune::Error is
// a refusal; any other exception or a crash is a bug.
constexpr std::size_t kLookedUp = 4;
void lookups_hold(const autotune::Cache& cache) {
  const std::vector<autotune::Winner> winners = cache.winners();
  for (std::size_t k = 0; k < winners.size() && k < kLookedUp; ++k) {
    const autotune::Winner& w = winners[k];
    for (const std::uint64_t n : {w.problem.n(), std::uint64_t{0}, std::uint64_t{1}}) {
      const autotune::Problem problem = w.problem.with_n(n);
      const autotune::LookupTarget target = autotune::LookupTarget::from_model_key(w.model_key);
      autotune::SizeLookup table;
      try {
        table = autotune::lookup_sizes(cache, target, problem);
      } catch (const autotune::Error&) {
        continue;
      }
      if (const std::string why = autotune::test::size_table_fault(table, problem, nullptr); !why.empty()) {
        std::fprintf(stderr, "fuzz_import: the lookup of %s on %s: %s\n", problem.key().c_str(), w.model_key.c_str(),
                     why.c_str());
        std::abort();
      }
    }
  }
}

// The document with each run of a registered family marked as measured by this build: its family's template hash
// (listed in templates) and this process's NVRTC version, as a tuner of this build writes them.
autotune::cache_detail::Json as_current_code(autotune::cache_detail::Json doc) {
  if (!doc.contains("runs") || !doc["runs"].is_array()) return doc;
  using autotune::cache_detail::Json;
  if (!doc.contains("templates") || !doc["templates"].is_array()) doc["templates"] = Json::array();
  // Both members exist now: neither reference below moves when the other is written (an ordered_map is a vector).
  auto& runs = doc["runs"];
  auto& templates = doc["templates"];
  for (auto& run : runs) {
    if (!run.is_object() || !run.contains("problem") || !run["problem"].is_string()) continue;
    const std::string key = run["problem"].get<std::string>();
    try {
      const autotune::CodeIdentity here = autotune::current_identity(key.substr(0, key.find('/')), 0);
      run["template_hash"] = here.template_hash;
      run["nvrtc_version"] = autotune::nvrtc_version();
      const Json entry = {
          {"family", here.family}, {"hash", here.template_hash}, {"first_seen", "2026-12-05T00:00:00.000Z"}};
      if (std::find(templates.begin(), templates.end(), entry) == templates.end()) templates.push_back(entry);
    } catch (const autotune::Error&) {
    }
  }
  return doc;
}

void import_and_export(const std::string& text, const autotune::ImportOptions& options, bool look_up = false) {
  std::istringstream in(text);
  try {
    autotune::Cache cache(":memory:");
    cache.import_json(in, "fuzz input", options);
    // The validator (cache/document.cpp) let it in: the audit (cache/audit.cpp), written from the schema rather than
    // from the validator, must agree that what was written is sound.
    const auto violations = cache.invariant_violations();
    if (!violations.empty()) {
      for (const std::string& v : violations) std::fprintf(stderr, "fuzz_import: accepted, then: %s\n", v.c_str());
      std::abort();
    }
    // What was accepted must export again (the export reads every table the import wrote).
    std::ostringstream out;
    cache.export_json(out);
    if (look_up) lookups_hold(cache);
  } catch (const autotune::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  import_and_export(text, {});
  autotune::ImportOptions trusted;
  trusted.trusted_keys = {fuzz_key().public_key.text()};
  import_and_export(text, trusted);
  if (auto doc = autotune::cache_detail::parse_bounded(text); doc && doc->is_object()) {
    autotune::cache_detail::Json current = as_current_code(*doc);
    import_and_export(current.dump(), {}, true);
    autotune::cache_detail::sign_document(current, fuzz_key());
    import_and_export(current.dump(), trusted, true);
    autotune::cache_detail::sign_document(*doc, fuzz_key());
    import_and_export(doc->dump(), trusted);
  }
  return 0;
}
