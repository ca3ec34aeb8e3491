// Signed documents for the cache tests: a key pair made once per process, a document signed with it, and import
// options that trust it. The key is made by core/signing.cpp (nettle's Ed25519); the tests of signing itself are in
// tests/cpu/test_cache_trust.cpp.
#pragma once

#include <sstream>
#include <string>

#include "autotune/cache.hpp"
#include "cache/document.hpp"
#include "cache/signature.hpp"
#include "core/signing.hpp"

namespace autotune::test {

/// The process's test signing key.
inline const signing::PrivateKey& test_key() {
  static const signing::PrivateKey key = signing::generate();
  return key;
}

/// `text` (an export document) signed with `key`, as `autotune export --sign` writes it.
inline std::string signed_copy(const std::string& text, const signing::PrivateKey& key = test_key()) {
  auto doc = cache_detail::Json::parse(text);
  cache_detail::sign_document(doc, key);
  return doc.dump(1);
}

/// Import options that trust `key` (`autotune import --trust KEY.pub`).
inline ImportOptions trusting(const signing::PrivateKey& key = test_key()) {
  ImportOptions o;
  o.trusted_keys = {key.public_key.text()};
  return o;
}

/// Imports `text` signed with the test key, trusting it: rows recorded as signed, cubins kept as they are (what an
/// import was before imports were marked: the tests of what survives a transfer use it).
inline ImportStats import_signed(Cache& c, const std::string& text, const std::string& source = "test.json") {
  std::istringstream in(signed_copy(text));
  return c.import_json(in, source, trusting());
}

}  // namespace autotune::test
