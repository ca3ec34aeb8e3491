#!/usr/bin/env bash
# Device call 11 (session 2026-12-07d): the change's lookups on rows of 12 other held-out seeds (11-22), none of them
# looked at before: the 21 of 1200 lookups it moves (bench/policy_changed.py --before-bin, the H100 plain cache of
# 54c8a56). Rows of narrow samples (the policy's narrow entries): the final binaries' handle against the same lookup
# with the policy before (.device/pol-before; shape_bench --compare-policy), same rounds. Sparse bf16/f16 rows (the
# copies rule, code): 54c8a56's shape_bench then the final one, one process each, each against CUB. Sparse rows
# first; no row started after UNTIL seconds.
set -u
C=${1:?commit}; UNTIL=${UNTIL:-140}
K=/tmp/c11; mkdir -p $K
trap 'tar czf $OUT/call11.tgz -C $K --exclude="*.db" .; echo "call11: done at $SECONDS s"' EXIT
rm -rf /tmp/new11 /tmp/old11
python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/new11'); tarfile.open('.device/bins-54c8a56.tar.xz').extractall('/tmp/old11')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $K/gpu.txt
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > $K/tuned.db
i=0
while read -r key; do
  [ $SECONDS -lt $UNTIL ] || { echo "deadline: $key and after not run"; break; }
  i=$((i + 1))
  for side in old new; do
    timeout 40 /tmp/${side}11/shape_bench --problem "$key" --tuned-cache $K/tuned.db --no-exact --commit $C \
      --markdown $K/sparse-$i-$side.md > $K/sparse-$i-$side.out 2> $K/sparse-$i-$side.err
    echo "sparse $i $side rc=$? $(grep "^shape_bench: histogram" $K/sparse-$i-$side.err | cut -c1-330)"
  done
done < .device/val-sparse.txt | tee $K/sparse.log
: > $K/narrow.log; i=0
while read -r key; do
  [ $SECONDS -lt $UNTIL ] || { echo "deadline: $key and after not run" | tee -a $K/narrow.log; break; }
  i=$((i + 1))
  timeout 40 /tmp/new11/shape_bench --problem "$key" --tuned-cache $K/tuned.db --compare-policy .device/pol-before \
    --no-exact --commit $C --markdown $K/narrow-$i.md > $K/narrow-$i.out 2> $K/narrow-$i.err
  rc=$?
  grep "^shape_bench: histogram/" $K/narrow-$i.err | sed "s/^/row $i rc=$rc /" >> $K/narrow.log
  [ $rc -eq 0 ] || echo "row $i rc=$rc: $(tail -2 $K/narrow-$i.err | tr '\n' ' ')" >> $K/narrow.log
done < .device/val-narrow.txt
python3 bench/held_out_table.py $K/narrow.log --compared policy --title "narrow rows of seeds 11-22 ($C)" > $K/narrow-summary.md 2>&1
sed -n '/rows the other policy/,$p' $K/narrow-summary.md | cut -c1-200 | head -30
