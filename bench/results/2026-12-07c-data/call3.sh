#!/usr/bin/env bash
# Device call 3 (session 2026-12-07c): a histogram configuration's one-block/one-cluster path priced in the lookup
# (KernelFamily::one_block_up_to for both histogram families).
#   (a) the two held-out rows whose lookup the change moves (seeds 20261206, 20261204, 777, 4242; H100 plain cache and
#       the H200's policy alike): old lookup (9498197's binaries, same template hash) against new, 3 rounds, then each
#       row's exact winner (tuned now); on an H100 with 2026-12-06's plain cache re-stamped to the template hash, on an
#       H200 with no cache (the policy's answers);
#   (b) the quick tier of every GPU suite (no benchmarks), until BUDGET.
#   call3.sh COMMIT
set -u
C=${1:?commit}
t0=$SECONDS
K=/tmp/c3; mkdir -p $K
trap 'tar czf $OUT/call3.tgz -C $K --exclude="*.db" --exclude=cache .; cp $K/gc/summary.log $OUT/gc-summary.log 2>/dev/null' EXIT
[ -d /tmp/bin ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
[ -d /tmp/oldbin9 ] || python3 -c "import tarfile; tarfile.open('.device/bins-9498197.tar.xz').extractall('/tmp/oldbin9')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $K/gpu.txt
el() { echo $((SECONDS - t0)); }
rows=(--problem "histogram/u16/bins=991/range=[7095,53132)/n=110000/dist=narrow"
      --problem "histogram/u16/bins=853/range=[0,65536)/n=104000/dist=narrow")
caches=()
if grep -q H100 $K/gpu.txt; then
  xz -dc .device/h100-tuned-restamped-ade3c7cf.db.xz > /tmp/tuned.db
  caches=(--tuned-cache /tmp/tuned.db)
fi
side() {  # side NAME BIN
  timeout 100 $2/shape_bench "${rows[@]}" "${caches[@]}" --no-exact --markdown $K/rows-$1.md > $K/rows-$1.out 2> $K/rows-$1.log
  echo "call3: rows $1 rc=$? at $(el) s"; grep "^shape_bench: histogram" $K/rows-$1.log | cut -c1-300
}
for r in 1 2 3; do side old-$r /tmp/oldbin9; side new-$r /tmp/bin; done
timeout 120 /tmp/bin/shape_bench "${rows[@]}" "${caches[@]}" --exact-cache $K/exact.db --markdown $K/exact.md \
  > $K/exact.out 2> $K/exact.log
echo "call3: exact rc=$? at $(el) s"; grep "^shape_bench: histogram" $K/exact.log | cut -c1-400
GPU_CHECK_BENCHES=none bash bench/gpu_check.sh quick /tmp/bin $K/gc $C $((${BUDGET:-560} - $(el))) > $K/gc.out 2>&1
echo "call3: quick tier rc=$? at $(el) s"; cat $K/gc/summary.log | cut -c1-220
echo "call3: done at $(el) s"
