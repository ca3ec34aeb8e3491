// The parent's side of a tuning worker (`autotune tune --worker`, one process per problem): it is started with a
// pipe on file descriptor kProgressFd, on which it writes one line per event:
//   "start CONFIG_KEY\n"  before a variant is loaded and run on the GPU,
//   "done CONFIG_KEY\n"   once its measurement (or failure) is recorded in the cache.
// A variant that hangs (a kernel that never ends: a wrong loop bound, a spin on a flag nothing sets) cannot be
// stopped from inside the process, and its CUDA context cannot be saved. The parent watches the pipe instead: when a
// variant has been in flight longer than the limit with no line, it ends the worker (SIGKILL; the driver tears the
// context down with it) and names the variant. The next worker is told that name (--timed-out KEY) and records it as
// a launch_error without running it, then resumes the run, as after a fault.
// Only a variant in flight is timed: setup (inputs, the CPU reference, the read roof) and compilation can take longer
// than any kernel without being a hang. The interleaved final re-measurement is not watched (each finalist already
// completed its own measurement).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace autotune::cli {

/// The worker's end of the progress pipe.
inline constexpr int kProgressFd = 3;

/// Splits the pipe's bytes into lines and keeps the variant in flight (the last "start" not followed by its "done").
class ProgressLines {
 public:
  /// Feeds bytes as read; returns how many complete lines they finished.
  std::size_t feed(std::string_view bytes);
  const std::string& in_flight() const { return in_flight_; }

 private:
  std::string partial_, in_flight_;
};

struct WorkerResult {
  int exit_code = -1;     ///< as a shell reports it: the exit status, or 128 + signal; -1 when it could not start
  bool timed_out = false;  ///< ended by the watchdog: `in_flight` ran longer than the limit
  std::string in_flight;   ///< the variant that was running when it was ended (or died)
};

/// Starts `exe` with `argv` (argv[0] included), the write end of a pipe as its kProgressFd, and waits for it to
/// end, killing it when a variant stays in flight longer than `limit` (zero or less: never). Throws nothing;
/// `err` gets a line when the process cannot be started.
WorkerResult run_watched(const std::string& exe, const std::vector<std::string>& argv,
                         std::chrono::milliseconds limit, std::string& err);

}  // namespace autotune::cli
