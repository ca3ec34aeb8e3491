#!/usr/bin/env bash
# Global copies in several instances (bench/instances_bench.cpp): does the time of one configuration follow where
# its workspace lands, and do copies interleaved in chunks (HistogramConfig::chunk) take that away? The skewed
# (narrow) shapes where one configuration ran 1.5x apart in two handles (bench/results/2026-12-05f-summary.md), their
# plain copies against the same copies interleaved in chunks of 32, 256 and 4096 counters, and a uniform control.
# About a minute on an H100 or H200, from the repository root, with binaries unpacked from
# scripts/pack_for_device.sh (or an instances_bench alone).
#
#   bench/instances_check.sh BIN OUT [INSTANCES]
set -uo pipefail
bin=${1:?BIN (the unpacked binaries)}
out=${2:?OUT (a folder for the results)}
instances=${3:-6}
mkdir -p "$out"
base="cbits=32,block=512,vec=16,loads=2,agg=warp,part=interleaved,merge=atomic,grid=0"
configs() {  # R: the plain copies, then interleaved in chunks
  local r=$1
  echo "--config priv=global,R=$r,$base"
  for c in 32 256 4096; do echo "--config priv=global,R=$r,$base,chunk=$c"; done
}
rc=0
while read -r r problem; do
  # shellcheck disable=SC2046
  "$bin/instances_bench" --problem "$problem" $(configs "$r") --instances "$instances" \
    --markdown "$out/instances-$(echo "$problem" | tr '/=[],()' '_______').md" || rc=1
done <<'PROBLEMS'
4 histogram/f32/bins=792570/range=[-4,296)/n=185592000/dist=narrow
8 histogram/f64/bins=269310/range=[0,1)/n=4567000/dist=narrow
16 histogram/i32/bins=163973/range=[879,247492)/n=30169000/dist=narrow
4 histogram/f32/bins=792570/range=[-4,296)/n=185592000/dist=uniform
PROBLEMS
exit $rc
