#!/usr/bin/env bash
# Tunes again the entries of a family's measured policy (kernel_templates/FAMILY/policy.json) at one size, after the
# variant space changed there (e.g. a new configuration field), or tunes every shape of the policy at a size it has no
# entry at (a new size: the entries are added), and prints the refit: run on the GPU machine from the
# repository root with binaries unpacked from scripts/pack_for_device.sh. Histogram shapes are tuned on uniform and
# narrow samples (the policy's robust fit needs both), reductions on uniform ones. Then, on any machine:
#   scripts/fit_policy.py OUT/policy-FAMILY-N.log --update --date D --commit C --source LOG --command "..." --write
#
#   bench/policy_retune.sh BIN OUT FAMILY N       FAMILY: histogram, reduce or argreduce; N: the entries' n, e.g.
#                                                 16777216
#   bench/policy_retune.sh --dry-run FAMILY N     print the commands only (check them on a machine without a GPU)
#   SHAPES=REGEX bench/policy_retune.sh ...       only the shapes (keys without n=) that REGEX matches
#   HIST_DISTS="uniform narrow runs" bench/policy_retune.sh ...   histogram shapes on these distributions (default
#                                                 "uniform narrow"; uniform first: fit_policy.py makes each entry
#                                                 robust over every distribution the log holds for it)
#   ADD_SHAPES="KEY ..." bench/policy_retune.sh ... also shapes the policy has no entry of (keys without n=, e.g.
#                                                 reduce/sum/bf16/acc=f32); fit_policy.py --update --add-shapes
#                                                 then adds their entries
#
# 2026-12-04: the reduction entries at 16M were tuned so (bench/results/2026-12-04a-h200-policy-tune-82a2316.log.gz:
# 18 problems and the 1M ones of the 8-byte types, 58 s on an H200); the histogram's 16M entries (11 shapes, 22
# runs) were not: about 400 s of device time, most of it compiling.
set -uo pipefail
dry=0
if [ "${1:-}" = "--dry-run" ]; then dry=1; shift; bin=/tmp/bin; out=/tmp; else
  bin=${1:?BIN}; out=${2:?OUT}; shift 2; fi
family=${1:?FAMILY (histogram, reduce or argreduce)}
n=${2:?N (the entries\' size)}
[ -f "kernel_templates/$family/policy.json" ] || { echo "policy_retune: no kernel_templates/$family/policy.json" >&2; exit 2; }
commands=$(python3 - "$family" "$n" "$bin" "$out" "${SHAPES:-}" "${ADD_SHAPES:-}" "${HIST_DISTS:-uniform narrow}" <<'EOF'
import json, re, sys
family, n, bin_, out, pattern, added, hist_dists = sys.argv[1:]
hist_dists = hist_dists.split()
if not hist_dists or hist_dists[0] != "uniform" or not set(hist_dists) <= {"uniform", "narrow", "runs", "image"}:
    sys.exit(f"policy_retune: HIST_DISTS: uniform first, then any of narrow, runs, image; not '{' '.join(hist_dists)}'")
doc = json.load(open(f"kernel_templates/{family}/policy.json"))
shape = lambda e: e["problem"].split("/n=")[0]  # the key before n= (dist= follows it)
# The shapes of the robust entries at n (dist=uniform: an entry of one distribution, scripts/fit_policy.py --per-dist,
# says nothing of a robust entry there, and the fit here writes robust ones), or (a size the policy has no robust entry
# at) every shape of the policy.
shapes = (sorted({shape(e) for e in doc["entries"] if f"/n={n}/dist=uniform" in e["problem"]})
          or sorted(set(map(shape, doc["entries"]))))
shapes = [s for s in shapes + [a for a in added.split() if a not in shapes] if re.search(pattern, s)]
if not shapes:
    sys.exit(f"policy_retune: no {family} shape matches '{pattern}'")
for s in shapes:
    parts = s.split("/")
    if family == "histogram":
        f = dict(p.split("=", 1) for p in parts[2:])
        lo, hi = re.fullmatch(r"\[([^,]+),([^)]+)\)", f.pop("range")).groups()
        flags = f"--type {parts[1]} --bins {f.pop('bins')} --lower {lo} --upper {hi}"
        if "cbits" in f: flags += f" --counters {f.pop('cbits')}"
        if f: sys.exit(f"policy_retune: {s}: fields {sorted(f)} are not handled")
        dists = hist_dists
    elif family == "reduce":
        f = dict(p.split("=", 1) for p in parts[3:])
        flags = f"--op {parts[1]} --type {parts[2]} --acc {f.pop('acc')}"
        if f: sys.exit(f"policy_retune: {s}: fields {sorted(f)} are not handled")
        dists = ["uniform"]
    elif family == "argreduce":
        if len(parts) != 3:
            sys.exit(f"policy_retune: {s}: fields {parts[3:]} are not handled")
        flags = f"--op {parts[1]} --type {parts[2]}"
        dists = ["uniform"]
    else:
        sys.exit(f"policy_retune: FAMILY is histogram, reduce or argreduce, not {family}")
    for d in dists:
        print(f"{bin_}/autotune tune --cache {out}/policy.db --kernel {family} {flags} --n {n} --dist {d}")
EOF
) || exit 2
if [ $dry = 1 ]; then echo "$commands"; exit 0; fi
mkdir -p "$out"
log="$out/policy-$family-$n.log"
t0=$SECONDS rc=0
while read -r c; do $c >> "$log" 2>&1 || rc=1; done <<< "$commands"
echo "policy_retune: $(wc -l <<< "$commands") runs, rc=$rc in $((SECONDS - t0)) s; log $log"
python3 scripts/fit_policy.py "$log" --update ${ADD_SHAPES:+--add-shapes} || rc=1
exit $rc
