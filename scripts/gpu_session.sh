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
    # A shipped cache: a 0444 copy in a directory of its own, NVRTC made unloadable; the cubins come from the cache.
    step "example_histogram from a read-only cache, without NVRTC"
    # It is what the README says an application ships: `export` of only its problem on this GPU model, imported into
    # a file of its own; AUTOTUNE_REQUIRE=exact proves the winner came from that file.
    ship="$out/ship"; mkdir -p "$ship"
    model=$("$bin/autotune" devices --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["model_key"])')
    "$bin/autotune" export --cache "$cache" --problem 'histogram/u8/bins=256/range=[0,256)/n=67108864/' \
      --device-model "$model" --output "$out/app.json" || rc=1
    "$bin/autotune" import "$out/app.json" --cache "$ship/app.db" || rc=1
    "$bin/autotune" show --cache "$ship/app.db" || rc=1
    chmod 0444 "$ship/app.db"
    before=$(sha256sum "$ship/app.db")
    AUTOTUNE_REQUIRE=exact AUTOTUNE_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13 AUTOTUNE_CACHE="$ship/app.db" \
      "$bin/example_histogram" || rc=1
    [ "$before" = "$(sha256sum "$ship/app.db")" ] && [ "$(ls "$ship")" = "app.db" ] \
      && echo "read-only cache unchanged, no side files" || { echo "the lookup changed the cache"; rc=1; }
    step "strict mode: AUTOTUNE_REQUIRE=exact on a problem the cache does not hold must fail with the tune command"
    if AUTOTUNE_REQUIRE=exact AUTOTUNE_CACHE="$out/none.db" "$bin/example_histogram"; then
      echo "strict mode ran the built-in default"; rc=1
    else
      echo "strict mode refused, as it should"
    fi
    step "out of GPU memory: tune and bench of 200 GiB of samples must fail with a clear message, exit 1"
    for cmdline in "tune --type u8 --bins 256 --n 200G --cache $out/oom.db" "bench --type u8 --bins 256 --n 200G --cache $cache"; do
      # shellcheck disable=SC2086
      "$bin/autotune" $cmdline > "$out/oom.txt" 2>&1; code=$?
      cat "$out/oom.txt"
      if [ "$code" = 1 ] && grep -q "not enough GPU memory" "$out/oom.txt"; then
        echo "refused clearly (exit 1)"
      else
        echo "expected exit 1 and "not enough GPU memory", got exit $code"; rc=1
      fi
    done
    step "off the tuned points: bins and sizes nobody tuned, against CUB"
    for p in "--type u8 --bins 128 --upper 128 --n 512M" "--type f32 --bins 4096 --n 64M" "--type u8 --bins 256 --n 16M" \
             "--kernel reduce --op max --type f32 --n 256M"; do
      "$bin/autotune" bench $p --cache "$cache" || rc=1
    done
  fi
  echo; echo "gpu_session: exit $rc"
} 2>&1 | tee "$out/session.log"
exit $rc
