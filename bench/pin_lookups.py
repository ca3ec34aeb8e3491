#!/usr/bin/env python3
"""The "before" side of a lookup code change's A/B on the GPU: policy files that make today's binaries serve what
older binaries served.

    bench/pin_lookups.py OLD_BIN KEYS_FILE OUT_DIR [--cache FILE] [--model KEY]

For each problem key of KEYS_FILE (bench/policy_changed.py --before-bin ... --out KEYS_FILE: the held-out lookups a
code change moves), asks OLD_BIN/autotune (its own embedded policies) what a handle runs on the H200's model (the
device-only cache bench/policy_changed.py uses by default), and writes OUT_DIR/<family>.json: this tree's
kernel_templates/<family>/policy.json with one more entry per key, the problem itself at its n with that
configuration. A policy entry of the problem's own shape and size ranks first (runtime/rank.hpp: distance 0, the
problem's n) and is served as it is, so `bench/policy_ab.sh BIN OUT OUT_DIR KEYS_FILE` times the new lookup against
the old one, each handle checked against the CPU reference, with CUB, in the same rounds. A key whose old
configuration the lookup of today would not serve from such an entry (bench/policy_changed.py BIN OUT_DIR shows any)
is reported by that check, not here. No GPU.
"""
import argparse
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import policy_changed  # noqa: E402  (lookup, MODEL, DEVICE_ONLY)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old_bin")
    ap.add_argument("keys")
    ap.add_argument("out_dir")
    ap.add_argument("--cache", default=policy_changed.DEVICE_ONLY)
    ap.add_argument("--model", default=policy_changed.MODEL)
    args = ap.parse_args()
    autotune = os.path.join(args.old_bin, "autotune")
    if not os.access(autotune, os.X_OK):
        sys.exit(f"pin_lookups: no executable {autotune}")
    keys = [k.strip() for k in open(args.keys) if k.strip()]
    if not keys:
        sys.exit(f"pin_lookups: no key in {args.keys}")
    pinned = defaultdict(list)
    for key in keys:
        config = policy_changed.lookup(autotune, args.cache, key, None, None, args.model)
        pinned[key.split("/")[0]].append({"problem": key, "config": config,
                                          "pinned": "the lookup of " + os.path.basename(os.path.normpath(args.old_bin))})
    os.makedirs(args.out_dir, exist_ok=True)
    for family, entries in pinned.items():
        path = os.path.join(ROOT, "kernel_templates", family, "policy.json")
        doc = json.load(open(path))
        doc["entries"] += entries
        with open(os.path.join(args.out_dir, family + ".json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"pin_lookups: {len(entries)} {family} lookups pinned in {args.out_dir}/{family}.json")


if __name__ == "__main__":
    main()
