#!/usr/bin/env bash
# Fails if any binary given lists NVRTC or the NVIDIA driver among its NEEDED libraries: both are loaded at run time
# (core/nvrtc.hpp, the static CUDA runtime), so a binary starts on a machine that lacks them.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: linkage_check.sh BINARY..."; exit 2; }
fail=0
for bin in "$@"; do
  if ! needed=$(readelf -d "$bin" | grep '(NEEDED)'); then
    echo "FAIL: $bin: no NEEDED entries (not a dynamic executable, or readelf failed)"; fail=1; continue
  fi
  if grep -E 'libnvrtc|libcuda\.so' <<<"$needed"; then
    echo "FAIL: $bin links NVRTC or the driver"; fail=1
  else
    echo "ok: $(basename "$bin"): $(grep -c . <<<"$needed") NEEDED, none of them NVRTC or the driver"
  fi
done
exit $fail
