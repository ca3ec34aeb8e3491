-- autotune cache, schema version 6 (stored as PRAGMA user_version = 6), PRAGMA application_id = 1635087471
-- (0x6175746f, "auto" in ASCII), set on every file autotune creates or migrates: a file with another application_id
-- is some other program's and is refused before anything is written (older files of ours have 0 and are checked
-- by their tables' shape instead).
--
-- Executed once, in one transaction, when autotune creates a new cache file. A file of an older version is upgraded
-- in place by the ordered steps of cache/migrate.cpp instead, which must produce the same tables, columns and
-- indexes (tests/cpu/test_cache_migration.cpp compares the two); that is why columns added after version 1 sit at
-- the end of their table. Table and column names are a user-visible interface: people query this file with the
-- sqlite3 shell, e.g.
--   sqlite3 ~/.cache/autotune/autotune.db 'SELECT * FROM best'
-- Changing anything here needs a new schema version and a migration step in cache/migrate.cpp.
-- Times are UTC text in ISO 8601 with milliseconds ("2026-11-29T16:20:00.123Z"), so they sort as text.
--
-- Staleness: a run records the identity of the code it measured (template hash, NVRTC and driver version). When
-- that identity changes for a GPU model, autotune marks the model's older runs stale (runs.stale = 1, with
-- runs.stale_reason) instead of deleting them; their measurements and their winner are stale with them. Stale
-- winners are never served to applications and are hidden by the views; `autotune gc` deletes stale runs.

-- One row per GPU model (DeviceInfo::model_key(): name, compute capability, SM count, memory size), because
-- tuning results apply to every card of a model. The hardware columns are fixed for a model; driver_version,
-- nvrtc_version, the clocks and uuid describe the card seen by the latest run and are updated by each run
-- (the versions each run used are in runs). roof_gbps is the model's measured read bandwidth in GB/s (1e9 bytes
-- per second), set by the tuner; NULL until measured.
CREATE TABLE devices (
  id                     INTEGER PRIMARY KEY,
  model_key              TEXT UNIQUE NOT NULL,
  name                   TEXT NOT NULL,
  arch                   TEXT NOT NULL,     -- "sm_90": what NVRTC compiles for
  cc_major               INTEGER NOT NULL,
  cc_minor               INTEGER NOT NULL,
  sm_count               INTEGER NOT NULL,
  memory_bytes           INTEGER NOT NULL,
  l2_bytes               INTEGER NOT NULL,
  shared_per_block_optin INTEGER NOT NULL,  -- bytes of shared memory a block may opt in to
  max_threads_per_block  INTEGER NOT NULL,
  clock_khz              INTEGER NOT NULL,  -- SM clock
  memory_clock_khz       INTEGER NOT NULL,
  driver_version         INTEGER NOT NULL,  -- e.g. 13000 for CUDA 13.0
  nvrtc_version          INTEGER NOT NULL,  -- major * 1000 + minor * 10
  uuid                   TEXT NOT NULL,     -- provenance only; not part of the identity
  roof_gbps              REAL NULL          -- measured read bandwidth roof, GB/s (schema 2)
);

-- One row per problem that was ever tuned. key is the problem's canonical key (Problem::key()), its source of truth,
-- e.g. "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform" or
-- "reduce/sum/i32/acc=i64/n=1048576/dist=uniform"; shape_key is the same text without n, shared by every size of
-- one problem (used to find the nearest tuned size). family is the key's first part (the kernel family). n and
-- distribution spell out the key's n= and dist= parts; every other parameter is in problem_parameters.
-- Schema 6 moved the columns shaped like the first family (sample_type, bins, lower, upper, op, counter_bits) to
-- problem_parameters, and made the keys of schema 1 that this build spells otherwise canonical (cache/migrate.cpp).
CREATE TABLE problems (
  id           INTEGER PRIMARY KEY,
  key          TEXT UNIQUE NOT NULL,
  shape_key    TEXT NOT NULL,
  family       TEXT NOT NULL,
  n            INTEGER NOT NULL,
  distribution TEXT NOT NULL    -- input the tuner measured on: uniform, constant, runs, ...
);
CREATE INDEX problems_by_shape ON problems (shape_key);

-- Every parameter of a problem's key but n and dist, one row each (schema 6), for SQL: "name=value" parts by their
-- name, and the parts between the family and the first named part by the names the family gives them
-- (KernelFamily::key_part_names(); "type" is the sample or value type in every built-in family). value is the key's
-- text unchanged, so numbers compare as text: CAST(value AS INTEGER) for arithmetic. For example
--   reduce/sum/f32/acc=f32/n=1048576/dist=uniform     op = sum, type = f32, acc = f32
--   histogram/u8/bins=256/range=[0,256)/n=.../dist=...  type = u8, bins = 256, range = [0,256)
--   histogram_range/u8/bins=255/edges=even/n=.../dist=.../counters=64/channels=4/active=3
--                                                        type, bins, edges, counters, channels, active
-- A parameter the key leaves out at its default (a histogram's 32-bit counters, a reduction's deterministic mode)
-- has no row. A row of a family this build does not know names its positional parts "part1", "part2", ...; the
-- next run of the problem recorded by a build that knows the family names them.
CREATE TABLE problem_parameters (
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  name       TEXT NOT NULL,
  value      TEXT NOT NULL,
  PRIMARY KEY (problem_id, name)
);
CREATE INDEX problem_parameters_by_name ON problem_parameters (name, value);

-- One row per tuning run of one problem on one device. finished_at stays NULL while the run is in progress and
-- when it was interrupted; its measurements are kept all the same (a resumed or repeated run starts a new row).
-- A run is identified across files (export, import, merge) by its natural key: device model, problem key,
-- started_at, tool_version and strategy (runs_natural_key); started_at has millisecond resolution and autotune
-- moves it on by a millisecond when two runs would otherwise share a key.
-- Schema 2 adds what the run measured with: template_hash (template_hash() of the kernel template source, also
-- listed in templates), nvrtc_version and driver_version (NULL for runs recorded by schema 1: unknown), settings
-- (the tuning settings as a JSON object, NULL when not recorded), and the staleness flag with its reason.
CREATE TABLE runs (
  id             INTEGER PRIMARY KEY,
  device_id      INTEGER NOT NULL REFERENCES devices (id),
  problem_id     INTEGER NOT NULL REFERENCES problems (id),
  started_at     TEXT NOT NULL,
  finished_at    TEXT NULL,
  strategy       TEXT NOT NULL,   -- how variants were chosen, e.g. "exhaustive"
  tool_version   TEXT NOT NULL,   -- autotune version that ran it
  template_hash  TEXT NULL,                                            -- schema 2
  nvrtc_version  INTEGER NULL,                                         -- schema 2
  driver_version INTEGER NULL,                                         -- schema 2
  settings       TEXT NULL,                                            -- schema 2
  stale          INTEGER NOT NULL DEFAULT 0 CHECK (stale IN (0, 1)),   -- schema 2
  stale_reason   TEXT NULL,                                            -- schema 2
  origin         TEXT NOT NULL DEFAULT 'local'                         -- schema 5: see winners.origin
);
CREATE UNIQUE INDEX runs_natural_key ON runs (device_id, problem_id, started_at, tool_version, strategy);

-- Every variant a run tried, successful or not; at most one row per run and configuration (a re-measured variant
-- replaces its row). config is HistogramConfig::key(), e.g.
-- "priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,merge=atomic" (rows written by
-- schema 1 keep that version's spelling, "priv=shared,block=256,ipt=4,agg=0,part=interleaved"). log holds the
-- compiler or error text of a failed variant. median_ms, spread ((max - min) / median) and gbps are 0 unless
-- status is 'ok'; roof_pct is gbps as a percentage of the device's roof_gbps when it was measured (NULL when no
-- roof was known). The measurements of a run whose finished_at is NULL are incomplete.
CREATE TABLE measurements (
  id        INTEGER PRIMARY KEY,
  run_id    INTEGER NOT NULL REFERENCES runs (id),
  config    TEXT NOT NULL,
  status    TEXT NOT NULL
            CHECK (status IN ('ok', 'compile_error', 'invalid_config', 'launch_error', 'wrong_result')),
  log       TEXT NOT NULL DEFAULT '',
  median_ms REAL NOT NULL,
  spread    REAL NOT NULL,
  samples   INTEGER NOT NULL,
  gbps      REAL NOT NULL,    -- input bytes / median time, in GB/s (1e9 bytes per second)
  roof_pct  REAL NULL         -- schema 2
);
CREATE UNIQUE INDEX measurements_natural_key ON measurements (run_id, config);

-- The best configuration per device model and problem, written when a run finishes (a newer run replaces it; an
-- import keeps a fresh winner over a stale one, then the newer one, then the faster one). A winner is always one of
-- its run's 'ok' measurements (same config and median_ms). cubin is the compiled winner for arch (the device's
-- arch), an ELF image, so applications can load it without invoking NVRTC; it may be NULL. A winner has no
-- staleness of its own: it is stale when its run is.
-- Schema 4 records what the cubin is and what produced it: cubin_sha256 (SHA-256 of the cubin, 64 hex digits),
-- source_sha256 (SHA-256 of the kernel source that was compiled: kernel_source(problem, config)), nvrtc_options
-- (the NVRTC options, as a JSON array of strings) and nvrtc_version. The runtime loads a cubin only when its
-- SHA-256 equals cubin_sha256 and source_sha256 is the hash of the source it would compile itself; otherwise it
-- compiles that source with NVRTC. Cubins stored before schema 4 have no hash (NULL) and are never loaded.
-- Schema 5: origin says where the evidence comes from (on runs too): 'local' (a tuner wrote it into this file;
-- rows older than schema 5 are 'local'), 'imported' (import or merge from another machine, unverified here: never
-- served as exact, and its cubin kept only when this machine's NVRTC compiled the same bytes) or 'signed:<key id>'
-- (from an export document signed by a key the importing user trusted).
CREATE TABLE winners (
  device_id     INTEGER NOT NULL REFERENCES devices (id),
  problem_id    INTEGER NOT NULL REFERENCES problems (id),
  run_id        INTEGER NOT NULL REFERENCES runs (id),
  config        TEXT NOT NULL,
  median_ms     REAL NOT NULL,
  gbps          REAL NOT NULL,
  arch          TEXT NOT NULL,
  cubin         BLOB,
  tuned_at      TEXT NOT NULL,
  cubin_sha256  TEXT NULL,      -- schema 4
  source_sha256 TEXT NULL,      -- schema 4
  nvrtc_options TEXT NULL,      -- schema 4
  nvrtc_version INTEGER NULL,   -- schema 4
  origin        TEXT NOT NULL DEFAULT 'local',  -- schema 5
  PRIMARY KEY (device_id, problem_id)
);

-- Every kernel template source a run of this file measured, by family and template_hash() (schema 2). first_seen
-- is when a run first used it; runs.template_hash refers to hash within the run's problem family.
CREATE TABLE templates (
  id         INTEGER PRIMARY KEY,
  family     TEXT NOT NULL,
  hash       TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  UNIQUE (family, hash)
);

-- Reference implementations measured on a device model for a problem (schema 3), by `autotune bench` with the
-- tuner's harness (CUDA events around one whole call, L2 flushed before every sample, the median): name is the
-- reference ('cub': cub::DeviceHistogram::HistogramEven or cub::DeviceReduce::Sum/Min/Max), median_ms its time,
-- gbps the problem's input bytes over that time, measured_at when. The newest measurement per model, problem and
-- name is kept. A baseline is stale when the problem's winner is; it is compared with the winner in reports.
CREATE TABLE baselines (
  device_id   INTEGER NOT NULL REFERENCES devices (id),
  problem_id  INTEGER NOT NULL REFERENCES problems (id),
  name        TEXT NOT NULL,
  median_ms   REAL NOT NULL,
  gbps        REAL NOT NULL,
  measured_at TEXT NOT NULL,
  PRIMARY KEY (device_id, problem_id, name)
);

-- @views: the views below are dropped and re-created, as written here, by every migration (cache/migrate.cpp).

-- The fresh winners in readable form, one row per device model and problem, for the sqlite3 shell:
--   SELECT * FROM best;
-- Stale winners (their run is stale) are left out; query winners joined with runs to see them.
CREATE VIEW best AS
  SELECT d.name      AS device,
         w.arch      AS arch,
         p.key       AS problem,
         w.config    AS config,
         w.gbps      AS gbps,
         w.median_ms AS median_ms,
         w.tuned_at  AS tuned_at
  FROM winners w
  JOIN runs r ON r.id = w.run_id
  JOIN devices d ON d.id = w.device_id
  JOIN problems p ON p.id = w.problem_id
  WHERE r.stale = 0
  ORDER BY d.name, p.key;

-- Each problem's parameters with its key, family, size and distribution, one row per parameter, e.g. the
-- 1024-bin-or-more histograms:
--   SELECT DISTINCT problem FROM parameters WHERE family = 'histogram' AND name = 'bins'
--     AND CAST(value AS INTEGER) >= 1024;
CREATE VIEW parameters AS
  SELECT p.key          AS problem,
         p.family       AS family,
         p.n            AS n,
         p.distribution AS distribution,
         pp.name        AS name,
         pp.value       AS value
  FROM problem_parameters pp
  JOIN problems p ON p.id = pp.problem_id
  ORDER BY p.key, pp.name;

-- The device-by-device comparison, in long format: one row per problem and device model with a fresh winner,
-- the fastest device of each problem first. rank is 1 for the fastest device (ties share a rank); devices is how
-- many device models have a winner for the problem; time_vs_fastest is this device's median time divided by the
-- fastest device's (1.0 for the fastest, 2.0 for one that takes twice as long); roof_pct is the winner's GB/s as
-- a percentage of its device's measured roof (NULL when unknown). For a fleet's merged cache:
--   SELECT problem, device, gbps, time_vs_fastest FROM device_comparison WHERE devices > 1;
CREATE VIEW device_comparison AS
  SELECT p.key       AS problem,
         d.name      AS device,
         w.arch      AS arch,
         w.config    AS config,
         w.median_ms AS median_ms,
         w.gbps      AS gbps,
         m.roof_pct  AS roof_pct,
         rank() OVER (PARTITION BY w.problem_id ORDER BY w.median_ms) AS rank,
         count(*) OVER (PARTITION BY w.problem_id) AS devices,
         w.median_ms / min(w.median_ms) OVER (PARTITION BY w.problem_id) AS time_vs_fastest
  FROM winners w
  JOIN runs r ON r.id = w.run_id
  JOIN devices d ON d.id = w.device_id
  JOIN problems p ON p.id = w.problem_id
  LEFT JOIN measurements m ON m.run_id = w.run_id AND m.config = w.config
  WHERE r.stale = 0
  ORDER BY p.key, rank, d.name, d.model_key;
