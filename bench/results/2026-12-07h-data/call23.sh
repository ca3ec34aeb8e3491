#!/usr/bin/env bash
# Device call 23 (session 2026-12-07h, an H100, after call22.sh on the same warm machine): 2026-12-07f's call18.sh
# (one policy trial from tuning to its A/B, bench/policy_new_size.sh) with the plain cache call22.sh tuned on this
# machine (/tmp/h22/tuned.db, or TUNED_DB) in place of .device/h100-tuned-54c8a56-slim.db.xz, which is not kept.
#   call23.sh COMMIT f32-1M-bins-256M   (the trials and END: see 2026-12-07f-data/call18.sh)
set -u
C=${1:?commit}; T=${2:?trial: f32-256M, f32-256M-pair, f32-1M-bins-256M or 16bit-4M}; END=${END:-540}
case $T in
  f32-256M-pair) N=268435456 SH='f32/bins=(32768|262144)/' ADD='histogram/f32/bins=32768/range=[0,1) histogram/f32/bins=262144/range=[0,1)' ;;
  f32-1M-bins-256M) N=268435456 SH='f32/bins=1048576/' ADD='histogram/f32/bins=1048576/range=[0,1)' ;;
  f32-256M) N=268435456 SH='f32/bins=262144' ADD='histogram/f32/bins=262144/range=[0,1)' ;;
  16bit-4M) N=4194304 SH='(bf16|f16)/bins=(64|2048)/|u16/bins=1024/' ADD= ;;
  *) echo "call23: no trial $T" >&2; exit 2 ;;
esac
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
# The fit writes kernel_templates/histogram/policy.json in place: in this call's copy of the tree, which the next call
# replaces with the commit's.
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
P=/tmp/p18-$T; rm -rf $P; mkdir -p $P
trap 'tar czf $OUT/call23-$T.tgz -C $P --exclude="*.db" . ; echo "call23: done at $SECONDS s"' EXIT
cp "${TUNED_DB:-/tmp/h22/tuned.db}" $P/tuned.db || exit 2
ADD_SHAPES=$ADD FAMILIES=histogram SHAPES=$SH HIST_DISTS="uniform narrow runs image" COMMIT=$C \
  SEEDS=20261206,11,12,13,14,15,16,17,18,19,20,21,22,4242,777,20261204,20261205 \
  DEADLINE=$((END - SECONDS)) STOP=$((END + 35 - SECONDS)) timeout $((END + 40 - SECONDS)) bash bench/policy_new_size.sh /tmp/bin $P $N $P/tuned.db
grep -- "->" $P/fit-histogram.txt | cut -c1-220
