#!/usr/bin/env bash
# Device call 14 (session 2026-12-07e): the rows whose lookup a candidate policy changes (.device/ab-keys.txt, found
# without a GPU by bench/policy_changed.py over held-out seeds), each timed with the candidate policy
# (AUTOTUNE_POLICY_DIR=.device/pol-new) against the shipped one (--compare-policy .device/pol-cur) in the same rounds,
# against CUB, with the H100 plain cache of 54c8a56; no row started after UNTIL seconds.
set -u
C=${1:?commit}; UNTIL=${UNTIL:-540}
K=/tmp/c14; mkdir -p $K
trap 'tar czf $OUT/call14.tgz -C $K --exclude="*.db" .; cp $K/ab-summary.md $OUT/ 2>/dev/null; echo "call14: done at $SECONDS s"' EXIT
[ -d /tmp/bin ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $K/gpu.txt
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > $K/tuned.db
: > $K/ab.log; i=0
while read -r key; do
  [ $SECONDS -lt $UNTIL ] || { echo "deadline: $key and after not run" | tee -a $K/ab.log; break; }
  i=$((i + 1))
  AUTOTUNE_POLICY_DIR=.device/pol-new timeout 60 /tmp/bin/shape_bench --problem "$key" --tuned-cache $K/tuned.db \
    --compare-policy .device/pol-cur --no-exact --commit $C --markdown $K/ab-$i.md > $K/ab-$i.out 2> $K/ab-$i.err
  rc=$?
  grep "^shape_bench: histogram/" $K/ab-$i.err | sed "s/^/row $i rc=$rc /" >> $K/ab.log
  [ $rc -eq 0 ] || echo "row $i rc=$rc: $(tail -2 $K/ab-$i.err | tr '\n' ' ')" >> $K/ab.log
done < .device/ab-keys.txt
python3 bench/held_out_table.py $K/ab.log --compared policy --title "16-bit float narrow entries, A/B ($C)" > $K/ab-summary.md 2>&1
sed -n '/rows the other policy/,$p' $K/ab-summary.md | cut -c1-220 | head -50
