#!/usr/bin/env bash
# Device call 19 (session 2026-12-07g, an H100): (1) the A/B of the held-out lookups (17 seeds, H100 plain cache of
# 54c8a56) that a narrow-sample entry of bf16/32768 at 4M moves: the entry written offline from 2026-12-07f's tuning
# (scripts/fit_policy.py --served: its narrow winner against what the lookup serves the shape at 4M today, 1.107x,
# rather than the unwritten robust configuration, 1.058x), in .device/pol-g1, the keys in .device/g1-keys.txt; each
# timed with the new policy against the shipped one in the same rounds (shape_bench --compare-policy). (2) Then
# call18.sh's pair trial (f32/32768 and f32/262144 at 256M) in the time left.
#   call19.sh COMMIT
set -u
C=${1:?commit}
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
P=/tmp/p19; rm -rf $P; mkdir -p $P/pol-old
cp kernel_templates/histogram/policy.json $P/pol-old/histogram.json
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > $P/tuned.db
args=(); while read -r k; do args+=(--problem "$k"); done < .device/g1-keys.txt
AUTOTUNE_POLICY_DIR=.device/pol-g1 timeout 150 /tmp/bin/shape_bench "${args[@]}" --tuned-cache $P/tuned.db \
  --compare-policy $P/pol-old --no-exact --markdown $OUT/g1-ab.md > $OUT/g1-ab.out 2> $OUT/g1-ab.log
echo "g1 A/B rc=$? at $SECONDS s"
python3 bench/held_out_table.py $OUT/g1-ab.log --compared policy --title "bf16/32768 narrow at 4M, A/B (H100)" > $OUT/g1-ab-summary.md 2>&1
head -24 $OUT/g1-ab-summary.md | cut -c1-240
END=$((530 - SECONDS)) bash .device/call18.sh $C f32-256M-pair
