#!/usr/bin/env bash
# Device call 20 (for the session after 2026-12-07g, an H200): the quick GPU tier on COMMIT's binaries (unless
# SKIP_QUICK=1), then call6.sh (the plain tune, the held-out grid of seed 20261206, the preset and the rows it moves;
# resumable on one warm machine: call again with SKIP_QUICK=1 to go on). The tree's policy files are the commit's: each
# device call gets a fresh copy of the tree, and the binaries embed the same policies.
#   call20.sh COMMIT      (.device/bins.tar.xz from scripts/pack_for_device.sh at COMMIT; .device/call6.sh)
set -u
C=${1:?commit}; SKIP_QUICK=${SKIP_QUICK:-0}
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "call20: not an H200"; exit 3; }
if [ "$SKIP_QUICK" = 0 ]; then
  mkdir -p /tmp/q20
  GPU_CHECK_BENCHES=none timeout 300 bash bench/gpu_check.sh quick /tmp/bin /tmp/q20 $C 280 > /tmp/q20/run.log 2>&1
  echo "quick rc=$? at $SECONDS s"; cp /tmp/q20/summary.log $OUT/quick-summary.log; cut -c1-220 /tmp/q20/summary.log
fi
UNTIL=$((570 - SECONDS)) bash .device/call6.sh $C
