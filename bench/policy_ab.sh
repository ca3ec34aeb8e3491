#!/usr/bin/env bash
# A policy change's A/B on the GPU (runtime/policy.hpp, AUTOTUNE_POLICY_DIR): each problem's handle from an empty cache
# with the embedded policy (the build's) against the same handle made from the policy files in BEFORE_DIR
# (BEFORE_DIR/<family>.json, e.g. `git show REV:kernel_templates/histogram/policy.json > BEFORE_DIR/histogram.json`),
# and CUB, in the same rounds (shape_bench --compare-policy). Run on the GPU machine from the repository root with
# binaries unpacked from scripts/pack_for_device.sh; about 10 s a problem.
#
#   bench/policy_ab.sh BIN OUT BEFORE_DIR KEYS_FILE    KEYS_FILE: one histogram or reduce problem key a line
#
# OUT/policy-ab.md: shape_bench's tables ("compared (us)": the handle from BEFORE_DIR's policy; "vs tuned": how much
# slower it ran than the embedded policy's); OUT/policy-ab.log: its per-problem lines, summarized at the end by
# `bench/held_out_table.py OUT/policy-ab.log --compared policy` (the geometric mean per family).
set -uo pipefail
bin=${1:?BIN (the unpacked binaries)}
out=${2:?OUT}
before=${3:?BEFORE_DIR (the policy files before the change)}
keys=${4:?KEYS_FILE (the problems whose lookup the change moves)}
mkdir -p "$out"
empty="$out/policy-ab-empty.db"
rm -f "$empty"
"$bin/autotune" gc --cache "$empty" > /dev/null || exit 2  # an empty cache file: the policy's handles
args=()
while read -r key; do [ -n "$key" ] && args+=(--problem "$key"); done < "$keys"
[ ${#args[@]} -gt 0 ] || { echo "policy_ab: no problem in $keys" >&2; exit 2; }
"$bin/shape_bench" "${args[@]}" --tuned-cache "$empty" --compare-policy "$before" --no-exact \
  --markdown "$out/policy-ab.md" > "$out/policy-ab.out" 2> "$out/policy-ab.log"
rc=$?
echo "policy_ab: shape_bench rc=$rc on $((${#args[@]} / 2)) problems; tables in $out/policy-ab.md"
python3 bench/held_out_table.py "$out/policy-ab.log" --compared policy --title "A policy change, A/B" \
  > "$out/policy-ab-summary.md" && head -12 "$out/policy-ab-summary.md"
exit $rc
