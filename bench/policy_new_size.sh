#!/usr/bin/env bash
# A new size in the measured policies, on this GPU, and its A/B on the held-out grids, in one device call: every shape
# of the histogram and reduction policies tuned at size N (histograms on uniform, narrow, runs and image samples, so
# that each entry is robust over them), the entries written beside the other GPUs' (scripts/fit_policy.py --update
# --beside --write: kernel_templates/<family>/policy.json change in this tree), then the held-out lookups of three
# seeds that the new entries move on this GPU after a plain tune (bench/policy_changed.py), and each moved problem's
# handle with the new policy against the old one and CUB, in the same rounds (shape_bench --compare-policy). Run on
# the GPU machine from the repository root with binaries unpacked from scripts/pack_for_device.sh.
#
#   bench/policy_new_size.sh BIN OUT N [TUNED_CACHE]
#
# N: the new entries' n (e.g. 262144: the policies hold 64K and 1M, 4 doublings apart, where the launch-bound sizes
# turn bandwidth-bound). TUNED_CACHE: a plain `autotune tune` cache of this GPU's model (e.g. a cubin-free copy from
# bench/results; the lookups compile what they serve); without it a plain tune into OUT/tuned.db runs first.
# FAMILIES (default "histogram reduce"), SEEDS (default 20261204,20261205,20261206), DEADLINE (default 470: no A/B
# process starts after it, in seconds of this script) and STOP (575: each process is ended by it); COMMIT and
# SOURCE_DIR (default bench/results/<date>-data) name the tunings' logs in the policies' update records.
# SHAPES=REGEX tunes only the shapes it matches, HIST_DISTS the histogram distributions (default "uniform narrow runs
# image"; bench/policy_retune.sh), and PER_DIST=X writes only entries of one distribution where the robust
# configuration runs more than X times slower on it, or the configuration the lookup serves the problem today where the
# tuning timed it (bench/policy_served.py, scripts/fit_policy.py --per-dist X --per-dist-only --add-shapes --served):
# e.g. SHAPES='(bf16|f16)/bins=32768' HIST_DISTS="uniform narrow" PER_DIST=1.1 FAMILIES=histogram.
#
# OUT: policy-<family>-N.log (the tunings, gzip them into SOURCE_DIR to commit the policies), fit-<family>.txt,
# pol-old/ and pol-new/ (the policy files before and after), moved.txt and moved.md (the moved problems), ab-I.log
# and ab-I.md (shape_bench's lines and tables), ab-summary.md (bench/held_out_table.py --compared policy).
# Checked without a GPU by tests/policy_new_size_check.sh (stand-in binaries).
set -uo pipefail
bin=$(cd "${1:?BIN}" && pwd) || exit 2
out=${2:?OUT}
n=${3:?N (the new entries\' size)}
tuned=${4:-}
case "$n" in ''|*[!0-9]*) echo "policy_new_size: N is a number of elements, not '$n'" >&2; exit 2 ;; esac
families=${FAMILIES:-histogram reduce}
seeds=${SEEDS:-20261204,20261205,20261206}
deadline=${DEADLINE:-470}
stop=${STOP:-575}
commit=${COMMIT:-unknown}
source_dir=${SOURCE_DIR:-bench/results/$(date -u +%F)-data}
mkdir -p "$out/pol-old" "$out/pol-new"
out=$(cd "$out" && pwd)
t0=$SECONDS
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$gpu" ] || { echo "policy_new_size: nvidia-smi names no GPU" >&2; exit 2; }
for f in $families; do
  [ -f "kernel_templates/$f/policy.json" ] || { echo "policy_new_size: no kernel_templates/$f/policy.json" >&2; exit 2; }
  cp "kernel_templates/$f/policy.json" "$out/pol-old/$f.json"
done
if [ -z "$tuned" ]; then
  "$bin/autotune" tune --cache "$out/tuned.db" > "$out/tune.log" 2>&1 ||
    { echo "policy_new_size: the plain tune failed (see $out/tune.log)" >&2; exit 1; }
  tuned=$out/tuned.db
fi
[ -f "$tuned" ] || { echo "policy_new_size: no tuned cache $tuned" >&2; exit 2; }
model=$(python3 - "$tuned" "$gpu" <<'EOF'
import sqlite3, sys
rows = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute(
    "select model_key from devices where name = ?", (sys.argv[2],)).fetchall()
print(rows[0][0] if len(rows) == 1 else "")
EOF
)
[ -n "$model" ] || { echo "policy_new_size: $tuned holds no single devices row of $gpu" >&2; exit 2; }
dists=${HIST_DISTS:-uniform narrow runs image}
fit=(--update --beside)
[ -n "${PER_DIST:-}" ] && fit+=(--per-dist "$PER_DIST" --per-dist-only --add-shapes)
# ADD_SHAPES (bench/policy_retune.sh) may name a shape the policy has no entry of: its entries are added.
[ -n "${ADD_SHAPES:-}" ] && [ -z "${PER_DIST:-}" ] && fit+=(--add-shapes)
rc=0
for f in $families; do
  HIST_DISTS="$dists" bench/policy_retune.sh "$bin" "$out" "$f" "$n" > "$out/retune-$f.txt" 2>&1
  grep '^policy_retune' "$out/retune-$f.txt"
  served=()
  if [ -n "${PER_DIST:-}" ]; then  # a distribution's winner against what its problem runs today (no robust entry at n)
    python3 bench/policy_served.py "$bin" "$out/policy-$f-$n.log" --cache "$tuned" --model "$model" \
      --policy-dir "$out/pol-old" > "$out/served-$f.txt" 2> "$out/served-$f.err" && served=(--served "$out/served-$f.txt") ||
      echo "policy_new_size: no served configurations for $f (see $out/served-$f.err): the robust one is the baseline" >&2
  fi
  python3 scripts/fit_policy.py "$out/policy-$f-$n.log" "${fit[@]}" "${served[@]}" --write --gpu "$gpu" \
    --date "$(date -u +%F)" --commit "$commit" --source "$source_dir/policy-$f-$n-$commit.log.gz" \
    --command "${SHAPES:+SHAPES='$SHAPES' }HIST_DISTS='$dists' bench/policy_retune.sh BIN OUT $f $n (fit_policy.py ${fit[*]}${served:+ --served SERVED})" \
    > "$out/fit-$f.txt" 2>&1 || { echo "policy_new_size: the $f fit failed (see $out/fit-$f.txt)" >&2; rc=1; }
  cp "kernel_templates/$f/policy.json" "$out/pol-new/$f.json"
  echo "policy_new_size: $f at $n fitted at $((SECONDS - t0)) s"
done
python3 bench/policy_changed.py "$bin" "$out/pol-old" --after "$out/pol-new" --seeds "$seeds" --cache "$tuned" \
  --model "$model" --out "$out/moved.txt" > "$out/moved.md" 2>&1 || rc=1
tail -1 "$out/moved.md"
mapfile -t keys < "$out/moved.txt"
i=0
while [ $i -lt ${#keys[@]} ] && [ $((SECONDS - t0)) -lt "$deadline" ]; do
  args=()
  for k in "${keys[@]:$i:6}"; do args+=(--problem "$k"); done
  AUTOTUNE_POLICY_DIR="$out/pol-new" timeout $((stop - (SECONDS - t0))) "$bin/shape_bench" "${args[@]}" \
    --tuned-cache "$tuned" --compare-policy "$out/pol-old" --no-exact --markdown "$out/ab-$i.md" \
    > "$out/ab-$i.out" 2> "$out/ab-$i.log" || rc=1
  i=$((i + 6))
done
echo "policy_new_size: A/B of $([ $i -lt ${#keys[@]} ] && echo $i || echo ${#keys[@]}) of ${#keys[@]} moved problems at $((SECONDS - t0)) s"
if [ ${#keys[@]} -gt 0 ]; then
  cat "$out"/ab-*.log > "$out/ab.log"
  python3 bench/held_out_table.py "$out/ab.log" --compared policy --title "Policy entries at n=$n on $gpu, A/B" \
    > "$out/ab-summary.md" 2>&1 || rc=1
  head -16 "$out/ab-summary.md" | cut -c1-220
fi
exit $rc
