#!/usr/bin/env bash
# Device call 10 (session 2026-12-07d): the final binaries (.device/bins.tar.xz). (a) The six held-out rows whose
# lookup this session's change moves (H100 plain cache of 54c8a56; calls 8 and 9 timed old against new), each
# handle against CUB, one process a row, to confirm what the final code serves and runs; (b) the quick tier of every
# GPU suite (no benchmarks), until BUDGET.
set -u
C=${1:?commit}
K=/tmp/c10; mkdir -p $K
trap 'tar czf $OUT/call10.tgz -C $K --exclude="*.db" --exclude=cache .; cp $K/gc/summary.log $OUT/gc-summary.log 2>/dev/null; echo "call10: done at $SECONDS s"' EXIT
rm -rf /tmp/bin10; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin10')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $K/gpu.txt
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > $K/tuned.db
i=0
while read -r key; do
  i=$((i + 1))
  timeout 60 /tmp/bin10/shape_bench --problem "$key" --tuned-cache $K/tuned.db --no-exact --commit $C \
    --markdown $K/row-$i.md > $K/row-$i.out 2> $K/row-$i.err
  echo "row $i rc=$? $(grep "^shape_bench: histogram" $K/row-$i.err | cut -c1-330)"
done < .device/final-keys.txt | tee $K/rows.log
GPU_CHECK_BENCHES=none bash bench/gpu_check.sh quick /tmp/bin10 $K/gc $C $((${BUDGET:-330} - SECONDS)) > $K/gc.out 2>&1
echo "call10: quick tier rc=$? at $SECONDS s"; cat $K/gc/summary.log | cut -c1-200
