#!/usr/bin/env bash
# Issue #26's measurement, as a new user meets the product: a fresh cache, a plain `autotune tune` (the default
# problems), then bench/shape_bench on problems nobody tuned, each served by a handle from that cache, against its
# exact winner and CUB in the same run. Run on the GPU machine from the repository root, with binaries unpacked from
# scripts/pack_for_device.sh.
#
#   bench/untuned_grid.sh BIN OUT PART [COMMIT]
#     PART  tune        a plain `autotune tune` into OUT/tuned.db (its wall time in OUT/tune.log)
#           reductions  shape_bench's reduction rows against OUT/tuned.db (or $TUNED_CACHE)
#           histograms  shape_bench's histogram rows and the real-bytes rows (text: this repository's sources; a
#                       photo: $PHOTO, default .device/photo.rgb when present, raw RGB bytes)
#           real        the real-bytes rows alone (text and photo, with their probes; about 2 minutes)
#           all         the three in turn (about 10 minutes on an H200: more than one device call holds)
#           sizes       bench/size_bench on a copy of OUT/tuned.db (--reuse: the plain tune's sizes are not tuned
#                       again): leave-one-out size regret of u8/256, f32/1024 bins and f32 sum, OUT/size-SHAPE.md
#           preset      `autotune tune --preset standard` on a copy of OUT/tuned.db (OUT/preset.db, its wall time in
#                       OUT/preset.log); a second call resumes it (328 s on an H200 with 3689e9b, after a 77 s plain
#                       tune: with both, more than one device call holds; cut each call with PRESET_LIMIT=SECONDS)
#           held-out    shape_bench --held-out: HELD_OUT (default 100) histograms and reductions drawn at random from
#                       SEED (default 20261204; bench/held_out.hpp), none chosen by hand, each handle from an empty
#                       cache and from OUT/tuned.db against CUB, no exact tuning (--no-exact); HELD_OUT_ROWS=A:B
#                       measures rows A..B-1 alone. One process per row (a crash loses its row alone), each row's
#                       line in OUT/held-out-SEED-A-B.log (bench/held_out_table.py makes the table), its tables in
#                       OUT/held-out-SEED-A-B-row-I.md (HELD_OUT_ROW_LIST="I J ...": those rows only,
#                       OUT/held-out-SEED-list-row-I.md); HELD_OUT_DEADLINE=S starts no row after S seconds,
#                       HELD_OUT_ROW_LIMIT=S (default 120) ends a row's process; HELD_OUT_PROCESSES=one runs them
#                       all in one process (OUT/held-out-SEED-A-B.md); HELD_OUT_EXACT=1 tunes each row exactly too
#                       (regret), keeping the measurements in OUT/exact-held-out-SEED-A-B[-row-I].db;
#                       HELD_OUT_COMPARE_LOADS=1 times each row's handle without the evict-first size rule too;
#                       HELD_OUT_COMPARE_ZERO=1 instead times it with merge=atomic zeroing by memset;
#                       HELD_OUT_COMPARE_ONE_LAUNCH=1 with one-launch merges served as measured (the rule off);
#                       HELD_OUT_COMPARE_CACHE=FILE: the handle of another cache too (OUT/preset.db: the preset's A/B),
#                       HELD_OUT_COMPARE_POLICY=DIR: the handle made from DIR's policy files too
#           preset-rows the held-out rows (SEED, HELD_OUT as for held-out) whose lookup OUT/preset.db answers otherwise
#                       than the tuned cache (bench/policy_changed.py --before-cache, no GPU needed): their indices
#                       in OUT/preset-rows.txt, for HELD_OUT_ROW_LIST with HELD_OUT_COMPARE_CACHE=OUT/preset.db
#           preset-compare  the reduction and histogram rows with both caches' handles timed in the same rounds
#                       (shape_bench --compare-cache), each problem's exact winner from the earlier parts'
#                       OUT/exact-PART.db (or EXACT_FROM), the real-bytes rows with their inputs: OUT/preset-PART.md,
#                       whose summary counts the problems the preset made more than 2 % slower
#   EXACT_FROM=FILE: take each problem's exact winner from an earlier part's exact-PART.db (same GPU model) instead
#   of tuning it again (shape_bench --exact-from): the rows are re-timed in minutes.
#   Each shape_bench part keeps every measurement of its exact tunings in OUT/exact-PART.db, and writes
#   OUT/shape-PART.md and OUT/shape-PART.log.
set -uo pipefail
bin=${1:?BIN (the unpacked binaries)}
out=${2:?OUT (a folder for the results)}
part=${3:?PART: tune, reductions, histograms, real, all, sizes, preset, preset-rows, preset-compare or held-out}
commit=${4:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
mkdir -p "$out"
tuned=${TUNED_CACHE:-$out/tuned.db}

# An exact tuning's cache without its cubins, in place (bench/strip_cubins.py); left as it was when that fails.
slim_exact() {
  [ -f "$1" ] || return 0
  rm -f "$1.slim"
  python3 "$(dirname "${BASH_SOURCE[0]}")/strip_cubins.py" "$1" "$1.slim" > /dev/null && mv "$1.slim" "$1" || rm -f "$1.slim"
}

# SLIM_TO=DIR: a finished cache of PART tune or preset also goes to DIR without its cubins, xz'd, as
# ${SLIM_PREFIX}tuned-slim.db.xz or ${SLIM_PREFIX}preset-slim.db.xz (small enough for a device call to bring back).
slim_to() {  # slim_to DB NAME
  [ -n "${SLIM_TO:-}" ] || return 0
  local slim="$out/${SLIM_PREFIX:-}$2-slim.db"
  python3 "$(dirname "${BASH_SOURCE[0]}")/strip_cubins.py" "$1" "$slim" > /dev/null && xz -9f "$slim" &&
    cp "$slim.xz" "$SLIM_TO/"
}

run_tune() {
  rm -f "$out/tuned.db"
  local t0=$SECONDS
  "$bin/autotune" tune --cache "$out/tuned.db" > "$out/tune.log" 2>&1
  local rc=$?
  echo "untuned_grid: plain autotune tune: rc=$rc in $((SECONDS - t0)) s" | tee -a "$out/tune.log"
  [ $rc = 0 ] && slim_to "$out/tuned.db" tuned
  return $rc
}

# The real-bytes rows' inputs, as shape_bench options, into the array named $1: text (this repository's sources)
# and, when present, a photo's raw RGB bytes.
real_bytes() {
  local -n args=$1
  local text="$out/text.bin"
  cat kernel_templates/*/*.cpp kernel_templates/*/*.cu core/*.cpp cache/*.cpp > "$text"
  args+=(--text "$text")
  local photo=${PHOTO:-.device/photo.rgb}
  [ -f "$photo" ] && args+=(--photo "$photo")
}

run_part() {
  local which=$1 extra=()
  [ -f "$tuned" ] || { echo "untuned_grid: no tuned cache at $tuned (run PART tune first)" >&2; return 1; }
  rm -f "$out/exact-$which.db"
  if [ "$which" = histograms ] || [ "$which" = real ]; then real_bytes extra; fi
  [ -n "${EXACT_FROM:-}" ] && extra+=(--exact-from "$EXACT_FROM")
  local t0=$SECONDS
  "$bin/shape_bench" --tuned-cache "$tuned" --exact-cache "$out/exact-$which.db" --only "$which" \
    --commit "$commit" --markdown "$out/shape-$which.md" "${extra[@]}" > "$out/shape-$which.log" 2>&1
  local rc=$?
  echo "untuned_grid: shape_bench --only $which: rc=$rc in $((SECONDS - t0)) s" | tee -a "$out/shape-$which.log"
  return $rc
}

run_sizes() {
  cp "$tuned" "$out/size.db"
  local shape rc=0
  for shape in f32 sum u8; do  # a table each, so that a cut run keeps the shapes before it
    "$bin/size_bench" --cache "$out/size.db" --reuse --shape "$shape" --commit "$commit" \
      --markdown "$out/size-$shape.md" > "$out/size-$shape.log" 2>&1 || rc=1
    echo "untuned_grid: size_bench --shape $shape: done" | tee -a "$out/size-$shape.log"
  done
  return $rc
}

run_preset() {  # resumable: a second call goes on with OUT/preset.db (PRESET_LIMIT=S cuts each call at S seconds)
  [ -f "$tuned" ] || { echo "untuned_grid: no tuned cache at $tuned (run PART tune first)" >&2; return 1; }
  [ -f "$out/preset.db" ] || cp "$tuned" "$out/preset.db"
  local t0=$SECONDS rc=0
  timeout "${PRESET_LIMIT:-7200}" "$bin/autotune" tune --preset standard --cache "$out/preset.db" >> "$out/preset.log" 2>&1 || rc=$?
  echo "untuned_grid: autotune tune --preset standard: rc=$rc in $((SECONDS - t0)) s" | tee -a "$out/preset.log"
  [ $rc = 0 ] && slim_to "$out/preset.db" preset
  return $rc
}

run_preset_rows() {
  [ -f "$out/preset.db" ] || { echo "untuned_grid: no preset cache at $out/preset.db (run PART preset first)" >&2; return 1; }
  local model seed=${SEED:-20261204} rows=${HELD_OUT:-100}
  model=$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('select model_key from devices').fetchone()[0])" "$tuned") ||
    { echo "untuned_grid: no devices row in $tuned" >&2; return 1; }
  python3 "$(dirname "${BASH_SOURCE[0]}")/policy_changed.py" "$bin" --before-cache "$tuned" --cache "$out/preset.db" \
    --model "$model" --seeds "$seed" --rows "$rows" --out "$out/preset-changed.keys" > "$out/preset-changed.log" 2>&1 ||
    { tail -3 "$out/preset-changed.log" >&2; return 1; }
  "$bin/shape_bench" --held-out "$rows" --seed "$seed" --list > "$out/held-out-$seed.keys" || return 1
  # The row index of each changed key: its line in shape_bench's list, from 0.
  awk 'NR==FNR {c[$0]=1; next} ($0 in c) {printf "%d ", FNR-1}' "$out/preset-changed.keys" "$out/held-out-$seed.keys" \
    > "$out/preset-rows.txt"
  echo "untuned_grid: $(tail -1 "$out/preset-changed.log"); rows: $(cat "$out/preset-rows.txt")"
}

run_preset_compare() {
  [ -f "$out/preset.db" ] || { echo "untuned_grid: no preset cache at $out/preset.db (run PART preset first)" >&2; return 1; }
  local which rc=0
  for which in reductions histograms; do
    local from=()
    [ -f "$out/exact-$which.db" ] && from=(--exact-from "$out/exact-$which.db")
    [ -n "${EXACT_FROM:-}" ] && from=(--exact-from "$EXACT_FROM")
    [ "$which" = histograms ] && real_bytes from
    "$bin/shape_bench" --tuned-cache "$tuned" --compare-cache "$out/preset.db" --only "$which" --commit "$commit" \
      --markdown "$out/preset-$which.md" "${from[@]}" > "$out/preset-$which.log" 2>&1 || rc=1
  done
  return $rc
}

run_held_out() {
  [ -f "$tuned" ] || { echo "untuned_grid: no tuned cache at $tuned (run PART tune first)" >&2; return 1; }
  local rows=${HELD_OUT_ROWS:-0:${HELD_OUT:-100}} name
  name=held-out-${SEED:-20261204}-${rows/:/-}
  # HELD_OUT_ROW_LIST="I J ...": those rows only, one process each (OUT/held-out-SEED-list*.md).
  [ -n "${HELD_OUT_ROW_LIST:-}" ] && name=held-out-${SEED:-20261204}-list
  local args=(--held-out "${HELD_OUT:-100}" --seed "${SEED:-20261204}" --tuned-cache "$tuned" --commit "$commit")
  # HELD_OUT_EXACT=1: each row tuned exactly too (its regret; up to minutes a row), its measurements kept in
  # OUT/exact-NAME[-row-I].db without cubins (bench/strip_cubins.py: small enough for a device call to bring back,
  # and bench/replay_grid.py reads them to price another lookup without a GPU); else no exact tuning.
  local exact=${HELD_OUT_EXACT:-0}
  [ "$exact" = 1 ] || args+=(--no-exact)
  # HELD_OUT_COMPARE_LOADS=1: each row's tuned handle also made with the evict-first size rule off
  # (runtime/streaming.hpp), timed in the same rounds: the rule's A/B (held_out_table.py's "as measured" column).
  [ "${HELD_OUT_COMPARE_LOADS:-0}" = 1 ] && args+=(--compare-measured-loads)
  # HELD_OUT_COMPARE_ZERO=1: each row's tuned handle also made with AUTOTUNE_ZERO_WITH_MEMSET=1 (merge=atomic zeroes
  # the output with a memset the counting launch waits for), timed in the same rounds: the zeroing kernel's A/B.
  [ "${HELD_OUT_COMPARE_ZERO:-0}" = 1 ] && args+=(--compare-memset-zero)
  # HELD_OUT_COMPARE_ONE_LAUNCH=1: each row's tuned handle also made with AUTOTUNE_SELF_ZERO_AS_MEASURED=1 (the
  # rule of runtime/one_launch.hpp off), timed in the same rounds.
  [ "${HELD_OUT_COMPARE_ONE_LAUNCH:-0}" = 1 ] && args+=(--compare-self-zero-as-measured)
  # HELD_OUT_COMPARE_CACHE=FILE: each row's handle from FILE too (the tuned cache with `--preset standard` added,
  # PART preset's OUT/preset.db), timed in the same rounds: #26's "never worse with the preset" (held_out_table.py
  # --compared preset). HELD_OUT_COMPARE_POLICY=DIR: the tuned cache's handle made from DIR's policy too (shape_bench
  # --compare-policy; --compared policy).
  [ -n "${HELD_OUT_COMPARE_CACHE:-}" ] && args+=(--compare-cache "$HELD_OUT_COMPARE_CACHE")
  [ -n "${HELD_OUT_COMPARE_POLICY:-}" ] && args+=(--compare-policy "$HELD_OUT_COMPARE_POLICY")
  local t0=$SECONDS rc=0
  if [ "${HELD_OUT_PROCESSES:-row}" = one ]; then
    [ "$exact" = 1 ] && rm -f "$out/exact-$name.db" && args+=(--exact-cache "$out/exact-$name.db")
    "$bin/shape_bench" "${args[@]}" --rows "$rows" --markdown "$out/$name.md" > "$out/$name.log" 2>&1 || rc=$?
    [ "$exact" = 1 ] && slim_exact "$out/exact-$name.db"
  else
    # One process per row: a row that ends its process (a CUDA error is sticky: CUB's f16 histogram past 65504 bins
    # wrote out of bounds, bench/results/2026-12-04h-summary.md) loses that row alone. Each row's result line goes
    # to OUT/NAME.log as "row I rc=RC shape_bench: KEY ...", the form bench/held_out_table.py reads; no row starts
    # once HELD_OUT_DEADLINE seconds (default: none) have passed.
    local from=${rows%%:*} to=${rows##*:} i list
    [ -n "$to" ] || to=${HELD_OUT:-100}
    list=${HELD_OUT_ROW_LIST:-$(seq "$from" $((to - 1)))}
    : > "$out/$name.log"
    for i in $list; do
      if [ -n "${HELD_OUT_DEADLINE:-}" ] && [ $((SECONDS - t0)) -ge "$HELD_OUT_DEADLINE" ]; then
        echo "untuned_grid: deadline of ${HELD_OUT_DEADLINE} s: rows from $i of [$(echo $list)] not run" |
          tee -a "$out/$name.log"
        rc=1
        break
      fi
      local keep=()
      [ "$exact" = 1 ] && rm -f "$out/exact-$name-row-$i.db" && keep=(--exact-cache "$out/exact-$name-row-$i.db")
      timeout "${HELD_OUT_ROW_LIMIT:-120}" "$bin/shape_bench" "${args[@]}" "${keep[@]}" --rows "$i:$((i + 1))" \
        --markdown "$out/$name-row-$i.md" > "$out/$name-row-$i.out" 2> "$out/$name-row-$i.err"
      local row_rc=$?
      [ "$exact" = 1 ] && slim_exact "$out/exact-$name-row-$i.db"
      grep "^shape_bench: \(histogram\|reduce\)/" "$out/$name-row-$i.err" | sed "s/^/row $i rc=$row_rc /" \
        >> "$out/$name.log"
      if [ $row_rc -ne 0 ]; then
        echo "row $i rc=$row_rc: $(tail -3 "$out/$name-row-$i.err" | tr '\n' ' ')" >> "$out/$name.log"
        rc=1
      fi
    done
  fi
  echo "untuned_grid: shape_bench --held-out rows $rows: rc=$rc in $((SECONDS - t0)) s" | tee -a "$out/$name.log"
  return $rc
}

case "$part" in
  tune) run_tune ;;
  sizes) run_sizes ;;
  preset) run_preset ;;
  preset-rows) run_preset_rows ;;
  preset-compare) run_preset_compare ;;
  held-out) run_held_out ;;
  reductions | histograms | real) run_part "$part" ;;
  all) run_tune && run_part reductions; run_part histograms ;;
  *) echo "untuned_grid: PART is tune, reductions, histograms, real, all, sizes, preset, preset-rows, preset-compare or held-out, not $part" >&2
     exit 2 ;;
esac
