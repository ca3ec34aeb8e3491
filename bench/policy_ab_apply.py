#!/usr/bin/env python3
"""Keep a policy refit's entries that its A/B does not show slower (the step after bench/policy_ab.sh).

    bench/policy_ab_apply.py BIN BEFORE_DIR AFTER_DIR AB_LOG OUT_DIR [--tolerance 0.02] [--cache FILE]

AB_LOG is policy_ab.sh's OUT/policy-ab.log: per problem the handle of the refit policy (AFTER_DIR, served through
AUTOTUNE_POLICY_DIR) as "tuned", the handle of BEFORE_DIR's as "compared", timed in the same rounds. `autotune best`
(no GPU: the policies and the H200's devices row, as bench/policy_changed.py asks) names the entry that serves each row
("policy: tuned for n=N of SHAPE"). An entry the refit changed or added, whose rows (those still served the configuration
the A/B measured) ran slower than with the old policy by more than --tolerance in geometric mean, or one of them by more
than --worst, goes back to what BEFORE_DIR holds for its problem (or is dropped when the refit added it). The lookups are
asked again until no entry moves. OUT_DIR gets <family>.json for every family of AFTER_DIR; the lines printed say
which entry went back or stayed, and why, for the closing note.
"""
import argparse
import copy
import json
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import held_out_table  # noqa: E402  (read: the A/B log's rows)
import policy_changed  # noqa: E402  (MODEL, DEVICE_ONLY)
import replay_grid  # noqa: E402  (flags_of)

SERVED = re.compile(r"policy: tuned for n=(\d+) of (\S+?/dist=[A-Za-z0-9_-]+)")


def entry_key(shape, n):
    """The policy entry's problem key of `shape` (a key ending in /dist=D) at n."""
    head, dist = shape.rsplit("/dist=", 1)
    return f"{head}/n={n}/dist={dist}"


def served_entry(autotune, cache, key, policy_dir):
    env = dict(os.environ, AUTOTUNE_POLICY_DIR=policy_dir)
    cmd = [autotune, "best", "--cache", cache, "--device-model", policy_changed.MODEL, *replay_grid.flags_of(key),
           "--json"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"policy_ab_apply: {' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()}")
    answer = json.loads(out.stdout)
    m = SERVED.search(answer.get("range", ""))
    return (entry_key(m.group(2), m.group(1)) if m else None), answer["config"]


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin")
    ap.add_argument("before_dir")
    ap.add_argument("after_dir")
    ap.add_argument("ab_log")
    ap.add_argument("out_dir")
    ap.add_argument("--tolerance", type=float, default=0.02,
                    help="an entry whose rows ran slower than before by more than this fraction in geometric mean goes "
                    "back (default 0.02)")
    ap.add_argument("--worst", type=float, default=0.10,
                    help="... or one of whose rows ran slower by more than this (default 0.10)")
    ap.add_argument("--cache", default=policy_changed.DEVICE_ONLY)
    args = ap.parse_args()
    autotune = os.path.join(args.bin, "autotune")
    rows = held_out_table.read(args.ab_log)
    slower = sum(1 for v in rows.values() if v["compared"] > 0 and v["tuned"] > v["compared"] * (1 + args.tolerance))
    print(f"policy_ab_apply: {len(rows)} A/B rows, {slower} slower than before by more than "
          f"{100 * args.tolerance:.0f} %")
    os.makedirs(args.out_dir, exist_ok=True)
    for name in os.listdir(args.after_dir):
        if name.endswith(".json"):
            shutil.copy(os.path.join(args.after_dir, name), os.path.join(args.out_dir, name))
    reverted = set()
    for _ in range(8):  # a reverted entry hands its rows to other entries: ask again
        groups = {}
        for key, v in sorted(rows.items()):
            if v["compared"] <= 0:
                continue
            entry, config = served_entry(autotune, args.cache, key, args.out_dir)
            if entry is None or config != v["config"]:
                continue  # not served by a policy entry, or no longer what the A/B measured
            groups.setdefault(entry, []).append((key, v))
        moved = False
        for entry, served in sorted(groups.items()):
            family = entry.split("/", 1)[0]
            path = os.path.join(args.out_dir, family + ".json")
            doc = load(path)
            old = {e["problem"]: e for e in load(os.path.join(args.before_dir, family + ".json"))["entries"]}
            now = [e for e in doc["entries"] if e["problem"] == entry]
            if not now or (entry in old and old[entry] == now[0]):
                continue  # an entry the refit did not change
            ratios = [v["tuned"] / v["compared"] for _, v in served]
            mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
            if mean <= 1 + args.tolerance and max(ratios) <= 1 + args.worst:
                print(f"{entry}: kept; {len(served)} A/B rows, new/old time {mean:.3f} in geometric mean, worst "
                      f"{max(ratios):.3f}")
                continue
            doc["entries"] = [copy.deepcopy(old[entry]) if e["problem"] == entry else e for e in doc["entries"]
                              if e["problem"] != entry or entry in old]
            with open(path, "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
            reverted.add(entry)
            moved = True
            print(f"{entry}: {'put back' if entry in old else 'dropped'}; {len(served)} A/B rows, new/old time "
                  f"{mean:.3f} in geometric mean, worst {max(ratios):.3f}: "
                  + "; ".join(f"{k} {v['tuned']:.2f} us against {v['compared']:.2f}" for k, v in served))
        if not moved:
            break
    print(f"policy_ab_apply: {len(reverted)} entries put back or dropped; the policies are in {args.out_dir}")


if __name__ == "__main__":
    main()
