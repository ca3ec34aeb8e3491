#!/usr/bin/env python3
"""Replays the lookup on issue #26's untuned grid offline, without a GPU.

bench/untuned_grid.sh keeps, for each grid problem, every variant's time at the problem's n (shape_bench
--exact-cache: the exact tuning's measurements) and the cache a plain `autotune tune` wrote. This script asks the
current `autotune best` (no GPU needed: --device-model) what a handle of each grid problem would run from that cache
(which must have been tuned with this build's code: the lookup skips other code's runs, and the script refuses),
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


def probe_stale_code(autotune, tuned, model):
    """Exits when this build's lookup skips the tuned cache's runs as measured with other code: asked for one of the
    cache's own problems, it would report them skipped. A replay would then price other evidence (the policy's)."""
    db = sqlite3.connect(f"file:{tuned}?mode=ro", uri=True)
    row = db.execute("select p.key from winners w join problems p on p.id = w.problem_id join runs r on r.id = w.run_id "
                     "where r.stale = 0 and p.family in ('histogram', 'reduce') order by p.id limit 1").fetchone()
    if row is None:
        return
    out = subprocess.run([autotune, "best", "--cache", tuned, "--device-model", model, "--json"] + flags_of(row[0]),
                         capture_output=True, text=True)
    skipped = json.loads(out.stdout).get("stale_runs_skipped", 0) if out.returncode == 0 else 0
    if skipped > 0:
        sys.exit(f"replay_grid: this build's lookup skips {skipped} run(s) of {row[0]} in {tuned} as measured with "
                 "other code (kernel template, NVRTC or driver): a replay would not price that cache's winners. "
                 "Replay with the build that tuned it, or tune again.")


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

    probe_stale_code(args.autotune, args.tuned, args.model)
    rows = []
    stale = 0  # answers whose lookup skipped runs of the tuned cache: measured with other code than this build's
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
            stale += answer.get("stale_runs_skipped", 0) > 0
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
    if stale:
        print(f"\nreplay_grid: {stale} of {len(rows)} answers skipped runs of {args.tuned} measured with other code "
              "than this build's: they price other evidence than that cache's", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
