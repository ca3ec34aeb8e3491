#!/usr/bin/env bash
# Device call 15 (session 2026-12-07e): bf16/f16 with 32768 bins tuned on uniform and narrow samples at 4M (between
# the 1M and 16M entries; bench/policy_retune.sh).
set -u
[ -d /tmp/bin ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
P=/tmp/p15; mkdir -p $P
trap 'cp $P/*.log $P/*.out $OUT/ 2>/dev/null; echo "call15: done at $SECONDS s"' EXIT
SHAPES='(bf16|f16)/bins=32768' HIST_DISTS="uniform narrow" timeout 300 \
  bash bench/policy_retune.sh /tmp/bin $P histogram 4194304 > $P/retune-4M.out 2>&1
echo "4M rc=$? at $SECONDS s"; tail -12 $P/retune-4M.out | cut -c1-250
