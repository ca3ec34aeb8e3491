#!/usr/bin/env bash
# scripts/fit_policy.py --served: with --per-dist-only a distribution's winner is weighed against what the lookup serves
# its problem today (where the log timed that configuration), not against the robust configuration the fit does not
# write. One problem at 4M, three configurations, times by hand (ms):
#            A     B     C
#   uniform  1.00  1.20  1.05
#   narrow   1.08  1.00  1.15
# The robust configuration (least worst slowdown) is A (1.08x; B 1.20x, C 1.15x). At --per-dist 1.1, against A the
# narrow winner B gains 1.08x: no entry. Served C on narrow samples (1.15x): B's narrow entry. Served a configuration
# the log did not time: A again, no entry. --served without --per-dist-only and a malformed line are refused.
#
#   tests/fit_policy_served_check.sh REPO
set -uo pipefail
repo=$(cd "${1:?REPO}" && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail=0
P='histogram/f32/bins=64/range=[0,1)'
A='priv=shared,R=1,block=256' B='priv=global,R=1,block=512,win=4096' C='priv=shared,R=2,block=1024'
{
  for d in uniform narrow; do
    echo "== $P/n=4194304/dist=$d (GPU 0)"
    case $d in uniform) t=(1.0000 1.2000 1.0500) ;; narrow) t=(1.0800 1.0000 1.1500) ;; esac
    echo "[  1/3] $A ok     ${t[0]} ms     1.0 GB/s"
    echo "[  2/3] $B ok     ${t[1]} ms     1.0 GB/s"
    echo "[  3/3] $C ok     ${t[2]} ms     1.0 GB/s"
  done
} > "$tmp/tune.log"
mkdir -p "$tmp/kernel_templates/histogram"
cat > "$tmp/policy.json" <<JSON
{"format": 1, "family": "histogram", "provenance": {"gpu": "NVIDIA H200", "data": "d", "updates": []},
 "entries": [{"problem": "$P/n=1048576/dist=uniform", "config": "$A", "time_ms": 0.5, "worst_slowdown": 1.0}]}
JSON
# fit SERVED_LINE...: the narrow entries the fit writes at 4M (their configurations), one a line
fit() {
  cp "$tmp/policy.json" "$tmp/kernel_templates/histogram/policy.json"
  printf '%s\n' "$@" > "$tmp/served.txt"
  local served=(--served "$tmp/served.txt")
  [ $# = 0 ] && served=()
  (cd "$tmp" && python3 "$repo/scripts/fit_policy.py" tune.log --update --beside --per-dist 1.1 --per-dist-only --add-shapes \
    "${served[@]}" --write --gpu "NVIDIA H100 80GB HBM3" --date 2026-12-07 --commit abc1234 --source s > fit.txt 2>&1)
  python3 -c "import json,sys; [print(e['config']) for e in json.load(open(sys.argv[1]))['entries'] if 'dist=narrow' in e['problem']]" \
    "$tmp/kernel_templates/histogram/policy.json"
}
want() {  # want WHAT GOT EXPECTED
  [ "$2" = "$3" ] || { echo "FAIL: $1: narrow entries '$2', want '$3'"; fail=1; }
}
want "no --served (against the robust A, 1.08x)" "$(fit)" ""
want "served C (1.15x)" "$(fit "$P/n=4194304/dist=narrow	$C" "$P/n=4194304/dist=uniform	$C")" "$B"
want "served a configuration the log did not time" "$(fit "$P/n=4194304/dist=narrow	priv=warp,R=1")" ""
want "served A (1.08x)" "$(fit "$P/n=4194304/dist=narrow	$A")" ""
printf '%s\n' "$P/n=4194304/dist=narrow $C" > "$tmp/bad.txt"
(cd "$tmp" && python3 "$repo/scripts/fit_policy.py" tune.log --update --per-dist 1.1 --per-dist-only --served bad.txt \
  > bad.out 2>&1) && { echo "FAIL: a line without a tab was accepted"; fail=1; }
grep -q "bad.txt:1: not 'PROBLEM<TAB>CONFIG'" "$tmp/bad.out" || { echo "FAIL: the malformed line is not named: $(cat "$tmp/bad.out")"; fail=1; }
(cd "$tmp" && python3 "$repo/scripts/fit_policy.py" tune.log --update --per-dist 1.1 --served served.txt > only.out 2>&1) &&
  { echo "FAIL: --served without --per-dist-only was accepted"; fail=1; }
grep -q "^--served: with --per-dist-only" "$tmp/only.out" || { echo "FAIL: no reason given: $(cat "$tmp/only.out")"; fail=1; }
[ $fail = 0 ] && echo "fit_policy_served_check: OK"
exit $fail
