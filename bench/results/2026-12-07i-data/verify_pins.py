"""Each pinned key: the shipped binary with the pinned policy dir serves what the rule's build serves, and the shipped
binary alone serves something else. From the repository root, with AUTOTUNE_EXP_OWN_RULE=1.25
AUTOTUNE_EXP_OWN_RULE_FROM=1048576 in the environment (own-rule.patch reads them; the shipped binary ignores them):
    verify_pins.py OLD_BIN RULE_BIN KEYS PIN_DIR CACHE MODEL
PIN_DIR/histogram.json: kernel_templates/histogram/policy.json with rule-pins-<gpu>.json's entries added (rule-ab.sh
writes it so)."""
import os, sys
sys.path.insert(0, 'bench'); import policy_changed as pc
old, rule, keys, pin, cache, model = sys.argv[1:7]
bad = same = 0
keys = [k.strip() for k in open(keys) if k.strip()]
for k in keys:
    a = pc.lookup(os.path.join(old, 'autotune'), cache, k, None, None, model)
    b = pc.lookup(os.path.join(rule, 'autotune'), cache, k, None, None, model)
    p = pc.lookup(os.path.join(old, 'autotune'), cache, k, pin, None, model)
    if p != b: bad += 1; print('PIN MISMATCH', k, p, b)
    if a == b: same += 1; print('NOT MOVED', k)
print(f"verify_pins: {len(keys)} keys, {bad} pinned lookups differ from the rule's, {same} not moved")
