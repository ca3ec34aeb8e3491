#!/usr/bin/env python3
"""Writes tests/data/cache_v5.db: a cache of schema version 5 holding a problem of every built-in family.

The tables are created by executing cache/schema.sql as it was at schema version 5 (commit 599d196, passed as the
first argument: `git show 599d196:cache/schema.sql > /tmp/schema_v5.sql`), exactly as that version's Cache did for
a new file (one script, then PRAGMA user_version = 5 and the application_id); the rows are inserted with SQL in the
form that version wrote them: each problem's columns as its family's KernelFamily::columns() of that commit filled
them (a reduction's op and accumulator width, a range histogram's span and edge layout in op, ...). Kept for
tests/cpu/test_cache_migration.cpp; never regenerate it with newer code.
"""
import hashlib
import sqlite3
import sys



def insert(db, table, **row):
    """One row, its columns named."""
    db.execute("INSERT INTO %s (%s) VALUES (%s)" % (table, ", ".join(row), ", ".join("?" * len(row))),
               tuple(row.values()))


schema_sql, out = sys.argv[1], sys.argv[2]
db = sqlite3.connect(out)
db.executescript("BEGIN;" + open(schema_sql).read() + "COMMIT;")
db.execute("PRAGMA user_version = 5")
db.execute("PRAGMA application_id = 1635087471")
insert(db, "devices", model_key="NVIDIA H200|sm_90|132SM|143155MiB", name="NVIDIA H200", arch="sm_90", cc_major=9,
       cc_minor=0, sm_count=132, memory_bytes=150110011392, l2_bytes=62914560, shared_per_block_optin=232448,
       max_threads_per_block=1024, clock_khz=1980000, memory_clock_khz=3201000, driver_version=13000,
       nvrtc_version=13000, uuid="GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", roof_gbps=4100.0)
hist_config = "priv=shared,R=1,cbits=32,block=256,vec=0,loads=4,agg=none,part=interleaved,merge=atomic,grid=0"
# key, shape key, family, sample_type, bins, lower, upper, n, distribution, op, counter_bits, a configuration
problems = [
    ("reduce/sum/f32/acc=f32/n=1048576/dist=uniform", "reduce/sum/f32/acc=f32/dist=uniform", "reduce", "f32", 0, 0.0,
     0.0, 1048576, "uniform", "sum", 32, "red=warp_shuffle,block=256,vec=16,loads=4,acc=1,finish=two_pass,grid=-1"),
    ("reduce/sum/f32/acc=f32/n=4096/dist=sorted/mode=fast", "reduce/sum/f32/acc=f32/dist=sorted/mode=fast", "reduce", "f32",
     0, 0.0, 0.0, 4096, "sorted", "sum", 32, "red=warp_shuffle,block=256,vec=16,loads=4,acc=1,finish=two_pass,grid=-1"),
    ("argreduce/argmax/f32/n=65536/dist=uniform", "argreduce/argmax/f32/dist=uniform", "argreduce", "f32", 0, 0.0, 0.0,
     65536, "uniform", "argmax", 64, "red=warp_shuffle,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0"),
    ("segreduce/sum/f32/acc=f32/n=16777216/dist=power-law", "segreduce/sum/f32/acc=f32/dist=power-law", "segreduce",
     "f32", 0, 0.0, 0.0, 16777216, "power-law", "sum", 32, "block=256,group=8,small=256,vec=16,loads=2,chunk=16384"),
    ("histogram_range/u8/bins=255/edges=even/n=1048576/dist=uniform", "histogram_range/u8/bins=255/edges=even/dist=uniform",
     "histogram_range", "u8", 255, 0.0, 256.0, 1048576, "uniform", "edges=even", 32,
     "bin=search,priv=shared,R=1,block=256,vec=0,loads=4,grid=0"),
    ("histogram/u8/bins=256/range=[0,256)/n=4000/dist=uniform/channels=4/active=3/ch1=64:[0,256)/ch2=17:[10,200)",
     "histogram/u8/bins=256/range=[0,256)/dist=uniform/channels=4/active=3/ch1=64:[0,256)/ch2=17:[10,200)",
     "histogram", "u8", 256, 0.0, 256.0, 4000, "uniform", None, 32, hist_config),
    ("histogram/u16/bins=65536/range=[0,65536)/n=1048576/dist=uniform/counters=64",
     "histogram/u16/bins=65536/range=[0,65536)/dist=uniform/counters=64", "histogram", "u16", 65536, 0.0, 65536.0,
     1048576, "uniform", None, 64,
     "priv=global,R=1,cbits=32,block=256,vec=0,loads=4,agg=none,part=interleaved,merge=atomic,grid=0"),
]
for i, p in enumerate(problems, start=1):
    key, shape, family, sample_type, bins, lower, upper, n, dist, op, bits, config = p
    db.execute("INSERT INTO problems (key, shape_key, family, sample_type, bins, lower, upper, n, distribution, op,"
               " counter_bits) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
               (key, shape, family, sample_type, bins, lower, upper, n, dist, op, bits))
    template_hash = "%016x" % (0x0a1b2c3d4e5f6000 + i)
    started = "2026-12-01T10:%02d:00.000Z" % i
    finished = "2026-12-01T10:%02d:30.000Z" % i
    db.execute("INSERT OR IGNORE INTO templates (family, hash, first_seen) VALUES (?, ?, ?)",
               (family, template_hash, started))
    db.execute("INSERT INTO runs (device_id, problem_id, started_at, finished_at, strategy, tool_version, template_hash,"
               " nvrtc_version, driver_version, settings, stale, stale_reason, origin) VALUES (1, ?, ?, ?, 'exhaustive',"
               " '0.5.0', ?, 13000, 13000, '{\"seed\":42}', 0, NULL, 'local')", (i, started, finished, template_hash))
    median = 0.01 * i
    gbps = 100.0 * i
    db.execute("INSERT INTO measurements (run_id, config, status, log, median_ms, spread, samples, gbps, roof_pct)"
               " VALUES (?, ?, 'ok', '', ?, 0.01, 10, ?, ?)", (i, config, median, gbps, gbps / 41.0))
    cubin = b"\x7fELF" + bytes((i * 7 + k) % 251 for k in range(252))
    db.execute("INSERT INTO winners (device_id, problem_id, run_id, config, median_ms, gbps, arch, cubin, tuned_at,"
               " cubin_sha256, source_sha256, nvrtc_options, nvrtc_version, origin) VALUES (1, ?, ?, ?, ?, ?, 'sm_90',"
               " ?, ?, ?, NULL, NULL, NULL, 'local')",
               (i, i, config, median, gbps, cubin, finished, hashlib.sha256(cubin).hexdigest()))
db.execute("INSERT INTO baselines (device_id, problem_id, name, median_ms, gbps, measured_at) VALUES (1, 1, 'cub',"
           " 0.02, 50.0, '2026-12-01T11:00:00.000Z')")
db.commit()
db.execute("PRAGMA journal_mode = DELETE")
db.execute("VACUUM")
db.close()
