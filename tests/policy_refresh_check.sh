#!/usr/bin/env bash
# CPU checks of bench/policy_refresh.sh, the device call that retunes and refits policy entries on the GPU machine
# (CTest cpu.policy_refresh_plan and, in a bench build, cpu.policy_refresh_pipeline).
#
#   tests/policy_refresh_check.sh plan SOURCE_DIR AUTOTUNE
#       every `autotune tune` the script plans names a problem the CLI accepts (asked as `autotune best` on an empty
#       cache: the same problem options, no GPU), and there is at least one per part
#   tests/policy_refresh_check.sh pipeline SOURCE_DIR AUTOTUNE SHAPE_BENCH
#       the whole script in a scratch copy of the files it uses, with a stand-in `autotune tune` that prints a two-line
#       tuning log for the problem it is given, in two calls (PARTS, then POLICY_FROM the first call's policies): each
#       part's log is fitted (the shapes of both calls hold the fitted configuration in the second's policy-after, its
#       policy-before is the tree's), the held-out lookups it moves are listed, and the source tree is left alone
set -euo pipefail
mode=${1:?plan or pipeline}
src=$(realpath "${2:?SOURCE_DIR}")
autotune=$(realpath "${3:?AUTOTUNE}")
model="NVIDIA H200|sm_90|132SM|143155MiB"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$autotune" gc --cache "$scratch/empty.db" > /dev/null

if [ "$mode" = plan ]; then
  plan=$("$src/bench/policy_refresh.sh" --dry-run)
  for part in halves manybins reduce finishes argkeys; do
    grep -q "^# $part:" <<< "$plan" || { echo "FAIL: no $part part in the plan"; exit 1; }
  done
  count=0
  while read -r _ _ _ _ flags; do
    flags=${flags/--cache \/tmp\/policy.db /}
    # shellcheck disable=SC2086  # the flags are words
    "$autotune" best --cache "$scratch/empty.db" --device-model "$model" $flags > /dev/null ||
      { echo "FAIL: the planned problem '$flags' is refused"; exit 1; }
    count=$((count + 1))
  done < <(grep "autotune tune" <<< "$plan")
  [ "$count" -ge 10 ] || { echo "FAIL: only $count tunings planned"; exit 1; }
  echo "policy_refresh plan: $count tunings, every problem accepted"
  exit 0
fi

[ "$mode" = pipeline ] || { echo "mode: plan or pipeline, not $mode"; exit 2; }
shape_bench=$(realpath "${4:?SHAPE_BENCH}")
tree="$scratch/tree"
mkdir -p "$tree/bench" "$tree/scripts" "$tree/bin"
cp "$src/bench/policy_refresh.sh" "$src/bench/policy_retune.sh" "$src/bench/policy_changed.py" \
  "$src/bench/replay_grid.py" "$tree/bench/"
cp "$src/scripts/fit_policy.py" "$tree/scripts/"
mkdir -p "$tree/bench/results/2026-12-05c-data"
cp "$src/bench/results/2026-12-05c-data/h200-device-only.db" "$tree/bench/results/2026-12-05c-data/"
for f in histogram reduce argreduce; do
  mkdir -p "$tree/kernel_templates/$f"
  cp "$src/kernel_templates/$f/policy.json" "$tree/kernel_templates/$f/"
done
cp "$shape_bench" "$tree/bin/shape_bench"
ln -s "$autotune" "$tree/bin/autotune.real"
cat > "$tree/bin/autotune" <<EOF
#!/usr/bin/env bash
# Stand-in for \`autotune tune\`: the problem's key from \`autotune best\`, then two configurations of its family.
real="\$(dirname "\$0")/autotune.real"
[ "\$1" = tune ] || exec "\$real" "\$@"
shift; args=(); while [ \$# -gt 0 ]; do case "\$1" in --cache) shift 2;; *) args+=("\$1"); shift;; esac; done
key=\$("\$real" best --cache "$scratch/empty.db" --device-model "$model" "\${args[@]}" --json |
  python3 -c "import json,sys; print(json.load(sys.stdin)['problem'])")
case "\$key" in
  histogram/*) a="priv=shared,R=1,cbits=32,block=1024,vec=16,loads=4,agg=none,part=interleaved,merge=atomic,grid=0"
               b="priv=shared,R=1,cbits=32,block=512,vec=16,loads=2,agg=none,part=interleaved,merge=atomic,grid=0";;
  *) a="red=warp_shuffle,block=512,vec=16,loads=4,acc=1,finish=last_block,grid=0"
     b="red=warp_reduce,block=256,vec=16,loads=2,acc=1,finish=last_block,grid=0";;
esac
echo "== \$key (GPU 0)"
echo "[  1/2] \$a ok     0.0500 ms      1000.0 GB/s"
echo "[  2/2] \$b ok     0.0600 ms       900.0 GB/s"
EOF
chmod +x "$tree/bin/autotune"
before_h=$(cksum < "$src/kernel_templates/histogram/policy.json")
before_r=$(cksum < "$src/kernel_templates/reduce/policy.json")
before_a=$(cksum < "$src/kernel_templates/argreduce/policy.json")
# Two calls, as a budget may split them: the halves and reductions, then the many-bin part fitted onto the first
# call's policies (POLICY_FROM).
refresh() {
  local rc=0
  "$tree/bench/policy_refresh.sh" "$tree/bin" "$1" 540 > "$1.txt" 2>&1 || rc=$?
  [ $rc = 0 ] || { cat "$1.txt" "$1"/fit-*.txt; echo "FAIL: policy_refresh.sh exited $rc"; exit 1; }
}
PARTS='halves|reduce' refresh "$scratch/first"
grep -q "manybins" "$scratch/first.txt" && { echo "FAIL: PARTS='halves|reduce' ran the many-bin part"; exit 1; }
PARTS='manybins|finishes|argkeys' POLICY_FROM="$scratch/first/policy-after" refresh "$scratch/out"
for done in "finishes reduce n=1048576 done" "argkeys argreduce n=1048576 done"; do
  grep -q "$done" "$scratch/out.txt" || { echo "FAIL: no '$done'"; cat "$scratch/out.txt"; exit 1; }
done
out="$scratch/out"
cmp -s "$out/policy-before/histogram.json" "$src/kernel_templates/histogram/policy.json" ||
  { echo "FAIL: policy-before/histogram.json is not the tree's policy"; exit 1; }
python3 - "$out" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
# The sizes the plan tunes (bench/policy_refresh.sh's parts): halves at 64K, 1M and 16M, the many-bin f16 shape at 16M,
# the i8/i16 and absmax reductions at the policy's six sizes.
halves, manybins = {65536, 1048576, 16777216}, {16777216}
reduce_sizes = {4096, 16384, 65536, 1048576, 16777216, 268435456}
for family, wanted in (("histogram", [("histogram/f16/bins=64/range=[0,1)", halves),
                                      ("histogram/bf16/bins=2048/range=[0,1)", halves),
                                      ("histogram/f16/bins=32768/range=[0,1)", manybins)]),
                       ("reduce", [("reduce/sum/i8/acc=i64", reduce_sizes), ("reduce/absmax/i64/acc=u64", reduce_sizes)])):
    # Each shape's entries at the planned sizes after the refit hold the stand-in's faster configuration, whether the
    # tree's policy had the shape (it gets refitted) or not (it gets added); its entries at other sizes (another
    # GPU's, e.g. the H100's at 256K) are the tree's.
    fast = ("priv=shared,R=1,cbits=32,block=1024,vec=16,loads=4,agg=none,part=interleaved,merge=atomic,grid=0"
            if family == "histogram" else "red=warp_shuffle,block=512,vec=16,loads=4,acc=1,finish=last_block,grid=0")
    after = json.load(open(f"{out}/policy-after/{family}.json"))["entries"]
    before = json.load(open(f"{out}/policy-before/{family}.json"))["entries"]
    size = lambda e: int(e["problem"].split("/n=")[1].split("/")[0])
    for w, sizes in wanted:
        got = [e for e in after if e["problem"].split("/n=")[0] == w]
        planned = [e["config"] for e in got if size(e) in sizes]
        if sorted({size(e) for e in got if size(e) in sizes}) != sorted(sizes) or any(c != fast for c in planned):
            sys.exit(f"FAIL: {w}: the refit's entries at {sorted(sizes)} hold {planned}")
        others = [e for e in got if size(e) not in sizes]
        if others != [e for e in before if e["problem"].split("/n=")[0] == w and size(e) not in sizes]:
            sys.exit(f"FAIL: {w}: the refit changed entries at sizes it did not plan: {others}")
# The argkeys part refits the arg-reduction entries it tuned: at 1M they hold the stand-in's faster configuration.
winner = "red=warp_shuffle,block=512,vec=16,loads=4,acc=1,finish=last_block,grid=0"
arg = [e for e in json.load(open(f"{out}/policy-after/argreduce.json"))["entries"] if "/n=1048576/" in e["problem"]]
if not arg or any(e["config"] != winner for e in arg):
    sys.exit(f"FAIL: the arg-reduction entries at 1M after the argkeys part: {[e['config'] for e in arg]}")
print("policy_refresh pipeline: the planned shapes are fitted into policy-after")
PY
[ -s "$out/policy-changed-keys.txt" ] || { echo "FAIL: no held-out lookup moved"; exit 1; }
ab=$(wc -l < "$out/policy-ab-keys.txt")
[ "$ab" -ge 1 ] && [ "$ab" -le 40 ] && ! grep -vxFf "$out/policy-changed-keys.txt" "$out/policy-ab-keys.txt" ||
  { echo "FAIL: policy-ab-keys.txt holds $ab keys, or keys that did not move"; exit 1; }
[ "$(cksum < "$src/kernel_templates/histogram/policy.json")" = "$before_h" ] &&
  [ "$(cksum < "$src/kernel_templates/reduce/policy.json")" = "$before_r" ] &&
  [ "$(cksum < "$src/kernel_templates/argreduce/policy.json")" = "$before_a" ] ||
  { echo "FAIL: the source tree's policies changed"; exit 1; }
echo "policy_refresh pipeline: $(wc -l < "$out/policy-changed-keys.txt") held-out lookups move; source tree unchanged"
