// The cache: an SQLite file holding devices, problems, tuning runs, every measurement and the winners.
//
// Schema version 5 (PRAGMA user_version = 5, PRAGMA application_id = 0x6175746f, "auto"); the tables and views are
// documented in cache/schema.sql, the DDL of new files (embedded at build time). Older files are upgraded when
// opened (cache/migrate.cpp), after checking that they are ours. Users may read the file with the sqlite3 shell.
//
// Trust (README, "What a cache file is trusted for"): a cache file is trusted for what it says by whoever points a
// program at it, as its own data; what comes from another machine (import, merge) is recorded as such (origin
// "imported") unless its document is signed by a key the user trusts ("signed:<key id>"). An imported winner is
// never served as `exact`, and an imported cubin is kept only when signed or when this machine's NVRTC compiles
// the same bytes.
//
// Thread-safety: one Cache object per thread. Several processes may open the same file at once, tuners writing and
// applications reading (WAL mode, every write in a transaction; a writer waits for the lock with backoff for up to
// 60 s in all before failing with "database is locked"): a reader never sees half a run,
// because a run's winner appears in the same transaction that finishes it, after all its measurements.
//
// Staleness: every run records its CodeIdentity. mark_stale() flags the runs whose identity differs from the
// current one; stale winners are never returned by the lookups (winners(true) lists them, marked), and gc() deletes
// stale runs with their measurements and winners.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "autotune/device.hpp"
#include "autotune/problem.hpp"
#include "autotune/identity.hpp"

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
  Config config;              ///< of the run's problem's family
  MeasurementStatus status = MeasurementStatus::ok;
  std::string log;            ///< compile log or error text; empty when ok
  double median_ms = 0.0;     ///< median kernel time over the samples (0 when not ok)
  double spread = 0.0;        ///< (max - min) / median over the samples
  int samples = 0;            ///< number of timed samples
  double gbps = 0.0;          ///< input bytes / median time, in GB/s (1e9 bytes per second)
  /// gbps as a percentage of the device's measured roof (Cache::set_device_roof). Left 0, add_measurement fills it
  /// from the roof recorded for the run's device; reads back as 0 when no roof was known.
  double roof_pct = 0.0;
};

/// The best configuration for one problem on one device model.
struct Winner {
  std::string model_key;       ///< DeviceInfo::model_key()
  std::string device_name;
  std::string arch;            ///< "sm_90"
  Problem problem;
  Config config;
  double median_ms = 0.0;
  double gbps = 0.0;
  std::int64_t run_id = 0;
  std::string tuned_at;        ///< UTC time, ISO 8601
  std::vector<char> cubin;     ///< the compiled winner for `arch`; may be empty
  /// The row's cubin, if it has one, was not read (shape_winners and family_winners read none: a lookup ranks many
  /// winners and loads a few); Cache::read_cubin reads it into `cubin`. Until then the columns stored after the blob
  /// are not read either: tuned_at, cubin_sha256, source_sha256 and nvrtc_options are empty, nvrtc_version 0, and
  /// `origin` is its run's (the winner's own as long as autotune wrote the file); read_cubin reads the row's own.
  bool cubin_unread = false;
  bool stale = false;          ///< its run is stale (only winners(true) returns such winners)
  int sm_count = 0;            ///< of the model (for the similar-device lookup)
  std::uint64_t memory_bytes = 0;
  std::string stale_reason;    ///< why, e.g. "template 1f2e3d4c5b6a7988 -> 0a1b2c3d4e5f6071; driver 12040 -> 13000"
  // What the cubin is and what produced it (schema 4; empty / 0 when not recorded, as for older cubins).
  std::string cubin_sha256;    ///< SHA-256 of `cubin`, 64 hex digits, as recorded when the run finished
  std::string source_sha256;   ///< SHA-256 of the kernel source compiled into `cubin`
  std::string nvrtc_options;   ///< the NVRTC options, a JSON array of strings
  int nvrtc_version = 0;       ///< of the NVRTC that compiled it
  std::string strategy;        ///< how its run chose variants (RunInfo::strategy), e.g. "exhaustive" or "crossover"
  /// Where the evidence comes from (schema 5): "local" (measured by a tuner writing this file; rows older than
  /// schema 5 count as local), "imported" (another machine's export or cache file, not verified here) or
  /// "signed:<key id>" (a document signed by a key the importer trusted). A lookup ranks imported evidence below
  /// local evidence and never serves it as exact (include/autotune/resolution.hpp).
  std::string origin = "local";
  /// Local or signed: evidence this file's owner vouches for (what `require=exact` accepts).
  bool trusted() const { return origin == "local" || origin.starts_with("signed:"); }
};

/// What produced a winner's cubin (Cache::finish_run): the SHA-256 of its kernel source, the NVRTC options and
/// version. The cache records what it is given (the tuner fills it: tuner/origin.hpp); it generates no code.
struct CubinOrigin {
  std::string source_sha256;
  std::vector<std::string> nvrtc_options;
  int nvrtc_version = 0;
};

/// How import_json and merge treat what they add.
struct ImportOptions {
  /// false: winners are imported without their cubins (applications compile the recorded configuration from
  /// source with NVRTC), for results from a machine whose binaries are not trusted (`autotune import --no-cubins`).
  bool cubins = true;
  /// A longer document is refused after reading one byte more than this, before it is parsed whole (import_json).
  std::uint64_t max_document_bytes = std::uint64_t(1) << 30;  // 1 GiB
  /// Public keys (the text of a key file: generate_signing_key) whose signature vouches for a document
  /// (`autotune import --trust KEYFILE`). When given, a document must carry a valid signature by one of them, or it
  /// is refused; its rows are recorded as "signed:<key id>" and its cubins kept. When empty, a document's signature
  /// is not checked and its rows are recorded as "imported". merge() takes no keys: a cache file carries no signature.
  std::vector<std::string> trusted_keys;
  /// For rows recorded as "imported": keep a cubin only when this machine's NVRTC, compiling the winner's source as
  /// recorded (the same source SHA-256, options and NVRTC version as here), gives the same bytes; it is dropped
  /// otherwise, and when NVRTC cannot be loaded. false: every imported cubin is dropped (applications compile from
  /// source). One compile per distinct source and architecture. `autotune import` and `merge` set it.
  bool verify_cubins = false;
};

struct RunInfo {
  std::string strategy = "exhaustive";
  std::string tool_version;
  /// What the run measures with. Fields left empty / 0 are filled by begin_run: the template hash of this build's
  /// template of the problem's family, and the NVRTC and driver versions of the DeviceInfo passed to begin_run.
  CodeIdentity code;
  /// The tuning settings (samples, warm-up, L2 flush, ...) as a JSON object; empty when not recorded. Stored in a
  /// canonical form (keys sorted, no spaces); begin_run throws UsageError when it is not valid JSON.
  std::string settings_json;
};

/// Rows an import or merge added (or, for winners, added or replaced). All zero when the data was already there.
struct ImportStats {
  std::size_t devices = 0;
  std::size_t problems = 0;
  std::size_t templates = 0;
  std::size_t runs = 0;
  std::size_t measurements = 0;
  std::size_t winners = 0;
  std::size_t baselines = 0;
  /// Cubins of imported winners that were left out (not counted in total()): ImportOptions::cubins was false, or
  /// the cubin had no recorded SHA-256 (written before schema 4), so nothing vouches for it.
  std::size_t cubins_dropped = 0;
  /// Cubins of an unsigned document kept because this machine's NVRTC compiled the same bytes (verify_cubins).
  std::size_t cubins_verified = 0;

  std::size_t total() const { return devices + problems + templates + runs + measurements + winners + baselines; }
  bool operator==(const ImportStats&) const = default;
};

/// Which runs Cache::export_json writes: every one (an empty filter), or those of the problems and GPU models an
/// application uses, with the devices, problems, templates and baselines they refer to.
struct ExportFilter {
  /// Substrings of problem keys: a run is exported when its problem's key contains one of them (empty = every problem).
  std::vector<std::string> problems;
  /// Device model keys (DeviceInfo::model_key, as `autotune devices` prints them), matched exactly (empty = every
  /// model).
  std::vector<std::string> device_models;

  bool empty() const { return problems.empty() && device_models.empty(); }
  /// Whether a run of `problem_key` on `model_key` is exported.
  bool matches(std::string_view problem_key, std::string_view model_key) const;
};

/// What an export wrote.
struct ExportStats {
  std::size_t runs = 0;
  std::size_t winners = 0;
};

/// One row of the cache's device_comparison view (cache/schema.sql): a problem's fresh winner on one device model.
struct DeviceComparisonRow {
  std::string problem;           ///< Problem::key()
  std::string device;            ///< device name
  std::string arch;
  Config config;                 ///< the winner on this device
  double median_ms = 0.0;
  double gbps = 0.0;
  std::optional<double> roof_pct;  ///< the winner's GB/s as % of its device's roof; nullopt when no roof was known
  int rank = 1;                  ///< 1 for the fastest device of the problem (ties share a rank)
  int devices = 1;               ///< how many device models have a fresh winner for the problem
  double time_vs_fastest = 1.0;  ///< median_ms / the fastest device's median_ms
};

/// A reference implementation's time for a problem on a device model (table baselines), e.g. CUB's.
struct Baseline {
  std::string name;         ///< "cub"
  double median_ms = 0.0;
  double gbps = 0.0;
  std::string measured_at;  ///< UTC time, ISO 8601
};

/// How far Cache::open_read_only looks for damage before reading.
enum class ReadCheck {
  cheap,  ///< the header, the schema and the file's size (a file cut short): the runtime handles' lookups
  pages,  ///< also SQLite's PRAGMA quick_check, which reads every page: the CLI's readers (show, best, export, ...)
  none,   ///< nothing beyond what SQLite needs to open it: `autotune check`, which reports damage itself
};

class Cache {
 public:
  /// Opens (creating if needed) the cache at `path`; ":memory:" gives a private in-memory database.
  /// Creates missing parent directories. Throws CacheError naming the file when it is not a regular file, not an
  /// SQLite database, not ours (another application_id; or, for a file older than schema 5, tables of our names
  /// that do not have the shape our schema gives them), damaged (PRAGMA quick_check; the message names
  /// `autotune check`), or written by a newer schema version; the file is never modified in that case. A file of an
  /// older schema version is migrated in place, all steps in one transaction (a failed migration changes nothing),
  /// after the same migration has been tried on a copy in memory.
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

  /// Starts a tuning run (inserts the device, problem and template rows if new) and returns its id.
  std::int64_t begin_run(const DeviceInfo& device, const Problem& problem, const RunInfo& info);
  /// Records one measurement of a run. Each call is its own transaction: an interrupted run keeps what it measured.
  /// Measuring a configuration the run already measured replaces that row. A finished run's measurements are final:
  /// adding to it throws CacheError.
  void add_measurement(std::int64_t run_id, const Measurement& m);
  /// Marks the run finished and stores the winner (replacing an earlier winner for the same model and problem),
  /// in one transaction, with the SHA-256 of `cubin` and the origin its caller gives (schema 4; NULL where it gives
  /// none: a cubin without the SHA-256 of its source is stored but never loaded). The winner must be one of the
  /// run's 'ok' measurements (same configuration and median time), and a non-empty cubin must be an ELF image:
  /// UsageError otherwise, and nothing is written.
  void finish_run(std::int64_t run_id, const Measurement& best, const std::vector<char>& cubin,
                  const CubinOrigin& origin = {});

  /// The newest unfinished run of this problem on this model measured with exactly `code` and `strategy`, if any
  /// and not stale: an interrupted `tune` resumes it, skipping the configurations it already measured. Only a local
  /// run: an imported one's measurements were taken on another machine and must not become this machine's winner.
  std::optional<std::int64_t> resumable_run(const std::string& model_key, const Problem& problem,
                                            const CodeIdentity& code, const std::string& strategy) const;

  /// Measurements of one run, in insertion order.
  std::vector<Measurement> measurements(std::int64_t run_id) const;

  /// Fresh winner for exactly this problem on this device model (a stale one is never returned, nor one that is not
  /// one of its run's 'ok' measurements with the same median time: such a row was not written by autotune). With `code`, only
  /// a winner whose run was measured with that code: its template hash, NVRTC and driver version, each compared only
  /// when set (not empty / not 0). This is how a lookup skips results of other code without writing the file.
  std::optional<Winner> find_winner(const std::string& model_key, const Problem& problem,
                                    const CodeIdentity& code = {}) const;
  /// Every fresh winner of the problem's shape (Problem::shape_key: everything but n) on this model, by ascending n:
  /// the tuned sizes a size-adaptive handle builds its table from (include/autotune/resolution.hpp), and the lookup
  /// picks the nearest size from (runtime/nearest.hpp), without their cubins (Winner::cubin_unread, read_cubin).
  /// `code` as for find_winner.
  std::vector<Winner> shape_winners(const std::string& model_key, const Problem& problem,
                                    const CodeIdentity& code = {}) const;
  /// Every fresh winner of the problem's shape (Problem::shape_key) tuned on another GPU model of the architecture
  /// `arch` (e.g. "sm_90") than `model_key`, with each model's SM count and memory: the rows the lookup's
  /// similar-device step chooses the closest model from (runtime/nearest.hpp). `code` as for find_winner.
  std::vector<Winner> other_model_winners(const std::string& model_key, const std::string& arch,
                                          const Problem& problem, const CodeIdentity& code = {}) const;
  /// Every fresh winner of the family `family` on this model whose run was measured with `code` (as for find_winner),
  /// for the lookup's similar-problem step, without their cubins (Winner::cubin_unread; read_cubin reads the ones a
  /// lookup uses). Read-only.
  std::vector<Winner> family_winners(const std::string& model_key, std::string_view family,
                                     const CodeIdentity& code = {}) const;
  /// Reads the cubin of `w` (a winner from family_winners, Winner::cubin_unread) into w.cubin; nothing when
  /// w.cubin_unread is false. Read-only.
  void read_cubin(Winner& w) const;
  /// How many winners of the problem's shape on this model are not served to `code`: stale, or measured with other
  /// code (the fields of `code` that are set differ). Read-only; for the lookup's report.
  std::size_t count_unserved_winners(const std::string& model_key, const Problem& problem,
                                     const CodeIdentity& code) const;
  /// Every fresh winner, ordered by device name then problem key; with include_stale, the stale ones too
  /// (Winner::stale says which), for `autotune show --all`.
  std::vector<Winner> winners(bool include_stale = false) const;
  /// How many fresh winners of the problem's shape on this model are not served because they are not one of their
  /// run's 'ok' measurements with the same median (a row autotune did not write). Read-only; for the lookup's report.
  std::size_t count_unbacked_winners(const std::string& model_key, const Problem& problem) const;

  /// Read-only: the rows of the device_comparison view, in its order (problem key, fastest device first).
  /// Added for `autotune compare`.
  std::vector<DeviceComparisonRow> device_comparison() const;

  /// Opens an existing cache for reading only: what every lookup (the runtime handles, `autotune best`) and every
  /// read-only command uses. The file is never created, migrated, switched to WAL or written, and no side file
  /// (-wal, -shm, -journal) is left beside it, so it works on a read-only file system, a file of mode 0444 and a
  /// directory the reader cannot write (cache/read_only.cpp says how). A file of an older schema is read through
  /// an upgraded copy in memory. Writes through the returned Cache throw CacheError. CacheError naming the file
  /// when it does not exist, is not a regular file, is not an autotune cache, is newer, or is damaged as far as
  /// `check` looks (ReadCheck).
  ///
  /// `path` may also be an export document (JSON, as `autotune export` writes it): an application's shipped cache.
  /// It is read into memory and its signature checked against trusted_public_keys(): signed by one of them, its
  /// rows are "signed:<key id>" and its cubins are loaded as they are (no NVRTC); otherwise its rows are "imported"
  /// (never exact) and its cubins dropped. CacheError naming the file when the document is refused.
  static Cache open_read_only(const std::string& path, ReadCheck check = ReadCheck::cheap);
  /// A private, writable copy in memory of a cache file, read as open_read_only reads it (an older schema is
  /// upgraded in the copy only); writes change only the copy. Used by merge() and by tests.
  static Cache read_only_snapshot(const std::string& path);

  /// Records what reference implementation `name` (e.g. "cub") takes for `problem` on the device's model,
  /// replacing an earlier measurement of the same name (inserts the device and problem rows if new). UsageError
  /// unless median_ms and gbps are finite and positive.
  void set_baseline(const DeviceInfo& device, const Problem& problem, const std::string& name, double median_ms,
                    double gbps);
  /// The baseline `name` of a problem on a model, if measured.
  std::optional<Baseline> baseline(const std::string& model_key, const Problem& problem, const std::string& name) const;
  /// Every baseline `name` measured on a model for the problem's shape (Problem::shape_key: everything but n), each
  /// with its problem, by ascending n. Read-only; for the report's size charts.
  std::vector<std::pair<Problem, Baseline>> shape_baselines(const std::string& model_key, const Problem& problem,
                                                            const std::string& name) const;

  /// Records the measured read bandwidth roof of the device's model, in GB/s (inserts the device row if new).
  /// Later measurements of that model get roof_pct from it. Throws UsageError unless gbps is finite and positive.
  void set_device_roof(const DeviceInfo& device, double gbps);
  /// The roof recorded for a model, if any.
  std::optional<double> device_roof(const std::string& model_key) const;
  /// The devices row of a model as the tuner recorded it (its limits: shared memory, threads, L2), if the cache holds
  /// one; ordinal -1. What a lookup without the device itself checks configurations against.
  std::optional<DeviceInfo> device(const std::string& model_key) const;

  /// Marks stale every fresh run of the family current.family whose template hash, NVRTC version or driver
  /// version differs from `current` (a field of `current` that is empty / 0 is not compared; an empty family
  /// compares NVRTC and driver only, for runs of every family; a run that does not know a compared field, as runs
  /// from schema 1 do not, counts as different). Only runs of the model `model_key` when it is not empty: a
  /// fleet's merged file holds models whose machines have other drivers. Records the reason; returns how many runs
  /// were newly marked. Their measurements and winners become stale with them.
  std::size_t mark_stale(const CodeIdentity& current, const std::string& model_key = {});
  /// Deletes the stale runs with their measurements and winners, then the problems and templates no run refers
  /// to; devices stay (their roof is still valid). One transaction; returns the number of rows deleted. Does not
  /// VACUUM: that rewrites the whole file and waits for every reader, and SQLite reuses the freed pages anyway
  /// (run `sqlite3 FILE VACUUM` to shrink the file).
  std::size_t gc();

  /// Writes the whole cache as a portable JSON document (format "autotune-cache", format_version 2): devices,
  /// problems (each with its "parameters", an object of name -> value text as table problem_parameters has them),
  /// templates, and every run with its measurements and its winner (cubin in base64). import_json reads format 1
  /// too, whose problems listed columns instead of parameters (those are derived from the key). Ids are not
  /// exported: rows refer to each other by natural keys, and the output is ordered by them, so two files with the
  /// same contents export the same text. With a non-empty filter, only the matching runs (and baselines) and the
  /// devices, problems and templates they refer to: a file to ship with an application.
  ///
  /// With `signing_key` (the path of a private key file: generate_signing_key), the document ends with a member
  /// "signature": {"algorithm": "ed25519", "key_id", "public_key" (64 hex digits), "value" (128 hex digits)}, the
  /// Ed25519 signature of "autotune-cache-signature 1\n" followed by the document's canonical form: the document
  /// without its "signature" member as nlohmann::json's dump() writes it (no whitespace, object keys sorted by
  /// byte, numbers in their shortest round-trip form, strings as UTF-8 with only the escapes JSON requires). Any
  /// change to the document after signing (a byte of a cubin, a timing, a key) breaks the signature. autotune::Error,
  /// before anything is written, when the key file is not this user's private key (mode 0600).
  ExportStats export_json(std::ostream& out, const ExportFilter& filter = {},
                          const std::string& signing_key = {}) const;
  /// Adds the contents of an export_json document (a bad document changes nothing; CacheError names `source`). Rows are matched by natural key: a device by model_key, a problem by key, a template by
  /// (family, hash), a run by (device, problem, started_at, tool_version, strategy), a measurement by (run, config).
  /// Existing rows are kept (a run becomes stale if either copy is, and gains a missing finished_at or missing
  /// measurements). For a winner of the same model and problem: a fresh one beats a stale one, then the later
  /// tuned_at wins, then the lower median time; a full tie keeps the existing one. Importing the same document
  /// twice changes nothing the second time.
  ///
  /// A document is untrusted input, validated completely before anything is written (cache/document.cpp): at most
  /// ImportOptions::max_document_bytes (1 GiB) read, nesting at most 64 deep, bounded counts and string lengths, every row keeping
  /// the invariants of cache/schema.sql (finite non-negative numbers, parseable keys and configurations, timestamps
  /// not in the future, winners among their run's ok measurements, cubins that are ELF images matching their stated
  /// SHA-256 for the device's arch). The first offending item is named in a one-line CacheError.
  ///
  /// Trust (ImportOptions::trusted_keys, verify_cubins): the rows added are recorded as "signed:<key id>" when the
  /// document carries a valid signature of a trusted key, else as "imported". An imported winner never replaces a
  /// local or signed one (a fresh one still replaces a stale one), and its cubin is kept only when verify_cubins
  /// reproduces it. The whole import is one transaction: readers see all of it or nothing of it, and other writers
  /// wait for it (up to the busy timeout of 60 s).
  ImportStats import_json(std::istream& in, const std::string& source = "input", const ImportOptions& options = {});
  /// Merges another cache file into this one with the rules of import_json. The other file is
  /// opened read-only and copied into memory (where an older schema is upgraded): it is never modified (SQLite may
  /// leave its -wal and -shm side files next to a WAL-mode file, as any reader does). CacheError naming it when it
  /// does not exist, is not an autotune cache, is corrupt or is newer.
  /// The other file's rows are validated as an imported document's are, and recorded as "imported" (a cache file
  /// carries no signature, whatever its rows say of themselves).
  ImportStats merge(const std::string& other_path, const ImportOptions& options = {});

  /// Every row that breaks an invariant of cache/schema.sql, one line each ("winners row (device 1, problem 2):
  /// cubin is not an ELF image"); empty for a sound file. Checks SQLite's integrity_check and foreign_key_check,
  /// then every table: numbers finite and in range, times that are real UTC times not in the future, keys and
  /// configurations that parse for their family, settings that are JSON objects, template hashes listed in
  /// templates, winners that are an ok measurement of their own finished run with the device's arch, cubins that are
  /// ELF images matching their recorded SHA-256 (cache/audit.cpp lists them all). Read-only; one read transaction.
  /// At most 1000 lines are listed, then one line with the count of the rest. `autotune check` prints them.
  std::vector<std::string> invariant_violations() const;

 private:
  struct Impl;
  /// Takes an opened connection as it is (read_only.cpp): no schema is created in an in-memory database first.
  explicit Cache(std::unique_ptr<Impl> impl);
  /// A writable copy in memory of an opened file, upgraded there when older (read_only.cpp).
  static Cache snapshot_of(Impl& file);
  std::unique_ptr<Impl> impl_;
};

/// Creates a new Ed25519 signing key: the private key in `path` (mode 0600; an existing file is never replaced:
/// autotune::Error) and the public key in `path` + ".pub", each one line of text (core/signing.hpp gives the format).
/// Returns the key id (16 hex digits) that signed documents and "signed:<key id>" rows name.
std::string generate_signing_key(const std::string& path);

/// Adds a public key (the text of a key file, or its 64 hex digits) to the keys this process trusts for export
/// documents opened as caches (Cache::open_read_only): how an application names the key of its own developers.
/// UsageError when the text is not a key. Thread-safe.
void trust_public_key(std::string_view key_text);

/// The keys this process trusts for export documents opened as caches: those given to trust_public_key, then the
/// public key files listed in $AUTOTUNE_TRUSTED_KEYS (paths separated by ':'; autotune::Error naming one that cannot
/// be read). As key file texts.
std::vector<std::string> trusted_public_keys();

}  // namespace autotune
