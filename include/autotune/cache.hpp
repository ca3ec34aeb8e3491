// The cache: an SQLite file holding devices, problems, tuning runs, every measurement and the winners.
//
// Schema version 1 (PRAGMA user_version = 1); the tables are documented in cache/schema.sql, which is the
// single source of the DDL (embedded at build time). Users may read the file with the sqlite3 shell.
//
// Thread-safety: one Cache object per thread. Several processes may open the same file (WAL mode, busy timeout).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autotune/config.hpp"
#include "autotune/device.hpp"
#include "autotune/problem.hpp"

namespace autotune {

/// Outcome of one variant in a tuning run. Stored as text (to_string) so the sqlite3 shell shows it.
enum class MeasurementStatus {
  ok,              ///< compiled, launched, counts exact, timed
  compile_error,   ///< NVRTC rejected the source; the log is kept
  invalid_config,  ///< exceeds a device limit (threads, shared memory); never launched
  launch_error,    ///< the launch or the kernel failed on the GPU
  wrong_result,    ///< ran but the counts differ from the CPU reference
};
std::string_view to_string(MeasurementStatus s);
std::optional<MeasurementStatus> parse_measurement_status(std::string_view text);

struct Measurement {
  HistogramConfig config;
  MeasurementStatus status = MeasurementStatus::ok;
  std::string log;            ///< compile log or error text; empty when ok
  double median_ms = 0.0;     ///< median kernel time over the samples (0 when not ok)
  double spread = 0.0;        ///< (max - min) / median over the samples
  int samples = 0;            ///< number of timed samples
  double gbps = 0.0;          ///< input bytes / median time, in GB/s (1e9 bytes per second)
};

/// The best configuration for one problem on one device model.
struct Winner {
  std::string model_key;       ///< DeviceInfo::model_key()
  std::string device_name;
  std::string arch;            ///< "sm_90"
  HistogramProblem problem;
  HistogramConfig config;
  double median_ms = 0.0;
  double gbps = 0.0;
  std::int64_t run_id = 0;
  std::string tuned_at;        ///< UTC time, ISO 8601
  std::vector<char> cubin;     ///< the compiled winner for `arch`; may be empty
};

struct RunInfo {
  std::string strategy = "exhaustive";
  std::string tool_version;
};

class Cache {
 public:
  /// Opens (creating if needed) the cache at `path`; ":memory:" gives a private in-memory database.
  /// Creates missing parent directories. Throws CacheError naming the file when it is not an SQLite database,
  /// is corrupt, or was written by a newer schema version; the file is never modified in that case.
  explicit Cache(const std::string& path);
  ~Cache();
  Cache(Cache&&) noexcept;
  Cache& operator=(Cache&&) noexcept;
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  const std::string& path() const;

  /// $AUTOTUNE_CACHE if set, else $XDG_CACHE_HOME/autotune/autotune.db, else $HOME/.cache/autotune/autotune.db.
  static std::string default_path();

  /// Current schema version written by this code.
  static int schema_version();

  /// Starts a tuning run (inserts the device and problem rows if new) and returns its id.
  std::int64_t begin_run(const DeviceInfo& device, const HistogramProblem& problem, const RunInfo& info);
  /// Records one measurement of a run. Each call is its own transaction: an interrupted run keeps what it measured.
  void add_measurement(std::int64_t run_id, const Measurement& m);
  /// Marks the run finished and stores the winner (replacing an earlier winner for the same model and problem),
  /// in one transaction.
  void finish_run(std::int64_t run_id, const Measurement& best, const std::vector<char>& cubin);

  /// Measurements of one run, in insertion order.
  std::vector<Measurement> measurements(std::int64_t run_id) const;

  /// Winner for exactly this problem on this device model.
  std::optional<Winner> find_winner(const std::string& model_key, const HistogramProblem& problem) const;
  /// Winner for the same histogram shape (type, bins, range, distribution) on this model whose n is closest to
  /// problem.n (by |log n ratio|); nullopt if the shape was never tuned on this model.
  std::optional<Winner> find_nearest_winner(const std::string& model_key, const HistogramProblem& problem) const;
  /// Every winner, ordered by device name then problem key.
  std::vector<Winner> winners() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autotune
