// What makes a stored cubin trustworthy enough to load: its SHA-256 and an ELF header. Shared by the cache (which
// records the hash when a run finishes and checks it on import), the on-disk compile cache (core/jit.cpp) and
// the runtime lookup (runtime/resolve.cpp, autotune::cubin_unusable). Not installed, not part of the API.
//
// SHA-256 rather than the XXH3 of template_hash(): XXH3 is a fast checksum for telling template versions apart,
// not a hash an adversary cannot collide; a cubin from another machine runs on the user's GPU. nettle (Debian
// nettle-dev) provides it as a small static library for AUTOTUNE_PORTABLE builds; OpenSSL's libcrypto would do
// too but is a much larger static link for one function.
#pragma once

#include <cstddef>
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

}  // namespace autotune::integrity
