#!/usr/bin/env bash
# Device call for the session after 2026-12-07j (either card; carry .device): the quick GPU tier of the code that
# ships TransferCosts::concentrated (runtime/rank.hpp), then, on an H100, the A/B of the 9 held-out lookups it moves
# there (concentrated-moved-h100.txt; 17 seeds, the H100's devices-only and plain caches alike). 2026-12-07j timed
# those 9 problems, with these configurations, on an H200 only (rule-ab-h200-*.log). The "before" side: the lookups of
# the binaries before the change (bench/pin_lookups.py of 91dabd9's build), pinned as policy entries
# (concentrated-before-pins-h100.json), added to the tree's policy at run time; bench/policy_ab.sh times the embedded
# lookup (the rule's) against them, with CUB, in the same rounds ("vs tuned" = before / rule).
#   next-call.sh COMMIT      .device/bins.tar.xz from scripts/pack_for_device.sh at COMMIT (PACK_BINS="autotune
#                            autotune_gpu_tests shape_bench example_histogram" is enough); about 130 s + 10 s a problem
set -u
C=${1:?commit}
D=bench/results/2026-12-07j-data
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [ ! -f /tmp/next-quick.done ]; then
  mkdir -p $OUT/quick
  GPU_CHECK_BENCHES=none timeout 300 bash bench/gpu_check.sh quick /tmp/bin $OUT/quick $C 280 > $OUT/quick/run.log 2>&1
  echo "quick rc=$? at $SECONDS s"; touch /tmp/next-quick.done
  cut -c1-220 $OUT/quick/summary.log
fi
case "$gpu" in *H100*) ;; *) echo "next-call: the A/B is of the H100's moved lookups; not on $gpu"; exit 0;; esac
P=/tmp/concentrated-before; mkdir -p $P
python3 - $D/concentrated-before-pins-h100.json $P/histogram.json <<'PY' || exit 2
import json, sys
doc = json.load(open("kernel_templates/histogram/policy.json"))
doc["entries"] += json.load(open(sys.argv[1]))
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
timeout $((590 - SECONDS)) bash bench/policy_ab.sh /tmp/bin $OUT/ab $P $D/concentrated-moved-h100.txt
