#!/usr/bin/env bash
# kill -9 trials (issue #16: "kill -9 at any point loses nothing"). Writers that need no GPU are started on a copy
# of a cache that already holds results, and killed with SIGKILL after a random delay within their running time:
#   import     `autotune import big.json` (180 runs, 7200 measurements, one transaction)
#   merge      `autotune merge src.db` (the same rows, read from another cache file)
#   writer     two tests/cache_writer processes at once, writing runs as a tuner does (a transaction per measurement)
#   newimport  `autotune import big.json` into a path that does not exist yet
# After each kill: PRAGMA integrity_check is ok, `autotune check` finds no row breaking an invariant, every row the
# cache held before is still there (finished runs still finished), no finished run lacks a measurement, and a killed
# import left all of its rows or none (readers never see part of an import); a killed import into a new path left no
# cache file, or a complete one (never an empty or partial cache). Then the same writer run again completes and
# leaves the same content as an uninterrupted run (the exports are equal; for the cache writers, which start new
# runs when re-run, the same finished runs and winners).
#
# Usage: kill_trials.sh AUTOTUNE CACHE_WRITER      (environment: KILL_TRIALS=N, default 12; KILL_SEED=S, default 1;
#                                                    KILL_TRIALS_DIR=D, default a new directory in /dev/shm or $TMPDIR)
# Prints one line per trial and a summary; exits 1 if any trial lost something.
set -uo pipefail
autotune="$(realpath "$1")"
writer="$(realpath "$2")"
check_py="$(cd "$(dirname "$0")" && pwd)/kill_trials_check.py"
trials="${KILL_TRIALS:-12}"
RANDOM="${KILL_SEED:-1}"
base="${TMPDIR:-/tmp}"
[ -w /dev/shm ] && base=/dev/shm  # a killed process loses nothing in the page cache: memory is as good as a disk
dir="${KILL_TRIALS_DIR:-$(mktemp -d "$base/autotune-kill-trials.XXXXXX")}"
mkdir -p "$dir"
cleanup() { [ -z "${KILL_TRIALS_DIR:-}" ] && rm -rf "$dir"; }
trap cleanup EXIT
cd "$dir" || exit 2

now_ms() { date +%s%3N; }
die() { echo "kill_trials: $*" >&2; exit 2; }
rm_cache() { rm -f "$1" "$1-wal" "$1-shm" "$1-journal"; }
export_of() { "$autotune" export --cache "$1" --output "$2" >/dev/null; }

# --- the data: a source of 20 writers' results, and the rows the target holds before each trial ------------------
pids=()
for w in $(seq 10 29); do "$writer" src.db "$w" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || die "cache_writer failed building the source"; done
export_of src.db big.json || die "cannot export the source"
for w in 0 1; do "$writer" pre.db "$w" || die "cache_writer failed building the target"; done
export_of pre.db pre.json || die "cannot export the target"

# Runs KIND to completion on a fresh copy of the target (the reference), and notes how long it takes.
start_writer() {  # KIND FILE: starts the writer(s) in the background, their pids in $running
  running=()
  case "$1" in
    # --no-cubins: the writers' made-up cubins would be dropped anyway, after a compile (ImportOptions::verify_cubins)
    # that would take most of the running time; without it the kills land in the writing.
    import|newimport) "$autotune" import big.json --no-cubins --cache "$2" >/dev/null 2>&1 & running=($!) ;;
    merge) "$autotune" merge src.db --no-cubins --cache "$2" >/dev/null 2>&1 & running=($!) ;;
    writer) "$writer" "$2" 5 2>/dev/null & running=($!)
            "$writer" "$2" 6 2>/dev/null & running+=($!) ;;
  esac
}
declare -A took reference
for kind in import merge writer newimport; do
  rm_cache ref.db
  [ "$kind" = newimport ] || cp pre.db ref.db
  t0=$(now_ms)
  start_writer "$kind" ref.db
  for p in "${running[@]}"; do wait "$p" || die "an uninterrupted $kind failed"; done
  took[$kind]=$(( $(now_ms) - t0 ))
  export_of ref.db "ref-$kind.json" || die "cannot export the $kind reference"
  "$autotune" check --cache ref.db >/dev/null || die "the uninterrupted $kind leaves rows that break invariants"
  echo "kill_trials: an uninterrupted $kind takes ${took[$kind]} ms"
done

# --- the trials ---------------------------------------------------------------------------------------------------
kinds=(import merge writer newimport)
killed=0 finished_first=0 survived=0 failed=0
for ((i = 0; i < trials; i++)); do
  kind=${kinds[i % 4]}
  rm_cache t.db
  [ "$kind" = newimport ] || cp pre.db t.db
  # Up to 1.2 times the writer's running time: most kills land mid-way, a few after the end.
  delay=$(( RANDOM * (took[$kind] * 12 / 10 + 1) / 32768 ))
  start_writer "$kind" t.db
  sleep "$(awk "BEGIN { printf \"%.3f\", $delay / 1000 }")"
  status=""
  for p in "${running[@]}"; do
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
    status+="$? "
  done
  if [[ "$status" == *137* ]]; then ((killed++)); else ((finished_first++)); fi

  problems=()
  if [ "$kind" = newimport ]; then
    rm -f t.db.import-*.tmp t.db.import-*.tmp-*  # the temporary a killed import leaves beside the new path
    if [ -e t.db ]; then
      { export_of t.db killed.json && cmp -s killed.json ref-newimport.json; } ||
        problems+=("a killed import into a new path left a partial or empty cache file")
    fi
  else
  out=$(python3 "$check_py" integrity t.db) || problems+=("integrity: $out")
  out=$("$autotune" check --cache t.db 2>&1) || problems+=("invariants: $(echo "$out" | head -3 | tr '\n' ' ')")
  if export_of t.db killed.json; then
    out=$(python3 "$check_py" contains pre.json killed.json) || problems+=("lost rows: $(echo "$out" | head -3 | tr '\n' ' ')")
    out=$(python3 "$check_py" complete killed.json 40) || problems+=("$out")
    if [ "$kind" = import ]; then
      cmp -s killed.json pre.json || cmp -s killed.json ref-import.json ||
        problems+=("readers see part of the import (neither the rows before it nor all of them)")
    fi
  else
    problems+=("the killed cache does not export")
  fi
  fi
  # The same writer again, to the end: the content of an uninterrupted run.
  start_writer "$kind" t.db
  for p in "${running[@]}"; do wait "$p" || problems+=("the re-run $kind failed"); done
  "$autotune" check --cache t.db >/dev/null 2>&1 || problems+=("invariants after the re-run")
  if export_of t.db rerun.json; then
    if [ "$kind" = writer ]; then
      out=$(python3 "$check_py" same-writer-content "ref-$kind.json" rerun.json) || problems+=("re-run differs: $out")
      out=$(python3 "$check_py" complete rerun.json 40) || problems+=("$out")
    else
      cmp -s "ref-$kind.json" rerun.json || problems+=("re-run export differs from the uninterrupted $kind's")
    fi
  else
    problems+=("the re-run cache does not export")
  fi
  if [ ${#problems[@]} -eq 0 ]; then
    ((survived++))
    echo "trial $((i + 1)) $kind: killed after ${delay} ms (exit ${status% }): ok"
  else
    ((failed++))
    echo "trial $((i + 1)) $kind: killed after ${delay} ms (exit ${status% }): FAILED"
    printf '  %s\n' "${problems[@]}"
    [ -n "${KILL_TRIALS_DIR:-}" ] && cp t.db "failed-$((i + 1)).db"
  fi
done
echo "kill_trials: $trials trials ($killed killed mid-way, $finished_first finished before the kill): $survived survived, $failed lost something"
[ "$failed" -eq 0 ]
