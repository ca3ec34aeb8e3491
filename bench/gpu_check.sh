#!/usr/bin/env bash
# The GPU check of a build, in one call of the device: the GPU suites of a tier, then the benchmarks that hold the
# open performance targets, then a table of those targets (PASS / MISS with the measured values,
# bench/gpu_targets.py). Each step runs under its own time limit so that one hang cannot eat the rest; logs go to
# OUT_DIR as they are written, so a cut-off run still shows what ran.
#
#   bench/gpu_check.sh quick|full BIN_DIR OUT_DIR [COMMIT] [BUDGET_SECONDS]
#
#   quick  the quick tier (one pairwise covering of the joint space of each case's problems, tests/gpu/tier.hpp),
#          then the benchmarks' quick forms (the rows bench/gpu_targets.py reads). Measured on an H200
#          (bench/results/2026-12-02f-h200-gpu-check-quick-final.log, 4ab538b): the suites and the signed-cache check
#          133 s (2,177 variants compiled and run), the benchmarks 196 s, 329 s in all: one 10-minute job with time
#          to spare (global_copies, added since, took 40 s: the whole quick check of 11b4216 ran in 372 s,
#          bench/results/2026-12-05b-h200-gpu-check-quick-11b4216.log).
#   full   the full tier (every variant of every space a case checks; each case compiles the entry points it runs),
#          alone: the benchmarks are the quick mode's (GPU_CHECK_BENCHES names some to run them here too). Measured on
#          an H200 (bench/results/2026-12-02f-h200-gpu-full-tier-2eb62bd.log): 20,811 variants compiled and
#          verified, the suites and the signed-cache check 438 s (476 s on 9e8a3f9), compile-bound (NVRTC on the
#          16 cores). No longer one 10-minute job: on 3c89dc6 the spaces had grown, and in 571 s four suites were
#          cut by the time limit (bench/results/2026-12-04g-summary.md). Split it over calls with GPU_CHECK_SUITES,
#          or run it on a machine of more cores and GPUs.
#
# While the suites run, the benchmarks' variants are compiled ahead into the compile cache at the lowest priority
# (their --compile-only; GPU_CHECK_AHEAD=0 turns it off); it is stopped before the first benchmark. GPU_CHECK_SUITES=0
# runs the benchmarks alone, a list of suites runs those alone; GPU_CHECK_BENCHES names the benchmarks to run (default: all seven in quick mode, none in
# full mode). Each log line starts
# with the seconds since its step began.
#
# BIN_DIR holds autotune_gpu_tests, autotune and the bench programs of a -DAUTOTUNE_BUILD_BENCH=ON build (a portable
# one, -DAUTOTUNE_PORTABLE=ON, to run on another machine). BUDGET_SECONDS (default 570: one 10-minute job with time to
# spare) bounds the whole run: a step gets what is left when its own limit is more, and a step with less than 20 s left
# is not run (said in the summary). GPU_CHECK_JOBS (default 4 per GPU) suites run at once, gpu_tuner alone after them
# (its cases compare timings); GPU_CHECK_JOBS=1 gives each suite's compile/run split without the others' load. On a
# machine of several GPUs the suites are dealt out over them (CUDA_VISIBLE_DEVICES, one GPU per suite, in turn): the
# full tier is compile-bound (NVRTC on every core), so a machine of more GPUs and cores runs it in less time.
# AUTOTUNE_REQUIRE_GPU=1 is set: a suite that finds no GPU, or skips a case, fails.
#
# OUT_DIR/summary.log: one line per step (exit code, seconds, doctest counts, the suite's
# "gpu-suite tier=... compile=...s run=...s" line), then the targets table. Exit 0 when every step passed.
set -u
mode=${1:?"usage: bench/gpu_check.sh quick|full BIN_DIR OUT_DIR [COMMIT] [BUDGET_SECONDS]"}
case "$mode" in quick|full) ;; *) echo "bench/gpu_check.sh: mode '$mode': expected quick or full" >&2; exit 2 ;; esac
bin=$(cd "${2:?BIN_DIR}" && pwd) || exit 2
out=${3:?OUT_DIR}
commit=${4:-unknown}
budget=${5:-570}
# The GPUs of the machine (nvidia-smi lists one "GPU i: ..." line each); one when it cannot tell.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "${gpus:-0}" -ge 1 ] 2>/dev/null || gpus=1
jobs=${GPU_CHECK_JOBS:-$((4 * gpus))}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/cache/test-cubins"
out=$(cd "$out" && pwd)
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
export XDG_CACHE_HOME="$out/cache" AUTOTUNE_CACHE="$out/cache/autotune.db" AUTOTUNE_REQUIRE_GPU=1 AUTOTUNE_GPU_TIER=$mode
# The suites' cubins, shared by every suite and case of this run (and a later run into the same OUT_DIR).
export AUTOTUNE_GPU_TEST_CUBINS="$out/cache/test-cubins"
summary="$out/summary.log"
failed=0
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "commit $commit, mode $mode";
  echo "$gpus GPU(s), $(nproc) cores, $jobs suites at a time"; } | tee "$summary"

step() {  # step NAME LIMIT COMMAND...: runs COMMAND under min(LIMIT, time left) with its log in OUT_DIR/NAME.log
  local name=$1 limit=$2; shift 2
  local l; l=$(left); [ "$l" -lt "$limit" ] && limit=$l
  if [ "$limit" -lt 20 ]; then echo "$name: not run, no time left" | tee -a "$summary"; return 1; fi
  local t0; t0=$(date +%s)
  # Each line of the log starts with the seconds since the step began: where a step's time goes.
  timeout "$limit" "$@" 2>&1 | python3 -u -c 'import sys, time
t0 = time.time()
for line in sys.stdin: sys.stdout.write("[%6.1fs] %s" % (time.time() - t0, line)); sys.stdout.flush()' > "$out/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "$name rc=$rc $(($(date +%s) - t0)) s $(grep -hoE '(test cases:|assertions:|] gpu-suite ).*' "$out/$name.log" | sed 's/^] //' |
    tr -s ' ' | tr '\n' ' ')" | tee -a "$summary"
  grep -h -B2 -A8 "ERROR\|FATAL\|FAILED" "$out/$name.log" | head -40
  return $rc
}
suite() { step "$1" "$2" "$bin/autotune_gpu_tests" --test-suite="$1" --no-intro=true; }

# The benchmarks of the open targets, the cheapest forms that measure them (bench/gpu_targets.py reads the tables).
# GPU_CHECK_BENCHES names the ones to run, e.g. "argreduce_bench reduce_bench" (default: all seven in quick mode; none
# in full mode, whose suites take most of a job; "none": no benchmark at all).
# global_copies is bench/global_copies_check.sh (plain and striped copies of a global histogram, tuned exactly; about
# 2 minutes), not a benchmark binary.
all_benches="histogram_bench histogram_range_bench histogram_image_bench argreduce_bench reduce_bench"
all_benches="$all_benches segreduce_bench global_copies"
if [ "$mode" = quick ]; then benches=${GPU_CHECK_BENCHES:-$all_benches}; else benches=${GPU_CHECK_BENCHES:-}; fi
[ "$benches" = none ] && benches=" "  # GPU_CHECK_BENCHES=none: the suites alone, in either mode
all_benches_note=$([ -n "${GPU_CHECK_BENCHES:-}" ] && echo "the benchmarks GPU_CHECK_BENCHES names" ||
  { [ "$mode" = quick ] && echo "all seven" || echo "none unless GPU_CHECK_BENCHES names them"; })
bench_args() {  # the arguments a benchmark runs with below (without --samples and --markdown)
  case $1 in
    histogram_bench|histogram_range_bench|histogram_image_bench|reduce_bench|segreduce_bench) echo --quick ;;
    argreduce_bench) echo --small ;;
  esac
}
# While the suites hold the GPU, the benchmarks' variants are compiled into the compile cache at the lowest CPU
# priority (--compile-only, bench/compile_space.hpp), so that the benchmarks then spend their time measuring. It is
# stopped before the first benchmark runs: nothing else runs while they time. argreduce_bench compiles little.
ahead_pid=
if [ "${GPU_CHECK_SUITES:-1}" != 0 ] && [ "${GPU_CHECK_AHEAD:-1}" != 0 ] && [ -n "${benches// /}" ]; then
  (
    for b in $benches; do
      [ "$b" = argreduce_bench ] || [ "$b" = global_copies ] && continue
      # shellcheck disable=SC2046
      nice -n 19 "$bin/$b" $(bench_args "$b") --compile-only >> "$out/compile_ahead.log" 2>&1 &
      echo $! > "$out/.ahead_child"
      wait $!
    done
  ) &
  ahead_pid=$!
fi
stop_ahead() {
  [ -n "$ahead_pid" ] || return 0
  kill "$ahead_pid" 2>/dev/null
  [ -f "$out/.ahead_child" ] && kill "$(cat "$out/.ahead_child")" 2>/dev/null
  wait "$ahead_pid" 2>/dev/null
  local said; said=$(tr '\n' ' ' < "$out/compile_ahead.log" 2>/dev/null)
  echo "compile ahead: ${said:-stopped before it finished a benchmark (the benchmark logs count their cache hits)}" |
    tee -a "$summary"
  ahead_pid=
}

# The suites, $jobs at a time (each compiles on every core: compiling and running overlap across suites), the
# slowest first, and among them the signed-cache check (bench/signed_cache_check.sh: a signed export served without
# NVRTC, an unsigned import never served as exact; it times nothing it checks); gpu_tuner alone at the end (its
# cases compare timings).
if [ "$mode" = quick ]; then limit=280; else limit=560; fi
job() {  # job NAME: a suite, or the signed-cache check
  if [ "$1" = signed_cache ]; then step signed_cache 120 bash "$here/signed_cache_check.sh" "$bin" "$out/signed"
  else suite "$1" "$limit"; fi
}
dealt=0
# GPU_CHECK_SUITES: 1 (default) every suite, 0 none, else the ones it names (signed_cache and gpu_tuner among them):
# a tier split over several device calls, e.g. the full tier, whose compiles no longer fit one 10-minute call of a
# 16-core machine (bench/results/2026-12-04g-summary.md).
all_suites="gpu_histogram gpu_histimage gpu_argreduce gpu_reduce gpu_histrange signed_cache gpu_api gpu_segreduce"
case "${GPU_CHECK_SUITES:-1}" in
  1) suites=$all_suites; tuner=1 ;;
  0) suites=""; tuner=0 ;;
  *) suites=""; tuner=0
     for s in $GPU_CHECK_SUITES; do
       case " $all_suites gpu_tuner " in *" $s "*) ;; *) echo "bench/gpu_check.sh: GPU_CHECK_SUITES: no suite '$s'" >&2; exit 2 ;; esac
       if [ "$s" = gpu_tuner ]; then tuner=1; else suites="$suites $s"; fi
     done ;;
esac
[ -z "$suites" ] && [ "$tuner" = 0 ] && echo "suites: not run (GPU_CHECK_SUITES=${GPU_CHECK_SUITES:-})" | tee -a "$summary"
[ -n "$suites" ] && [ "${GPU_CHECK_SUITES:-1}" != 1 ] && echo "suites: only$suites$([ "$tuner" = 1 ] && echo ' gpu_tuner')" | tee -a "$summary"
# Waits for one of the suites in `pids` to end (not for the compile-ahead job, which `wait -n` would also take: with
# nothing to compile ahead it ends at once, and the suites were then left running under the benchmarks).
pids=()
wait_suite() {
  while :; do
    for i in "${!pids[@]}"; do
      if ! kill -0 "${pids[$i]}" 2>/dev/null; then
        wait "${pids[$i]}" || failed=1
        unset "pids[$i]"
        return
      fi
    done
    sleep 1
  done
}
  for s in $suites; do
    if [ "${#pids[@]}" -ge "$jobs" ]; then wait_suite; fi
    if [ "$gpus" -gt 1 ]; then CUDA_VISIBLE_DEVICES=$((dealt % gpus)) job "$s" & else job "$s" & fi
    pids+=($!)
    dealt=$((dealt + 1))
  done
while [ "${#pids[@]}" -gt 0 ]; do wait_suite; done
[ "$tuner" = 0 ] || suite gpu_tuner "$limit" || failed=1
echo "suites done after $(($(date +%s) - start)) s" | tee -a "$summary"

stop_ahead
bench() {  # bench NAME LIMIT COMMAND...: step(), when GPU_CHECK_BENCHES names it
  case " $benches " in *" $1 "*) step "$@" ;; *) echo "$1: not run (not named: $mode mode runs ${all_benches_note})" | tee -a "$summary" ;; esac
}
bench histogram_bench 260 "$bin/histogram_bench" $(bench_args histogram_bench) --samples 20 --markdown "$out/histogram_bench.md" || failed=1
bench histogram_range_bench 100 "$bin/histogram_range_bench" $(bench_args histogram_range_bench) --samples 20 \
  --markdown "$out/histogram_range_bench.md" || failed=1
bench histogram_image_bench 180 "$bin/histogram_image_bench" $(bench_args histogram_image_bench) --samples 20 --markdown "$out/histogram_image_bench.md" ||
  failed=1
bench argreduce_bench 100 "$bin/argreduce_bench" $(bench_args argreduce_bench) --markdown "$out/argreduce_bench.md" || failed=1
bench reduce_bench 150 "$bin/reduce_bench" $(bench_args reduce_bench) --samples 20 --markdown "$out/reduce_bench.md" || failed=1
bench segreduce_bench 150 "$bin/segreduce_bench" $(bench_args segreduce_bench) --samples 20 \
  --markdown "$out/segreduce_bench.md" || failed=1
bench global_copies 200 bash "$here/global_copies_check.sh" "$bin" "$out/global_copies" || failed=1

echo "total $(($(date +%s) - start)) s, $([ $failed = 0 ] && echo 'every step passed' || echo 'a step FAILED')" |
  tee -a "$summary"
echo | tee -a "$summary"
mds=()
for f in histogram_bench histogram_range_bench histogram_image_bench argreduce_bench reduce_bench segreduce_bench; do
  [ -f "$out/$f.md" ] && mds+=("$out/$f.md")
done
if [ ${#mds[@]} -gt 0 ]; then python3 "$here/gpu_targets.py" "${mds[@]}" | tee -a "$summary"
else echo "targets: no benchmark table was written" | tee -a "$summary"; fi
exit $failed
