#!/usr/bin/env bash
# bench/untuned_check.sh, before a device call spends a minute on it: on each card it draws the seed that card has a
# "before" for (H200 20261204, H100 20261205), pins the A/Bs with that card's old lookups (folders that exist, every
# key of that card's list asked for), tunes once per state folder and sends back a cubin-free copy; `fresh` draws
# 20261206, and `preset` tunes the preset onto a copy of the plain cache, then times both caches' handles on it; no GPU
# and an unknown step are refused; OUT holds what a device call brings back (at most 8 files, all
# of the work in one tarball). Stand-ins (no GPU): nvidia-smi prints a card's name; autotune
# writes a real cache for `tune` (tests/cache_writer) and runs the real binary otherwise; shape_bench records its
# arguments.
#
#   tests/untuned_check_check.sh REPO BIN_DIR     BIN_DIR: the build's bin/ (autotune, cache_writer)
set -uo pipefail
repo=${1:?REPO}
real=${2:?BIN_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/smi-h200" "$tmp/smi-h100"
cat > "$tmp/bin/autotune" <<SH
#!/usr/bin/env bash
if [ "\$1" = tune ]; then
  echo "tuned \$*" >> "$tmp/tunes"
  while [ \$# -gt 0 ]; do [ "\$1" = --cache ] && cache=\$2; shift; done
  exec "$real/cache_writer" "\$cache" 0
fi
exec "$real/autotune" "\$@"
SH
cat > "$tmp/bin/shape_bench" <<SH
#!/usr/bin/env bash
echo "\$*" >> "$tmp/shape_bench.args"
while [ \$# -gt 0 ]; do [ "\$1" = --markdown ] && echo "| table |" > "\$2"; shift; done
SH
printf '#!/bin/sh\necho "NVIDIA H200, 580.159.04, 143771 MiB"\n' > "$tmp/smi-h200/nvidia-smi"
printf '#!/bin/sh\necho "NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB"\n' > "$tmp/smi-h100/nvidia-smi"
chmod +x "$tmp/bin/"* "$tmp/smi-h200/nvidia-smi" "$tmp/smi-h100/nvidia-smi"
fail=0
cd "$repo" || exit 1

# run CARD STEP [VAR=VALUE ...]: the script with that card's nvidia-smi, a fresh argument log
run() {
  local card=$1 step=$2
  shift 2
  rm -f "$tmp/shape_bench.args"
  env PATH="$tmp/smi-$card:$PATH" STATE="$tmp/state-$card" BUDGET=300 "$@" \
    bash bench/untuned_check.sh "$tmp/bin" "$tmp/out-$card-$step" "$step" test > "$tmp/run.log" 2>&1
}

# ab_ok CARD NAME PINS KEYS: shape_bench was asked for every key of the card's list, pinned by the card's folder
ab_ok() {
  local card=$1 pins=$3 keys=$4 line
  line=$(grep -- "--compare-policy $pins-$card " "$tmp/shape_bench.args")
  [ -d "$pins-$card" ] || { echo "FAIL: $card $2: no folder $pins-$card"; fail=1; return; }
  [ -n "$line" ] || { echo "FAIL: $card $2: shape_bench was not pinned by $pins-$card"; fail=1; return; }
  local want asked
  want=$(grep -c . "$keys-$card.txt")
  asked=$(grep -o -- "--problem " <<< "$line" | wc -l)
  [ "$want" -gt 0 ] && [ "$asked" = "$want" ] ||
    { echo "FAIL: $card $2: $asked problems asked, $want in $keys-$card.txt"; fail=1; }
}

for card in h200 h100; do
  seed=20261205
  [ $card = h200 ] && seed=20261204
  rm -f "$tmp/tunes"
  run $card rest ROWS=3:9
  grep -q -- "--held-out 100 --seed $seed .*--rows 3:4" "$tmp/shape_bench.args" &&
    grep -q -- "--rows 8:9" "$tmp/shape_bench.args" ||
    { echo "FAIL: $card: rows 3 to 8 of seed $seed not drawn"; cat "$tmp/run.log"; fail=1; }
  # What a device call brings back: at most 8 files, no more than 2 folders down; all of the work in the tarball.
  o="$tmp/out-$card-rest"
  [ "$(find "$o" -type f | wc -l)" -le 8 ] && [ -z "$(find "$o" -mindepth 3 -type f)" ] ||
    { echo "FAIL: $card: OUT holds more than a device call brings back:"; find "$o" -type f; fail=1; }
  listing=$(tar -tzf "$o/untuned-check-rest.tar.gz" 2>/dev/null)
  grep -q "held-out-$seed-3-9-row-8.md" <<< "$listing" && grep -q "ab-grid/policy-ab.md" <<< "$listing" &&
    [ -f "$o/held-out-$seed-3-9.log" ] ||
    { echo "FAIL: $card: the grid's rows, the A/Bs or the grid's log are missing from OUT"; fail=1; }
  grep -q -- "--compare-memset-zero" "$tmp/shape_bench.args" && ! grep -q -- "--compare-measured-loads" "$tmp/shape_bench.args" ||
    { echo "FAIL: $card: the grid rows are not timed with memset zeroing (alone) too"; fail=1; }
  run $card rest ROWS=3:4 COMPARE=loads
  grep -q -- "--compare-measured-loads" "$tmp/shape_bench.args" && ! grep -q -- "--compare-memset-zero" "$tmp/shape_bench.args" ||
    { echo "FAIL: $card: COMPARE=loads does not time the grid rows without the evict-first rule (alone)"; fail=1; }
  run $card rest ROWS=3:4 COMPARE=none
  ! grep -q -e "--compare-memset-zero" -e "--compare-measured-loads" "$tmp/shape_bench.args" ||
    { echo "FAIL: $card: COMPARE=none still times a compared handle"; fail=1; }
  ab_ok $card stream bench/results/2026-12-05i-data/pinned-before-stream bench/results/2026-12-05i-data/lookups-changed-stream
  ab_ok $card grid bench/results/2026-12-05h-data/pinned-before-grid bench/results/2026-12-05h-data/lookups-changed-grid
  slim="$tmp/out-$card-rest/tuned-slim-$card-test.db"
  [ -f "$slim" ] && [ "$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
    'select count(*) from winners where cubin is not null').fetchone()[0])" "$slim")" = 0 ] ||
    { echo "FAIL: $card: no cubin-free copy of the tuned cache"; fail=1; }
  run $card fresh ROWS=0:1
  grep -q -- "--seed 20261206 .*--rows 0:1" "$tmp/shape_bench.args" ||
    { echo "FAIL: $card: fresh did not draw seed 20261206"; fail=1; }
  [ "$(grep -c . "$tmp/tunes")" = 1 ] || { echo "FAIL: $card: tuned $(grep -c . "$tmp/tunes") times, not once"; fail=1; }
  # preset: the preset on a copy of the plain cache, then seed 20261206's rows with both caches' handles.
  run $card preset ROWS=0:2
  [ "$(grep -c -- "--preset standard --cache $tmp/state-$card/preset.db" "$tmp/tunes")" = 1 ] &&
    grep -q -- "--seed 20261206 --tuned-cache $tmp/state-$card/tuned.db .*--compare-cache $tmp/state-$card/preset.db.* --rows 1:2" \
      "$tmp/shape_bench.args" && [ -f "$tmp/out-$card-preset/preset.log" ] ||
    { echo "FAIL: $card: preset did not tune the preset onto a copy and compare both caches' handles"; cat "$tmp/run.log";
      cat "$tmp/shape_bench.args"; fail=1; }
done

mkdir -p "$tmp/smi-none"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n' > "$tmp/smi-none/nvidia-smi"
chmod +x "$tmp/smi-none/nvidia-smi"
env PATH="$tmp/smi-none:$PATH" bash bench/untuned_check.sh "$tmp/bin" "$tmp/out-none" rest test > "$tmp/run.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "found no GPU" "$tmp/run.log" || { echo "FAIL: without a GPU: rc=$rc"; cat "$tmp/run.log"; fail=1; }
env PATH="$tmp/smi-h200:$PATH" bash bench/untuned_check.sh "$tmp/bin" "$tmp/out-bad" sideways test > "$tmp/run.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "STEP is first, rest, fresh or preset" "$tmp/run.log" || { echo "FAIL: an unknown step: rc=$rc"; fail=1; }
[ $fail = 0 ] && echo "untuned_check_check: OK"
exit $fail
