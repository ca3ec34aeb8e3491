#!/usr/bin/env bash
# Device call 21 (for the session after 2026-12-07g, an H100): one policy trial from tuning to its A/B
# (bench/policy_new_size.sh), the held-out lookups of 17 seeds it moves with the H100 plain cache of 54c8a56, each
# timed against the shipped policy in the same rounds.
#   call21.sh COMMIT f32-1M-bins-256M   a new policy shape, f32 with 1048576 bins over [0,1), at 256M (uniform, narrow,
#                               runs, image). The largest histogram shape is f32/262144: u32/1045263 on runs at 255M
#                               runs its 16M entry (a window of 4096, one load) in 484-485 us, against its exact winner's
#                               407.6 (global counters, loads=4, warp aggregation; 2026-12-07d, 2026-12-07g). f32/262144
#                               tuned at 256M did not move it (2026-12-07g section 2).
# END (default 540): no A/B process starts after END seconds, each ends by END + 35.
set -u
C=${1:?commit}; T=${2:?trial: f32-1M-bins-256M}; END=${END:-540}
case $T in
  f32-1M-bins-256M) N=268435456 SH='f32/bins=1048576/' ADD='histogram/f32/bins=1048576/range=[0,1)' ;;
  *) echo "call21: no trial $T" >&2; exit 2 ;;
esac
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
P=/tmp/p21-$T; rm -rf $P; mkdir -p $P
trap 'tar czf $OUT/call21-$T.tgz -C $P --exclude="*.db" . ; echo "call21: done at $SECONDS s"' EXIT
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > $P/tuned.db
ADD_SHAPES=$ADD FAMILIES=histogram SHAPES=$SH HIST_DISTS="uniform narrow runs image" COMMIT=$C \
  SEEDS=20261206,11,12,13,14,15,16,17,18,19,20,21,22,4242,777,20261204,20261205 \
  DEADLINE=$((END - SECONDS)) STOP=$((END + 35 - SECONDS)) timeout $((END + 40 - SECONDS)) bash bench/policy_new_size.sh /tmp/bin $P $N $P/tuned.db
grep -- "->" $P/fit-histogram.txt | cut -c1-220
