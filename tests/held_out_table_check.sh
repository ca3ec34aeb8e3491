#!/usr/bin/env bash
# bench/held_out_table.py: a grid measured over two calls is read as one (the later line of a key wins), and a
# "before" of other rows is also summarized over the rows both runs hold. Ratios worked out by hand: the paired
# histogram rows are A (CUB 20, before 10, after 5 us) and B (CUB 30, before 15, after 10): before 2.00x and 2.00x,
# geometric mean 2.00x (with row C's 50x, all three: cbrt(200) = 5.85x); after 4.00x and 3.00x, geometric mean sqrt(12) = 3.46x, least 3.00x.
#
#   tests/held_out_table_check.sh REPO
set -uo pipefail
repo=${1:?REPO}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
line() {  # line KEY TUNED CUB
  echo "row 0 rc=0 shape_bench: $1 policy $2 us, tuned $2 us (priv=shared), exact 0.0 us, CUB $3 us"
}
A='histogram/u8/bins=7/range=[0,7)/n=1000/dist=uniform'
B='histogram/f32/bins=9/range=[0,1)/n=2000/dist=narrow'
C='histogram/i32/bins=5/range=[0,5)/n=3000/dist=runs'
{ line "$A" 10 20; line "$B" 15 30; line "$C" 1 50; } > "$tmp/before.log"
{ line "$A" 7 20; line "$B" 10 30; } > "$tmp/call1.log"
line "$A" 5 20 > "$tmp/call2.log"  # row A measured again in a later call: this line wins
python3 "$repo/bench/held_out_table.py" "$tmp/call1.log" "$tmp/call2.log" --before "$tmp/before.log" > "$tmp/t.md" ||
  { echo "FAIL: held_out_table.py exited non-zero"; exit 1; }
fail=0
want() { grep -qF -- "$1" "$tmp/t.md" || { echo "FAIL: no line '$1'"; fail=1; }; }
want "| before | histogram | 3 | 5.85x | 2.00x | 0 |"
want "| after | histogram | 2 | 3.46x | 3.00x | 0 |"
want "| before, paired | histogram | 2 | 2.00x | 2.00x | 0 |"
want "| after, paired | histogram | 2 | 3.46x | 3.00x | 0 |"
python3 "$repo/bench/held_out_table.py" "$tmp/call1.log" --before "$tmp/call1.log" > "$tmp/same.md"
grep -q "paired" "$tmp/same.md" && { echo "FAIL: a paired summary where both runs hold the same rows"; fail=1; }
# --compared zero: the rows whose configuration zeroes with the kernel (merge=atomic, no global copies, no cluster)
# against the others. Zeroing kernel: D 4.4/4.0 = 1.10 and E 9.0/10.0 = 0.90, geometric mean sqrt(0.99) = 0.995;
# control: F (global copies, R=4) 12/12 = 1.000 and G (self_zero) 6.3/6.0 = 1.050, geometric mean 1.025.
zline() {  # zline KEY TUNED COMPARED CONFIG
  echo "row 0 rc=0 shape_bench: $1 policy $2 us, tuned $2 us ($4), exact 0.0 us, CUB 50.0 us, compared $3 us ($4)"
}
{
  zline "$A" 4.0 4.4 "priv=shared,R=32,merge=atomic,grid=0"
  zline "$B" 10.0 9.0 "priv=global,R=1,merge=atomic,grid=0"
  zline "$C" 12.0 12.0 "priv=global,R=4,merge=atomic,grid=0,chunk=256"
  zline "histogram/u16/bins=3/range=[0,3)/n=10/dist=uniform" 6.0 6.3 "priv=shared,R=1,merge=self_zero,grid=0"
} > "$tmp/zero.log"
# compared WHAT LINE...: the table of $tmp/WHAT.log with --compared WHAT holds every LINE
compared() {
  local what=$1 line
  shift
  python3 "$repo/bench/held_out_table.py" "$tmp/$what.log" --compared "$what" > "$tmp/$what.md" ||
    { echo "FAIL: held_out_table.py --compared $what exited non-zero"; fail=1; }
  for line in "$@"; do
    grep -qF -- "$line" "$tmp/$what.md" || { echo "FAIL: --compared $what: no line '$line'"; cat "$tmp/$what.md"; fail=1; }
  done
}
compared zero "| histogram, zeroing kernel | 2 | 0.995 | 0.900 | 1.100 |" \
  "| histogram, other merges (control) | 2 | 1.025 | 1.000 | 1.050 |" "memset zeroing (us)"
# --compared preset: the rows the preset's cache makes more than 2 % slower, by hand: A 4.4/4.0 = +10.0 % (the same
# configuration), C 12.6/12.0 = +5.0 % (another); B 10.1/10.0 = +1.0 % is within the noise.
pline() {  # pline KEY TUNED COMPARED COMPARED_CONFIG
  echo "row 0 rc=0 shape_bench: $1 policy $2 us, tuned $2 us (priv=shared,R=1), exact 0.0 us, CUB 50.0 us, compared $3 us ($4)"
}
{
  pline "$A" 4.0 4.4 "priv=shared,R=1"
  pline "$B" 10.0 10.1 "priv=shared,R=4"
  pline "$C" 12.0 12.6 "priv=global,R=1"
} > "$tmp/preset.log"
compared preset "slower than without it by more than 2 %: 2 of 3 rows (1 of them with another configuration)." \
  "| \`$A\` | 4.0 | 4.4 | +10.0 % | the same |" "| \`$C\` | 12.0 | 12.6 | +5.0 % | \`priv=global,R=1\` |"
grep -qF "\`$B\` | 10.0 | 10.1 |" "$tmp/preset.md" && { echo "FAIL: --compared preset lists B (+1.0 %)"; fail=1; }
# The run's spread: 20 rows of one configuration both ways, compared at (90 + i) / 100 of tuned for i = 0..19 plus 5
# rows (0.950 ... 1.045 by 0.005); by hand: 5th percentile the 2nd smallest (0.955), 95th the 19th (1.040).
for i in $(seq 0 19); do
  echo "row $i rc=0 shape_bench: histogram/u8/bins=7/range=[0,7)/n=$((1000 + i))/dist=uniform policy 100.0 us, tuned 100.0 us (priv=shared,R=1), exact 0.0 us, CUB 500.0 us, compared $((95 + i / 2)).$((i % 2 * 5)) us (priv=shared,R=1)"
done > "$tmp/spread.log"
mv "$tmp/spread.log" "$tmp/preset.log"
compared preset "from the 20 rows that ran the same configuration with and without the preset: 5th-95th percentile 0.955-1.040, least 0.950, most 1.045."
[ $fail = 0 ] && echo "held_out_table_check: OK"
exit $fail
