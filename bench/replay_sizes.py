#!/usr/bin/env python3
"""Leave-one-out size regret of the lookup, offline, from a cache a GPU wrote (issue #26's size target).

The cache must have been tuned with this build's code (its kernel templates, NVRTC and driver): the lookup skips runs
of other code, and the script refuses to replay them (a replay would price the policy's answers instead).

A cache of `autotune tune` holds, for each tuned size of a shape (u8/256 bins and f32 sum at 64K..256M by powers of
4, ...), every variant's time at that size, and the crossover checks between adjacent sizes. For each interior tuned
size s of each shape, this script marks s and every tuned or crossover size strictly between s's two tuned
neighbours stale in a copy of the cache (what the cache would hold had s never been tuned), asks the current
`autotune best` (no GPU needed: --device-model) what a handle would run at n = s, and prices that configuration
with its own measured time at s: the regret against s's best that the GPU would show, up to the noise of one
tuning (each variant's median of at most 15 calls). The same measurement as bench/size_bench's "LOO" column, from
the tuning's data instead of new timings.

    bench/replay_sizes.py AUTOTUNE CACHE [--shape SUBSTRING ...] [--model KEY]
"""
import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay_grid import flags_of  # noqa: E402


def tuned_sizes(db):
    """{shape_key: [(n, problem_key, problem_id, is_full)]}: full tunings and crossover checks, by n."""
    out = {}
    for pid, key, shape, n, count in db.execute(
            "select p.id, p.key, p.shape_key, p.n, count(m.config) from problems p join runs r on r.problem_id = p.id "
            "join measurements m on m.run_id = r.id where r.stale = 0 and m.status = 'ok' group by p.id"):
        out.setdefault(shape, []).append((n, key, pid, count > 2))
    return {s: sorted(v) for s, v in out.items()}


def times_at(db, pid):
    return dict(db.execute("select m.config, m.median_ms from measurements m join runs r on m.run_id = r.id "
                           "where r.problem_id = ? and m.status = 'ok'", (pid,)).fetchall())


def left_out_choice(autotune, cache, model, key, pids, workdir):
    """What `autotune best` runs for `key` from a copy of `cache` with the runs of `pids` marked stale."""
    copy = os.path.join(workdir, "left_out.db")
    shutil.copyfile(cache, copy)
    db = sqlite3.connect(copy)
    db.executemany("update runs set stale = 1, stale_reason = 'left out' where problem_id = ?", [(p,) for p in pids])
    db.commit()
    db.close()
    out = subprocess.run([autotune, "best", "--cache", copy, "--device-model", model, "--json"] + flags_of(key),
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{key}: autotune best failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("autotune")
    ap.add_argument("cache")
    ap.add_argument("--shape", action="append", default=[], help="only shapes whose key holds this text")
    ap.add_argument("--model", default=None)
    args = ap.parse_args()
    db = sqlite3.connect(f"file:{args.cache}?mode=ro", uri=True)
    models = [m for (m,) in db.execute("select model_key from devices").fetchall()]
    if args.model is None and len(models) != 1:
        sys.exit(f"replay_sizes: {args.cache} holds {len(models)} GPU models; name one with --model")
    model = args.model or models[0]
    print("| shape | left out n | neighbours | source | regret % | config |\n|---|---:|---|---|---:|---|")
    summary = {}
    with tempfile.TemporaryDirectory() as workdir:
        for shape, sizes in tuned_sizes(db).items():
            if args.shape and not any(s in shape for s in args.shape):
                continue
            if not (shape.startswith("histogram/") or shape.startswith("reduce/")):
                continue  # flags_of speaks the CLI of these two families
            full = [s for s in sizes if s[3]]
            for lower, (n, key, pid, _), upper in zip(full, full[1:], full[2:]):
                between = [s[2] for s in sizes if lower[0] < s[0] < upper[0]]
                answer = left_out_choice(args.autotune, args.cache, model, key, between, workdir)
                # The lookup skips the runs left out, and runs measured with other code than this build's. Those
                # would make this a replay of other evidence than the cache's (the policy's, mostly).
                other_code = answer.get("stale_runs_skipped", 0) - len(between)
                if other_code > 0:
                    sys.exit(f"replay_sizes: {shape}: this build's lookup skips {other_code} of the cache's runs as "
                             "measured with other code (its kernel template, NVRTC or driver); it would not price the "
                             "cache's winners. Replay with the build that tuned it, or tune again.")
                times = times_at(db, pid)
                t, best = times.get(answer["config"]), min(times.values())
                regret = None if t is None else t / best - 1
                if regret is not None:
                    summary.setdefault(shape, []).append(regret)
                shown = "unpriced" if regret is None else f"{100 * regret:+.1f}"
                print(f"| `{shape}` | {n} | {lower[0]}, {upper[0]} | {answer.get('source', '?')} | {shown} | "
                      f"`{answer['config']}` |")
    print("\n| shape | sizes left out | median | worst |\n|---|---:|---:|---:|")
    for shape, regrets in summary.items():
        print(f"| `{shape}` | {len(regrets)} | {100 * statistics.median(regrets):+.1f} % | "
              f"{100 * max(regrets):+.1f} % |")


if __name__ == "__main__":
    main()
