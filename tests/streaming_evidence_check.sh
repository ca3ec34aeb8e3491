#!/usr/bin/env bash
# scripts/streaming_evidence.py (the evidence of runtime/streaming.hpp's bands): one problem measured on two GPUs, an
# H200 in a tuning log and an H100 in a cache inside an archive, comes out as two rows, each GPU's own ratios of
# evict-first twins (worked out by hand below) at its own fraction of its L2, and both in the table by L2 fraction.
#
#   tests/streaming_evidence_check.sh REPO
set -uo pipefail
repo=${1:?REPO}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
key='histogram/u8/bins=256/range=[0,256)/n=16777216/dist=uniform'  # 16 MiB of input
a='priv=shared,R=1,cbits=32,block=256,vec=16,loads=1,agg=none,part=interleaved,merge=atomic,grid=0'
b='priv=shared,R=1,cbits=32,block=512,vec=16,loads=1,agg=none,part=interleaved,merge=atomic,grid=0'
c='priv=shared,R=1,cbits=32,block=1024,vec=16,loads=1,agg=none,part=interleaved,merge=atomic,grid=0'
mkdir -p "$tmp/results/h200" "$tmp/results/h100"
# H200: plain 0.0100 / 0.0200 / 0.0400 ms, evict-first 0.0090 / 0.0190 / 0.0400: ratios 0.900, 0.950, 1.000.
cat > "$tmp/results/h200/tune.log" <<LOG
autotune 0.1.0: tuning 1 problem on GPU 0 (NVIDIA H200, sm_90) into /x/tuned.db (a worker process per problem)

== $key (GPU 0)
[  1/6] $a ok     0.0100 ms    1677.7 GB/s
[  2/6] $a,ld=cs ok     0.0090 ms    1864.1 GB/s
[  3/6] $b ok     0.0200 ms     838.9 GB/s
[  4/6] $b,ld=cs ok     0.0190 ms     883.0 GB/s
[  5/6] $c ok     0.0400 ms     419.4 GB/s
[  6/6] $c,ld=cs ok     0.0400 ms     419.4 GB/s
LOG
gzip "$tmp/results/h200/tune.log"
# H100, in a cache: plain 0.0100 / 0.0200 / 0.0300, evict-first 0.0080 / 0.0170 / 0.0240: ratios 0.800, 0.850, 0.800.
# A second device row gives the H200's L2 (60 MiB) as a devices-only cache would.
python3 - "$tmp/h100.db" "$key" "$a" "$b" "$c" <<'PY' || { echo "FAIL: making the cache"; exit 1; }
import sqlite3, sys
path, key, a, b, c = sys.argv[1:]
db = sqlite3.connect(path)
db.executescript("""
create table devices (id integer primary key, name text, l2_bytes integer);
create table problems (id integer primary key, key text);
create table runs (id integer primary key, device_id integer, problem_id integer);
create table measurements (id integer primary key, run_id integer, config text, status text, median_ms real);
insert into devices values (1, 'NVIDIA H100 80GB HBM3', 52428800), (2, 'NVIDIA H200', 62914560);
""")
db.execute("insert into problems values (1, ?)", (key,))
db.execute("insert into runs values (1, 1, 1)")
rows = [(a, 0.0100), (a + ",ld=cs", 0.0080), (b, 0.0200), (b + ",ld=cs", 0.0170), (c, 0.0300), (c + ",ld=cs", 0.0240),
        (c + ",ld=cs", 0.0100)]
for config, ms in rows[:-1]:
    db.execute("insert into measurements (run_id, config, status, median_ms) values (1, ?, 'ok', ?)", (config, ms))
db.execute("insert into measurements (run_id, config, status, median_ms) values (1, ?, 'wrong_result', ?)", rows[-1])
db.commit()
PY
tar -C "$tmp" -cJf "$tmp/results/h100/caches.tar.xz" h100.db
out=$(python3 "$repo/scripts/streaming_evidence.py" "$tmp/results") || { echo "FAIL: the script exited non-zero"; exit 1; }
echo "$out"
fail=0
expect() {  # expect PATTERN WHY: a line of the output must match PATTERN
  grep -qE -- "$1" <<< "$out" || { echo "FAIL: $2 (no line matching $1)"; fail=1; }
}
expect '^## NVIDIA H200 \(60 MiB of L2\)$' "the H200's section, its L2 from the cache's devices row"
expect '^## NVIDIA H100 80GB HBM3 \(50 MiB of L2\)$' "the H100's section"
# 16 MiB of 60 MiB: 0.27; the ratios' median 0.950, least 0.900, largest 1.000, three twins.
expect '^\| histogram \| 16\.0 MiB \| 0\.27 \| `histogram/u8/bins=256/range=\[0,256\)/n=16777216/dist=uniform` \| 3 \| 0\.950 \| 0\.900 \| 1\.000 \|$' \
  "the H200's row"
# 16 MiB of 50 MiB: 0.32; the median 0.800, least 0.800, largest 0.850 (the wrong result is not a time).
expect '^\| histogram \| 16\.0 MiB \| 0\.32 \| `histogram/u8/bins=256/range=\[0,256\)/n=16777216/dist=uniform` \| 3 \| 0\.800 \| 0\.800 \| 0\.850 \|$' \
  "the H100's row, from the archived cache"
# Both at 1/4 to 1/2 of their L2: the median of 0.950 and 0.800 is 0.875.
expect '^\| 0\.25 to 0\.5 \| 2 \| 0\.875 \| 0\.800 \| 0\.950 \|$' "the two GPUs together by L2 fraction"
[ "$fail" = 0 ] && echo "streaming_evidence_check: OK"
exit "$fail"
