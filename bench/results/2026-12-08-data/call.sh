#!/usr/bin/env bash
# Device calls of session 2026-12-08 (an H200; carry .device, packed at COMMIT by scripts/pack_for_device.sh with
# PACK_BINS="autotune autotune_gpu_tests shape_bench example_histogram"). Resumable on one warm machine (state in
# /tmp/h8), each stage skipped once done, none started past UNTIL seconds:
#   1. the quick GPU tier of COMMIT (GPU_CHECK_BENCHES=none);
#   2. a plain `autotune tune` as a new user runs it (OUT: h200-tuned-slim.db.xz);
#   3. `autotune tune --preset standard` on a copy of it (its wall time, summed over calls, in preset.log);
#   4. the held-out rows of seed 20261206 whose lookup the preset changes (bench/policy_changed.py --before-cache);
#   5. #26's regret and the preset's never-worse in one pass: each row tuned exactly (HELD_OUT_EXACT=1) and its
#      handles from both caches timed with CUB in the same rounds; the changed rows first, then the rest in order,
#      each call in its own folder (r-HHMMSS), skipping rows an earlier call measured.
#   call.sh COMMIT      (UNTIL=S: no stage, and no row, starts after S seconds less a row's time; default 560)
# A row (an exact tuning, 14-25 s on an H200) gets at most 90 s; none starts in the last 70 s of UNTIL, so the
# tarball (the EXIT trap) is written inside a device call's 600 s.
set -u
C=${1:?commit}
UNTIL=${UNTIL:-560}
K=/tmp/h8; mkdir -p $K
stamp=$(date +%H%M%S)
trap 'tar czf $OUT/h8-$stamp.tgz -C $K --exclude="*.db" . ; cp $K/*.md $OUT/ 2>/dev/null; echo "call: done at $SECONDS s"' EXIT
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a $K/gpu.txt
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case $name in *H200*) G=h200 ;; *H100*) G=h100 ;; *) G=gpu ;; esac
left() { echo $((UNTIL - SECONDS)); }
slim() {  # slim DB NAME: the cache without cubins, xz'd into OUT
  python3 bench/strip_cubins.py "$1" $K/$2.db && xz -9f $K/$2.db && cp $K/$2.db.xz $OUT/
}

# 1. the quick tier
if [ ! -f $K/quick.done ]; then
  mkdir -p $K/quick
  GPU_CHECK_BENCHES=none timeout 300 bash bench/gpu_check.sh quick /tmp/bin $K/quick $C 280 > $K/quick/run.log 2>&1
  echo "quick rc=$? at $SECONDS s"; touch $K/quick.done
  cut -c1-200 $K/quick/summary.log
fi

# 2. the plain tune
if [ ! -f $K/tune.done ] && [ "$(left)" -gt 120 ]; then
  timeout 330 bash bench/untuned_grid.sh /tmp/bin $K tune $C && touch $K/tune.done
  tail -1 $K/tune.log
  [ -f $K/tune.done ] || exit 1
  slim $K/tuned.db $G-tuned-slim
fi
[ -f $K/tune.done ] || exit 0

# 3. the preset, on a copy of the plain cache
if [ ! -f $K/preset.done ] && [ "$(left)" -gt 60 ]; then
  PRESET_LIMIT=$(($(left) - 20)) bash bench/untuned_grid.sh /tmp/bin $K preset $C && touch $K/preset.done
  grep "untuned_grid:" $K/preset.log | tail -3
  [ -f $K/preset.done ] && slim $K/preset.db $G-preset-slim
fi
[ -f $K/preset.done ] || exit 0

# 4. the rows the preset changes
if [ ! -f $K/order.rows ]; then
  model=$(python3 -c "import sqlite3; print(sqlite3.connect('$K/tuned.db').execute('select model_key from devices').fetchone()[0])")
  python3 bench/policy_changed.py /tmp/bin --before-cache $K/tuned.db --cache $K/preset.db --model "$model" \
    --seeds 20261206 --rows 100 --out $K/changed.keys > $K/changed.log 2>&1
  tail -1 $K/changed.log
  /tmp/bin/shape_bench --held-out 100 --seed 20261206 --list > $K/rows.keys
  awk 'NR==FNR {c[$0]=1; next} ($0 in c) {printf "%d ", FNR-1}' $K/changed.keys $K/rows.keys > $K/changed.rows
  echo "changed rows: $(cat $K/changed.rows)"
  { cat $K/changed.rows; seq 0 99 | tr '\n' ' '; } | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ' > $K/order.rows
fi

# 5. exact tunings (regret) and both caches' handles, the rows no earlier call measured
done_rows=$(cat $K/r-*/held-out-20261206-list.log 2>/dev/null | grep -o '^row [0-9]*' | awk '{print $2}' | sort -un | tr '\n' ' ')
todo=$(for r in $(cat $K/order.rows); do case " $done_rows " in *" $r "*) ;; *) printf "%s " $r ;; esac; done)
if [ -n "$todo" ] && [ "$(left)" -gt 40 ]; then
  TUNED_CACHE=$K/tuned.db SEED=20261206 HELD_OUT_EXACT=1 HELD_OUT_COMPARE_CACHE=$K/preset.db HELD_OUT_ROW_LIST="$todo" \
    HELD_OUT_ROW_LIMIT=90 HELD_OUT_DEADLINE=$(($(left) - 70)) bash bench/untuned_grid.sh /tmp/bin $K/r-$stamp held-out $C
  cat $K/r-*/held-out-20261206-list.log | grep '^row .*shape_bench:' > $K/exact-all.log
  python3 bench/held_out_table.py $K/exact-all.log --compared preset \
    --title "seed 20261206, exact and preset ($name, $C)" > $K/exact-summary.md 2>&1
  head -40 $K/exact-summary.md | cut -c1-220
fi
