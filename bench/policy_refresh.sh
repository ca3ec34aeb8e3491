#!/usr/bin/env bash
# The policy retunes planned on 2026-12-05 (bench/results/2026-12-05c-summary.md), fitted on the GPU machine itself, in
# one device call: no round trip to another machine between tuning and fitting. Run from the repository root with
# binaries unpacked from scripts/pack_for_device.sh:
#
#   bench/policy_refresh.sh BIN OUT [BUDGET_SECONDS]     (default 540: a part is started only while its estimated
#                                                         time still fits, so that everything comes back)
#   bench/policy_refresh.sh --dry-run                    the parts' tuning commands, on any machine
#   PARTS=REGEX bench/policy_refresh.sh ...               only the parts whose name REGEX matches (e.g.
#                                                         PARTS=manybins for what a first call's budget left out)
#   POLICY_FROM=DIR bench/policy_refresh.sh ...           fit onto DIR/<family>.json (a first call's policy-after)
#                                                         instead of the tree's policies; policy-before stays the
#                                                         tree's, so that one A/B covers both calls
#
# Parts, in this order (each on bench/policy_retune.sh, fitted with scripts/fit_policy.py --update
# as soon as it ends, so that a part cut by the budget leaves the earlier ones fitted):
#   halves    histogram shapes of f16 and bf16 samples at 64 and 2048 bins over [0,1), at 64K, 1M and 16M, on uniform,
#             narrow and runs samples: the policy has no half shape (seed 777's two rows under 0.95x CUB are halves
#             served u8/32's entries), about 310 s (2026-12-04b: 22 histogram tunings at 16M took about 400 s)
#   reduce    sum/min/max of i8 and i16, absmax of i32 and i64 at the policy's six sizes (uniform): these take the
#             built-in fallback today (no entry of their type), about 200 s
#   manybins  u16/65536 and f32/32768 at 16M on uniform, narrow and runs: the +136 % regret row (f16/71379 bins on
#             runs) was served a configuration fitted on uniform and narrow samples only; and f16 and bf16 at 32768
#             bins, new, so that halves of 16K-110K bins are not served the 2048-bin shape's configuration (a
#             sample type's own shapes come before other types' at any bins distance under 8:
#             HistogramFamily::policy_distance), about 140 s
#   finishes  the policy's reduce shapes that take atomics (min and max of the 32- and 64-bit types, absmax of f16 and
#             bf16) at 64K and 1M, where the finish is most of the time: the space's atomic_last finish (one atomic
#             into the workspace, the last block writes it; new on 2026-12-05d, not in any entry), about 120 s
#   argkeys   the arg-reduction policy's shapes (f32 argmax and argmin, i32 argmax, f64 argmax) at 64K and 1M: its
#             entries there predate the packed keys (f32 at 1M: the entry's pair variant ran 9.1 us in 2026-12-05b's
#             screening, the packed one 7.4) and the wide keys of the 8-byte types (2026-12-05d), about 90 s
#
# OUT/policy-before/ and OUT/policy-after/ hold histogram.json, reduce.json and argreduce.json before and after the
# fits (the tree's
# kernel_templates/<family>/policy.json are rewritten by the fits and put back at the end: copy OUT/policy-after/
# into the repository to keep the result),
# OUT/policy-changed-keys.txt the held-out lookups the change moves (bench/policy_changed.py; policy-ab-keys.txt: at
# most 40 of them, the rows the plan is for first), OUT/*.log.gz the tuning logs, OUT/fit-*.txt what fit_policy.py
# printed. Then, in the next call:
#   AUTOTUNE_POLICY_DIR=OUT/policy-after bench/policy_ab.sh BIN OUT2 OUT/policy-before OUT/policy-ab-keys.txt
set -uo pipefail
dry=0
[ "${1:-}" = "--dry-run" ] && { dry=1; shift; }
if [ $dry = 0 ]; then bin=${1:?BIN}; out=${2:?OUT}; budget=${3:-540}; else bin=/tmp/bin; out=/tmp/policy-refresh; budget=540; fi
cd "$(dirname "$0")/.."
families="histogram reduce argreduce"  # the policies the parts refit

halves='histogram/bf16/bins=64/range=[0,1) histogram/f16/bins=64/range=[0,1) histogram/bf16/bins=2048/range=[0,1) histogram/f16/bins=2048/range=[0,1)'
manybins='histogram/bf16/bins=32768/range=[0,1) histogram/f16/bins=32768/range=[0,1)'
reduce='reduce/sum/i8/acc=i64 reduce/max/i8/acc=i8 reduce/min/i8/acc=i8 reduce/sum/i16/acc=i64 reduce/max/i16/acc=i16 reduce/min/i16/acc=i16 reduce/absmax/i32/acc=u32 reduce/absmax/i64/acc=u64'
# name;family;n;estimate (s);ADD_SHAPES;SHAPES;HIST_DISTS: one retune at one size a line
parts=(
  "halves;histogram;65536;60;$halves;f16|bf16;uniform narrow runs"
  "halves;histogram;1048576;70;$halves;f16|bf16;uniform narrow runs"
  "halves;histogram;16777216;180;$halves;f16|bf16;uniform narrow runs"
)
for n in 4096 16384 65536 1048576 16777216 268435456; do
  parts+=("reduce;reduce;$n;35;$reduce;i8|i16|absmax/i(32|64);uniform")
done
parts+=("manybins;histogram;16777216;140;$manybins;(u16/bins=65536|f32/bins=32768|f16/bins=32768)/;uniform narrow runs")
for n in 65536 1048576; do
  parts+=("finishes;reduce;$n;60;;reduce/(min|max)/(f32|f64|i32|u32|i64|u64)/|reduce/absmax/(f16|bf16)/;uniform")
done
for n in 65536 1048576; do parts+=("argkeys;argreduce;$n;45;;argreduce/;uniform"); done

if [ -n "${PARTS:-}" ]; then
  kept=()
  for p in "${parts[@]}"; do [[ ${p%%;*} =~ $PARTS ]] && kept+=("$p"); done
  [ ${#kept[@]} -gt 0 ] || { echo "policy_refresh: PARTS='$PARTS' matches no part (halves, reduce, manybins, finishes, argkeys)" >&2; exit 2; }
  parts=("${kept[@]}")
fi

if [ $dry = 1 ]; then
  for p in "${parts[@]}"; do
    IFS=';' read -r name family n est added shapes dists <<< "$p"
    echo "# $name: $family n=$n, about $est s"
    ADD_SHAPES="$added" SHAPES="$shapes" HIST_DISTS="$dists" bench/policy_retune.sh --dry-run "$family" "$n" || exit 1
  done
  exit 0
fi

mkdir -p "$out/policy-before" "$out/policy-after"
for f in $families; do cp "kernel_templates/$f/policy.json" "$out/policy-before/$f.json"; done
# fit_policy.py --write rewrites the tree's policies: they are put back as they were when this ends.
trap 'for f in $families; do cp "$out/policy-before/$f.json" "kernel_templates/$f/policy.json"; done' EXIT
if [ -n "${POLICY_FROM:-}" ]; then
  for f in $families; do
    cp "$POLICY_FROM/$f.json" "kernel_templates/$f/policy.json" || { echo "policy_refresh: no $POLICY_FROM/$f.json" >&2; exit 2; }
  done
fi
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
date=$(date -u +%F)
# The GPU the entries are measured on, in each update's provenance (fit_policy.py --gpu).
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
gpu=${gpu:-unknown GPU}
rc=0 t0=$SECONDS
for p in "${parts[@]}"; do
  IFS=';' read -r name family n est added shapes dists <<< "$p"
  if [ $((SECONDS - t0 + est)) -gt "$budget" ]; then
    echo "policy_refresh: $name $family n=$n not started at $((SECONDS - t0)) s (about $est s, budget $budget s)"
    continue
  fi
  work="$out/work-$name-$n"
  ADD_SHAPES="$added" SHAPES="$shapes" HIST_DISTS="$dists" bench/policy_retune.sh "$bin" "$work" "$family" "$n" \
    > "$out/retune-$name-$n.txt" 2>&1 || rc=1
  log="$work/policy-$family-$n.log"
  [ -s "$log" ] || { echo "policy_refresh: $name n=$n left no log (retune-$name-$n.txt)"; rc=1; continue; }
  kept="policy-$family-$name-$n-$commit.log.gz"
  gzip -c "$log" > "$out/$kept"
  add=(); [ -n "$added" ] && add=(--add-shapes)
  python3 scripts/fit_policy.py "$log" --update "${add[@]}" --write --date "$date" --commit "$commit" --gpu "$gpu" \
    --source "bench/results/$date-data/$kept" \
    --command "ADD_SHAPES='$added' SHAPES='$shapes' HIST_DISTS='$dists' bench/policy_retune.sh BIN OUT $family $n" \
    > "$out/fit-$name-$n.txt" 2>&1 || { echo "policy_refresh: the fit of $name n=$n failed (fit-$name-$n.txt)"; rc=1; }
  # After every part: a call cut short by its time limit still leaves the parts fitted so far.
  for f in $families; do cp "kernel_templates/$f/policy.json" "$out/policy-after/$f.json"; done
  echo "policy_refresh: $name $family n=$n done at $((SECONDS - t0)) s"
  rm -rf "$work"
done
for f in $families; do cp "kernel_templates/$f/policy.json" "$out/policy-after/$f.json"; done
# Against the H200's limits (policy_changed.py's default cache holds its devices row): the lookups its handles make,
# without starting CUDA 600 times.
python3 bench/policy_changed.py "$bin" "$out/policy-before" --after "$out/policy-after" \
  --out "$out/policy-changed-keys.txt" > "$out/policy-changed.txt" || rc=1
tail -1 "$out/policy-changed.txt"
# At most 40 of them for one policy_ab.sh call (about 10 s a problem): the rows the plan is for first (seed 777's two
# halves under 0.95x CUB, the +136 % regret row), then the rest in a seeded random order.
python3 - "$out" <<'PY' || rc=1
import random, sys
out = sys.argv[1]
keys = open(f"{out}/policy-changed-keys.txt").read().split()
first = [k for k in keys if k.startswith(("histogram/bf16/bins=44/", "histogram/f16/bins=26/", "histogram/f16/bins=71379/"))]
rest = [k for k in keys if k not in first]
random.Random(20261205).shuffle(rest)
open(f"{out}/policy-ab-keys.txt", "w").writelines(k + "\n" for k in (first + rest)[:40])
PY
exit $rc
