#!/usr/bin/env bash
# Device call 16 (session 2026-12-07e): the quick GPU tier on COMMIT (the binaries of .device/bins.tar.xz); then on an
# H200 call 6 (plain tune, held-out grid, preset, the preset's rows) in the time left, on an H100 call 15 (bf16/f16
# with 32768 bins tuned on uniform and narrow samples at 4M).
set -u
C=${1:?commit}
rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p /tmp/q16
GPU_CHECK_BENCHES=none timeout 300 bash bench/gpu_check.sh quick /tmp/bin /tmp/q16 $C 280 > /tmp/q16/run.log 2>&1
echo "quick rc=$? at $SECONDS s"; cp /tmp/q16/summary.log $OUT/quick-summary.log; cut -c1-220 /tmp/q16/summary.log
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  UNTIL=$((570 - SECONDS)) bash .device/call6.sh $C
else
  bash .device/call15.sh
fi
