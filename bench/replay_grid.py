#!/usr/bin/env python3
"""Replays the lookup on issue #26's untuned grid offline, without a GPU.

bench/untuned_grid.sh keeps, for each grid problem, every variant's time at the problem's n (shape_bench
--exact-cache: the exact tuning's measurements) and the cache a plain `autotune tune` wrote. This script asks the
current `autotune best` (no GPU needed: --device-model) what a handle of each grid problem would run from that cache,
and prices the answer with the measured time of that very configuration on that problem: the regret against the
problem's exact winner that the GPU would show, up to the noise of one tuning (each variant's median of at most 15
calls). A configuration the exact tuning did not time (outside the problem's space) is reported as unpriced.

    bench/replay_grid.py AUTOTUNE TUNED_DB EXACT_DB [EXACT_DB ...] [--model KEY]
"""
import argparse
import json
import re
import sqlite3
import statistics
import subprocess
import sys


def flags_of(key):
    """CLI problem flags of a histogram or reduce problem key."""
    parts = key.split("/")
    fields = dict(p.split("=", 1) for p in parts if "=" in p)
    if parts[0] == "histogram":
        lo, hi = re.match(r"\[(.*),(.*)\)", fields["range"]).groups()
        return ["--kernel", "histogram", "--type", parts[1], "--bins", fields["bins"], "--lower", lo, "--upper", hi,
                "--n", fields["n"], "--dist", fields["dist"]]
    if parts[0] == "reduce":
        return ["--kernel", "reduce", "--op", parts[1], "--type", parts[2], "--n", fields["n"]]
    raise ValueError("no flags for " + key)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("autotune")
    ap.add_argument("tuned")
    ap.add_argument("exact", nargs="+")
    ap.add_argument("--model", default=None, help="the GPU model key (default: the tuned cache's only device)")
    args = ap.parse_args()
    if args.model is None:
        models = sqlite3.connect(f"file:{args.tuned}?mode=ro", uri=True).execute("select model_key from devices")
        models = [m for (m,) in models.fetchall()]
        if len(models) != 1:
            sys.exit(f"replay_grid: {args.tuned} holds {len(models)} GPU models; name one with --model")
        args.model = models[0]

    rows = []
    for path in args.exact:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        problems = db.execute("select p.id, p.key from problems p join runs r on r.problem_id = p.id group by p.id")
        for pid, key in problems.fetchall():
            times = dict(db.execute(
                "select m.config, m.median_ms from measurements m join runs r on m.run_id = r.id "
                "where r.problem_id = ? and m.status = 'ok'", (pid,)).fetchall())
            if not times:
                continue
            out = subprocess.run([args.autotune, "best", "--cache", args.tuned, "--device-model", args.model, "--json"]
                                 + flags_of(key), capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{key}: autotune best failed: {out.stderr.strip()}", file=sys.stderr)
                continue
            answer = json.loads(out.stdout)
            config = answer["config"]
            best = min(times.values())
            t = times.get(config)
            rows.append((key, answer.get("source", "?"), config, t, best))

    print("| problem | source | regret % | config |\n|---|---|---:|---|")
    regrets = []
    for key, source, config, t, best in rows:
        regret = None if t is None else t / best - 1
        if regret is not None:
            regrets.append(regret)
        shown = "unpriced" if regret is None else f"{100 * regret:+.1f}"
        print(f"| `{key}` | {source} | {shown} | `{config}` |")
    if regrets:
        print(f"\n{len(regrets)} priced of {len(rows)}: median regret {100 * statistics.median(regrets):+.1f} %, "
              f"worst {100 * max(regrets):+.1f} %")


if __name__ == "__main__":
    main()
