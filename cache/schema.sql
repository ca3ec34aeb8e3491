-- autotune cache, schema version 1 (stored as PRAGMA user_version = 1).
--
-- Executed once, in one transaction, when autotune creates a new cache file. Table and column names are a
-- user-visible interface: people query this file with the sqlite3 shell, e.g.
--   sqlite3 ~/.cache/autotune/autotune.db 'SELECT * FROM best'
-- Changing anything here needs a new schema version and a migration in cache/cache.cpp.
-- Times are UTC text in ISO 8601 ("2026-11-29T16:20:00Z").

-- One row per GPU model (DeviceInfo::model_key(): name, compute capability, SM count, memory size), because
-- tuning results apply to every card of a model. The hardware columns are fixed for a model; driver_version,
-- nvrtc_version, the clocks and uuid describe the card seen by the latest run and are updated by each run.
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
  uuid                   TEXT NOT NULL      -- provenance only; not part of the identity
);

-- One row per problem that was ever tuned. key is HistogramProblem::key(), e.g.
-- "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform"; shape_key is the same text without n, shared by
-- every size of one histogram (used to find the nearest tuned size). The other columns spell the key out.
CREATE TABLE problems (
  id           INTEGER PRIMARY KEY,
  key          TEXT UNIQUE NOT NULL,
  shape_key    TEXT NOT NULL,
  family       TEXT NOT NULL DEFAULT 'histogram',
  sample_type  TEXT NOT NULL,   -- u8, u16, i32, u32, f32
  bins         INTEGER NOT NULL,
  lower        REAL NOT NULL,   -- inclusive
  upper        REAL NOT NULL,   -- exclusive
  n            INTEGER NOT NULL,
  distribution TEXT NOT NULL    -- input the tuner measured on: uniform, constant, runs
);
CREATE INDEX problems_by_shape ON problems (shape_key);

-- One row per tuning run of one problem on one device. finished_at stays NULL when the run was interrupted;
-- its measurements are kept all the same.
CREATE TABLE runs (
  id           INTEGER PRIMARY KEY,
  device_id    INTEGER NOT NULL REFERENCES devices (id),
  problem_id   INTEGER NOT NULL REFERENCES problems (id),
  started_at   TEXT NOT NULL,
  finished_at  TEXT NULL,
  strategy     TEXT NOT NULL,   -- how variants were chosen, e.g. "exhaustive"
  tool_version TEXT NOT NULL    -- autotune version that ran it
);

-- Every variant a run tried, successful or not. config is HistogramConfig::key(), e.g.
-- "priv=shared,block=256,ipt=4,agg=0,part=interleaved". log holds the compiler or error text of a failed
-- variant. median_ms, spread ((max - min) / median) and gbps are 0 unless status is 'ok'.
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
  gbps      REAL NOT NULL     -- input bytes / median time, in GB/s (1e9 bytes per second)
);
CREATE INDEX measurements_by_run ON measurements (run_id);

-- The best configuration per device model and problem, from the latest finished run (a new run replaces it).
-- cubin is the compiled winner for arch, so applications can load it without invoking NVRTC; it may be NULL.
CREATE TABLE winners (
  device_id  INTEGER NOT NULL REFERENCES devices (id),
  problem_id INTEGER NOT NULL REFERENCES problems (id),
  run_id     INTEGER NOT NULL REFERENCES runs (id),
  config     TEXT NOT NULL,
  median_ms  REAL NOT NULL,
  gbps       REAL NOT NULL,
  arch       TEXT NOT NULL,
  cubin      BLOB,
  tuned_at   TEXT NOT NULL,
  PRIMARY KEY (device_id, problem_id)
);

-- The winners in readable form, for the sqlite3 shell: SELECT * FROM best;
CREATE VIEW best AS
  SELECT d.name      AS device,
         w.arch      AS arch,
         p.key       AS problem,
         w.config    AS config,
         w.gbps      AS gbps,
         w.median_ms AS median_ms,
         w.tuned_at  AS tuned_at
  FROM winners w
  JOIN devices d ON d.id = w.device_id
  JOIN problems p ON p.id = w.problem_id
  ORDER BY d.name, p.key;
