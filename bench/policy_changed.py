#!/usr/bin/env python3
"""The held-out problems whose lookup a policy change moves: the CPU pre-screen before bench/policy_ab.sh.

    bench/policy_changed.py BIN BEFORE_DIR [--after AFTER_DIR] [--seeds 20261204,777,4242] [--rows 100] [--out KEYS]
                            [--device I | --cache FILE [--model KEY]]
    bench/policy_changed.py BIN --before-bin OLD_BIN [...]
    bench/policy_changed.py BIN --before-cache FILE --cache FILE [--model KEY] [...]

For every problem of the held-out grids (`shape_bench --held-out ROWS --seed S --list`, bench/held_out.hpp), asks
`autotune best` on a cache without winners for the H200's model what a handle runs: by default the cache
bench/results/2026-12-05c-data/h200-device-only.db, which holds nothing but the H200's devices row (recorded by a tune
on it), so that its limits rule configurations out as a handle's lookup on it does (--cache FILE: another such cache;
--device I: this machine's GPU I, on an empty cache), once with the build's embedded policies and
once with BEFORE_DIR/<family>.json in their place (AUTOTUNE_POLICY_DIR, runtime/policy.hpp), and prints the problems
whose configuration differs (both configurations). --after AFTER_DIR takes the "after" policies from AFTER_DIR instead
of the build (a policy refitted since the binaries were built). --before-bin OLD_BIN asks OLD_BIN/autotune (its own
embedded policies) for "before" instead: a change of the lookup's code, not of a policy. --before-cache FILE asks the
"before" lookups of FILE instead of --cache's: what adding tuning data moves (the plain cache before, the same cache
with `autotune tune --preset standard` added after; bench/untuned_check.sh preset times such rows). --model KEY asks for another
GPU model than the H200's (with --cache: a cache that holds that model's devices row, e.g. a tuned cache of it).
KEYS_FILE gets the keys alone, one a line: bench/policy_ab.sh's input. No GPU: the lookup only reads the cache and the
policies.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay_grid  # noqa: E402  (flags_of: a problem key as `autotune` flags)

MODEL = "NVIDIA H200|sm_90|132SM|143155MiB"
DEVICE_ONLY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "2026-12-05c-data",
                           "h200-device-only.db")


def lookup(binary, cache, key, policy_dir, device, model=MODEL):
    env = dict(os.environ)
    env.pop("AUTOTUNE_POLICY_DIR", None)
    if policy_dir:
        env["AUTOTUNE_POLICY_DIR"] = policy_dir
    target = ["--device", str(device)] if device is not None else ["--device-model", model]
    cmd = [binary, "best", "--cache", cache, *target, *replay_grid.flags_of(key), "--json"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"policy_changed: {' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()}")
    return json.loads(out.stdout)["config"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin")
    ap.add_argument("before_dir", nargs="?")
    ap.add_argument("--before-bin", help="binaries before the change (their embedded policies), instead of BEFORE_DIR")
    ap.add_argument("--before-cache", help="the cache the \"before\" lookups read (default: --cache's)")
    ap.add_argument("--model", default=MODEL, help="the GPU model key to ask for (default: the H200's)")
    ap.add_argument("--seeds", default="20261204,777,4242")
    ap.add_argument("--rows", type=int, default=100)
    ap.add_argument("--after", help="the policies after the change (default: the build's embedded ones)")
    ap.add_argument("--out")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--device", type=int, help="this machine's GPU I instead of the H200's model key")
    where.add_argument("--cache", help="a cache without winners that holds the model's devices row (default: "
                       "the H200's, " + DEVICE_ONLY + ")")
    args = ap.parse_args()
    if args.before_dir is not None and args.before_bin is not None:
        sys.exit("policy_changed: give either BEFORE_DIR or --before-bin OLD_BIN, not both")
    if args.before_dir is None and args.before_bin is None and args.before_cache is None:
        sys.exit("policy_changed: give BEFORE_DIR, --before-bin OLD_BIN or --before-cache FILE")
    if args.before_cache is not None and (args.cache is None or not os.path.isfile(args.before_cache)):
        sys.exit("policy_changed: --before-cache needs an existing FILE and --cache for the \"after\" lookups")
    for d in (args.before_dir, args.after, args.before_bin):
        if d is not None and not os.path.isdir(d):
            sys.exit(f"policy_changed: {d} is not a directory")
    autotune = os.path.join(args.bin, "autotune")
    keys = []
    for seed in args.seeds.split(","):
        listed = subprocess.run([os.path.join(args.bin, "shape_bench"), "--held-out", str(args.rows), "--seed", seed,
                                 "--list"], capture_output=True, text=True, check=True)
        keys += [k for k in listed.stdout.split() if k.startswith(("histogram/", "reduce/"))]
    changed = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache or DEVICE_ONLY
        if args.device is not None:  # the GPU's own limits: an empty cache
            cache = os.path.join(tmp, "empty.db")
            subprocess.run([autotune, "gc", "--cache", cache], check=True, capture_output=True)
        elif not os.path.isfile(cache):
            sys.exit(f"policy_changed: no cache file {cache}")
        for key in keys:
            after = lookup(autotune, cache, key, args.after, args.device, args.model)
            old = os.path.join(args.before_bin, "autotune") if args.before_bin else autotune
            before = lookup(old, args.before_cache or cache, key, args.before_dir, args.device, args.model)
            if after != before:
                changed.append(key)
                print(f"{key}\n  before: {before}\n  after:  {after}")
    print(f"{len(changed)} of {len(keys)} held-out lookups change")
    if args.out:
        with open(args.out, "w") as f:
            f.writelines(k + "\n" for k in changed)


if __name__ == "__main__":
    main()
