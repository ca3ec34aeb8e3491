#!/usr/bin/env python3
"""Writes tests/data/cache_v2.db: a cache of schema version 2 (autotune 0.1.0 before reductions).

The tables are created by executing cache/schema.sql as it was at schema version 2 (commit 31816aa, passed as the
first argument: `git show 31816aa:cache/schema.sql > /tmp/schema_v2.sql`), exactly as that version's Cache did for a
new file (one script, then PRAGMA user_version = 2); the rows are inserted with SQL in the form that version wrote
them (millisecond UTC times, canonical settings JSON, keys as HistogramProblem::key() and HistogramConfig::key()
printed them). Kept for tests/cpu/test_cache_migration.cpp; never regenerate it with newer code.
"""
import sqlite3
import sys

schema_sql, out = sys.argv[1], sys.argv[2]
db = sqlite3.connect(out)
db.executescript("BEGIN;" + open(schema_sql).read() + "COMMIT;")
db.execute("PRAGMA user_version = 2")
h200 = ("NVIDIA H200|sm_90|132SM|143155MiB", "NVIDIA H200", "sm_90", 9, 0, 132, 150110011392, 62914560, 232448, 1024,
        1980000, 3201000, 13000, 13000, "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", 4117.0)
db.execute("INSERT INTO devices (model_key, name, arch, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes,"
           " shared_per_block_optin, max_threads_per_block, clock_khz, memory_clock_khz, driver_version, nvrtc_version,"
           " uuid, roof_gbps) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", h200)
key = "histogram/u8/bins=256/range=[0,256)/n=67108864/dist=uniform"
shape = "histogram/u8/bins=256/range=[0,256)/dist=uniform"
db.execute("INSERT INTO problems (key, shape_key, family, sample_type, bins, lower, upper, n, distribution, op,"
           " counter_bits) VALUES (?, ?, 'histogram', 'u8', 256, 0.0, 256.0, 67108864, 'uniform', NULL, 32)",
           (key, shape))
db.execute("INSERT INTO templates (family, hash, first_seen) VALUES ('histogram', '1f2e3d4c5b6a7988',"
           " '2026-11-29T16:20:00.123Z')")
db.execute("INSERT INTO runs (device_id, problem_id, started_at, finished_at, strategy, tool_version, template_hash,"
           " nvrtc_version, driver_version, settings, stale, stale_reason) VALUES (1, 1, '2026-11-29T16:20:00.123Z',"
           " '2026-11-29T16:20:09.456Z', 'exhaustive', '0.1.0', '1f2e3d4c5b6a7988', 13000, 13000,"
           " '{\"finalists\":4,\"flush_l2\":true,\"min_samples\":5,\"samples\":30,\"seed\":42,\"target_noise\":0.005,"
           "\"warmup\":2}', 0, NULL)")
fast = "priv=shared,R=32,cbits=32,block=1024,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0"
slow = "priv=global,R=1,cbits=32,block=256,vec=0,loads=1,agg=none,part=interleaved,merge=atomic,grid=0"
db.execute("INSERT INTO measurements (run_id, config, status, log, median_ms, spread, samples, gbps, roof_pct)"
           " VALUES (1, ?, 'ok', '', 0.0276, 0.01, 12, 2432.9, 59.09)", (fast,))
db.execute("INSERT INTO measurements (run_id, config, status, log, median_ms, spread, samples, gbps, roof_pct)"
           " VALUES (1, ?, 'ok', '', 1.5, 0.02, 5, 44.7, 1.09)", (slow,))
cubin = b"\x7fELF" + bytes(i % 5 and i % 251 for i in range(1020))
db.execute("INSERT INTO winners (device_id, problem_id, run_id, config, median_ms, gbps, arch, cubin, tuned_at)"
           " VALUES (1, 1, 1, ?, 0.0276, 2432.9, 'sm_90', ?, '2026-11-29T16:20:09.456Z')", (fast, cubin))
db.commit()
db.execute("VACUUM")
db.close()
