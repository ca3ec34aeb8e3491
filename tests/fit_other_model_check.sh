#!/usr/bin/env bash
# scripts/fit_other_model.py (runtime/transfer_costs.json's other_model): two models' tuning logs made here, each
# model's winner timed on the other, the statistics worked out by hand:
#   P1: A's winner c0 runs 1.25 ms on B, whose best is 1.00 (1.25); B's winner c1 runs 2.0 on A, best 1.0 (2.0)
#   P2: both models' winner is c2 (1.0 both ways)
#   P4: A's winner cz is not in B's log (unpriced); B's winner c3 runs 2.0 on A, whose best is 0.5 (4.0)
#   P3: B only (not shared)
# A on B [1.0, 1.25]: median 1.125, p90 1.0 + 0.25 x 0.9 = 1.225; B on A [1.0, 2.0, 4.0]: median 2.0, p90
# 2.0 + 2.0 x 0.8 = 3.6; pooled [1.0, 1.0, 1.25, 2.0, 4.0]: median 1.25, p90 2.0 + 2.0 x 0.6 = 3.2, worst 4.0.
# --write keeps the document's other fields; a log against itself (--same) costs 1.0.
#
#   tests/fit_other_model_check.sh REPO
set -uo pipefail
repo=${1:?REPO}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys
tmp = sys.argv[1]
def log(path, gpu, problems):
    with open(path, "w") as f:
        f.write(f"autotune 0.1.0: tuning {len(problems)} problems on GPU 0 ({gpu}, sm_90) into x.db\n")
        for key, times in problems.items():
            f.write(f"\n== {key} (GPU 0)\n")
            for i, (c, ms) in enumerate(times.items(), 1):
                f.write(f"[{i:3d}/{len(times)}] {c} ok     {ms:.4f} ms       5.7 GB/s\n")
def times(best, best_ms, rest_ms, extra=None):
    t = {f"c{i}": rest_ms for i in range(20)}
    t[best] = best_ms
    t.update(extra or {})
    return t
log(f"{tmp}/a.log", "NVIDIA H200", {
    "P1": times("c0", 1.0, 2.0),
    "P2": times("c2", 1.0, 2.0),
    "P4": times("cz", 0.5, 3.0, {"cz": 0.5, "c3": 2.0}),
})
log(f"{tmp}/b.log", "NVIDIA H100", {
    "P1": times("c1", 1.0, 3.0, {"c0": 1.25}),
    "P2": times("c2", 1.0, 2.0),
    "P3": times("c5", 1.0, 2.0),
    "P4": times("c3", 1.0, 2.0),
})
PY
printf '{\n "format": 1,\n "other_model": {"factor": 1.1, "measured": false},\n "families": {}\n}\n' > "$tmp/costs.json"
cd "$repo/scripts" || exit 1
out=$(python3 fit_other_model.py --a "$tmp/a.log" --b "$tmp/b.log" --same "$tmp/a.log" "$tmp/a.log" \
  --write "$tmp/costs.json" --markdown "$tmp/t.md") || { echo "fit_other_model_check: the fit failed"; exit 1; }
fail() { echo "fit_other_model_check: $1"; echo "$out"; exit 1; }
grep -qF "| A | B | 2 | 1 | 1.125 | 1.225 | 1.250 |" <<< "$out" || fail "A's winners on B"
grep -qF "| B | A | 3 | 0 | 2.000 | 3.600 | 4.000 |" <<< "$out" || fail "B's winners on A"
grep -qF "| both | the other | 5 | 1 | 1.250 | 3.200 | 4.000 |" <<< "$out" || fail "the pooled row"
grep -qF "| 1.000 | 1.000 | 1.000 |" <<< "$out" || fail "a log against itself"
cmp -s "$tmp/t.md" <(echo "$out") || fail "the markdown file is not the table printed"
python3 - "$tmp/costs.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
m = d["other_model"]
ok = (m["factor"] == 3.2 and m["measured"] is True and m["count"] == 5 and m["worst"] == 4.0 and
      m["a_on_b"]["p90"] == 1.225 and m["b_on_a"]["median"] == 2.0 and m["same_model"][0]["p90"] == 1.0 and
      d["format"] == 1 and d["families"] == {})
if not ok:
    print("fit_other_model_check: the written other_model is wrong: " + json.dumps(m))
sys.exit(0 if ok else 1)
PY
# Refusals: an odd --same, and two sides that share no problem.
python3 fit_other_model.py --a "$tmp/a.log" --b "$tmp/b.log" --same "$tmp/a.log" > /dev/null 2>&1 &&
  fail "an odd --same was taken"
printf 'autotune\n\n== Q (GPU 0)\n[  1/1] c0 ok 1.0 ms 1 GB/s\n' > "$tmp/q.log"
python3 fit_other_model.py --a "$tmp/a.log" --b "$tmp/q.log" > /dev/null 2>&1 && fail "no shared problem was taken"
echo "fit_other_model_check: OK"
