#!/usr/bin/env bash
# Session 2026-12-07h's first device call: on an H200, call22.sh (the plain tune and the grid of the final code); on
# an H100, 2026-12-07f's call18.sh trial f32-1M-bins-256M first (u32/1045263 on runs, +18.8 % over its exact winner),
# with the H100 plain cache of 54c8a56 (2026-12-07c-data/h100-tuned-slim-54c8a56.db.xz, copied to .device). Needs only
# .device/bins.tar.xz (scripts/pack_for_device.sh at COMMIT). END (call18) and UNTIL (call22) pass through.
#   dispatch.sh COMMIT
C=${1:?commit}
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash bench/results/2026-12-07h-data/call22.sh $C
else
  [ -f /tmp/bin/.from-$C ] || { rm -rf /tmp/bin; python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch /tmp/bin/.from-$C; }
  mkdir -p .device
  [ -f .device/h100-tuned-54c8a56-slim.db.xz ] || cp bench/results/2026-12-07c-data/h100-tuned-slim-54c8a56.db.xz .device/h100-tuned-54c8a56-slim.db.xz
  bash bench/results/2026-12-07f-data/call18.sh $C f32-1M-bins-256M
fi
