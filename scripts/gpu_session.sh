#!/usr/bin/env bash
# What one call on a GPU machine runs: the GPU suite, the CPU suite, a tune of the default problems, `show`, and the
# example against the fresh cache. Uses a portable build carried from elsewhere (BUILD_DIR, default build-portable).
# Everything printed is also written to $OUT (or ./gpu-session-out) for the record under bench/results/.
# SKIP_CPU_SUITE=1 leaves out the CPU suite (it runs in CI anyway) to save device time.
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
  step "GPU suite"; "$bin/autotune_gpu_tests" || rc=1
  if [ -z "${SKIP_CPU_SUITE:-}" ]; then step "CPU suite"; "$bin/autotune_tests" || rc=1; fi
  step "autotune tune (default problems) --cache $cache"; time "$bin/autotune" tune --cache "$cache" || rc=1
  step "autotune show"; "$bin/autotune" show --cache "$cache" || rc=1
  step "example_histogram"; AUTOTUNE_CACHE="$cache" "$bin/example_histogram" || rc=1
  step "example_histogram, no cache"; AUTOTUNE_CACHE="$out/none.db" "$bin/example_histogram" || rc=1
  echo; echo "gpu_session: exit $rc"
} 2>&1 | tee "$out/session.log"
exit $rc
