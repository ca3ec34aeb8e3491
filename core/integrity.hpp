// What makes stored bytes trustworthy enough to use: SHA-256 and an ELF header for cubins, HMAC-SHA256 for the
// files of the user's own compile cache, and the per-user secret files those rest on. Shared by the cache (which
// records a cubin's hash when a run finishes and checks it on import), the on-disk compile cache (core/jit.cpp),
// the runtime lookup (runtime/resolve.cpp, autotune::cubin_unusable) and the signing keys (core/signing.cpp). Not
// installed, not part of the API.
//
// SHA-256 rather than the XXH3 of template_hash(): XXH3 is a fast checksum for telling template versions apart,
// not a hash an adversary cannot collide; a cubin from another machine runs on the user's GPU. nettle (Debian
// nettle-dev) provides it as a small static library for AUTOTUNE_PORTABLE builds; OpenSSL's libcrypto would do
// too but is a much larger static link for a few functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autotune::integrity {

/// SHA-256 of the bytes as 64 lowercase hexadecimal digits.
std::string sha256_hex(const void* data, std::size_t size);
inline std::string sha256_hex(std::string_view text) { return sha256_hex(text.data(), text.size()); }
inline std::string sha256_hex(const std::vector<char>& bytes) { return sha256_hex(bytes.data(), bytes.size()); }

/// 64 lowercase hexadecimal digits: the form sha256_hex writes.
bool is_sha256_hex(std::string_view text);

/// Starts with the ELF magic (0x7f 'E' 'L' 'F') and is at least as long: what NVRTC's cubins are.
bool is_elf(const void* data, std::size_t size);
inline bool is_elf(const std::vector<char>& bytes) { return is_elf(bytes.data(), bytes.size()); }

/// HMAC-SHA256 of `data` under `key`, as 64 lowercase hexadecimal digits.
std::string hmac_sha256_hex(std::string_view key, const void* data, std::size_t size);

/// Bytes as lowercase hexadecimal digits, and back (nullopt unless every character is a hex digit, pairs complete).
std::string to_hex(const void* data, std::size_t size);
std::optional<std::vector<std::uint8_t>> from_hex(std::string_view text);

/// `n` bytes from the kernel's random source (getrandom). Throws autotune::Error when it fails.
std::vector<std::uint8_t> random_bytes(std::size_t n);

/// Why `path` must not be trusted as this user's secret (a key file): "" when it is a regular file owned by the
/// calling user that nobody else can read or write (mode 0600 or stricter), else one phrase ("is readable by other
/// users (mode 0644); chmod 600 it").
std::string private_file_problem(const std::string& path);

/// Creates `path` holding `contents`, mode 0600, atomically: written to a temporary file beside it, then linked
/// under its name, which fails when the name exists. Returns false (and creates nothing) when `path` exists
/// already, whoever made it first; throws autotune::Error naming the file for any other failure.
bool create_private_file(const std::string& path, std::string_view contents);

}  // namespace autotune::integrity
