#!/usr/bin/env bash
# The house's rules (README "Layout"), checked on the source tree. Argument: the source directory.
#  1. Layers include only the layers below them: core/ <- cache/ <- runtime/ <- tuner/ <- cli/; no generic layer
#     includes a family's folder (kernel_templates/NAME/) or bench/ (cli/bench.cpp takes CUB's calls from
#     bench/baselines.hpp, which looks them up by problem).
#  2. No code outside a family's folder and the registry names a family: no family type, and no family name as a
#     string, in core/, cache/, runtime/, tuner/, cli/ or the family-independent public headers.
set -uo pipefail
src="$1"
cd "$src" || exit 2
fail=0

forbid_includes() {
  local dir="$1"; shift
  local pattern
  pattern=$(printf '|%s/' "$@")
  pattern="#include \"(${pattern:1})"
  if grep -rnE "$pattern" "$dir" --include='*.cpp' --include='*.hpp'; then
    echo "layout: $dir/ includes a layer above it or a family (see above)" >&2
    fail=1
  fi
}
forbid_includes core cache runtime tuner cli kernel_templates bench
forbid_includes cache runtime tuner cli kernel_templates bench
forbid_includes runtime tuner cli kernel_templates bench
forbid_includes tuner cli kernel_templates bench
if grep -rnE '#include "(kernel_templates/|bench/)' cli --include='*.cpp' --include='*.hpp' | grep -v 'bench/baselines.hpp'; then
  echo "layout: cli/ includes a family or a benchmark (see above)" >&2
  fail=1
fi

generic=(core cache runtime tuner cli include/autotune/problem.hpp include/autotune/cache.hpp
         include/autotune/tuner.hpp include/autotune/resolution.hpp include/autotune/device.hpp
         include/autotune/error.hpp include/autotune/identity.hpp)
names='HistogramProblem|HistogramConfig|ReduceProblem|ReduceConfig|SampleType|ValueType|ReduceOp|"histogram"|"reduce"|histogram_|reduce_[a-z]'
# Code only: a line whose text before any // comment names a family.
if grep -rnE "$names" "${generic[@]}" --include='*.cpp' --include='*.hpp' | grep -vE '^[^:]+:[0-9]+:\s*//' |
   awk -F: '{ line = $0; sub(/^[^:]+:[0-9]+:/, "", line); code = line; sub(/\/\/.*/, "", code);
              if (code ~ /HistogramProblem|HistogramConfig|ReduceProblem|ReduceConfig|SampleType|ValueType|ReduceOp|"histogram"|"reduce"|histogram_|reduce_[a-z]/) print }' | grep .; then
  echo "layout: family-independent code names a family (see above)" >&2
  fail=1
fi
exit $fail
