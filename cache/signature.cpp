// A signature vouches for a whole document: devices, problems, runs, measurements, winners and their cubins. It is
// computed over a canonical form rather than the file's bytes, so that the indentation or key order a tool writes
// does not matter, while any change of a value does.
#include "cache/signature.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "autotune/cache.hpp"
#include "autotune/error.hpp"
#include "core/integrity.hpp"

namespace autotune::cache_detail {

namespace {

constexpr const char* kSignaturePrefix = "autotune-cache-signature 1\n";
constexpr const char* kAlgorithm = "ed25519";

[[noreturn]] void refuse(const std::string& source, const std::string& why) {
  throw CacheError(fmt::format("cannot import {}: {}", source, why));
}

}  // namespace

std::string signed_bytes(const Json& doc) {
  Json unsigned_doc = doc;
  unsigned_doc.erase("signature");
  // ordered_json keeps the order written; the canonical form is the same values in nlohmann::json, whose objects
  // are sorted maps. Strings of a parsed document are valid UTF-8, so the strict dump cannot fail on them.
  const nlohmann::json canonical = nlohmann::json::parse(unsigned_doc.dump(-1, ' ', false, Json::error_handler_t::strict));
  return kSignaturePrefix + canonical.dump();
}

void sign_document(Json& doc, const signing::PrivateKey& key) {
  doc.erase("signature");
  const std::string value = signing::sign(key, signed_bytes(doc));
  doc["signature"] = Json{{"algorithm", kAlgorithm},
                          {"key_id", key.public_key.id()},
                          {"public_key", key.public_key.hex()},
                          {"value", value}};
}

std::string trusted_signer(const Json& doc, const std::vector<std::string>& trusted, const std::string& source) {
  if (trusted.empty()) return {};
  std::vector<signing::PublicKey> keys;
  std::string ids;
  for (const std::string& text : trusted) {
    const auto key = signing::parse_public_key(text);
    if (!key) throw UsageError("a trusted key is not a key written by `autotune keygen`");
    keys.push_back(*key);
    ids += (ids.empty() ? "" : ", ") + key->id();
  }
  const auto it = doc.is_object() ? doc.find("signature") : doc.end();
  if (it == doc.end())
    refuse(source, fmt::format("the document is not signed, and only documents signed by a trusted key ({}) are "
                               "accepted", ids));
  const Fields sig(*it, "signature", source);
  if (sig.text("algorithm") != kAlgorithm)
    sig.fail("algorithm", fmt::format("is '{}', not '{}'", sig.text("algorithm"), kAlgorithm));
  const auto key = signing::parse_public_key(sig.text("public_key", 64));
  if (!key) sig.fail("public_key", "is not 64 hexadecimal digits");
  if (sig.text("key_id") != key->id()) sig.fail("key_id", "is not the id of the public key");
  if (std::find(keys.begin(), keys.end(), *key) == keys.end())
    refuse(source, fmt::format("the document is signed by key {}, which is not a trusted key ({})", key->id(), ids));
  if (!signing::verify(*key, signed_bytes(doc), sig.text("value", 128)))
    refuse(source, fmt::format("the signature of key {} does not match the document: it was changed after it was "
                               "signed", key->id()));
  return key->id();
}

}  // namespace autotune::cache_detail

namespace autotune {

namespace {
std::mutex trusted_mutex;
std::vector<std::string>& trusted_in_code() {
  static std::vector<std::string> keys;
  return keys;
}
}  // namespace

std::string generate_signing_key(const std::string& path) {
  const signing::PrivateKey key = signing::generate();
  const std::string public_path = path + ".pub";
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(public_path, ec)))
    throw Error(fmt::format("'{}' exists already; a key is never overwritten", public_path));
  if (!integrity::create_private_file(path, key.text()))
    throw Error(fmt::format("'{}' exists already; a key is never overwritten", path));
  std::ofstream out(public_path, std::ios::binary | std::ios::trunc);
  out << key.public_key.text();
  if (!out.flush()) throw Error(fmt::format("cannot write the public key to '{}'", public_path));
  return key.public_key.id();
}

void trust_public_key(std::string_view key_text) {
  const auto key = signing::parse_public_key(key_text);
  if (!key) throw UsageError("trust_public_key: not a key written by `autotune keygen`");
  std::lock_guard lock(trusted_mutex);
  trusted_in_code().push_back(key->text());
}

std::vector<std::string> trusted_public_keys() {
  std::vector<std::string> keys;
  {
    std::lock_guard lock(trusted_mutex);
    keys = trusted_in_code();
  }
  const char* env = std::getenv("AUTOTUNE_TRUSTED_KEYS");
  for (std::string_view rest = env ? env : ""; !rest.empty();) {
    const auto colon = rest.find(':');
    const std::string path(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (path.empty()) continue;
    try {
      keys.push_back(signing::read_public_key(path).text());
    } catch (const Error& e) {
      throw Error(fmt::format("AUTOTUNE_TRUSTED_KEYS: {}", e.what()));
    }
  }
  return keys;
}

}  // namespace autotune
