#!/usr/bin/env bash
# Device calls of session 2026-12-08 (an H200; carry .device, packed at COMMIT by scripts/pack_for_device.sh with
# PACK_BINS="autotune autotune_gpu_tests shape_bench example_histogram"). Resumable on one warm machine (state in
# /tmp/h8), each stage skipped once done, none started past UNTIL seconds:
#   1. the quick GPU tier of COMMIT (GPU_CHECK_BENCHES=none);
#   2. a plain `autotune tune` as a new user runs it (OUT: h200-tuned-slim.db.xz);
#   3. `autotune tune --preset standard` on a copy of it (its wall time, summed over calls, in preset.log);
#   4. the held-out rows of seed 20261206 whose lookup the preset changes (bench/untuned_grid.sh preset-rows);
#   5. #26's regret and the preset's never-worse in one pass: each row tuned exactly (HELD_OUT_EXACT=1) and its
#      handles from both caches timed with CUB in the same rounds; the changed rows first, then the rest in order,
#      each call in its own folder (r-HHMMSS), skipping rows an earlier call measured.
#   call.sh COMMIT      (UNTIL=S: no stage, and no row, starts after S seconds less a row's time; default 560)
# A row (an exact tuning, 14-25 s on an H200) gets at most 90 s; none starts in the last 70 s of UNTIL, so the
# tarball (the EXIT trap) is written inside a device call's 600 s.
. bench/device_call.sh h8 "${1:-}"
# Each cache goes back without its cubins ($G-tuned-slim.db.xz, $G-preset-slim.db.xz): SLIM_TO of untuned_grid.sh.
export SLIM_TO=$OUT SLIM_PREFIX=$G-

# 1. the quick tier
if [ ! -f $K/quick.done ]; then
  mkdir -p $K/quick
  GPU_CHECK_BENCHES=none timeout 300 bash bench/gpu_check.sh quick /tmp/bin $K/quick $C 280 > $K/quick/run.log 2>&1
  echo "quick rc=$? at $SECONDS s"; touch $K/quick.done
  cut -c1-200 $K/quick/summary.log
fi

# 2. the plain tune; 3. the preset on a copy of its cache, cut at the call's end and resumed by the next
[ -f $K/tune.done ] || [ "$(left)" -lt 120 ] || { timeout 330 bash bench/untuned_grid.sh /tmp/bin $K tune $C && touch $K/tune.done; }
[ -f $K/tune.done ] || exit 0
[ -f $K/preset.done ] || [ "$(left)" -lt 60 ] ||
  { PRESET_LIMIT=$(($(left) - 20)) bash bench/untuned_grid.sh /tmp/bin $K preset $C && touch $K/preset.done; }
[ -f $K/preset.done ] || exit 0

# 4. the rows the preset changes (OUT/preset-rows.txt), then the others in order
if [ ! -f $K/order.rows ]; then
  SEED=20261206 bash bench/untuned_grid.sh /tmp/bin $K preset-rows $C || exit 1
  { cat $K/preset-rows.txt; seq 0 99 | tr '\n' ' '; } | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ' > $K/order.rows
fi

# 5. exact tunings (regret) and both caches' handles, the rows no earlier call measured
done_rows=$(cat $K/r-*/held-out-20261206-list.log 2>/dev/null | grep -o '^row [0-9]*' | awk '{print $2}' | sort -un | tr '\n' ' ')
todo=$(for r in $(cat $K/order.rows); do case " $done_rows " in *" $r "*) ;; *) printf "%s " $r ;; esac; done)
if [ -n "$todo" ] && [ "$(left)" -gt 40 ]; then
  TUNED_CACHE=$K/tuned.db SEED=20261206 HELD_OUT_EXACT=1 HELD_OUT_COMPARE_CACHE=$K/preset.db HELD_OUT_ROW_LIST="$todo" \
    HELD_OUT_ROW_LIMIT=90 HELD_OUT_DEADLINE=$(($(left) - 70)) bash bench/untuned_grid.sh /tmp/bin $K/r-$stamp held-out $C
  cat $K/r-*/held-out-20261206-list.log | grep '^row .*shape_bench:' > $K/exact-all.log
  python3 bench/held_out_table.py $K/exact-all.log --compared preset \
    --title "seed 20261206, exact and preset ($name, $C)" > $K/exact-summary.md 2>&1
  head -40 $K/exact-summary.md | cut -c1-220
fi
