#!/usr/bin/env bash
# Device call H (an H200 only): a plain `autotune tune` as a new user runs it, then the held-out rows of seed
# 20261206 from ROWS (default 0) against CUB with that cache's handles, one process a row, until the deadline.
#   callh.sh COMMIT [FROM_ROW]   (a second call with FROM_ROW resumes on the same machine's /tmp/h200-tuned.db)
set -u
C=${1:?commit}; from=${2:-0}
K=/tmp/h$from; mkdir -p $K
trap 'tar czf $OUT/h$from.tgz -C $K --exclude=tuned.db --exclude="*.db" . ; cp $K/summary.md $OUT/summary-h$from.md 2>/dev/null' EXIT
[ -d /tmp/bin ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $K/gpu.txt
if [ ! -f /tmp/h200-tuned.db ]; then
  timeout 300 bash bench/untuned_grid.sh /tmp/bin $K tune $C; tail -1 $K/tune.log
  cp $K/tuned.db /tmp/h200-tuned.db
  python3 bench/strip_cubins.py $K/tuned.db $K/tuned-slim.db && xz -9 $K/tuned-slim.db && cp $K/tuned-slim.db.xz $OUT/
fi
TUNED_CACHE=/tmp/h200-tuned.db SEED=20261206 HELD_OUT_ROWS=$from:100 HELD_OUT_DEADLINE=$((${UNTIL:-545} - SECONDS)) \
  bash bench/untuned_grid.sh /tmp/bin $K held-out $C
python3 bench/held_out_table.py $K/held-out-20261206-$from-100.log --title "seed 20261206 rows $from.. (H200, $C)" > $K/summary.md 2>&1
head -40 $K/summary.md | cut -c1-220
echo "callh: done at $SECONDS s"
