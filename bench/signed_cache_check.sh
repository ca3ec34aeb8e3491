#!/usr/bin/env bash
# A signed export, made on one machine, served on a GPU machine without NVRTC (README: "What a cache file is trusted
# for"): tune u8/256 bins at 64M into a cache, sign its export with a fresh key, import it once trusting the key and
# once without, then look the problem up and run the example application with NVRTC made unloadable
# (AUTOTUNE_NVRTC_LIBRARY points at nothing), so that any compile would fail the run.
#
#   bench/signed_cache_check.sh BIN_DIR WORK_DIR
#
# Exit 0 when: the trusted import keeps the cubin and `best` answers exact; the example runs from the imported cache
# and from the signed document itself, matching the CPU, without compiling; and the unsigned import is refused under
# AUTOTUNE_REQUIRE=exact (imported data is never exact). Each check prints one line.
set -u
bin=$(cd "${1:?BIN_DIR}" && pwd) || exit 2
work=${2:?WORK_DIR}
mkdir -p "$work"
failed=0
check() {  # check NAME STATUS: one line, and the run fails on a non-zero STATUS
  if [ "$2" = 0 ]; then echo "signed_cache: $1: ok"; else echo "signed_cache: $1: FAILED"; failed=1; fi
}
shape=(--type u8 --bins 256 --n 64M)
"$bin/autotune" tune "${shape[@]}" --cache "$work/src.db" > "$work/tune.log" 2>&1
check "tune u8/256/64M" $?
"$bin/autotune" keygen --output "$work/k.key" > "$work/keygen.log" 2>&1
check "keygen" $?
"$bin/autotune" export --cache "$work/src.db" --sign "$work/k.key" --output "$work/app.json" > "$work/export.log" 2>&1
check "signed export" $?
"$bin/autotune" import "$work/app.json" --trust "$work/k.key.pub" --cache "$work/app.db" > "$work/import.log" 2>&1
check "import --trust" $?
grep -q "signed by trusted key" "$work/import.log"
check "the import names the trusted key" $?
"$bin/autotune" import "$work/app.json" --cache "$work/unsigned.db" > "$work/import-unsigned.log" 2>&1
check "import without --trust" $?

export AUTOTUNE_NVRTC_LIBRARY=/nonexistent/libnvrtc.so
AUTOTUNE_REQUIRE=exact "$bin/autotune" best "${shape[@]}" --device 0 --cache "$work/app.db" > "$work/best.log" 2>&1
check "best without NVRTC" $?
grep -q "^source: *exact" "$work/best.log"
check "best answers exact" $?
for cache in app.db app.json; do
  AUTOTUNE_REQUIRE=exact AUTOTUNE_CACHE="$work/$cache" AUTOTUNE_TRUSTED_KEYS="$work/k.key.pub" \
    "$bin/example_histogram" > "$work/example-$cache.log" 2>&1
  check "example_histogram from $cache without NVRTC" $?
  grep -q "matches the CPU" "$work/example-$cache.log" && ! grep -q "compiled with NVRTC" "$work/example-$cache.log"
  check "example_histogram from $cache: exact result, no compile" $?
done
AUTOTUNE_REQUIRE=exact AUTOTUNE_CACHE="$work/unsigned.db" "$bin/example_histogram" > "$work/example-unsigned.log" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q "imported from another machine" "$work/example-unsigned.log"
check "an unsigned import is not exact (exit $rc)" $?
for f in "$work"/*.log; do echo "--- $(basename "$f")"; tail -n 4 "$f"; done
exit $failed
