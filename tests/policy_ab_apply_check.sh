#!/usr/bin/env bash
# CPU check of bench/policy_ab_apply.py (CTest cpu.policy_ab_apply): a refit policy with three changes and two A/B logs
# written here, each change's rows timed by hand:
#   - an added bf16/64-bin entry of the policy's GPU (at a size where the tree's policy holds only the H100's entry) whose
#     rows ran 8 % and 5 % slower than the old policy's handles: dropped (1.065x in geometric mean, no row over 10 %),
#     and the H100's entry of the same problem stays as it was (an entry is its problem and its GPU);
#   - a changed u8/32-bin entry whose rows ran 12 % slower and 8 % faster: put back as the tree has it (1.015x in
#     geometric mean, but one row over 10 %);
#   - a changed f32/2048-bin entry whose row ran 15 % slower in one log and 20 % faster in another (0.96x in geometric
#     mean over both): kept; with --replace-gain 0.05 (a changed entry must gain 5 %) put back;
#   - an entry re-measured with its configuration unchanged (another time_ms): back to the tree's measurement;
#   - a third log whose row the f32/2048-bin entry serves a configuration its handles did not run: that entry goes
#     back (with --untimed list: it stays, the row listed in untimed.txt);
#   - the entries named by a policy lookup's range text (one size, two or three sizes, adapted), none by another.
#   tests/policy_ab_apply_check.sh SOURCE_DIR BIN_DIR      (BIN_DIR holds `autotune`)
set -euo pipefail
src=$(realpath "${1:?SOURCE_DIR}")
bin=$(realpath "${2:?BIN_DIR}")
model="NVIDIA H200|sm_90|132SM|143155MiB"
device_only="$src/bench/results/2026-12-05c-data/h200-device-only.db"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/before" "$scratch/after"
for f in histogram reduce argreduce; do
  cp "$src/kernel_templates/$f/policy.json" "$scratch/before/$f.json"
  cp "$src/kernel_templates/$f/policy.json" "$scratch/after/$f.json"
done
added='histogram/bf16/bins=64/range=[0,1)/n=4194304/dist=uniform'
put_back='histogram/u8/bins=32/range=[0,256)/n=16777216/dist=uniform'
kept='histogram/f32/bins=2048/range=[0,1)/n=1048576/dist=uniform'
remeasured='histogram/u8/bins=32/range=[0,256)/n=4096/dist=uniform'
python3 - "$scratch/after/histogram.json" "$added" "$put_back" "$kept" "$remeasured" <<'EOF'
import json, sys
path, added, put_back, kept, remeasured = sys.argv[1:]
doc = json.load(open(path))
changed = 0
for e in doc["entries"]:
    if e["problem"] == put_back:
        e["config"] = e["config"].replace("loads=8", "loads=4"); changed += 1
    if e["problem"] == kept:
        e["config"] = e["config"].replace("loads=2", "loads=4"); changed += 1
    if e["problem"] == remeasured:
        e["time_ms"] = 1.5; changed += 1
assert changed == 3, "the tree's policy lacks an entry this check changes"
assert [e.get("gpu") for e in doc["entries"] if e["problem"] == added] == ["NVIDIA H100 80GB HBM3"], \
    "the tree's policy does not hold the H100's entry alone of " + added
doc["entries"].append({"problem": added, "time_ms": 0.01, "worst_slowdown": 1.0,
                       "config": "priv=shared,R=1,cbits=32,block=256,vec=16,loads=2,agg=none,part=interleaved,"
                                 "merge=atomic,grid=0"})
json.dump(doc, open(path, "w"), indent=1)
EOF
served() {  # DIR FLAGS...: the configuration DIR's policy serves (after: the A/B's "tuned" handle, before: "compared")
  local dir=$1; shift
  AUTOTUNE_POLICY_DIR="$scratch/$dir" "$bin/autotune" best --cache "$device_only" --device-model "$model" "$@" --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["config"])'
}
row() {  # KEY TUNED_US COMPARED_US FLAGS...: one line as shape_bench --compare-policy prints it
  local key=$1 tuned=$2 compared=$3; shift 3
  echo "shape_bench: $key policy 0 us, tuned $tuned us ($(served after "$@")), exact 0 us, CUB 9.0 us," \
    "compared $compared us ($(served before "$@"))"
}
f32=(--type f32 --bins 2048 --n 1048576)
f32_config=$(served after "${f32[@]}")
{
  row 'histogram/bf16/bins=60/range=[0,1)/n=4000000/dist=uniform' 10.8 10.0 --type bf16 --bins 60 --n 4000000
  row 'histogram/bf16/bins=50/range=[0,1)/n=4500000/dist=uniform' 10.5 10.0 --type bf16 --bins 50 --n 4500000
  row 'histogram/u8/bins=32/range=[0,256)/n=20000000/dist=uniform' 11.2 10.0 --type u8 --bins 32 --upper 256 --n 20000000
  row 'histogram/u8/bins=32/range=[0,256)/n=16777216/dist=uniform' 9.2 10.0 --type u8 --bins 32 --upper 256 --n 16777216
  row 'histogram/f32/bins=2048/range=[0,1)/n=1048576/dist=uniform' 11.5 10.0 "${f32[@]}"
} > "$scratch/ab.log"
row 'histogram/f32/bins=2048/range=[0,1)/n=1048576/dist=uniform' 8.0 10.0 "${f32[@]}" > "$scratch/ab-again.log"
python3 "$src/bench/policy_ab_apply.py" "$bin" "$scratch/before" "$scratch/after" "$scratch/out" "$scratch/ab.log" \
  "$scratch/ab-again.log"
python3 "$src/bench/policy_ab_apply.py" "$bin" "$scratch/before" "$scratch/after" "$scratch/out-gain" \
  "$scratch/ab.log" "$scratch/ab-again.log" --replace-gain 0.05
# A row the refit serves a configuration neither of its handles ran (an entry put back handed it over): with the
# default --untimed put-back the entry serving it goes back, with --untimed list it stays and the row is listed.
row 'histogram/f32/bins=2048/range=[0,1)/n=1000000/dist=uniform' 8.0 10.0 --type f32 --bins 2048 --n 1000000 |
  sed "s/tuned 8.0 us ([^)]*)/tuned 8.0 us (priv=global,R=1,cbits=32,block=512,vec=16,loads=1,agg=warp,part=interleaved,merge=atomic,grid=0,win=4096)/" \
  > "$scratch/ab-untimed.log"
[ "$(served after --type f32 --bins 2048 --n 1000000)" = "$f32_config" ] ||
  { echo "FAIL: f32/2048 at 1000000 is not served the $kept entry's configuration"; exit 1; }
python3 "$src/bench/policy_ab_apply.py" "$bin" "$scratch/before" "$scratch/after" "$scratch/out-untimed" \
  "$scratch/ab.log" "$scratch/ab-again.log" "$scratch/ab-untimed.log"
python3 "$src/bench/policy_ab_apply.py" "$bin" "$scratch/before" "$scratch/after" "$scratch/out-list" \
  "$scratch/ab.log" "$scratch/ab-again.log" "$scratch/ab-untimed.log" --untimed list
python3 - "$scratch" "$added" "$put_back" "$kept" "$remeasured" "$src/bench" <<'EOF'
import json, sys
scratch, added, put_back, kept, remeasured, bench = sys.argv[1:]
def entries(d):  # (problem, GPU) -> entry, "" for the policy's own GPU; the other keys: the policy GPU's entries
    doc = json.load(open(f"{scratch}/{d}/histogram.json"))
    by = {(e["problem"], e.get("gpu", "")): e for e in doc["entries"]}
    by.update({p: e for (p, g), e in by.items() if not g})
    return by
before, after, out, gain = entries("before"), entries("after"), entries("out"), entries("out-gain")
fail = []
if added in out: fail.append(f"{added} was kept; its rows ran 1.065x slower in geometric mean")
h100 = (added, "NVIDIA H100 80GB HBM3")
if out.get(h100) != before[h100]: fail.append(f"the H100's entry of {added} changed: {out.get(h100)}")
if out.get(put_back) != before[put_back]: fail.append(f"{put_back} is not the tree's; one of its rows ran 1.12x slower")
if out.get(kept) != after[kept]: fail.append(f"{kept} is not the refit's; its row ran 0.96x in geometric mean over two logs")
if out.get(remeasured) != before[remeasured]: fail.append(f"{remeasured}: its configuration did not change, its time did")
if len(out) != len(before): fail.append(f"{len(out)} entries, the tree has {len(before)}")
if gain.get(kept) != before[kept]: fail.append(f"--replace-gain 0.05 kept {kept}, which gained 4 %")
untimed_row = "histogram/f32/bins=2048/range=[0,1)/n=1000000/dist=uniform"
if entries("out-untimed").get(kept) != before[kept]:
    fail.append(f"{kept} stayed though it serves {untimed_row} a configuration no round timed")
if entries("out-list").get(kept) != after[kept]: fail.append(f"--untimed list put back {kept}")
listed = open(f"{scratch}/out-list/untimed.txt").read().split()
if listed != [untimed_row]: fail.append(f"--untimed list wrote {listed}, not [{untimed_row}]")
# The range texts of runtime/size_table.cpp's policy lookups (as `autotune best` printed them on an H100,
# bench/results/2026-12-06j-summary.md): every size named is an entry that serves the row.
sys.path.insert(0, bench)
import policy_ab_apply
for text, want in [
        ("n=46081..440744: c (policy: policy: tuned for n=65536 and n=262144; adapted: bin=values of "
         "histogram/u8/bins=32/range=[0,256)/dist=uniform, measured on NVIDIA H100 80GB HBM3)",
         [("histogram/u8/bins=32/range=[0,256)/n=65536/dist=uniform", "NVIDIA H100 80GB HBM3"),
          ("histogram/u8/bins=32/range=[0,256)/n=262144/dist=uniform", "NVIDIA H100 80GB HBM3")]),
        ("n=380929..1678182: c (policy: policy: tuned for n=1048576; adapted: bin=values of "
         "histogram/u8/bins=32/range=[0,256)/dist=uniform)", [("histogram/u8/bins=32/range=[0,256)/n=1048576/dist=uniform", "")]),
        ("(policy: policy: tuned for n=4096, n=16384 and n=65536 of reduce/sum/f32/acc=f32/dist=uniform)",
         [(f"reduce/sum/f32/acc=f32/n={n}/dist=uniform", "") for n in (4096, 16384, 65536)]),
        ("n=3047425..6553599: c (policy: policy: tuned for n=16777216 of histogram/bf16/bins=32768/range=[0,1)/dist=uniform,"
         " measured on NVIDIA H100 80GB HBM3; merge=atomic: an output of 12 KiB or more zeroed by a kernel)",
         [("histogram/bf16/bins=32768/range=[0,1)/n=16777216/dist=uniform", "NVIDIA H100 80GB HBM3")]),
        ("n=1..9: c (nearest: tuned for n=4096)", [])]:
    if policy_ab_apply.entries_named(text) != want:
        fail.append(f"entries named in '{text}': {policy_ab_apply.entries_named(text)}, not {want}")
print("\n".join("FAIL: " + f for f in fail) or "policy_ab_apply: slower entries dropped or put back, faster kept")
sys.exit(1 if fail else 0)
EOF
