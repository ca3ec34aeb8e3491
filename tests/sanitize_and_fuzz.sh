#!/usr/bin/env bash
# CI's checks beyond the README's test command (.ci/run runs this after it):
#   1. one clang build with AddressSanitizer + UndefinedBehaviorSanitizer and libFuzzer's coverage instrumentation
#      (AUTOTUNE_FUZZ=ON implies AUTOTUNE_SANITIZE=ON) into $SANITIZE_BUILD_DIR (default build-sanitize);
#   2. the CPU test suites under the sanitizers, except the nvrtc* suites (they NVRTC-compile kernel variants:
#      minutes of work that exercise NVRTC, not our code paths, already run by the plain build),
#      install_consumer and portable_consumer (second builds of the package), linkage (it checks binaries this
#      build does not make) and report_chromium (Chromium, not our code);
#   3. each fuzz target of tests/fuzz for $FUZZ_SECONDS (default 60) from its seed corpus (a copy: the committed
#      corpus is never changed), $JOBS targets at a time, plus a replay of the corpus (CTest label "fuzz").
# Any sanitizer report, test failure or fuzz crash fails the script. A crash input is kept in
# $SANITIZE_BUILD_DIR/fuzz-artifacts/<target>/ (CI artifacts); add it to tests/fuzz/corpus/<target>/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${SANITIZE_BUILD_DIR:-build-sanitize}"
seconds="${FUZZ_SECONDS:-60}"
jobs="${JOBS:-$(nproc)}"

packages=(clang libclang-rt-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "sanitize_and_fuzz: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"

t0=$(date +%s)
# -O1 -gline-tables-only: the cheapest build whose sanitizer reports still name file:line, and fast enough to run
# (the suites' own code at -O0: tests/CMakeLists.txt, autotune_test_optimization).
# No CUB (nvcc) or examples: they add build time and nothing the sanitizers can look into.
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_CXX_COMPILER=clang++ -DAUTOTUNE_FUZZ=ON -DAUTOTUNE_WITH_CUB=OFF -DAUTOTUNE_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build_dir" -j "$jobs" --target autotune_tests autotune_cli cache_writer cache_mutation_audit fuzz_import \
  fuzz_problem_key fuzz_cli
t1=$(date +%s)
echo "sanitize_and_fuzz: sanitized build: $((t1 - t0)) s"

# detect_leaks=0: the CUDA runtime and NVRTC keep allocations for the life of the process by design.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" -L 'cpu|fuzz' \
  -E '^cpu\.(nvrtc.*|install_consumer|portable_consumer|linkage|report_chromium)$'
t2=$(date +%s)
echo "sanitize_and_fuzz: CPU suites and corpus replay under ASan+UBSan: $((t2 - t1)) s"

# The targets run side by side, as many at a time as there are cores ($jobs), so that each still has a core of its
# own for its $seconds: the fuzzing done per target is that of a run one after another, in less time.
fuzz() {  # target: fuzzes it from a copy of its corpus; its report goes to $build_dir/fuzz-<target>.log
  local target="$1" work="$build_dir/fuzz-work/$1" artifacts="$build_dir/fuzz-artifacts/$1" extra=()
  rm -rf "$work" && mkdir -p "$work" "$artifacts"
  cp tests/fuzz/corpus/"$target"/* "$work"/
  [ -f tests/fuzz/"$target".options ] && read -r -a extra <tests/fuzz/"$target".options
  echo "sanitize_and_fuzz: fuzzing $target for $seconds s ${extra[*]+${extra[*]}}"
  "$build_dir/bin/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" ${extra[@]+"${extra[@]}"} "$work" 2>"$build_dir/fuzz-$target.log"
}
status=0
targets=(import problem_key cli)
declare -A pid_of
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz "$target" &
  pid_of[$target]=$!
done
for target in "${targets[@]}"; do
  if ! wait "${pid_of[$target]}"; then
    echo "sanitize_and_fuzz: fuzz_$target FAILED; reproducer(s): $(ls "$build_dir/fuzz-artifacts/$target")"
    tail -n 60 "$build_dir/fuzz-$target.log"
    status=1
  fi
  echo "sanitize_and_fuzz: fuzz_$target:"
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)' "$build_dir/fuzz-$target.log" || true
done
t3=$(date +%s)
echo "sanitize_and_fuzz: fuzzing: $((t3 - t2)) s; total $((t3 - t0)) s"
exit $status
