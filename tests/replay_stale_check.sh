#!/usr/bin/env bash
# bench/replay_sizes.py and bench/replay_grid.py price the lookup's answers with a cache's measured times; when this
# build's lookup skips the cache's runs as measured with other code, they refuse instead of pricing other evidence
# (2026-12-06: H200 "offline" figures of earlier sessions priced the policy that way). A stand-in `autotune best`
# answers a fixed configuration and FAKE_STALE skipped runs; the caches are made here, their regrets worked out by
# hand (cfgA 2.0 ms where the best ran 1.6: +25.0 %; a size with more than two timed variants counts as tuned).
#
#   tests/replay_stale_check.sh REPO
set -uo pipefail
repo=${1:?REPO}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/autotune" <<'SH'
#!/usr/bin/env bash
echo "{\"config\": \"cfgA\", \"source\": \"nearest_size\", \"stale_runs_skipped\": ${FAKE_STALE:-0}}"
SH
chmod +x "$tmp/autotune"
python3 - "$tmp" <<'PY'
import sqlite3, sys
def make(path, sizes):
    db = sqlite3.connect(path)
    db.executescript("""
      create table devices (model_key text);
      create table problems (id integer primary key, key text, shape_key text, family text, n integer);
      create table runs (id integer primary key, problem_id integer, stale integer default 0, stale_reason text);
      create table measurements (run_id integer, config text, status text, median_ms real);
      create table winners (problem_id integer, run_id integer, config text);
      insert into devices values ('GPU|sm_90|1SM|1MiB');""")
    for i, n in enumerate(sizes, 1):
        db.execute("insert into problems values (?, ?, 'reduce/sum/f32/acc=f32/dist=uniform', 'reduce', ?)",
                   (i, f"reduce/sum/f32/acc=f32/n={n}/dist=uniform", n))
        db.execute("insert into runs (id, problem_id) values (?, ?)", (i, i))
        db.executemany("insert into measurements values (?, ?, 'ok', ?)", [(i, "cfgA", 2.0), (i, "cfgB", 1.6), (i, "cfgC", 3.0)])
        db.execute("insert into winners values (?, ?, 'cfgB')", (i, i))
    db.commit()
make(sys.argv[1] + "/tuned.db", [4096, 16384, 65536])
make(sys.argv[1] + "/exact.db", [16384])
PY
fail=0
out=$(FAKE_STALE=1 python3 "$repo/bench/replay_sizes.py" "$tmp/autotune" "$tmp/tuned.db" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q "| 16384 | 4096, 65536 | nearest_size | +25.0 |" <<< "$out" ||
  { echo "FAIL: replay_sizes with only the left-out run skipped: rc=$rc"; echo "$out"; fail=1; }
out=$(FAKE_STALE=2 python3 "$repo/bench/replay_sizes.py" "$tmp/autotune" "$tmp/tuned.db" 2>&1)
rc=$?
[ $rc != 0 ] && grep -q "skips 1 of the cache's runs as measured with other code" <<< "$out" ||
  { echo "FAIL: replay_sizes priced a cache whose runs the lookup skips: rc=$rc"; echo "$out"; fail=1; }
out=$(FAKE_STALE=0 python3 "$repo/bench/replay_grid.py" "$tmp/autotune" "$tmp/tuned.db" "$tmp/exact.db" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q "1 priced of 1: median regret +25.0 %, worst +25.0 %" <<< "$out" ||
  { echo "FAIL: replay_grid on a cache of this build: rc=$rc"; echo "$out"; fail=1; }
out=$(FAKE_STALE=3 python3 "$repo/bench/replay_grid.py" "$tmp/autotune" "$tmp/tuned.db" "$tmp/exact.db" 2>&1)
rc=$?
[ $rc != 0 ] && grep -q "skips 3 run(s) of reduce/sum/f32/acc=f32/n=4096/dist=uniform" <<< "$out" ||
  { echo "FAIL: replay_grid priced a cache whose runs the lookup skips: rc=$rc"; echo "$out"; fail=1; }
[ $fail = 0 ] && echo "replay_stale_check: OK"
exit $fail
