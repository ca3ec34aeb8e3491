#include "core/signing.hpp"

#include <fmt/format.h>
#include <nettle/eddsa.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "autotune/error.hpp"
#include "core/integrity.hpp"

namespace autotune::signing {

namespace {

constexpr std::string_view kPrivateTag = "autotune-ed25519-private ";
constexpr std::string_view kPublicTag = "autotune-ed25519-public ";

// The 32 bytes of 64 hex digits after `tag` on one line (a trailing newline allowed), or nullopt.
std::optional<std::array<std::uint8_t, 32>> key_bytes(std::string_view text, std::string_view tag) {
  if (!text.starts_with(tag)) return std::nullopt;
  text.remove_prefix(tag.size());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const auto bytes = text.size() == 64 ? integrity::from_hex(text) : std::nullopt;
  if (!bytes) return std::nullopt;
  std::array<std::uint8_t, 32> out{};
  std::memcpy(out.data(), bytes->data(), out.size());
  return out;
}

PublicKey public_of(const std::array<std::uint8_t, 32>& seed) {
  PublicKey p;
  ed25519_sha512_public_key(p.bytes.data(), seed.data());
  return p;
}

std::string read_key_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("key file '{}' cannot be opened", path));
  std::string text;
  // A key file is one short line: reading a few hundred bytes at most keeps a wrong path (a device) harmless.
  text.resize(256);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

}  // namespace

std::string PublicKey::hex() const { return integrity::to_hex(bytes.data(), bytes.size()); }
std::string PublicKey::id() const { return integrity::sha256_hex(bytes.data(), bytes.size()).substr(0, 16); }
std::string PublicKey::text() const { return std::string(kPublicTag) + hex() + "\n"; }
std::string PrivateKey::text() const {
  return std::string(kPrivateTag) + integrity::to_hex(seed.data(), seed.size()) + "\n";
}

PrivateKey generate() {
  PrivateKey k;
  const auto random = integrity::random_bytes(k.seed.size());
  std::memcpy(k.seed.data(), random.data(), k.seed.size());
  k.public_key = public_of(k.seed);
  return k;
}

std::optional<PublicKey> parse_public_key(std::string_view text) {
  if (const auto pub = key_bytes(text, kPublicTag)) return PublicKey{*pub};
  if (const auto seed = key_bytes(text, kPrivateTag)) return public_of(*seed);
  std::string bare = std::string(kPublicTag).append(text);
  if (const auto pub = key_bytes(bare, kPublicTag)) return PublicKey{*pub};
  return std::nullopt;
}

PrivateKey read_private_key(const std::string& path) {
  if (const std::string problem = integrity::private_file_problem(path); !problem.empty())
    throw Error(fmt::format("signing key '{}' {}", path, problem));
  const auto seed = key_bytes(read_key_file(path), kPrivateTag);
  if (!seed)
    throw Error(fmt::format("signing key '{}' is not a private key written by `autotune keygen`", path));
  PrivateKey k;
  k.seed = *seed;
  k.public_key = public_of(k.seed);
  return k;
}

PublicKey read_public_key(const std::string& path) {
  const auto key = parse_public_key(read_key_file(path));
  if (!key) throw Error(fmt::format("key file '{}' is not a key written by `autotune keygen`", path));
  return *key;
}

std::string sign(const PrivateKey& key, std::string_view message) {
  std::uint8_t signature[ED25519_SIGNATURE_SIZE];
  ed25519_sha512_sign(key.public_key.bytes.data(), key.seed.data(), message.size(),
                      reinterpret_cast<const std::uint8_t*>(message.data()), signature);
  return integrity::to_hex(signature, sizeof signature);
}

bool verify(const PublicKey& key, std::string_view message, std::string_view signature_hex) {
  const auto signature = signature_hex.size() == 2 * ED25519_SIGNATURE_SIZE ? integrity::from_hex(signature_hex)
                                                                            : std::nullopt;
  if (!signature) return false;
  return ed25519_sha512_verify(key.bytes.data(), message.size(), reinterpret_cast<const std::uint8_t*>(message.data()),
                               signature->data()) == 1;
}

}  // namespace autotune::signing
