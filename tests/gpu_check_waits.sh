#!/usr/bin/env bash
# bench/gpu_check.sh waits for every suite it starts before the benchmarks run, and a failing suite fails the run.
# Stand-in binaries (no GPU): autotune_gpu_tests sleeps, then prints doctest's counts (gpu_reduce fails); autotune
# and shape_bench do nothing. With GPU_CHECK_BENCHES=global_copies nothing is compiled ahead, so the compile-ahead job
# ends at once: a check that waited for any job took that for a suite and let gpu_histogram run on under the
# benchmark.
#
#   tests/gpu_check_waits.sh REPO
set -uo pipefail
repo=${1:?REPO}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
cat > "$tmp/bin/autotune_gpu_tests" <<'SH'
#!/usr/bin/env bash
case "$*" in *gpu_reduce*) sleep 1; echo "test cases: 1 | 0 passed | 1 failed"; exit 1 ;; esac
sleep 4; echo "test cases: 3 | 3 passed | 0 failed"
SH
printf '#!/usr/bin/env bash\nexit 0\n' > "$tmp/bin/autotune"
cp "$tmp/bin/autotune" "$tmp/bin/shape_bench"
chmod +x "$tmp/bin/"*
GPU_CHECK_SUITES="gpu_histogram gpu_reduce" GPU_CHECK_BENCHES=global_copies \
  bash "$repo/bench/gpu_check.sh" quick "$tmp/bin" "$tmp/out" test 120 > "$tmp/run.log" 2>&1
rc=$?
summary="$tmp/out/summary.log"
line() { grep -n "$1" "$summary" | head -1 | cut -d: -f1; }
hist=$(line "^gpu_histogram rc=0") red=$(line "^gpu_reduce rc=1") done=$(line "^suites done") bench=$(line "^global_copies rc=")
fail=0
[ -n "$hist" ] && [ -n "$red" ] && [ -n "$done" ] && [ -n "$bench" ] || { echo "FAIL: a step is missing from the summary"; fail=1; }
[ "$fail" = 0 ] && { [ "$hist" -lt "$done" ] && [ "$red" -lt "$done" ] && [ "$done" -lt "$bench" ] ||
  { echo "FAIL: a suite ended after 'suites done' or the benchmark"; fail=1; }; }
[ "$rc" != 0 ] && grep -q "a step FAILED" "$summary" || { echo "FAIL: a failing suite did not fail the run (rc=$rc)"; fail=1; }
[ "$fail" = 0 ] || { cat "$summary"; exit 1; }
echo "every suite waited for before the benchmarks; a failing suite fails the run"
