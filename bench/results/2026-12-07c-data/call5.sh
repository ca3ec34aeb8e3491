#!/usr/bin/env bash
# Device call 5 (session 2026-12-07c): on an H200, call H (a plain tune and the held-out grid of seed 20261206, with
# the new lookup); on an H100, call 4 (regret against exact winners on that grid).
C=${1:?commit}
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  UNTIL=${UNTIL_H200:-440} bash .device/callh.sh $C
else
  UNTIL=${UNTIL_H100:-380} bash .device/call4.sh $C
fi
