#!/usr/bin/env bash
# Device call (a session after 2026-12-07i; either card): the A/B of the own-distribution rule (own-rule.patch, not
# shipped: a robust policy entry priced x1.25 where the policy holds an entry of the problem's own distribution, n and
# the entry's n >= 1M). Its moved held-out lookups (17 seeds, 1700 lookups; H100: 54, H200: 67, the H100's 54 among
# them) are pinned: rule-pins-<gpu>.json holds the entries bench/pin_lookups.py wrote with the rule's build (the
# problem at its n with the rule's configuration), added here to the tree's kernel_templates/histogram/policy.json,
# so the shipped binaries serve the rule's configuration from that policy and their own from the embedded one: each
# problem timed both ways, with CUB, in the same rounds (shape_bench --compare-policy; "vs tuned" = rule / shipped).
# verify_pins.py checked offline that the pinned policy serves each key the rule's configuration.
#   rule-ab.sh COMMIT PART    PART 1 or 2: half the keys each (about 10 s a problem: 27 or 34 problems a call)
# Needs .device/bins.tar.xz (scripts/pack_for_device.sh at COMMIT; the product's C++ is that of cb2f18d) and, on an
# H100, nothing else: the tuned cache is the tracked H100 plain cache of 54c8a56 (the lookups were computed on it and
# on the devices-only cache alike, with the same answers). On an H200 the plain cache of call6.sh (/tmp/h6/tuned.db)
# when this warm machine made one, else an empty cache (the moved keys were computed on the devices-only cache).
set -u
C=${1:?commit}; PART=${2:-1}
D=bench/results/2026-12-07i-data
[ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $OUT/gpu.txt
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) m=h200;; *H100*) m=h100;; *) echo "rule-ab: not an H100 or an H200: $gpu"; exit 3;; esac
P=/tmp/rule-ab; mkdir -p $P
if [ $m = h100 ]; then
  [ -f $P/tuned.db ] || xz -dc bench/results/2026-12-07c-data/h100-tuned-slim-54c8a56.db.xz > $P/tuned.db
  tuned=$P/tuned.db
elif [ -f /tmp/h6/tuned.db ]; then
  tuned=/tmp/h6/tuned.db
else
  tuned=$P/empty.db; rm -f $tuned; /tmp/bin/autotune gc --cache $tuned > /dev/null || exit 2
fi
mkdir -p $P/pin-$m
python3 - $D/rule-pins-$m.json $P/pin-$m/histogram.json <<'PY' || exit 2
import json, sys
doc = json.load(open("kernel_templates/histogram/policy.json"))
doc["entries"] += json.load(open(sys.argv[1]))
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
keys=$D/rule-keys-$m.txt
half=$(( ($(grep -c . $keys) + 1) / 2 ))
if [ "$PART" = 1 ]; then head -n $half $keys; else tail -n +$((half + 1)) $keys; fi > $P/keys-$PART.txt
args=(); while read -r k; do [ -n "$k" ] && args+=(--problem "$k"); done < $P/keys-$PART.txt
echo "rule-ab: $m part $PART, $((${#args[@]} / 2)) problems, tuned cache $tuned"
timeout $((570 - SECONDS)) /tmp/bin/shape_bench "${args[@]}" --tuned-cache $tuned --compare-policy $P/pin-$m \
  --no-exact --markdown $OUT/rule-ab-$m-$PART.md > $OUT/rule-ab-$m-$PART.out 2> $OUT/rule-ab-$m-$PART.log
echo "rule-ab rc=$? at $SECONDS s"
python3 bench/held_out_table.py $OUT/rule-ab-$m-$PART.log --compared policy \
  --title "Own-distribution rule (x1.25, n >= 1M), A/B on $gpu, part $PART" > $OUT/rule-ab-$m-$PART-summary.md 2>&1
head -24 $OUT/rule-ab-$m-$PART-summary.md | cut -c1-240
