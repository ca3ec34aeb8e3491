#!/usr/bin/env bash
# What one call on a GPU machine runs: the GPU suite, the CPU suite, a tune of the default problems (through worker
# processes, as a user runs it), `show`, `best`, `compare`, `report`, and the examples against the fresh cache. Uses a
# portable build carried from elsewhere (BUILD_DIR, default build-portable). Everything printed is also written to
# $OUT (or ./gpu-session-out) for the record under bench/results/.
#   SKIP_CPU_SUITE=1     leaves out the CPU suite (it runs in CI anyway) to save device time
#   GPU_SUITES=a,b       runs only these doctest suites of the GPU binary (default: all)
#   SKIP_TUNE=1          stops after the suites
set -uo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build-portable}"
out="${OUT:-gpu-session-out}"
mkdir -p "$out"
bin="$build/bin"
cache="$out/cache.db"
rc=0
step() { echo; echo "### $*"; }
{
  step "machine"; date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  step "autotune devices"; "$bin/autotune" devices || rc=1
  suites=()
  [ -n "${GPU_SUITES:-}" ] && suites=("--test-suite=$GPU_SUITES")
  step "GPU suite ${GPU_SUITES:-(all)}"; time "$bin/autotune_gpu_tests" ${suites[@]+"${suites[@]}"} || rc=1
  if [ -z "${SKIP_CPU_SUITE:-}" ]; then step "CPU suite"; "$bin/autotune_tests" || rc=1; fi
  if [ -z "${SKIP_TUNE:-}" ]; then
    step "autotune tune (default problems) --cache $cache"; time "$bin/autotune" tune --cache "$cache" || rc=1
    step "autotune show"; "$bin/autotune" show --cache "$cache" || rc=1
    step "autotune best (exact, nearest size, reduction)"
    "$bin/autotune" best --type u8 --bins 256 --n 64M --device 0 --cache "$cache" || rc=1
    "$bin/autotune" best --type u8 --bins 256 --n 48M --device 0 --cache "$cache" || rc=1
    "$bin/autotune" best --kernel reduce --op sum --type f32 --n 64M --device 0 --cache "$cache" --json || rc=1
    step "autotune compare"; "$bin/autotune" compare --cache "$cache" || rc=1
    step "autotune bench (default problems)"; "$bin/autotune" bench --cache "$cache" || rc=1
    step "autotune bench (a reduction at 256M)"
    "$bin/autotune" bench --kernel reduce --op sum --type f32 --n 256M --cache "$cache" || rc=1
    step "autotune report"; "$bin/autotune" report --cache "$cache" --output "$out/report.html" || rc=1
    step "example_histogram"; AUTOTUNE_CACHE="$cache" "$bin/example_histogram" || rc=1
    step "example_reduce"; AUTOTUNE_CACHE="$cache" "$bin/example_reduce" || rc=1
    step "example_histogram, no cache"; AUTOTUNE_CACHE="$out/none.db" "$bin/example_histogram" || rc=1
  fi
  echo; echo "gpu_session: exit $rc"
} 2>&1 | tee "$out/session.log"
exit $rc
