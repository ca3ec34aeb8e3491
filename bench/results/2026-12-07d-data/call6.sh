#!/usr/bin/env bash
# Device call 6 (session 2026-12-07d, an H200 only): #26's three H200 measurements in order, resumable across calls
# on one warm machine (state in /tmp/h6), each stage skipped once done, no stage started past UNTIL seconds:
#   1. a plain `autotune tune` as a new user runs it (OUT: h200-tuned-slim.db.xz);
#   2. the held-out grid of seed 20261206 against CUB with that cache's handles (one process a row);
#   3. `autotune tune --preset standard` on a copy of it (resumable; its wall time in preset.log);
#   4. the rows whose lookup the preset changes (bench/policy_changed.py --before-cache), both handles timed in the
#      same rounds (#26's "never worse with the preset").
#   call6.sh COMMIT
set -u
C=${1:?commit}
UNTIL=${UNTIL:-570}
K=/tmp/h6; mkdir -p $K
stamp=$(date +%H%M%S)
trap 'tar czf $OUT/h6-$stamp.tgz -C $K --exclude="*.db" . ; cp $K/*.md $OUT/ 2>/dev/null; echo "call6: done at $SECONDS s"' EXIT
[ -d /tmp/bin ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a $K/gpu.txt
# ANY_GPU=1 (2026-12-07h's call22.sh): any GPU, its files named by it (h100-tuned-slim.db.xz on an H100).
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case $name in *H200*) G=h200 ;; *H100*) G=h100 ;; *) G=gpu ;; esac
[ "$G" = h200 ] || [ "${ANY_GPU:-0}" = 1 ] || { echo "call6: not an H200"; exit 3; }
left() { echo $((UNTIL - SECONDS)); }
slim() {  # slim DB NAME: the cache without cubins, xz'd into OUT
  python3 bench/strip_cubins.py "$1" $K/$2.db && xz -9f $K/$2.db && cp $K/$2.db.xz $OUT/
}

# 1. the plain tune
if [ ! -f $K/tune.done ]; then
  timeout 330 bash bench/untuned_grid.sh /tmp/bin $K tune $C && touch $K/tune.done
  tail -1 $K/tune.log
  [ -f $K/tune.done ] || exit 1
  slim $K/tuned.db $G-tuned-slim
fi

# 2. the held-out grid, from the first row no earlier call measured
next=$(cat $K/grid.next 2>/dev/null || echo 0)
if [ "$next" -lt 100 ] && [ "$(left)" -gt 30 ]; then
  SEED=20261206 HELD_OUT_ROWS=$next:100 HELD_OUT_DEADLINE=$(($(left) - 15)) \
    bash bench/untuned_grid.sh /tmp/bin $K held-out $C
  last=$(grep -o '^row [0-9]*' $K/held-out-20261206-$next-100.log | awk '{print $2}' | sort -n | tail -1)
  [ -n "$last" ] && echo $((last + 1)) > $K/grid.next
  cat $K/held-out-20261206-*-100.log | grep '^row ' > $K/held-out-20261206-all.log
  python3 bench/held_out_table.py $K/held-out-20261206-all.log --title "seed 20261206 ($name, $C)" > $K/grid-summary.md 2>&1
  head -30 $K/grid-summary.md | cut -c1-200
fi
next=$(cat $K/grid.next 2>/dev/null || echo 0)
[ "$next" -ge 100 ] || exit 0

# 3. the preset, on a copy of the plain cache
if [ ! -f $K/preset.done ] && [ "$(left)" -gt 60 ]; then
  PRESET_LIMIT=$(($(left) - 20)) bash bench/untuned_grid.sh /tmp/bin $K preset $C && touch $K/preset.done
  grep "untuned_grid:" $K/preset.log | tail -3
  [ -f $K/preset.done ] && slim $K/preset.db $G-preset-slim
fi
[ -f $K/preset.done ] || exit 0

# 4. the rows the preset changes, both handles in the same rounds
if [ ! -f $K/changed.rows ]; then
  model=$(python3 -c "import sqlite3; print(sqlite3.connect('$K/tuned.db').execute('select model_key from devices').fetchone()[0])")
  python3 bench/policy_changed.py /tmp/bin --before-cache $K/tuned.db --cache $K/preset.db --model "$model" \
    --seeds 20261206 --rows 100 --out $K/changed.keys > $K/changed.log 2>&1
  tail -1 $K/changed.log
  /tmp/bin/shape_bench --held-out 100 --seed 20261206 --list > $K/rows.keys
  awk 'NR==FNR {c[$0]=1; next} ($0 in c) {printf "%d ", FNR-1}' $K/changed.keys $K/rows.keys > $K/changed.rows
  echo "changed rows: $(cat $K/changed.rows)"
fi
if [ -s $K/changed.rows ] && [ ! -f $K/compare.done ] && [ "$(left)" -gt 30 ]; then
  TUNED_CACHE=$K/tuned.db SEED=20261206 HELD_OUT_COMPARE_CACHE=$K/preset.db HELD_OUT_ROW_LIST="$(cat $K/changed.rows)" \
    HELD_OUT_ROW_LIMIT=100 HELD_OUT_DEADLINE=$(($(left) - 15)) bash bench/untuned_grid.sh /tmp/bin $K/cmp held-out $C \
    && touch $K/compare.done
  python3 bench/held_out_table.py $K/cmp/held-out-20261206-list.log --compared preset \
    --title "seed 20261206, rows the preset changes ($name, $C)" > $K/preset-summary.md 2>&1
  head -40 $K/preset-summary.md | cut -c1-200
fi
