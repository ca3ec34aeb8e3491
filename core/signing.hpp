// Ed25519 keys and signatures for export documents (nettle's hogweed: ed25519_sha512_sign / _verify), and the key
// files `autotune keygen` writes. Not installed; the API is in include/autotune/cache.hpp (generate_signing_key,
// trust_public_key, ImportOptions::trusted_keys, Cache::export_json's signing key).
//
// Key files are one line of text:
//   private: "autotune-ed25519-private <64 hex digits: the 32-byte secret seed>"   (mode 0600, owned by the user)
//   public:  "autotune-ed25519-public <64 hex digits: the 32-byte public key>"
// A key's id is the first 16 hex digits of the SHA-256 of its 32 public bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace autotune::signing {

struct PublicKey {
  std::array<std::uint8_t, 32> bytes{};
  std::string hex() const;
  std::string id() const;    ///< first 16 hex digits of SHA-256(bytes)
  std::string text() const;  ///< the public key file's line, with its newline
  bool operator==(const PublicKey&) const = default;
};

struct PrivateKey {
  std::array<std::uint8_t, 32> seed{};
  PublicKey public_key;
  std::string text() const;  ///< the private key file's line, with its newline
};

/// A new key pair from the kernel's random source.
PrivateKey generate();

/// A public key from a key file's text: a public key line, a private key line (its public half) or 64 bare hex
/// digits; nullopt for anything else.
std::optional<PublicKey> parse_public_key(std::string_view text);

/// The private key in `path`; autotune::Error naming the file when it is not this user's private file (mode 0600)
/// or not a private key line.
PrivateKey read_private_key(const std::string& path);
/// The public key in `path` (a public or a private key file); autotune::Error naming the file otherwise.
PublicKey read_public_key(const std::string& path);

/// Ed25519 signature of `message`, as 128 hex digits.
std::string sign(const PrivateKey& key, std::string_view message);
/// Whether `signature_hex` (128 hex digits) is `key`'s signature of `message`.
bool verify(const PublicKey& key, std::string_view message, std::string_view signature_hex);

}  // namespace autotune::signing
