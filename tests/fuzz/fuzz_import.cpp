// libFuzzer target: `autotune import` of an untrusted document into an empty cache in memory. A document is either
// imported or refused with autotune::Error (CacheError naming what is wrong); anything else (a crash, a sanitizer
// report, another exception, a hang) is a bug. Seeds: corpus/import/ (exports of the test caches).
// Each input is imported three ways: unsigned; as given while trusting a fixed key (the signature checks: unsigned,
// malformed, another key, altered); and, when it is a JSON object, signed with that key first (the trusted path).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "cache/document.hpp"
#include "cache/signature.hpp"
#include "core/signing.hpp"

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

void import_and_export(const std::string& text, const autotune::ImportOptions& options) {
  std::istringstream in(text);
  try {
    autotune::Cache cache(":memory:");
    cache.import_json(in, "fuzz input", options);
    // What was accepted must export again (the export reads every table the import wrote).
    std::ostringstream out;
    cache.export_json(out);
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
    autotune::cache_detail::sign_document(*doc, fuzz_key());
    import_and_export(doc->dump(), trusted);
  }
  return 0;
}
