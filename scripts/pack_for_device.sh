#!/usr/bin/env bash
# Packs the binaries a GPU check runs (bench/gpu_check.sh) from a portable build (-DAUTOTUNE_PORTABLE=ON
# -DAUTOTUNE_BUILD_BENCH=ON) into one stripped, xz-compressed tarball, small enough to travel to a GPU machine with
# the working tree (the unstripped binaries are about 190 MiB; the tarball about 25 MiB).
#
#   scripts/pack_for_device.sh [BUILD_DIR] [OUTPUT]      defaults: build-portable, .device/bins.tar.xz
#
# PACK_BINS="autotune autotune_gpu_tests shape_bench" packs those binaries only (a device call carries at most 64 MiB
# with the working tree, whose bench/results grow: bench/untuned_check.sh needs these three).
#
# On the GPU machine, unpack with python3 (no xz binary needed):
#   python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-portable}
output=${2:-.device/bins.tar.xz}
# Build first: a tarball of stale binaries would check code that is not the commit it is named for. The CLI's
# target is autotune_cli (its binary is bin/autotune); the others are named as their binaries.
cmake --build "$build" -j "$(nproc)" --target autotune_cli autotune_gpu_tests histogram_bench histogram_image_bench \
  histogram_range_bench reduce_bench segreduce_bench shape_bench size_bench argreduce_bench example_histogram \
  example_reduce fence_bench load_bench flush_bench cluster_bench instances_bench >/dev/null || { echo "pack_for_device: the build of $build failed" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
all="autotune autotune_gpu_tests histogram_bench histogram_image_bench histogram_range_bench reduce_bench
     segreduce_bench shape_bench size_bench argreduce_bench example_histogram example_reduce fence_bench load_bench
     flush_bench cluster_bench instances_bench"
for b in ${PACK_BINS:-$all}; do
  [ -x "$build/bin/$b" ] || { echo "pack_for_device: $build/bin/$b is missing (a portable bench build?)" >&2; exit 1; }
  strip -o "$stage/$b" "$build/bin/$b"
done
mkdir -p "$(dirname "$output")"
tar -C "$stage" -cf - . | xz -3 -T2 > "$output.tmp"
mv "$output.tmp" "$output"
echo "pack_for_device: $output $(du -h "$output" | cut -f1)"
