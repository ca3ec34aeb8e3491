#!/usr/bin/env bash
# The GPU check of a build, in one call of the device: every GPU suite, then the benchmarks that hold the open
# issues' targets, each under its own time limit so that one hang cannot eat the rest; logs go to OUT_DIR as they
# are written, so a cut-off run still shows what ran.
#
#   bench/gpu_check.sh BIN_DIR OUT_DIR [COMMIT] [BUDGET_SECONDS]
#
# BIN_DIR holds autotune_gpu_tests, autotune and the bench programs of a -DAUTOTUNE_BUILD_BENCH=ON build (a portable
# one, -DAUTOTUNE_PORTABLE=ON, to run on another machine). BUDGET_SECONDS (default 1500) bounds the whole run: a step
# gets what is left when its own limit is more. Order: the suites of code not yet run on a GPU first (the 2D entry
# point of the even histogram, per-channel levels, range 2D and one-launch merge, segmented block-per-segment and
# 64-bit offsets, packed arg-reduction keys), then the rest, then the benchmarks.
set -u
bin=$(cd "${1:?BIN_DIR}" && pwd)
out=${2:?OUT_DIR}
commit=${3:-unknown}
budget=${4:-1500}
mkdir -p "$out"
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
export XDG_CACHE_HOME="$out/cache" AUTOTUNE_CACHE="$out/cache/autotune.db"
mkdir -p "$out/cache"
summary="$out/summary.log"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $commit"; } | tee "$summary"

step() {  # step NAME LIMIT COMMAND...: runs COMMAND under min(LIMIT, time left) with its log in OUT_DIR/NAME.log
  local name=$1 limit=$2; shift 2
  local l; l=$(left); [ "$l" -lt "$limit" ] && limit=$l
  if [ "$limit" -lt 20 ]; then echo "$name: not run, no time left" | tee -a "$summary"; return; fi
  local t0; t0=$(date +%s)
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc $(($(date +%s) - t0)) s $(grep -hE 'test cases:|assertions:' "$out/$name.log" | tr -s ' ' | tr '\n' ' ')" |
    tee -a "$summary"
  grep -h -B2 -A8 "ERROR\|FATAL" "$out/$name.log" | head -40
}
suite() { step "$1" "$2" "$bin/autotune_gpu_tests" --test-suite="$1" --no-intro=true; }

suite gpu_histimage 240
suite gpu_histrange 120
suite gpu_segreduce 150
suite gpu_argreduce 260
suite gpu_api 90
suite gpu_histogram 300
suite gpu_reduce 150
suite gpu_tuner 150

step histogram_range_bench 150 "$bin/histogram_range_bench" --markdown "$out/histogram_range_bench.md"
step histogram_image_bench 120 "$bin/histogram_image_bench" --samples 30 --markdown "$out/histogram_image_bench.md"
step segreduce_bench 170 "$bin/segreduce_bench" --samples 20 --markdown "$out/segreduce_bench.md"
step argreduce_bench 200 "$bin/argreduce_bench" --markdown "$out/argreduce_bench.md"
step shape_bench 240 "$bin/shape_bench" --quick --commit "$commit" --markdown "$out/shape_bench.md"
echo "total $(($(date +%s) - start)) s" | tee -a "$summary"
