#!/usr/bin/env bash
# Issue #26's closing measurement with the final code, split into device calls of at most 10 minutes, each of which
# stands on its own: the GPU suites of the lookup's path, a plain `autotune tune`, the held-out grid of the seed this
# card already has a "before" for, and the A/Bs of the lookup rules no GPU has timed yet. Run on the GPU machine from
# the repository root, with binaries unpacked from scripts/pack_for_device.sh.
#
#   bench/untuned_check.sh BIN OUT STEP [COMMIT]
#     STEP  first   the quick tier's SUITES (bench/gpu_check.sh; default gpu_histogram, gpu_reduce, gpu_histrange,
#                   gpu_api and gpu_tuner, within SUITES_BUDGET seconds, default 200), a plain tune, then
#                   the held-out grid (bench/untuned_grid.sh held-out) until the call's time is spent, each row's
#                   handle also timed as COMPARE says: zero (default; HELD_OUT_COMPARE_ZERO=1: merge=atomic zeroing
#                   by memset instead of the overlapped zeroing kernel), loads (HELD_OUT_COMPARE_LOADS=1: without the
#                   evict-first size rule), one_launch (HELD_OUT_COMPARE_ONE_LAUNCH=1: one-launch merges served as
#                   measured, the rule of runtime/one_launch.hpp off) or none
#           rest    the grid's rows ROWS=A:B (when set, for at most ROWS_DEADLINE seconds, default 200), then the A/B
#                   of the evict-first rule (2026-12-05i) and of the grid rule (2026-12-05h): bench/policy_ab.sh on
#                   the lookups each rule changed, the old lookup pinned (bench/pin_lookups.py)
#           fresh   the held-out grid of SEED (default 20261206), rows ROWS (default 0:100), compared as in `first`
#           preset  `autotune tune --preset standard` on a copy of the plain tune's cache (STATE/preset.db; resumed by
#                   the next call while the machine stays warm: on an H200 it took 328 s on 3689e9b), its wall time in
#                   preset.log; once it has finished, the held-out grid of SEED (default 20261206), rows ROWS, with
#                   each row's handle from both caches timed in the same rounds (#26: never worse with the preset;
#                   bench/held_out_table.py --compared preset). Two calls of this step do all of it.
#
# The seed of `first` and `rest` is the one with a measured "before" on this card: 20261204 on an H200 (7830c02,
# bench/results/2026-12-04h-h200-held-out-grid.md), 20261205 on an H100 (f93b74f, 2026-12-05h-data). The plain tune
# goes to STATE (default /tmp/autotune-untuned-check), which outlives a call while the machine stays warm; a call that
# finds none tunes again (about 100 s). OUT gets a copy of the tuned cache without cubins (bench/strip_cubins.py),
# for offline replays. BUDGET (default 575) is the seconds a call may take; each step gets what is left.
#
# What comes back from a device call is at most 8 files (the GPU machine's limit), and a grid writes three files a
# row: 2026-12-06's first call lost its grid log that way. So the steps write to a work folder, and OUT gets at most
# five files: the grid's log (held-out-SEED-A-B.log), tune.log, preset.log, the cubin-free cache, and everything
# (those too) in untuned-check-STEP.tar.gz.
set -uo pipefail
bin=${1:?BIN (the unpacked binaries)}
final_out=${2:?OUT}
step=${3:?STEP: first, rest, fresh or preset}
commit=${4:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
state=${STATE:-/tmp/autotune-untuned-check}
t0=$SECONDS
left() { echo $((${BUDGET:-575} - (SECONDS - t0))); }
mkdir -p "$final_out" "$state"
out=$(mktemp -d "$state/work-$step-XXXXXX")

# OUT gets the few files a reader opens first, and one tarball of the work folder (all of it).
deliver() {
  local f
  for f in "$out"/held-out-*.log "$out"/tune.log "$out"/preset.log "$out"/tuned-slim-*.db; do
    [ -f "$f" ] && cp "$f" "$final_out/"
  done
  tar -C "$out" -czf "$final_out/untuned-check-$step.tar.gz" . && rm -rf "$out"
}
trap deliver EXIT

gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
[ -n "$gpu" ] || { echo "untuned_check: nvidia-smi found no GPU" >&2; exit 2; }
echo "$gpu" > "$out/gpu.txt"
card=h100
case $gpu in *H200*) card=h200 ;; esac
seed=20261205
[ $card = h200 ] && seed=20261204
echo "untuned_check: $step on $gpu ($card), commit $commit"

tune() {
  [ -f "$state/tuned.db" ] && return 0
  bench/untuned_grid.sh "$bin" "$state" tune "$commit" || { rm -f "$state/tuned.db"; return 1; }
  cp "$state/tune.log" "$out/tune.log"
  python3 bench/strip_cubins.py "$state/tuned.db" "$out/tuned-slim-$card-$commit.db"
}

grid() {  # grid SEED ROWS DEADLINE [COMPARE: loads, zero or one_launch]
  local loads=0 zero=0 one_launch=0
  [ "${4:-}" = loads ] && loads=1
  [ "${4:-}" = zero ] && zero=1
  [ "${4:-}" = one_launch ] && one_launch=1
  TUNED_CACHE="$state/tuned.db" SEED=$1 HELD_OUT_ROWS=$2 HELD_OUT_DEADLINE=$3 HELD_OUT_COMPARE_LOADS=$loads \
    HELD_OUT_COMPARE_ZERO=$zero HELD_OUT_COMPARE_ONE_LAUNCH=$one_launch \
    bench/untuned_grid.sh "$bin" "$out" held-out "$commit"
}

ab() {  # ab NAME DATA_DIR PINS KEYS
  [ "$(left)" -gt 60 ] || { echo "untuned_check: no time left for the $1 A/B"; return 1; }
  timeout "$(left)" bench/policy_ab.sh "$bin" "$out/ab-$1" "$2/$3-$card" "$2/$4-$card.txt"
}

rc=0
case $step in
  first)
    GPU_CHECK_SUITES="${SUITES:-gpu_histogram gpu_reduce gpu_histrange gpu_api gpu_tuner}" GPU_CHECK_BENCHES=none \
      bench/gpu_check.sh quick "$bin" "$out/gc" "$commit" "${SUITES_BUDGET:-200}" || rc=1
    tune || exit 1
    grid $seed 0:100 $(($(left) - 30)) "${COMPARE:-zero}" || rc=1
    ;;
  rest)
    tune || exit 1
    [ -n "${ROWS:-}" ] && { grid $seed "$ROWS" "${ROWS_DEADLINE:-200}" "${COMPARE:-zero}" || rc=1; }
    ab stream bench/results/2026-12-05i-data pinned-before-stream lookups-changed-stream || rc=1
    ab grid bench/results/2026-12-05h-data pinned-before-grid lookups-changed-grid || rc=1
    ;;
  preset)
    tune || exit 1
    PRESET_LIMIT=$(($(left) - 20)) bench/untuned_grid.sh "$bin" "$state" preset "$commit" || rc=1
    cp "$state/preset.log" "$out/preset.log"
    if tail -1 "$state/preset.log" | grep -q "rc=0 in"; then
      rc=0
      HELD_OUT_COMPARE_CACHE="$state/preset.db" grid "${SEED:-20261206}" "${ROWS:-0:100}" $(($(left) - 30)) none || rc=1
    else
      echo "untuned_check: the preset has not finished (preset.log); call this step again to resume it"
    fi
    ;;
  fresh)
    tune || exit 1
    grid "${SEED:-20261206}" "${ROWS:-0:100}" $(($(left) - 30)) "${COMPARE:-zero}" || rc=1
    ;;
  *) echo "untuned_check: STEP is first, rest, fresh or preset, not $step" >&2; exit 2 ;;
esac
echo "untuned_check: $step done in $((SECONDS - t0)) s, rc=$rc"
exit $rc
