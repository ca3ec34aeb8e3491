#include "core/integrity.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "autotune/error.hpp"

namespace autotune::integrity {

std::string to_hex(const void* data, std::size_t size) {
  constexpr char kHex[] = "0123456789abcdef";
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  std::string out;
  out.reserve(2 * size);
  for (std::size_t i = 0; i < size; ++i) {
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 15];
  }
  return out;
}

std::optional<std::vector<std::uint8_t>> from_hex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
  }
  return out;
}

std::string sha256_hex(const void* data, std::size_t size) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, size, static_cast<const std::uint8_t*>(data));
  std::uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  return to_hex(digest, sizeof digest);
}

std::string hmac_sha256_hex(std::string_view key, const void* data, std::size_t size) {
  hmac_sha256_ctx ctx;
  hmac_sha256_set_key(&ctx, key.size(), reinterpret_cast<const std::uint8_t*>(key.data()));
  hmac_sha256_update(&ctx, size, static_cast<const std::uint8_t*>(data));
  std::uint8_t digest[SHA256_DIGEST_SIZE];
  hmac_sha256_digest(&ctx, sizeof digest, digest);
  return to_hex(digest, sizeof digest);
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

std::vector<std::uint8_t> random_bytes(std::size_t n) {
  std::vector<std::uint8_t> out(n);
  for (std::size_t done = 0; done < n;) {
    const ssize_t got = ::getrandom(out.data() + done, n - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw Error(fmt::format("cannot read random bytes from the kernel ({})", std::strerror(errno)));
    done += static_cast<std::size_t>(got);
  }
  return out;
}

std::string private_file_problem(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return fmt::format("cannot be read ({})", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_uid != ::geteuid()) return fmt::format("is owned by another user (uid {})", st.st_uid);
  if ((st.st_mode & 077) != 0)
    return fmt::format("can be read or written by other users (mode {:04o}); chmod 600 it", st.st_mode & 07777);
  return {};
}

bool create_private_file(const std::string& path, std::string_view contents) {
  // A unique temporary name in the same directory, so that link() below is on one file system.
  const std::string tmp = fmt::format("{}.tmp{}-{}", path, ::getpid(), std::random_device{}());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw Error(fmt::format("cannot create '{}' ({})", tmp, std::strerror(errno)));
  bool written = true;
  for (std::size_t done = 0; done < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      written = false;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  written = ::fsync(fd) == 0 && written;
  const int write_errno = errno;
  ::close(fd);
  if (!written) {
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot write '{}' ({})", tmp, std::strerror(write_errno)));
  }
  // link() never replaces: of two processes creating the same key at once, the first wins and the other reads it.
  const int linked = ::link(tmp.c_str(), path.c_str());
  const int link_errno = errno;
  ::unlink(tmp.c_str());
  if (linked == 0) return true;
  if (link_errno == EEXIST) return false;
  throw Error(fmt::format("cannot create '{}' ({})", path, std::strerror(link_errno)));
}

}  // namespace autotune::integrity
