#!/usr/bin/env bash
# Device call 17 (session 2026-12-07e, for the next session): the quick GPU tier on COMMIT (unless SKIP_QUICK=1); then
# on an H200 call 6 (plain tune, held-out grid, preset, the preset's rows; resumable); on an H100 one candidate policy
# change from tuning to its A/B in this one call:
#   1. bf16/f16 with 32768 bins tuned on uniform and narrow samples at 4M (bench/policy_retune.sh; skipped when an
#      earlier call on this machine left its log);
#   2. scripts/fit_policy.py --per-dist 1.1 --per-dist-only on that log: the candidate policy (P/pol-new; the tree's
#      policy is put back);
#   3. bench/policy_changed.py: the held-out lookups (17 seeds) the candidate moves, with the H100 plain cache of
#      54c8a56 (.device/h100-tuned-54c8a56-slim.db.xz);
#   4. each of them timed with the candidate against the shipped policy in the same rounds (shape_bench
#      --compare-policy), no row started after UNTIL seconds.
set -u
C=${1:?commit}; UNTIL=${UNTIL:-560}; SKIP_QUICK=${SKIP_QUICK:-0}
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
if [ "$SKIP_QUICK" = 0 ]; then
  mkdir -p /tmp/q17
  GPU_CHECK_BENCHES=none timeout 300 bash bench/gpu_check.sh quick /tmp/bin /tmp/q17 $C 280 > /tmp/q17/run.log 2>&1
  echo "quick rc=$? at $SECONDS s"; cp /tmp/q17/summary.log $OUT/quick-summary.log; cut -c1-220 /tmp/q17/summary.log
fi
if grep -q H200 <<< "$gpu"; then
  UNTIL=$((570 - SECONDS)) bash .device/call6.sh $C
  exit
fi
P=/tmp/p17; mkdir -p $P/pol-cur $P/pol-new
trap 'tar czf $OUT/call17.tgz -C $P --exclude="*.db" . ; echo "call17: done at $SECONDS s"' EXIT
log=$P/policy-histogram-4194304.log
if [ ! -s $log ]; then
  SHAPES='(bf16|f16)/bins=32768' HIST_DISTS="uniform narrow" timeout 300 \
    bash bench/policy_retune.sh /tmp/bin $P histogram 4194304 > $P/retune-4M.out 2>&1
  echo "4M tuned: rc=$? at $SECONDS s"
fi
cp kernel_templates/histogram/policy.json $P/pol-cur/histogram.json
python3 scripts/fit_policy.py $log --update --beside --add-shapes --per-dist 1.1 --per-dist-only --gpu "$gpu" \
  --date "$(date -u +%F)" --commit $C --source "bench/results/DATE-data/$(basename $log).gz" \
  --command "SHAPES='(bf16|f16)/bins=32768' HIST_DISTS='uniform narrow' bench/policy_retune.sh BIN OUT histogram 4194304" \
  --write > $P/fit.txt 2>&1
echo "fit rc=$? at $SECONDS s"; grep -- "->" $P/fit.txt | cut -c1-220
cp kernel_templates/histogram/policy.json $P/pol-new/histogram.json
cp $P/pol-cur/histogram.json kernel_templates/histogram/policy.json
cmp -s $P/pol-cur/histogram.json $P/pol-new/histogram.json && { echo "call17: the fit wrote no entry"; exit 0; }
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > $P/tuned.db
model=$(python3 -c "import sqlite3; print(sqlite3.connect('$P/tuned.db').execute('select model_key from devices').fetchone()[0])")
python3 bench/policy_changed.py /tmp/bin $P/pol-cur --after $P/pol-new \
  --seeds 20261206,11,12,13,14,15,16,17,18,19,20,21,22,4242,777,20261204,20261205 --rows 100 \
  --cache $P/tuned.db --model "$model" --out $P/ab-keys.txt > $P/changed.txt 2>&1
echo "changed at $SECONDS s: $(tail -1 $P/changed.txt)"
: > $P/ab.log; i=0
while read -r key; do
  [ $SECONDS -lt $UNTIL ] || { echo "deadline: $key and after not run" | tee -a $P/ab.log; break; }
  i=$((i + 1))
  AUTOTUNE_POLICY_DIR=$P/pol-new timeout 60 /tmp/bin/shape_bench --problem "$key" --tuned-cache $P/tuned.db \
    --compare-policy $P/pol-cur --no-exact --commit $C --markdown $P/ab-$i.md > $P/ab-$i.out 2> $P/ab-$i.err
  rc=$?
  grep "^shape_bench: histogram/" $P/ab-$i.err | sed "s/^/row $i rc=$rc /" >> $P/ab.log
  [ $rc -eq 0 ] || echo "row $i rc=$rc: $(tail -2 $P/ab-$i.err | tr '\n' ' ')" >> $P/ab.log
done < $P/ab-keys.txt
python3 bench/held_out_table.py $P/ab.log --compared policy --title "bf16/f16 narrow entries at 4M, A/B ($C)" \
  > $P/ab-summary.md 2>&1
cp $P/ab-summary.md $OUT/ 2>/dev/null
sed -n '/rows the other policy/,$p' $P/ab-summary.md | cut -c1-220 | head -40
