#!/usr/bin/env bash
# Copies of a global histogram, plain, striped and interleaved in chunks (kernel_templates/histogram/README.md,
# "Copies of a global histogram"), measured where they were made for: histograms whose bins fit no 48 KiB of shared counters, on skewed
# (narrow: a hot band of 16 bins' worth) and uniform samples. Each shape is tuned exactly into a scratch cache (every
# variant of its space timed, group 13's plain, striped and chunked copies among them); the table then gives, per
# problem, the one-histogram best and the best plain, striped and chunked copies. Run on the GPU machine from the
# repository root with binaries unpacked from scripts/pack_for_device.sh; about 2 minutes on an H200. Then the
# handles of the skewed shapes against their exact winners (OUT/handles.md).
#
#   bench/global_copies_check.sh BIN OUT
set -uo pipefail
bin=${1:?BIN (the unpacked binaries)}
out=${2:?OUT (a folder for the results)}
mkdir -p "$out"
db="$out/global-copies.db"
rm -f "$db"
rc=0
while read -r type bins lower upper n; do
  for dist in narrow uniform; do
    "$bin/autotune" tune --cache "$db" --kernel histogram --type "$type" --bins "$bins" --lower "$lower" \
      --upper "$upper" --n "$n" --dist "$dist" >> "$out/global-copies.log" 2>&1 || rc=1
  done
done <<'SHAPES'
f32 792570 -4 296 185592000
i32 163973 879 247492 30169000
bf16 209217 0 1 23457000
f32 262144 0 1 16777216
u32 1048576 0 1048576 67108864
SHAPES
# The handles of the two skewed shapes (the policy's, from an empty cache) against their exact winners loaded as the
# tuner loads them and CUB, in the same rounds: on 7830c02 the f32 shape's handle ran 5.5 ms with a configuration
# the tuner had timed at 3.3 ms (bench/results/2026-12-04h-summary.md).
"$bin/shape_bench" --exact-from "$db" --problem "histogram/f32/bins=792570/range=[-4,296)/n=185592000/dist=narrow" \
  --problem "histogram/i32/bins=163973/range=[879,247492)/n=30169000/dist=narrow" --markdown "$out/handles.md" \
  > "$out/handles.log" 2>&1 || rc=1
grep "^shape_bench: histogram/" "$out/handles.log"
python3 - "$out/global-copies.log" <<'PY' | tee "$out/global-copies.md"
import re, sys
rows, problem = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"== (\S+)", line)
    if m:
        problem = m.group(1)
        rows[problem] = {}
        continue
    m = re.match(r"\[\s*\d+/\d+\] (\S+) ok\s+([\d.]+) ms", line)
    if m and problem:
        config, ms = m.group(1), float(m.group(2))
        copies = re.search(r"priv=global,R=(?!1,)", config)
        kind = ("striped" if "lay=striped" in config else "chunked" if ",chunk=" in config
                else "copies" if copies else "one")
        best = rows[problem].get(kind)
        if best is None or ms < best[0]:
            rows[problem][kind] = (ms, config)
print("| problem | one histogram (ms) | plain copies (ms) | striped copies (ms) | copies in chunks (ms) | striped vs plain "
      "| chunks vs plain | best in chunks |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for problem, r in rows.items():
    t = lambda k: f"{r[k][0]:.4f}" if k in r else "-"
    vs = lambda k: f"{r['copies'][0] / r[k][0]:.2f}x" if "copies" in r and k in r else "-"
    best = r["chunked"][1] if "chunked" in r else "-"
    print(f"| `{problem}` | {t('one')} | {t('copies')} | {t('striped')} | {t('chunked')} | {vs('striped')} "
          f"| {vs('chunked')} | `{best}` |")
PY
exit $rc
