#include "cli/watchdog.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

extern char** environ;

namespace autotune::cli {

std::size_t ProgressLines::feed(std::string_view bytes) {
  partial_.append(bytes);
  std::size_t lines = 0;
  for (std::size_t nl; (nl = partial_.find('\n')) != std::string::npos; ++lines) {
    const std::string line = partial_.substr(0, nl);
    partial_.erase(0, nl + 1);
    if (line.rfind("start ", 0) == 0) in_flight_ = line.substr(6);
    else if (line.rfind("done ", 0) == 0 && line.substr(5) == in_flight_) in_flight_.clear();
  }
  return lines;
}

namespace {

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

WorkerResult run_watched(const std::string& exe, const std::vector<std::string>& argv,
                         std::chrono::milliseconds limit, std::string& err) {
  WorkerResult result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    err = fmt::format("cannot create the worker's progress pipe ({})", std::strerror(errno));
    return result;
  }
  // A spawn action dup2(3, 3) clears O_CLOEXEC only in newer C libraries (glibc 2.29 on, as POSIX.1-2024 asks):
  // when the write end already is fd 3, move it out of the way so that the child's dup2 is a real one everywhere.
  if (fds[1] == kProgressFd) {
    const int moved = ::fcntl(fds[1], F_DUPFD_CLOEXEC, kProgressFd + 1);
    ::close(fds[1]);
    fds[1] = moved;
    if (moved < 0) {
      ::close(fds[0]);
      err = fmt::format("cannot create the worker's progress pipe ({})", std::strerror(errno));
      return result;
    }
  }
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (std::string& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  // dup2 leaves the new descriptor without O_CLOEXEC: the worker inherits exactly this one end.
  ::posix_spawn_file_actions_adddup2(&actions, fds[1], kProgressFd);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, exe.c_str(), &actions, nullptr, cargv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    err = fmt::format("cannot start a worker process ({})", std::strerror(rc));
    return result;
  }
  using Clock = std::chrono::steady_clock;
  ProgressLines lines;
  Clock::time_point started{};  // the last line: the variant in flight started then (or later)
  for (;;) {
    int timeout_ms = -1;
    if (!lines.in_flight().empty() && limit.count() > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(started + limit - Clock::now());
      timeout_ms = static_cast<int>(std::max<long long>(0, left.count()));
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;  // cannot watch any more: wait for it as before
    }
    if (ready == 0) {  // the variant in flight made no progress within the limit
      ::kill(pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the worker closed the pipe: it is ending
    if (lines.feed(std::string_view(buf, static_cast<std::size_t>(n))) > 0) started = Clock::now();  // progress
  }
  ::close(fds[0]);
  result.exit_code = wait_for(pid);
  result.in_flight = lines.in_flight();
  return result;
}

}  // namespace autotune::cli
