#include "core/integrity.hpp"

#include <nettle/sha2.h>

#include <cstring>

namespace autotune::integrity {

std::string sha256_hex(const void* data, std::size_t size) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, size, static_cast<const std::uint8_t*>(data));
  std::uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof digest);
  for (const std::uint8_t b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

bool is_sha256_hex(std::string_view text) {
  if (text.size() != 2 * SHA256_DIGEST_SIZE) return false;
  for (const char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_elf(const void* data, std::size_t size) {
  return size >= 4 && std::memcmp(data, "\x7f" "ELF", 4) == 0;
}

}  // namespace autotune::integrity
