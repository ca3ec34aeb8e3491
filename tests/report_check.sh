#!/usr/bin/env bash
# `autotune report` in a real browser: headless Chromium renders the fleet fixture's report (written by the test
# binary's "write the fixture report" case) and must (1) log no console or page error, (2) have the charts in its
# DOM (heat-map cells, roof and device bars, the size chart's points), (3) produce a screenshot that is not blank
# (many distinct colours: the heat maps use a colour scale). Usage: report_check.sh PATH/TO/autotune_tests
set -u
tests_bin="$1"
browser=""
for b in chromium chromium-browser google-chrome; do command -v "$b" >/dev/null 2>&1 && { browser="$b"; break; }; done
if [ -z "$browser" ]; then
  echo "FAIL: Chromium is not installed; install it (scripts/bootstrap.sh --test, or apt-get install -y chromium)"
  exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/autotune-report-check.XXXXXX")
trap 'rm -rf "$dir"' EXIT
AUTOTUNE_REPORT_FIXTURE="$dir" "$tests_bin" --test-case="write the fixture report" --no-intro=true >"$dir/fixture.log" 2>&1 \
  || { echo "FAIL: could not write the fixture report"; cat "$dir/fixture.log"; exit 1; }
[ -s "$dir/report.html" ] || { echo "FAIL: no report was written"; exit 1; }

# Flags: no GPU, no network services, a throw-away profile; --no-sandbox because CI runs as root in a container.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --disable-dev-shm-usage --hide-scrollbars)
url="file://$dir/report.html"
timeout 120 "$browser" "${flags[@]}" --user-data-dir="$dir/profile1" --enable-logging=stderr --v=0 \
  --screenshot="$dir/out.png" --window-size=1280,2000 "$url" >"$dir/shot.log" 2>&1
timeout 120 "$browser" "${flags[@]}" --user-data-dir="$dir/profile2" --dump-dom "$url" >"$dir/dom.html" 2>"$dir/dom.log"

fail=0
if grep -E "Uncaught|ERROR:CONSOLE|CONSOLE\([0-9]+\)" "$dir/shot.log" "$dir/dom.log"; then
  echo "FAIL: the page logged errors in Chromium"; fail=1
else
  echo "ok: no console errors"
fi
cells=$(grep -o '<rect class="cell"' "$dir/dom.html" | wc -l)
bars=$(grep -o '<rect class="bar"' "$dir/dom.html" | wc -l)
maps=$(grep -o '<svg class="heatmap"' "$dir/dom.html" | wc -l)
if [ "$maps" -ge 3 ] && [ "$cells" -ge 12 ] && [ "$bars" -ge 5 ]; then
  echo "ok: the DOM holds $maps heat maps, $cells cells, $bars bars"
else
  echo "FAIL: charts missing from the DOM ($maps heat maps, $cells cells, $bars bars)"; tail -5 "$dir/dom.log"; fail=1
fi
# The fixture's u8 shape on the H100 at 16M, 32M (a crossover) and 64M, CUB at 16M and 64M: one size chart.
sizecharts=$(grep -o '<svg class="sizechart"' "$dir/dom.html" | wc -l)
winpoints=$(grep -o '<circle class="point winner' "$dir/dom.html" | wc -l)
cubpoints=$(grep -o '<rect class="point baseline"' "$dir/dom.html" | wc -l)
if [ "$sizecharts" -eq 1 ] && [ "$winpoints" -eq 3 ] && [ "$cubpoints" -eq 2 ]; then
  echo "ok: the DOM holds $sizecharts size chart, $winpoints winner points, $cubpoints CUB points"
else
  echo "FAIL: size chart missing from the DOM ($sizecharts size charts, $winpoints winner points, $cubpoints CUB points)"
  fail=1
fi
if [ ! -s "$dir/out.png" ]; then
  echo "FAIL: no screenshot"; cat "$dir/shot.log"; exit 1
fi
# Decode the PNG with zlib only (no PIL): undo the row filters, count distinct colours.
python3 - "$dir/out.png" <<'PY' || fail=1
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        assert depth == 8 and ctype in (2, 6) and interlace == 0, f"unexpected PNG format {depth} {ctype} {interlace}"
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours = set()
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for i in range(0, stride, bpp * 2):
            colours.add(bytes(line[i:i + 3]))
    prev = line
print(f"screenshot {w}x{h}: {len(colours)} distinct colours")
if len(colours) < 20:
    print("FAIL: the screenshot looks blank"); sys.exit(1)
print("ok: the screenshot is not blank")
PY
exit $fail
