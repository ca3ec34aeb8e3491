#!/usr/bin/env bash
# Device call 18 (session 2026-12-07f, an H100, after call17.sh on the same warm machine): one policy trial from tuning
# to its A/B in this one call (bench/policy_new_size.sh), the held-out lookups of 17 seeds it moves with the H100
# plain cache of 54c8a56, each timed against the shipped policy in the same rounds.
#   call18.sh COMMIT f32-256M   the f32/262144 shape's robust entry at 256M (uniform, narrow, runs, image). The policy
#                               holds it up to 16M, so every problem of 100K-1M bins above 16M runs its 16M entry:
#                               u32/1045263 on runs at 255M, +18.8 % over its exact winner on 2026-12-07d, and
#                               f32/284923 on image at 100M, +11.3 %. ADD_SHAPES: the policy's robust 256M entries are
#                               f32/64 and f32/2048 only, and bench/policy_retune.sh tunes the shapes of robust
#                               entries at n where there are any.
#   call18.sh COMMIT f32-256M-pair   f32/32768 and f32/262144 at 256M together: the 2026-12-07f A/B of f32-256M alone ran
#                               its 51 moved rows of 150K bins or more 1.9 % faster (geometric mean; u32/1045263 runs
#                               484.5 -> 467.5 us, f32/284923 image 1269.9 -> 1167.7), but 10 of its 16 rows of 66K-133K
#                               bins up to 7.8x slower: at 256M they left the 16-bit shared counters of bf16/32768's 16M entry
#                               for the far shape's entry of their own size, a window beside a global histogram.
#   call18.sh COMMIT f32-1M-bins-256M   (added 2026-12-07g) a new policy shape, f32 with 1048576 bins over [0,1), at
#                               256M: u32/1045263 on runs at 255M runs f32/262144's 16M entry in 484-485 us against its
#                               exact winner's 407.6 (global counters, loads=4, warp aggregation), and f32/262144 tuned
#                               at 256M did not move it (2026-12-07g). ADD_SHAPES adds the shape (--add-shapes).
#   call18.sh COMMIT 16bit-4M   robust entries at 4M for the 16-bit shapes of 64 to 2048 bins (bf16, f16, u16; four
#                               distributions). The policy holds them at 1M and 16M: i16/288 on narrow samples at
#                               3.6M ran the bf16/64 16M entry, +12.0 % (2026-12-07d).
# END (default 540): no A/B process starts after END seconds, each ends by END + 35 (2026-12-07f ran f32-256M with
# END=420, 222 s of device time left after it).
set -u
C=${1:?commit}; T=${2:?trial: f32-256M, f32-256M-pair, f32-1M-bins-256M or 16bit-4M}; END=${END:-540}
case $T in
  f32-256M-pair) N=268435456 SH='f32/bins=(32768|262144)/' ADD='histogram/f32/bins=32768/range=[0,1) histogram/f32/bins=262144/range=[0,1)' ;;
  f32-1M-bins-256M) N=268435456 SH='f32/bins=1048576/' ADD='histogram/f32/bins=1048576/range=[0,1)' ;;
  f32-256M) N=268435456 SH='f32/bins=262144' ADD='histogram/f32/bins=262144/range=[0,1)' ;;
  16bit-4M) N=4194304 SH='(bf16|f16)/bins=(64|2048)/|u16/bins=1024/' ADD= ;;
  *) echo "call18: no trial $T" >&2; exit 2 ;;
esac
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
# The fit writes kernel_templates/histogram/policy.json in place: in this call's copy of the tree, which the next call
# replaces with the commit's.
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
P=/tmp/p18-$T; rm -rf $P; mkdir -p $P
trap 'tar czf $OUT/call18-$T.tgz -C $P --exclude="*.db" . ; echo "call18: done at $SECONDS s"' EXIT
xz -dc .device/h100-tuned-54c8a56-slim.db.xz > $P/tuned.db
ADD_SHAPES=$ADD FAMILIES=histogram SHAPES=$SH HIST_DISTS="uniform narrow runs image" COMMIT=$C \
  SEEDS=20261206,11,12,13,14,15,16,17,18,19,20,21,22,4242,777,20261204,20261205 \
  DEADLINE=$((END - SECONDS)) STOP=$((END + 35 - SECONDS)) timeout $((END + 40 - SECONDS)) bash bench/policy_new_size.sh /tmp/bin $P $N $P/tuned.db
grep -- "->" $P/fit-histogram.txt | cut -c1-220
