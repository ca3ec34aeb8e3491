#!/usr/bin/env bash
# Device calls 8 and 9 (session 2026-12-07d): each problem of KEYS timed with its handle from the plain tune's cache
# of 54c8a56 and the embedded policy, against the same lookup with the policy files of .device/pol-P for each P of
# POLICIES (shape_bench --compare-policy), and CUB, in the same rounds; one process a problem and policy.
#   call 8: KEYS=.device/pd-keys.txt POLICIES=after (every --per-dist 1.1 entry of the H100's logs)
#   call 9 (the defaults): the sparse bf16/f16 rows the windowed f32/262144 entries serve, with those entries as
#     copies (pol-copies: R=16 adapted, chunk=256) and as plain global atomics (pol-nowin)
set -u
C=${1:?commit}; UNTIL=${UNTIL:-300}
K=/tmp/h9; mkdir -p $K
trap 'tar czf $OUT/h9.tgz -C $K --exclude="*.db" . ; cp $K/summary-*.md $OUT/ 2>/dev/null; echo "call9: done at $SECONDS s"' EXIT
[ -d /tmp/bin ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $K/gpu.txt
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > $K/tuned.db
for pol in ${POLICIES:-copies nowin}; do
  : > $K/ab-$pol.log; i=0
  while read -r key; do
    [ $SECONDS -lt $UNTIL ] || { echo "deadline: $key and after not run" | tee -a $K/ab-$pol.log; break; }
    i=$((i + 1))
    timeout 100 /tmp/bin/shape_bench --problem "$key" --tuned-cache $K/tuned.db --compare-policy .device/pol-$pol \
      --no-exact --commit $C --markdown $K/ab-$pol-$i.md > $K/ab-$pol-$i.out 2> $K/ab-$pol-$i.err
    rc=$?
    grep "^shape_bench: \(histogram\|reduce\)/" $K/ab-$pol-$i.err | sed "s/^/row $i rc=$rc /" >> $K/ab-$pol.log
    [ $rc -eq 0 ] || echo "row $i rc=$rc: $(tail -2 $K/ab-$pol-$i.err | tr '\n' ' ')" >> $K/ab-$pol.log
  done < ${KEYS:-.device/sparse-keys.txt}
  python3 bench/held_out_table.py $K/ab-$pol.log --compared policy --title "sparse rows, $pol ($C)" > $K/summary-$pol.md 2>&1
  sed -n '/^| problem/,$p' $K/summary-$pol.md | cut -c1-200
done
