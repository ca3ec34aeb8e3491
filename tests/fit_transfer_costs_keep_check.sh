#!/usr/bin/env bash
# scripts/fit_transfer_costs.py --write refits the curves from a preset's log and keeps what no single GPU's preset
# measures: other_model (scripts/fit_other_model.py, two GPU models) and concentrated (an A/B of held-out problems,
# runtime/rank.hpp). Run in a scratch directory holding a runtime/transfer_costs.json whose kept fields carry values of
# its own (factor 1.75, from 12345), on a preset log of the repository; then with no concentrated field at all, which
# must stay absent.
#
#   tests/fit_transfer_costs_keep_check.sh REPO
set -uo pipefail
repo=${1:?REPO}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/runtime"
log="$repo/bench/results/2026-12-04f-h200-preset-standard-3689e9b.log.gz"
[ -f "$log" ] || { echo "fit_transfer_costs_keep_check: no $log"; exit 1; }
fit() {
  (cd "$tmp" && python3 "$repo/scripts/fit_transfer_costs.py" "$log" --gpu G --date D --commit C --source S --write) \
    > "$tmp/fit.out" 2>&1 || { cat "$tmp/fit.out"; echo "fit_transfer_costs_keep_check: the fit failed"; exit 1; }
}
printf '{"format": 1, "other_model": {"factor": 1.5, "measured": true}, "concentrated": {"factor": 1.75, "from": 12345}, "families": {}}\n' \
  > "$tmp/runtime/transfer_costs.json"
fit
python3 - "$tmp/runtime/transfer_costs.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
ok = d.get("other_model", {}).get("factor") == 1.5 and d.get("concentrated") == {"factor": 1.75, "from": 12345} \
    and "histogram" in d.get("families", {}) and d["provenance"]["gpu"] == "G"
sys.exit(0 if ok else f"fit_transfer_costs_keep_check: kept fields lost or no refit: {json.dumps(d)[:300]}")
PY
printf '{"format": 1, "families": {}}\n' > "$tmp/runtime/transfer_costs.json"
fit
python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit('fit_transfer_costs_keep_check: a concentrated field appeared' if 'concentrated' in d else 0)" \
  "$tmp/runtime/transfer_costs.json" || exit 1
echo "fit_transfer_costs_keep_check: OK"
