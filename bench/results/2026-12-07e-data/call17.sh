#!/usr/bin/env bash
# Device call 17 (session 2026-12-07e, for the next session): the quick GPU tier on COMMIT (unless SKIP_QUICK=1); then
# on an H200 call 6 (plain tune, held-out grid, preset, the preset's rows; resumable); on an H100 one candidate policy
# change from tuning to its A/B in this one call (bench/policy_new_size.sh): bf16/f16 with 32768 bins tuned on uniform
# and narrow samples at 4M, entries of narrow samples only where the robust one runs 1.1x slower (PER_DIST), the
# held-out lookups of 17 seeds they move with the H100 plain cache of 54c8a56, each timed against the shipped policy.
set -u
C=${1:?commit}; SKIP_QUICK=${SKIP_QUICK:-0}
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
cp .device/pol-base/histogram.json kernel_templates/histogram/policy.json  # an earlier call on this machine may have fitted into it
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
if [ "$SKIP_QUICK" = 0 ]; then
  mkdir -p /tmp/q17
  GPU_CHECK_BENCHES=none timeout 300 bash bench/gpu_check.sh quick /tmp/bin /tmp/q17 $C 280 > /tmp/q17/run.log 2>&1
  echo "quick rc=$? at $SECONDS s"; cp /tmp/q17/summary.log $OUT/quick-summary.log; cut -c1-220 /tmp/q17/summary.log
fi
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  UNTIL=$((570 - SECONDS)) bash .device/call6.sh $C
  exit
fi
P=/tmp/p17; rm -rf $P; mkdir -p $P
trap 'tar czf $OUT/call17.tgz -C $P --exclude="*.db" . ; echo "call17: done at $SECONDS s"' EXIT
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > $P/tuned.db
FAMILIES=histogram SHAPES='(bf16|f16)/bins=32768' HIST_DISTS="uniform narrow" PER_DIST=1.1 COMMIT=$C \
  SEEDS=20261206,11,12,13,14,15,16,17,18,19,20,21,22,4242,777,20261204,20261205 \
  DEADLINE=$((540 - SECONDS)) STOP=$((575 - SECONDS)) timeout $((580 - SECONDS)) bash bench/policy_new_size.sh /tmp/bin $P 4194304 $P/tuned.db
grep -- "->" $P/fit-histogram.txt | cut -c1-220
