#!/usr/bin/env python3
"""What the lookup serves each problem of a tuning log today: scripts/fit_policy.py --served's input.

    bench/policy_served.py BIN LOG --cache FILE --model KEY [--policy-dir DIR] > SERVED

For every problem LOG tuned (scripts/fit_policy.py read_log: tuning runs, not crossovers), asks BIN/autotune `best`
on FILE (a tuned cache of KEY's model, or one holding its devices row) for the configuration a handle of the problem
runs, with the build's embedded policies or DIR/<family>.json (AUTOTUNE_POLICY_DIR), and prints 'PROBLEM<TAB>CONFIG'
lines. bench/policy_new_size.sh runs it before a per-distribution fit (PER_DIST), so that a distribution's winner is
weighed against what its problem runs without the new entry rather than against a robust configuration the fit does
not write. No GPU: the lookup reads the cache and the policies only.
"""
import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "scripts"))
import fit_policy  # noqa: E402  (read_log: the problems a fit reads)
import policy_changed  # noqa: E402  (lookup: `autotune best` of a problem key)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin")
    ap.add_argument("log")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--model", required=True, help="the GPU model key to ask for (the cache holds its devices row)")
    ap.add_argument("--policy-dir", help="policies to ask instead of the build's embedded ones")
    a = ap.parse_args()
    keys = sorted(fit_policy.read_log(a.log))
    if not keys:
        sys.exit(f"policy_served: {a.log} holds no tuning")
    binary = os.path.join(a.bin, "autotune")
    for key in keys:
        print(f"{key}\t{policy_changed.lookup(binary, a.cache, key, a.policy_dir, None, a.model)}")


if __name__ == "__main__":
    main()
