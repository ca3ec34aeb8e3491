#!/usr/bin/env bash
# Device call 2 (session 2026-12-07b): the partial-tile fix (a partial tile's loads issued before any is counted).
#   (a) the quick tier of the three histogram suites with the new code;
#   (b) u16/920 over [0,65536) at 242000 tuned exhaustively with the new code (2026-12-07's log holds the old code's
#       on an H100; on an H200 the old code's too), and at 262144 (a whole tile);
#   (c) the 17 histogram rows the preset's cache changes (H100 only: the caches were tuned on an H100), plain cache
#       against preset cache, old code (old caches) and new code (the same caches with their histogram runs re-stamped
#       to the new template hash: the fix leaves the full-tile path unchanged), old new old new, until RT;
#       on an H200 the same rows old code against new code with no cache (the policy's answers);
#   (d) the worst regret row (u16/991 at 110K) and u16/920 at 242000 against their exact winners, new code.
#   call2.sh COMMIT: all of it, (c) and (d) until CALL_END; PART=a: (a) and (b); PART=b call2.sh COMMIT: (c) and (d), on the same machine (it needs (b)'s
#   exh-new-242000.db, for the new template hash) or a fresh one (then (b)'s first tuning runs again).
set -u
C=${1:?commit}
t0=$SECONDS
K=/tmp/c2; mkdir -p $K
trap 'tar czf $OUT/call2${PART:-all}.tgz -C $K --exclude="*.db" --exclude=cache .; cp $K/gc/summary.log $OUT/gc-summary.log 2>/dev/null' EXIT
[ -d /tmp/bin ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
[ -d /tmp/oldbin ] || python3 -c "import tarfile; tarfile.open('.device/oldbins.tar.xz').extractall('/tmp/oldbin')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $K/gpu.txt
el() { echo $((SECONDS - t0)); }

if [ ${PART:-all} != b ]; then
  GPU_CHECK_SUITES="gpu_histogram gpu_histimage gpu_histrange" GPU_CHECK_BENCHES=none \
    bash bench/gpu_check.sh quick /tmp/bin $K/gc $C ${GC_BUDGET:-170} > $K/gc.out 2>&1
  echo "call2: quick tier rc=$? at $(el) s"; grep -E "rc=|FAIL|ERROR" $K/gc/summary.log | cut -c1-260
fi

tune() {  # tune NAME BIN N [PROBLEM]
  local p=${4:---type u16 --bins 920 --lower 0 --upper 65536}
  timeout 100 $2/autotune tune --cache $K/exh-$1.db --kernel histogram $p --n $3 --dist uniform > $K/exh-$1.log 2>&1
  echo "call2: exhaustive $1 rc=$? at $(el) s"; grep -E "winner:|outcomes:" $K/exh-$1.log | cut -c1-220
}
f32="--type f32 --bins 579 --lower 0.02 --upper 300.02"
if [ ${PART:-all} != b ]; then
  tune new-242000 /tmp/bin 242000
  grep -q H200 $K/gpu.txt && tune old-242000 /tmp/oldbin 242000
  echo "call2: part a done at $(el) s"
  [ ${PART:-all} = a ] && exit 0
fi
mapfile -t rows < <(grep '^histogram/' .device/preset-rows.txt)
args=(); for k in "${rows[@]}"; do args+=(--problem "$k"); done
side() {  # side NAME BIN [shape_bench options]
  local name=$1 bin=$2; shift 2
  # The old binaries (7ea7ff8) read HEAD's histogram policy (its 8 entries since): the sides differ in the template.
  local pol=; [ $bin = /tmp/oldbin ] && pol=.device/pol-head
  AUTOTUNE_POLICY_DIR=$pol timeout 150 $bin/shape_bench "${args[@]}" "$@" --no-exact --markdown $K/rows-$name.md > $K/rows-$name.out 2> $K/rows-$name.log
  echo "call2: rows $name rc=$? at $(el) s"
}
if grep -q H100 $K/gpu.txt; then
  xz -dc .device/h100-tuned-slim-1dd52cb.db.xz > /tmp/tuned.db
  xz -dc .device/h100-preset-slim-1dd52cb.db.xz > /tmp/preset.db
  [ -f $K/exh-new-242000.db ] || tune new-242000 /tmp/bin 242000
  python3 .device/restamp.py $K/exh-new-242000.db /tmp/tuned.db /tmp/tuned-new.db /tmp/preset.db /tmp/preset-new.db \
    | tee $K/restamp.txt
  for r in 1 2; do
    [ $r = 1 ] || [ $(el) -lt ${RT:-420} ] || break
    side old-$r /tmp/oldbin --tuned-cache /tmp/tuned.db --compare-cache /tmp/preset.db
    side new-$r /tmp/bin --tuned-cache /tmp/tuned-new.db --compare-cache /tmp/preset-new.db
  done
else
  for r in 1 2; do
    [ $r = 1 ] || [ $(el) -lt ${RT:-420} ] || break
    side old-$r /tmp/oldbin
    side new-$r /tmp/bin
  done
fi
# (d) the regret rows against their exact winners (tuned now, new code), in the same rounds as the handles.
left=$((${CALL_END:-560} - $(el)))
if [ $left -gt 100 ] && [ ${SKIP_EXACT:-0} = 0 ]; then
  ex=(--problem "histogram/u16/bins=991/range=[7095,53132)/n=110000/dist=narrow"
      --problem "histogram/u16/bins=920/range=[0,65536)/n=242000/dist=uniform")
  caches=(); grep -q H100 $K/gpu.txt && caches=(--tuned-cache /tmp/tuned-new.db --compare-cache /tmp/preset-new.db)
  timeout $((left - 10)) /tmp/bin/shape_bench "${ex[@]}" "${caches[@]}" --exact-cache $K/exact.db \
    --markdown $K/exact.md > $K/exact.out 2> $K/exact.log
  echo "call2: exact rows rc=$? at $(el) s"; grep "^shape_bench: histogram" $K/exact.log | cut -c1-400
fi
# (e) the full-tile A/B (the 1D entry point's registers are unchanged, nvcc 13.0), if time is left.
if [ $((${CALL_END:-560} - $(el))) -gt 200 ]; then
  tune new-262144 /tmp/bin 262144
  tune old-262144 /tmp/oldbin 262144
fi
echo "call2: done at $(el) s"
