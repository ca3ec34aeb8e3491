#include "cli/output_file.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "autotune/error.hpp"

namespace autotune::cli {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error(fmt::format("cannot write '{}' ({})", path, why));
}

// Every byte, across short writes and signals.
bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// A FIFO or a character device: opened (never created: no O_CREAT) and written. O_APPEND so that /dev/stdout of a
// shell's `>>` appends; harmless on a pipe or a terminal.
void write_through(const std::string& path, std::string_view content) {
  Fd out{::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC)};
  if (out.fd < 0) fail(path, std::strerror(errno));
  struct stat st{};
  if (::fstat(out.fd, &st) != 0) fail(path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(path, "it is a directory");
  if (!write_all(out.fd, content)) fail(path, std::strerror(errno));
  if (::close(std::exchange(out.fd, -1)) != 0) fail(path, std::strerror(errno));
}

// Missing or a regular file: a temporary file in the same directory, renamed over `path` once complete.
void write_atomically(const std::string& path, std::string_view content, const struct stat* existing) {
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  Fd out{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666)};
  if (out.fd < 0) fail(path, fmt::format("cannot create the temporary file '{}': {}", tmp, std::strerror(errno)));
  struct Remove {
    const std::string& path;
    bool keep = false;
    ~Remove() {
      if (!keep) ::unlink(path.c_str());
    }
  } guard{tmp};
  // The replacement keeps the permissions of the file it replaces (an export kept private stays private).
  if (existing && ::fchmod(out.fd, existing->st_mode & 07777) != 0) fail(path, std::strerror(errno));
  if (!write_all(out.fd, content) || ::fsync(out.fd) != 0) fail(path, std::strerror(errno));
  if (::close(std::exchange(out.fd, -1)) != 0) fail(path, std::strerror(errno));
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail(path, std::strerror(errno));
  guard.keep = true;
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISBLK(mode)) return "it is a block device";
  if (S_ISSOCK(mode)) return "it is a socket";
  return "it is not a regular file, a FIFO or a character device";
}

// A name for an open descriptor (/dev/stdout, /dev/fd/3, /proc/self/fd/1): the user means that stream, whatever it
// is, so it is written through, even when it is a regular file that a shell opened (`> out.json`, `>> log`).
bool names_a_descriptor(const std::string& path) {
  return path == "/dev/stdout" || path == "/dev/stderr" || path.rfind("/dev/fd/", 0) == 0 ||
         path.rfind("/proc/self/fd/", 0) == 0;
}

}  // namespace

Written write_output_file(const std::string& path, std::string_view content) {
  if (path.empty()) throw Error("cannot write '' (the file name is empty)");
  struct stat link{};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT) fail(path, std::strerror(errno));
    write_atomically(path, content, nullptr);
    return Written::replaced;
  }
  if (S_ISREG(link.st_mode)) {
    write_atomically(path, content, &link);
    return Written::replaced;
  }
  if (S_ISFIFO(link.st_mode) || S_ISCHR(link.st_mode)) {
    write_through(path, content);
    return Written::through;
  }
  if (!S_ISLNK(link.st_mode)) fail(path, kind_of(link.st_mode));
  // A symbolic link: what it finally points to decides.
  struct stat target{};
  if (::stat(path.c_str(), &target) != 0)
    fail(path, fmt::format("a symbolic link to something that cannot be reached: {}", std::strerror(errno)));
  if (S_ISFIFO(target.st_mode) || S_ISCHR(target.st_mode) || names_a_descriptor(path)) {
    write_through(path, content);
    return Written::through;
  }
  if (!S_ISREG(target.st_mode)) fail(path, fmt::format("a symbolic link to something that is not a file: {}",
                                                       kind_of(target.st_mode)));
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved)) fail(path, std::strerror(errno));
  write_atomically(resolved, content, &target);
  return Written::replaced;
}

}  // namespace autotune::cli
