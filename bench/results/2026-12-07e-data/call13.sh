#!/usr/bin/env bash
# Device call 13 (session 2026-12-07e): the quick GPU tier on COMMIT (suites and the signed-cache check, no benches);
# then on an H200 call 6 (plain tune, held-out grid, preset, the preset's rows) in the time left; on an H100 the
# bf16/f16 policy shapes tuned on uniform and narrow samples at 16M and 1M (bench/policy_retune.sh; 32768 bins added
# at 1M), for per-distribution entries of 16-bit floats (scripts/fit_policy.py --per-dist).
set -u
C=${1:?commit}; SKIP_QUICK=${SKIP_QUICK:-0}
rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
if [ "$SKIP_QUICK" = 0 ]; then
  mkdir -p $OUT/quick
  GPU_CHECK_BENCHES=none timeout 300 bash bench/gpu_check.sh quick /tmp/bin $OUT/quick $C 280 > $OUT/quick/run.log 2>&1
  echo "quick rc=$? at $SECONDS s"; cut -c1-220 $OUT/quick/summary.log
fi
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  UNTIL=$((570 - SECONDS)) bash .device/call6.sh $C
  exit
fi
P=/tmp/p13; mkdir -p $P
trap 'cp $P/*.log $OUT/ 2>/dev/null; echo "call13: done at $SECONDS s"' EXIT
SHAPES='bf16|f16' HIST_DISTS="uniform narrow" timeout $((560 - SECONDS)) \
  bash bench/policy_retune.sh /tmp/bin $P histogram 16777216 > $P/retune-16M.out 2>&1
echo "16M rc=$? at $SECONDS s"; grep "policy_retune:" $P/retune-16M.out
[ $SECONDS -lt 450 ] || exit 0
SHAPES='bf16|f16' ADD_SHAPES="histogram/bf16/bins=32768/range=[0,1) histogram/f16/bins=32768/range=[0,1)" \
  HIST_DISTS="uniform narrow" timeout $((565 - SECONDS)) \
  bash bench/policy_retune.sh /tmp/bin $P histogram 1048576 > $P/retune-1M.out 2>&1
echo "1M rc=$? at $SECONDS s"; grep "policy_retune:" $P/retune-1M.out
