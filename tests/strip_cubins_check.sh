#!/usr/bin/env bash
# bench/strip_cubins.py: a cache of nine winners with cubins (tests/cache_writer) copied without them keeps every
# row and every winner `autotune show` prints, passes `autotune check`, and leaves the source as it was; a second
# run onto the same file and a file that is not a cache are refused without writing anything.
#
#   tests/strip_cubins_check.sh REPO BIN_DIR     BIN_DIR: the build's bin/ (autotune, cache_writer)
set -uo pipefail
repo=${1:?REPO}
bin=${2:?BIN_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$bin/cache_writer" "$tmp/full.db" 0 || { echo "FAIL: cache_writer"; exit 1; }
before=$(sha256sum < "$tmp/full.db")
count() {  # count FILE SQL
  python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"
}
[ "$(count "$tmp/full.db" 'select count(*) from winners where cubin is not null')" = 9 ] ||
  { echo "FAIL: the fixture has no cubins to strip"; exit 1; }
python3 "$repo/bench/strip_cubins.py" "$tmp/full.db" "$tmp/slim.db" || { echo "FAIL: strip_cubins exited non-zero"; exit 1; }
[ "$(sha256sum < "$tmp/full.db")" = "$before" ] || { echo "FAIL: the source changed"; fail=1; }
for table in devices problems runs measurements winners; do
  a=$(count "$tmp/full.db" "select count(*) from $table")
  b=$(count "$tmp/slim.db" "select count(*) from $table")
  [ "$a" = "$b" ] || { echo "FAIL: $table: $a rows, $b in the copy"; fail=1; }
done
[ "$(count "$tmp/slim.db" 'select count(*) from winners where cubin is not null or cubin_sha256 is not null')" = 0 ] ||
  { echo "FAIL: a cubin or its hash is left"; fail=1; }
"$bin/autotune" check --cache "$tmp/slim.db" > /dev/null || { echo "FAIL: autotune check refuses the copy"; fail=1; }
"$bin/autotune" show --cache "$tmp/full.db" > "$tmp/full.txt" 2>&1
"$bin/autotune" show --cache "$tmp/slim.db" > "$tmp/slim.txt" 2>&1
sed -i "s|$tmp/[a-z]*\.db||g" "$tmp/full.txt" "$tmp/slim.txt"
grep -q "priv=" "$tmp/full.txt" || { echo "FAIL: show printed no winner"; fail=1; }
cmp -s "$tmp/full.txt" "$tmp/slim.txt" || { echo "FAIL: show differs"; diff "$tmp/full.txt" "$tmp/slim.txt" | head; fail=1; }
slim=$(sha256sum < "$tmp/slim.db")
if python3 "$repo/bench/strip_cubins.py" "$tmp/full.db" "$tmp/slim.db" 2> /dev/null; then
  echo "FAIL: an existing copy was overwritten"; fail=1
fi
[ "$(sha256sum < "$tmp/slim.db")" = "$slim" ] || { echo "FAIL: the existing copy changed"; fail=1; }
echo "not a cache" > "$tmp/junk.db"
if python3 "$repo/bench/strip_cubins.py" "$tmp/junk.db" "$tmp/out.db" 2> /dev/null || [ -e "$tmp/out.db" ]; then
  echo "FAIL: a file that is not a cache was copied"; fail=1
fi
[ "$fail" = 0 ] && echo "strip_cubins_check: OK"
exit "$fail"
