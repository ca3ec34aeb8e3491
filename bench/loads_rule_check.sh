#!/usr/bin/env bash
# The evict-first size rule's A/B on the GPU (runtime/streaming.hpp): for each held-out problem whose lookup the rule
# changes (shape_bench --held-out rows of SEEDS, default "20261204 777", found with `autotune best --device 0` with
# and without AUTOTUNE_LOADS_AS_MEASURED=1), the handle from an empty cache (the policy, as an application without a
# tuning gets it) against the same handle made with the rule off, and CUB, in the same rounds
# (shape_bench --compare-measured-loads). Run on the GPU machine from the repository root with binaries unpacked from
# scripts/pack_for_device.sh; about 10 s a problem.
#
#   bench/loads_rule_check.sh BIN OUT        LIMIT=K measures the first K changed problems (default 24)
#   bench/loads_rule_check.sh --dry-run BIN  lists the changed problems only (on any machine with a cache holding the
#                                            device: uses --device-model MODEL and CACHE=FILE instead of the GPU)
#
# OUT/loads-rule.md: shape_bench's tables ("compared (us)": the handle with loads as measured; "vs tuned": how much
# slower it ran than the handle with the rule); OUT/loads-rule.log: its per-problem lines, which
# `bench/held_out_table.py OUT/loads-rule.log` summarizes (the rule's geometric mean gain per family).
set -uo pipefail
dry=0
if [ "${1:-}" = "--dry-run" ]; then dry=1; shift; fi
bin=${1:?BIN (the unpacked binaries)}
out=${2:-/tmp}
seeds=${SEEDS:-20261204 777}
if [ $dry = 1 ]; then
  where=(--cache "${CACHE:?CACHE: a cache file holding the device row of MODEL}" --device-model "${MODEL:?MODEL}")
else
  mkdir -p "$out"
  empty="$out/loads-rule-empty.db"
  rm -f "$empty"
  "$bin/autotune" gc --cache "$empty" > /dev/null || exit 2  # an empty cache file: the policy's handles
  where=(--cache "$empty" --device 0)
fi
# The held-out problems whose lookup the rule changes: one `autotune best` with it and one without, each.
list=$(mktemp)
trap 'rm -f "$list"' EXIT
python3 - "$bin" "$seeds" "${where[@]}" > "$list" <<'EOF'
import json, os, subprocess, sys
sys.path.insert(0, "bench")
from replay_grid import flags_of
bin_, seeds, where = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
def config(flags, env):
    out = subprocess.run([f"{bin_}/autotune", "best", *where, *flags, "--json"], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"loads_rule_check: autotune best {' '.join(flags)}: {out.stderr.strip()}")
    return json.loads(out.stdout)["config"]
off = dict(os.environ, AUTOTUNE_LOADS_AS_MEASURED="1")
for seed in seeds:
    keys = subprocess.run([f"{bin_}/shape_bench", "--held-out", "100", "--seed", seed, "--list"], capture_output=True,
                          text=True, check=True).stdout.split()
    for key in keys:
        flags = flags_of(key) + (["--dist", key.split("dist=")[1]] if key.startswith("reduce/") else [])
        if config(flags, os.environ) != config(flags, off):
            print(key)
EOF
[ $? -eq 0 ] || exit 2
mapfile -t changed < "$list"
echo "loads_rule_check: ${#changed[@]} held-out problems of seeds $seeds change with the rule"
if [ $dry = 1 ]; then printf '%s\n' "${changed[@]}"; exit 0; fi
[ ${#changed[@]} -gt 0 ] || exit 0
args=()
for key in "${changed[@]:0:${LIMIT:-24}}"; do args+=(--problem "$key"); done
"$bin/shape_bench" "${args[@]}" --tuned-cache "$empty" --compare-measured-loads --no-exact \
  --markdown "$out/loads-rule.md" > "$out/loads-rule.out" 2> "$out/loads-rule.log"
rc=$?
echo "loads_rule_check: shape_bench rc=$rc; tables in $out/loads-rule.md"
python3 bench/held_out_table.py "$out/loads-rule.log" --title "The evict-first size rule, A/B (held-out problems it changes)" \
  > "$out/loads-rule-summary.md" && head -12 "$out/loads-rule-summary.md"
exit $rc
