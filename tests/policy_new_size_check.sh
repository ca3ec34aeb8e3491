#!/usr/bin/env bash
# bench/policy_new_size.sh, before a device call spends a minute on it. In a copy of the repository's policies, with an
# H100's tuned cache (the cubin-free copy of 2026-12-06h) and a stand-in tuner: every shape of the histogram policy is
# tuned at the new size on its four distributions and the reduction shapes on uniform samples; the entries are added
# beside the H200's with the configuration the stand-in's log made fastest, measured on the stand-in's GPU; the policy
# folders before and after are kept; the real lookup (bench/policy_changed.py) finds held-out problems the entries move,
# and each of them is timed with the new policy against the old one (shape_bench --compare-policy). Bad N, no GPU and a
# cache without that GPU's devices row are refused, and the policies are left as they were. Stand-ins (no GPU):
# nvidia-smi prints an H100's name; `autotune tune` prints a tuning log of two configurations per problem (the
# configuration of the shape's entry of the smallest n >= 16K at 0.001 ms, its largest n's at 0.002 ms) and runs the
# real binary otherwise; shape_bench lists eleven held-out problems (--list) and records its arguments and
# AUTOTUNE_POLICY_DIR otherwise. Then a run of per-distribution entries (PER_DIST, SHAPES, HIST_DISTS) where the
# stand-in's narrow samples favour the shape's other configuration.
#
#   tests/policy_new_size_check.sh REPO BIN_DIR     BIN_DIR: the build's bin/ (autotune)
set -uo pipefail
repo=$(cd "${1:?REPO}" && pwd)
real=$(cd "${2:?BIN_DIR}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -p "$tmp/bin" "$tmp/smi" "$tmp/repo"
cp -r "$repo/bench" "$repo/scripts" "$repo/kernel_templates" "$tmp/repo/"
python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
  "$repo/bench/results/2026-12-06h-data/h100-tuned-slim-1dd52cb.db.xz" "$tmp/tuned.db" || exit 1
# The stand-in tuner's log: the problem's key from its flags, then the shape's 16K and 1M entries' configurations.
cat > "$tmp/fixture.py" <<'EOF'
def fixture(doc, shape):
    """The stand-in tuner's two configurations of a shape: its entry of the smallest n >= 16K, its largest n's."""
    es = sorted((int(e["problem"].split("/n=")[1].split("/")[0]), e["config"]) for e in doc["entries"]
                if e["problem"].split("/n=")[0] == shape)
    return next((c for n, c in es if n >= 16384), es[-1][1]), es[-1][1]
EOF
cat > "$tmp/fake_tune.py" <<'EOF'
import json, os, sys
sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0])
from fixture import fixture
a = sys.argv[1:]
opt = {a[i]: a[i + 1] for i in range(len(a) - 1) if a[i].startswith("--")}
fam = opt["--kernel"]
if fam == "histogram":
    shape = f"histogram/{opt['--type']}/bins={opt['--bins']}/range=[{opt['--lower']},{opt['--upper']})"
else:
    shape = f"reduce/{opt['--op']}/{opt['--type']}/acc={opt['--acc']}"
doc = json.load(open(f"kernel_templates/{fam}/policy.json"))
fast, slow = fixture(doc, shape)
key = f"{shape}/n={opt['--n']}/dist={opt['--dist']}"
print(f"== {key} (GPU 0)")
times = [0.001, 0.002]
if os.environ.get("FAKE_NARROW_SWAP") and opt["--dist"] == "narrow":  # narrow samples' winner: the other one
    times.reverse()
for i, (c, ms) in enumerate(zip([fast, slow], times)):
    if c and (i == 0 or c != fast):
        print(f"[  {i + 1}/2] {c} ok     {ms:.4f} ms      1.0 GB/s")
EOF
cat > "$tmp/bin/autotune" <<SH
#!/usr/bin/env bash
if [ "\$1" = tune ]; then echo "tune \$*" >> "$tmp/tunes"; exec python3 "$tmp/fake_tune.py" "\$@"; fi
exec "$real/autotune" "\$@"
SH
# The held-out problems the stand-in shape_bench lists (--list): rows of seed 20261206 around 256K and two far ones.
cat > "$tmp/held-out.txt" <<'EOF'
histogram/u16/bins=991/range=[7095,53132)/n=110000/dist=narrow
histogram/i16/bins=5225/range=[-32768,32768)/n=170000/dist=narrow
histogram/f32/bins=446/range=[-4,4)/n=425000/dist=uniform
histogram/f32/bins=818/range=[0,0.75)/n=286000/dist=runs
histogram/u8/bins=25/range=[0,256)/n=399000/dist=narrow
histogram/u32/bins=159/range=[83,613)/n=170000/dist=runs
histogram/u8/bins=186/range=[2,254)/n=22126000/dist=runs
reduce/sum/i16/acc=i64/n=125000/dist=uniform
reduce/min/i32/acc=i32/n=552000/dist=uniform
reduce/max/i8/acc=i8/n=123000/dist=uniform
reduce/min/f64/acc=f64/n=23149000/dist=uniform
EOF
cat > "$tmp/bin/shape_bench" <<SH
#!/usr/bin/env bash
for a in "\$@"; do [ "\$a" = --list ] && exec cat "$tmp/held-out.txt"; done
echo "policy=\${AUTOTUNE_POLICY_DIR:-} \$*" >> "$tmp/shape_bench.args"
while [ \$# -gt 0 ]; do [ "\$1" = --markdown ] && echo "| table |" > "\$2"; shift; done
SH
printf '#!/bin/sh\necho "NVIDIA H100 80GB HBM3"\n' > "$tmp/smi/nvidia-smi"
chmod +x "$tmp/bin/"* "$tmp/smi/nvidia-smi"
cd "$tmp/repo" || exit 1
sums() { sha256sum kernel_templates/*/policy.json; }
before=$(sums)

# Refused, and nothing written: a size that is not a number, no GPU, a cache without the GPU's devices row.
PATH="$tmp/smi:$PATH" bash bench/policy_new_size.sh "$tmp/bin" "$tmp/o1" 256K "$tmp/tuned.db" > "$tmp/r1" 2>&1
[ $? = 2 ] && grep -q "N is a number" "$tmp/r1" || { echo "FAIL: N=256K not refused: $(cat "$tmp/r1")"; fail=1; }
PATH="$tmp/bin:/usr/bin:/bin" bash bench/policy_new_size.sh "$tmp/bin" "$tmp/o2" 524288 "$tmp/tuned.db" > "$tmp/r2" 2>&1
[ $? = 2 ] && grep -q "names no GPU" "$tmp/r2" || { echo "FAIL: no GPU not refused: $(cat "$tmp/r2")"; fail=1; }
"$real/autotune" gc --cache "$tmp/empty.db" > /dev/null 2>&1
PATH="$tmp/smi:$PATH" bash bench/policy_new_size.sh "$tmp/bin" "$tmp/o3" 524288 "$tmp/empty.db" > "$tmp/r3" 2>&1
[ $? = 2 ] && grep -q "no single devices row" "$tmp/r3" || { echo "FAIL: a cache of no devices not refused: $(cat "$tmp/r3")"; fail=1; }
[ "$(sums)" = "$before" ] || { echo "FAIL: a refused run changed a policy"; fail=1; }
[ ! -f "$tmp/tunes" ] || { echo "FAIL: a refused run tuned"; fail=1; }

# The run.
PATH="$tmp/smi:$PATH" SEEDS=20261206 COMMIT=abc1234 bash bench/policy_new_size.sh "$tmp/bin" "$tmp/out" 524288 \
  "$tmp/tuned.db" > "$tmp/run.log" 2>&1
rc=$?
[ $rc = 0 ] || { echo "FAIL: exit $rc: $(tail -5 "$tmp/run.log")"; fail=1; }
python3 - "$tmp/out" "$tmp/tunes" "$tmp" <<'EOF' || fail=1
import json, sys
out, tunes = sys.argv[1:3]
sys.path.insert(0, sys.argv[3])
from fixture import fixture
bad = []
lines = open(tunes).read().splitlines()
for fam, dists in (("histogram", {"uniform", "narrow", "runs", "image"}), ("reduce", {"uniform"})):
    old = json.load(open(f"{out}/pol-old/{fam}.json"))
    new = json.load(open(f"{out}/pol-new/{fam}.json"))
    here = json.load(open(f"kernel_templates/{fam}/policy.json"))
    if here != new:
        bad.append(f"{fam}: the tree's policy is not pol-new")
    shapes = {e["problem"].split("/n=")[0] for e in old["entries"]}
    tuned = [l for l in lines if f"--kernel {fam} " in l]
    if not all("--n 524288" in l for l in tuned) or len(tuned) != len(shapes) * len(dists):
        bad.append(f"{fam}: {len(tuned)} tunings, {len(shapes)} shapes x {len(dists)} distributions expected")
    if {l.split("--dist ")[1].split()[0] for l in tuned} != dists:
        bad.append(f"{fam}: tuned on the wrong distributions")
    added = [e for e in new["entries"] if "/n=524288/" in e["problem"]]
    if {e["problem"].split("/n=")[0] for e in added} != shapes or len(added) != len(shapes):
        bad.append(f"{fam}: {len(added)} entries at 524288 for {len(shapes)} shapes")
    for e in added:
        shape = e["problem"].split("/n=")[0]
        want = fixture(old, shape)[0]
        if e.get("gpu") != "NVIDIA H100 80GB HBM3" or e["config"] != want:
            bad.append(f"{e['problem']}: {e.get('gpu')} {e['config']}, want the H100's {want}")
    if [e for e in new["entries"] if "/n=524288/" not in e["problem"]] != old["entries"]:
        bad.append(f"{fam}: the other entries changed")
    if new["provenance"]["updates"][-1].get("beside") is not True or \
            "policy-" + fam + "-524288-abc1234.log.gz" not in new["provenance"]["updates"][-1]["data"]:
        bad.append(f"{fam}: the update record: {new['provenance']['updates'][-1]}")
print("\n".join("FAIL: " + b for b in bad))
sys.exit(1 if bad else 0)
EOF
moved=$(grep -c . "$tmp/out/moved.txt" 2>/dev/null || echo 0)
[ "$moved" -gt 0 ] || { echo "FAIL: the new entries move no held-out lookup: $(tail -2 "$tmp/out/moved.md")"; fail=1; }
asked=$(grep -o -- "--problem " "$tmp/shape_bench.args" 2>/dev/null | wc -l)
[ "$asked" = "$moved" ] || { echo "FAIL: $asked problems timed, $moved moved"; fail=1; }
grep -v -- "^policy=$tmp/out/pol-new .*--compare-policy $tmp/out/pol-old " "$tmp/shape_bench.args" | grep -q . &&
  { echo "FAIL: a process not timed with the new policy against the old: $(head -1 "$tmp/shape_bench.args")"; fail=1; }
while read -r key; do
  grep -qF -- "--problem $key " "$tmp/shape_bench.args" || { echo "FAIL: $key not timed"; fail=1; }
done < "$tmp/out/moved.txt"
# Entries of one distribution only (PER_DIST), of the shapes SHAPES names, tuned on HIST_DISTS: the stand-in's narrow
# samples run the shape's other configuration faster (FAKE_NARROW_SWAP), so each shape gets a narrow entry with it and
# no robust entry at the size.
for f in histogram reduce; do cp "$tmp/out/pol-old/$f.json" "kernel_templates/$f/policy.json"; done
rm -f "$tmp/tunes"
PATH="$tmp/smi:$PATH" SEEDS=20261206 COMMIT=abc1234 FAMILIES=histogram SHAPES='(bf16|f16)/bins=2048' \
  HIST_DISTS="uniform narrow" PER_DIST=1.1 FAKE_NARROW_SWAP=1 bash bench/policy_new_size.sh "$tmp/bin" "$tmp/pd" \
  524288 "$tmp/tuned.db" > "$tmp/pd.log" 2>&1 || { echo "FAIL: the PER_DIST run exited $?: $(tail -5 "$tmp/pd.log")"; fail=1; }
python3 - "$tmp/pd" "$tmp/tunes" "$tmp" <<'EOF' || fail=1
import json, sys
out, tunes = sys.argv[1:3]
sys.path.insert(0, sys.argv[3])
from fixture import fixture
bad = []
lines = open(tunes).read().splitlines()
got = sorted((l.split("--type ")[1].split()[0], l.split("--bins ")[1].split()[0], l.split("--dist ")[1].split()[0])
             for l in lines)
if got != sorted((t, "2048", d) for t in ("bf16", "f16") for d in ("uniform", "narrow")) or \
        not all("--n 524288" in l for l in lines):
    bad.append(f"PER_DIST: tuned {got}")
old = json.load(open(f"{out}/pol-old/histogram.json"))
new = json.load(open(f"{out}/pol-new/histogram.json"))
added = [e for e in new["entries"] if e not in old["entries"]]
shape = "histogram/{}/bins=2048/range=[0,1)"
want = {shape.format(t) + "/n=524288/dist=narrow": fixture(old, shape.format(t))[1] for t in ("bf16", "f16")}
if {e["problem"]: e["config"] for e in added} != want or any(e.get("gpu") != "NVIDIA H100 80GB HBM3" for e in added):
    bad.append(f"PER_DIST: added {[(e['problem'], e['config'], e.get('gpu')) for e in added]}, want {want}")
if [e for e in new["entries"] if e not in added] != old["entries"]:
    bad.append("PER_DIST: the other entries changed")
command = new["provenance"]["updates"][-1]["command"]
if "--per-dist 1.1" not in command or "SHAPES='(bf16|f16)/bins=2048'" not in command:
    bad.append(f"PER_DIST: the update record's command: {command}")
print("\n".join("FAIL: " + b for b in bad))
sys.exit(1 if bad else 0)
EOF
[ $fail = 0 ] && echo "policy_new_size_check: OK ($moved moved problems timed; PER_DIST wrote narrow entries only)"
exit $fail
