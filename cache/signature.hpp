// Signed export documents (Cache::export_json's signing key, ImportOptions::trusted_keys): the canonical form a
// signature covers, signing, and checking a document's signature against the keys a user trusts. Internal to
// cache/, not installed; the format is documented on Cache::export_json.
#pragma once

#include <string>
#include <vector>

#include "cache/document.hpp"
#include "core/signing.hpp"

namespace autotune::cache_detail {

/// What a signature signs: "autotune-cache-signature 1\n" followed by the canonical form of `doc` without its
/// "signature" member (nlohmann::json's compact dump(): keys sorted by byte, no whitespace).
std::string signed_bytes(const Json& doc);

/// Adds (or replaces) the document's "signature" member, signed with `key`; the member comes last.
void sign_document(Json& doc, const signing::PrivateKey& key);

/// The id of the trusted key whose valid signature `doc` carries; "" when `trusted` (key file texts) is empty (the
/// signature, if any, is not checked: the document is imported unverified). CacheError "cannot import SOURCE: ..."
/// when keys are given and the document is unsigned, signed by another key, or signed by a trusted key but changed
/// since (the signature does not verify), and when the signature member is malformed.
std::string trusted_signer(const Json& doc, const std::vector<std::string>& trusted, const std::string& source);

}  // namespace autotune::cache_detail
