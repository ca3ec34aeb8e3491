#!/usr/bin/env bash
# The real `autotune` binary as a user runs it: exit codes (0 ok, 1 runtime failure, 2 usage error), errors as one
# line on stderr, nothing on stdout for errors.
set -u
bin="$1"
fail=0
check() {  # expected-code description args...
  local want="$1" what="$2"; shift 2
  local out err code
  out=$(mktemp) err=$(mktemp)
  "$bin" "$@" >"$out" 2>"$err"; code=$?
  if [ "$code" != "$want" ]; then
    echo "FAIL: $what: exit $code, expected $want"; cat "$err"; fail=1
  elif [ "$want" = 2 ] && { [ "$(wc -l <"$err")" != 1 ] || [ -s "$out" ]; }; then
    echo "FAIL: $what: a usage error must be one line on stderr and nothing on stdout"; cat "$out" "$err"; fail=1
  else
    echo "ok: $what (exit $code)"
  fi
  rm -f "$out" "$err"
}
check 0 "--help" --help
"$bin" --help | grep -q "tune" && "$bin" --help | grep -q "devices" && "$bin" --help | grep -q "show" \
  || { echo "FAIL: --help does not list the subcommands"; fail=1; }
check 0 "tune --help" tune --help
check 2 "unknown subcommand" frobnicate
check 2 "unknown flag" tune --bogus
# Boost.Program_options substituted %original_token% into its own message forever: a hang, found by fuzz_cli.
msg=$(timeout 20 "$bin" tune '--b%original_token%' 2>&1 >/dev/null); code=$?
if [ "$code" = 2 ]; then echo "ok: a flag holding a Boost placeholder: $msg"
else echo "FAIL: a flag holding a Boost placeholder: exit $code (124: it hung), expected 2"; fail=1; fi
check 2 "--n abc" tune --n abc
check 2 "negative bins" tune --type u16 --bins -5 --n 1M
check 2 "lower >= upper" tune --type f32 --bins 10 --lower 2 --upper 1 --n 1M
check 2 "unknown type" tune --type f8 --bins 10 --n 1M
check 0 "best --help" best --help
check 2 "best without a device model" best --n 1M
check 2 "show --json --csv" show --json --csv
check 2 "report without --output" report
check 2 "compare with a bad flag" compare --bogus
check 0 "bench --help" bench --help
check 2 "bench with a bad --samples" bench --samples -3
check 2 "reduce without --op" tune --kernel reduce --type f32 --n 1M
check 2 "unknown strategy" tune --strategy annealing
# Sizes are digits with an optional fraction and K/M/G: nothing else that strtod would read.
check 2 "--n 0x10" tune --n 0x10
check 2 "--n ' 5'" tune --n " 5"
check 2 "--n 1e3" tune --n 1e3
check 2 "--n inf" tune --n inf
# Float ranges that cannot be binned.
check 2 "f32 range [0, 1e-46)" tune --type f32 --bins 10 --lower 0 --upper 1e-46 --n 1M
check 2 "f64 range [-1.7e308, 1.7e308)" tune --type f64 --bins 10 --lower=-1.7e308 --upper 1.7e308 --n 1M
check 2 "f32 range beyond FLT_MAX" tune --type f32 --bins 10 --lower 0 --upper 1e39 --n 1M
check 2 "f64 range [0, 1e-320)" tune --type f64 --bins 10 --lower 0 --upper 1e-320 --n 1M
# A message quoting hostile input is one line, its control characters escaped (no raw ESC reaches the terminal).
msg=$("$bin" tune --dist "$(printf 'zipf\033[2J\nsecond line')" --n 1M 2>&1 >/dev/null)
if [ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] && ! printf '%s' "$msg" | grep -q "$(printf '\033')" \
   && printf '%s' "$msg" | grep -qF 'zipf\x1b[2J\nsecond line'; then
  echo "ok: escaped message: $msg"
else
  echo "FAIL: the message is not one escaped line: $msg"; fail=1
fi
# Without a GPU, `devices` and `tune` fail clearly with exit 1 and say "no CUDA device".
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  check 1 "devices without a GPU" devices
  msg=$("$bin" devices 2>&1 >/dev/null)
  case "$msg" in *"no CUDA device"*) echo "ok: message: $msg" ;; *) echo "FAIL: unclear message: $msg"; fail=1 ;; esac
  check 1 "tune without a GPU" tune --cache "$(mktemp -d)/c.db"
  out=$("$bin" tune --cache "$(mktemp -d)/c.db" 2>/dev/null)
  [ -z "$out" ] && echo "ok: tune without a GPU prints nothing on stdout" \
    || { echo "FAIL: tune without a GPU printed on stdout: $out"; fail=1; }
  check 1 "best --device without a GPU" best --n 1M --device 0 --cache "$(mktemp -d)/c.db"
  check 1 "tune --devices all without a GPU" tune --devices all --cache "$(mktemp -d)/c.db"
  check 1 "bench without a GPU" bench --cache "$(mktemp -d)/c.db"
  check 1 "a reduction tune without a GPU" tune --kernel reduce --op sum --type f32 --n 1M --cache "$(mktemp -d)/c.db"
fi
# A file that is not an SQLite database: clear error naming it, exit 1, file untouched.
junk=$(mktemp); echo "this is not a database" >"$junk"; before=$(md5sum <"$junk")
check 1 "show on a non-SQLite file" show --cache "$junk"
"$bin" show --cache "$junk" 2>&1 | grep -q "$junk" || { echo "FAIL: the error does not name the file"; fail=1; }
[ "$(md5sum <"$junk")" = "$before" ] || { echo "FAIL: the file was modified"; fail=1; }
rm -f "$junk"
# Moving results: a missing input is a runtime failure (exit 1) naming the file, and creates no cache.
dir=$(mktemp -d)
check 2 "import without FILE" import
check 2 "merge with two files" merge a.db b.db
check 0 "export --help" export --help
check 1 "import of a missing file" import "$dir/missing.json" --cache "$dir/c.db"
msg=$("$bin" import "$dir/missing.json" --cache "$dir/c.db" 2>&1 >/dev/null)
case "$msg" in
  *"cannot open '$dir/missing.json'"*) echo "ok: message: $msg" ;;
  *) echo "FAIL: unclear message: $msg"; fail=1 ;;
esac
check 1 "merge of a missing file" merge "$dir/missing.db" --cache "$dir/c.db"
[ ! -e "$dir/c.db" ] || { echo "FAIL: a missing input created the cache"; fail=1; }
check 1 "import of a file that is not an export" import "$0" --cache "$dir/c.db"
[ ! -e "$dir/c.db" ] || { echo "FAIL: a refused import left a cache file"; fail=1; }
check 0 "gc, which creates an empty cache" gc --cache "$dir/c.db"
check 0 "export of an empty cache" export --cache "$dir/c.db" --output "$dir/c.json"
check 0 "import of that export" import "$dir/c.json" --cache "$dir/d.db"
check 0 "gc" gc --cache "$dir/d.db"
# Output paths: a FIFO, a device and a link are never replaced by a regular file; nothing .tmp- is left behind.
mkfifo "$dir/fifo"
timeout 20 cat "$dir/fifo" >"$dir/from-fifo" & reader=$!
check 0 "export -o FIFO" export --cache "$dir/d.db" -o "$dir/fifo"
wait $reader
[ -p "$dir/fifo" ] || { echo "FAIL: export -o replaced the FIFO"; fail=1; }
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/from-fifo" 2>/dev/null \
  || { echo "FAIL: the FIFO's reader did not get the export"; fail=1; }
check 0 "export -o /dev/null" export --cache "$dir/d.db" -o /dev/null
[ -c /dev/null ] || { echo "FAIL: export -o /dev/null replaced /dev/null"; fail=1; }
check 0 "report --output /dev/null" report --cache "$dir/d.db" --output /dev/null
[ -c /dev/null ] || { echo "FAIL: report --output /dev/null replaced /dev/null"; fail=1; }
"$bin" export --cache "$dir/d.db" -o /dev/fd/1 | python3 -c 'import json,sys; json.load(sys.stdin)' \
  && echo "ok: export -o /dev/fd/1 into a pipe" || { echo "FAIL: export -o /dev/fd/1 into a pipe"; fail=1; }
if [ "$(id -u)" != 0 ]; then  # as root the old code replaced /dev/stdout itself: only checked where it cannot
  "$bin" export --cache "$dir/d.db" -o /dev/stdout | python3 -c 'import json,sys; json.load(sys.stdin)' \
    && echo "ok: export -o /dev/stdout" || { echo "FAIL: export -o /dev/stdout"; fail=1; }
fi
mkdir "$dir/real"; echo old >"$dir/real/target.json"; ln -s "$dir/real/target.json" "$dir/link.json"
check 0 "export -o a link to a file" export --cache "$dir/d.db" -o "$dir/link.json"
[ -L "$dir/link.json" ] || { echo "FAIL: export -o replaced the link"; fail=1; }
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/real/target.json" 2>/dev/null \
  || { echo "FAIL: the link's target was not written"; fail=1; }
ln -s "$dir/nowhere/x.json" "$dir/dangling.json"
check 1 "export -o a dangling link" export --cache "$dir/d.db" -o "$dir/dangling.json"
[ -L "$dir/dangling.json" ] && [ ! -e "$dir/nowhere" ] || { echo "FAIL: a dangling link was followed or replaced"; fail=1; }
check 1 "export -o a directory" export --cache "$dir/d.db" -o "$dir/real"
check 1 "report --output in a missing directory" report --cache "$dir/d.db" --output "$dir/missing/r.html"
# Signing: keygen, export --sign, import --trust; what is refused says why, naming the file or argument.
check 2 "keygen without --output" keygen
check 0 "keygen" keygen --output "$dir/k.key"
check 1 "keygen over an existing key" keygen --output "$dir/k.key"
check 0 "export --sign" export --cache "$dir/d.db" --sign "$dir/k.key" -o "$dir/s.json"
check 0 "import --trust of the signed export" import "$dir/s.json" --trust "$dir/k.key.pub" --cache "$dir/t.db"
check 1 "import --trust of an unsigned export" import "$dir/c.json" --trust "$dir/k.key.pub" --cache "$dir/u.db"
[ ! -e "$dir/u.db" ] || { echo "FAIL: a refused import --trust left a cache file"; fail=1; }
chmod 644 "$dir/k.key"
check 1 "export --sign with a key others can read" export --cache "$dir/d.db" --sign "$dir/k.key" -o "$dir/x.json"
[ ! -e "$dir/x.json" ] || { echo "FAIL: an export with a refused key was written"; fail=1; }
check 2 "import with an extra argument" import a.json b.json
msg=$("$bin" import a.json b.json 2>&1 >/dev/null)
case "$msg" in *"'b.json'"*) echo "ok: message: $msg" ;; *) echo "FAIL: the extra argument is not named: $msg"; fail=1 ;; esac
check 1 "import of a directory" import "$dir/real" --cache "$dir/e.db"
msg=$("$bin" import "$dir/real" --cache "$dir/e.db" 2>&1 >/dev/null)
case "$msg" in *"'$dir/real'"*"directory"*) echo "ok: message: $msg" ;; *) echo "FAIL: unclear message: $msg"; fail=1 ;; esac
echo 'not json' >"$dir/bad.json"
msg=$("$bin" import "$dir/bad.json" --cache "$dir/e.db" 2>&1 >/dev/null)
case "$msg" in *json.exception*|*"parse error"*) echo "FAIL: the JSON library's text: $msg"; fail=1 ;;
  *"'$dir/bad.json'"*) echo "ok: message: $msg" ;; *) echo "FAIL: unclear message: $msg"; fail=1 ;; esac
leftover=$(find "$dir" -name '*.tmp-*' -o -name '*.import-*.tmp')
[ -z "$leftover" ] || { echo "FAIL: temporary files left behind: $leftover"; fail=1; }
rm -rf "$dir"
exit $fail
