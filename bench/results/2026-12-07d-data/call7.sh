#!/usr/bin/env bash
# Device call 7 (session 2026-12-07d): on an H200, call 6 (plain tune, held-out grid, preset, the preset's rows);
# on an H100, call 4b (2026-12-07c-data/call4.sh with its row list cut to rows 8-99: regret against exact winners,
# the preset's handle alongside).
C=${1:?commit}
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  UNTIL=${UNTIL_H200:-570} bash .device/call6.sh $C
else
  UNTIL=${UNTIL_H100:-560} bash .device/call4b.sh $C
fi
