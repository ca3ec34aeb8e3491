#!/usr/bin/env bash
# Device call 4 (session 2026-12-07c): regret against exact winners on the held-out grid (seed 20261206), the handles
# from call H's plain tune of 54c8a56 on this GPU model (.device/h100-tuned-54c8a56-slim.db.xz), each row also with
# the handle of 2026-12-06's H100 preset cache re-stamped to the template hash (the preset's A/B); rows 2, 13, 44
# (the worst regrets of 2026-12-06) first, then the rest in order, until the deadline.
set -u
C=${1:?commit}
K=/tmp/h4; mkdir -p $K
trap 'tar czf $OUT/h4.tgz -C $K --exclude="*.db" . ; cp $K/summary.md $OUT/summary-h4.md 2>/dev/null' EXIT
[ -d /tmp/bin ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $K/gpu.txt
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > /tmp/h4-tuned.db
xz -dc .device/h100-preset-restamped-ade3c7cf.db.xz > /tmp/h4-preset.db
TUNED_CACHE=/tmp/h4-tuned.db SEED=20261206 HELD_OUT_EXACT=1 HELD_OUT_COMPARE_CACHE=/tmp/h4-preset.db \
  HELD_OUT_ROW_LIST="2 13 44 0 1 3 4 5 6 7 8 9 10 11 12 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 " HELD_OUT_ROW_LIMIT=100 HELD_OUT_DEADLINE=$((${UNTIL:-430} - SECONDS)) \
  bash bench/untuned_grid.sh /tmp/bin $K held-out $C
python3 bench/held_out_table.py $K/held-out-20261206-list.log --compared preset --title "seed 20261206, exact (H100, $C)" > $K/summary.md 2>&1
head -30 $K/summary.md | cut -c1-220
echo "call4: done at $SECONDS s"
