#!/usr/bin/env bash
# bench/pin_lookups.py and bench/policy_changed.py --before-bin (a lookup code change's A/B) and --before-cache (what
# added tuning data moves): a stand-in "old" autotune
# answers `best` with a configuration of its own for two problems; the pinned policy files make the real autotune
# serve exactly that configuration for each, and policy_changed with --before-bin reports both problems as changed.
#
#   tests/pin_lookups_check.sh REPO BIN_DIR     BIN_DIR: the build's bin/ (its autotune)
set -uo pipefail
repo=${1:?REPO}
bin=${2:?BIN_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Configurations today's lookup serves neither problem (each runs them: 32 and 1000 bins fit 32-bit shared counters).
hist='histogram/f32/bins=1000/range=[0,1)/n=3000000/dist=runs'
old_hist='priv=shared,R=2,cbits=32,block=512,vec=16,loads=1,agg=warp,part=contiguous,merge=atomic,grid=0'
red='reduce/sum/f32/acc=f32/n=5000000/dist=uniform'
old_red='red=warp_shuffle,block=64,vec=16,loads=1,acc=1,finish=last_block,grid=0'
mkdir -p "$tmp/old"
cat > "$tmp/old/autotune" <<SH
#!/usr/bin/env bash
case "\$*" in
  *"--kernel histogram"*) echo '{"config": "$old_hist"}' ;;
  *"--kernel reduce"*) echo '{"config": "$old_red"}' ;;
  *) exit 1 ;;
esac
SH
chmod +x "$tmp/old/autotune"
printf '%s\n%s\n' "$hist" "$red" > "$tmp/keys"
fail=0
python3 "$repo/bench/pin_lookups.py" "$tmp/old" "$tmp/keys" "$tmp/pinned" || { echo "FAIL: pin_lookups"; exit 1; }
served() {  # served KEY: the real autotune's configuration with the pinned policies (or without: $2 = none)
  local args
  args=$(python3 -c "import sys; sys.path.insert(0, '$repo/bench'); import replay_grid; print(' '.join(replay_grid.flags_of(sys.argv[1])))" "$1")
  local env=(AUTOTUNE_POLICY_DIR="$tmp/pinned")
  [ "${2:-}" = none ] && env=()
  # shellcheck disable=SC2086
  env -u AUTOTUNE_POLICY_DIR "${env[@]}" "$bin/autotune" best --cache "$repo/bench/results/2026-12-05c-data/h200-device-only.db" \
    --device-model "NVIDIA H200|sm_90|132SM|143155MiB" $args --json | python3 -c "import json,sys; print(json.load(sys.stdin)['config'])"
}
for pair in "$hist|$old_hist" "$red|$old_red"; do
  key=${pair%%|*} want=${pair##*|}
  got=$(served "$key")
  [ "$got" = "$want" ] || { echo "FAIL: $key served $got with the pinned policy, not $want"; fail=1; }
  got=$(served "$key" none)
  [ "$got" != "$want" ] || { echo "FAIL: $key serves $want without the pinned policy: the check proves nothing"; fail=1; }
done
# policy_changed asks shape_bench --list for the held-out keys: a stand-in lists the two problems.
mkdir -p "$tmp/new"
ln -s "$(cd "$bin" && pwd)/autotune" "$tmp/new/autotune"
printf '#!/usr/bin/env bash\ncat %s\n' "$tmp/keys" > "$tmp/new/shape_bench"
chmod +x "$tmp/new/shape_bench"
python3 "$repo/bench/policy_changed.py" "$tmp/new" --before-bin "$tmp/old" --seeds 1 --out "$tmp/changed" > "$tmp/changed.log" ||
  { echo "FAIL: policy_changed --before-bin"; cat "$tmp/changed.log"; exit 1; }
cmp -s "$tmp/changed" "$tmp/keys" || { echo "FAIL: policy_changed listed $(tr '\n' ' ' < "$tmp/changed"), not both problems"; fail=1; }
python3 "$repo/bench/policy_changed.py" "$tmp/new" "$tmp/pinned" --before-bin "$tmp/old" --seeds 1 > /dev/null 2>&1 &&
  { echo "FAIL: policy_changed took both BEFORE_DIR and --before-bin"; fail=1; }
# --before-cache: the "before" lookups read another cache (a stand-in autotune answers by the cache it is given; only
# the histogram's answer differs between the two), so only the histogram problem is listed.
mkdir -p "$tmp/caches"
: > "$tmp/caches/plain.db"; : > "$tmp/caches/preset.db"
cat > "$tmp/caches/autotune" <<SH
#!/usr/bin/env bash
case "\$*" in
  *"--cache $tmp/caches/preset.db"*"--kernel histogram"*) echo '{"config": "$old_hist"}' ;;
  *"--kernel histogram"*) echo '{"config": "priv=global"}' ;;
  *"--kernel reduce"*) echo '{"config": "$old_red"}' ;;
  *) exit 1 ;;
esac
SH
chmod +x "$tmp/caches/autotune"
cp "$tmp/new/shape_bench" "$tmp/caches/shape_bench"
python3 "$repo/bench/policy_changed.py" "$tmp/caches" --before-cache "$tmp/caches/plain.db" --cache "$tmp/caches/preset.db" \
  --seeds 1 --out "$tmp/cache-changed" > "$tmp/cache-changed.log" ||
  { echo "FAIL: policy_changed --before-cache"; cat "$tmp/cache-changed.log"; exit 1; }
[ "$(cat "$tmp/cache-changed")" = "$hist" ] ||
  { echo "FAIL: policy_changed --before-cache listed $(tr '\n' ' ' < "$tmp/cache-changed"), not the histogram alone"; fail=1; }
python3 "$repo/bench/policy_changed.py" "$tmp/caches" --before-cache "$tmp/caches/missing.db" --cache "$tmp/caches/preset.db" \
  --seeds 1 > /dev/null 2>&1 && { echo "FAIL: policy_changed took a --before-cache that does not exist"; fail=1; }
python3 "$repo/bench/policy_changed.py" "$tmp/caches" --seeds 1 > /dev/null 2>&1 &&
  { echo "FAIL: policy_changed ran with nothing to compare"; fail=1; }
[ "$fail" = 0 ] && echo "pinned lookups served as the old binary served them"
exit $fail
