#!/usr/bin/env bash
# Device call 22 (session 2026-12-07h; an H200 or an H100, whichever comes): #26's measurement of the final code,
# 2026-12-07d's call6.sh on any GPU (ANY_GPU=1: a plain tune, the held-out grid of seed 20261206, the preset and the
# rows it moves; resumable across calls on one warm machine, state in /tmp/h6), after the quick GPU tier when QUICK=1
# (it passed on an H100 with 0dd7ac7, and no kernel, timing, tuner or runtime code changed after it).
#   call22.sh COMMIT      (.device/bins.tar.xz from scripts/pack_for_device.sh at COMMIT; UNTIL as call6.sh)
set -u
C=${1:?commit}
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
if [ "${QUICK:-0}" = 1 ] && [ ! -f /tmp/h6/quick.done ]; then
  mkdir -p /tmp/h6/quick
  GPU_CHECK_BENCHES=none timeout 300 bash bench/gpu_check.sh quick /tmp/bin /tmp/h6/quick $C 280 > /tmp/h6/quick/run.log 2>&1
  echo "quick rc=$? at $SECONDS s"; touch /tmp/h6/quick.done
  cp /tmp/h6/quick/summary.log $OUT/quick-summary.log; cut -c1-220 /tmp/h6/quick/summary.log
fi
ANY_GPU=1 UNTIL=$((${UNTIL:-570} - SECONDS)) bash bench/results/2026-12-07d-data/call6.sh $C
