#!/usr/bin/env python3
"""Measures what evidence from another GPU model costs (runtime/transfer_costs.json's `other_model`): the same
problems tuned on two models, every variant timed on each (tuning logs of `autotune tune`), and each model's winner
timed on the other model. Its slowdown there (time / that model's fastest) is the cost of serving one model's winner
on the other. Logs of the same model tuned twice give the baseline: what a winner costs on another run of its own
model (noise and the winner's curse), which no factor should go below.

    scripts/fit_other_model.py --a LOG [LOG ...] --b LOG [LOG ...] [--same LOG LOG ...] [--markdown FILE]
                               [--write runtime/transfer_costs.json]

--a and --b: logs of models A and B (a problem in several logs of one side: the first log that holds it wins).
--same: pairs of logs of one model (LOG1 LOG2 LOG3 LOG4 ...: 1 against 2, 3 against 4). --write sets other_model's
factor to the 90th percentile of both directions' slowdowns, pooled, as the size and shape curves use
(scripts/fit_transfer_costs.py), with the counts, the median, the worst and the logs it came from.
"""
import argparse
import json
import os
import sys

from fit_policy import read_log
from fit_transfer_costs import quantile


def side(paths):
    """problem key -> (log, config -> ms): the first log of `paths` holding the problem; problems of fewer than 20
    timed variants (a crossover check, not a tuning) are left out."""
    out = {}
    for p in paths:
        for key, times in read_log(p).items():
            if len(times) >= 20 and key not in out:
                out[key] = (p, times)
    return out


def transfers(src, dst):
    """(problem, slowdown on dst of src's winner) for the problems both hold where dst timed src's winner; and the
    count of problems where it did not (another code's space)."""
    rows, unpriced = [], 0
    for key in sorted(set(src) & set(dst)):
        a, b = src[key][1], dst[key][1]
        winner = min(a, key=a.get)
        if winner in b:
            rows.append((key, b[winner] / min(b.values()), winner))
        else:
            unpriced += 1
    return rows, unpriced


def stats(xs):
    return {"count": len(xs), "median": round(quantile(xs, 0.5), 4), "p90": round(quantile(xs, 0.9), 4),
            "worst": round(max(xs), 4)}


def gpu_of(path):
    with (__import__("gzip").open if path.endswith(".gz") else open)(path, "rt") as f:
        head = f.readline()
    return head.split("(")[1].split(",")[0] if "(" in head and "GPU 0" in head else os.path.basename(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", nargs="+", required=True)
    ap.add_argument("--b", nargs="+", required=True)
    ap.add_argument("--same", nargs="*", default=[])
    ap.add_argument("--markdown")
    ap.add_argument("--write")
    args = ap.parse_args()
    if len(args.same) % 2:
        sys.exit("fit_other_model: --same takes pairs of logs")
    a, b = side(args.a), side(args.b)
    ab, ab_unpriced = transfers(a, b)
    ba, ba_unpriced = transfers(b, a)
    if not ab or not ba:
        sys.exit("fit_other_model: the two sides share no problem whose winner the other side timed")
    pooled = [x for _, x, _ in ab] + [x for _, x, _ in ba]
    summary = {"a_on_b": stats([x for _, x, _ in ab]), "b_on_a": stats([x for _, x, _ in ba]), "pooled": stats(pooled)}
    same = []
    for i in range(0, len(args.same), 2):
        l1, l2 = side([args.same[i]]), side([args.same[i + 1]])
        r12, _ = transfers(l1, l2)
        r21, _ = transfers(l2, l1)
        xs = [x for _, x, _ in r12 + r21]
        if xs:
            same.append((os.path.basename(args.same[i]), os.path.basename(args.same[i + 1]), stats(xs)))
    lines = [f"A: {', '.join(os.path.basename(p) for p in args.a)}", f"B: {', '.join(os.path.basename(p) for p in args.b)}",
             "", "| winner of | served on | problems priced | unpriced | median | p90 | worst |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for name, s, unpriced in (("A", summary["a_on_b"], ab_unpriced), ("B", summary["b_on_a"], ba_unpriced)):
        other = "B" if name == "A" else "A"
        lines.append(f"| {name} | {other} | {s['count']} | {unpriced} | {s['median']:.3f} | {s['p90']:.3f} | "
                     f"{s['worst']:.3f} |")
    p = summary["pooled"]
    lines.append(f"| both | the other | {p['count']} | {ab_unpriced + ba_unpriced} | {p['median']:.3f} | "
                 f"{p['p90']:.3f} | {p['worst']:.3f} |")
    for l1, l2, s in same:
        lines.append(f"| one run ({l1}) | another run of the same model ({l2}) | {s['count']} | - | {s['median']:.3f} | "
                     f"{s['p90']:.3f} | {s['worst']:.3f} |")
    lines += ["", "The slowest transfers:", "", "| problem | winner of | slowdown on the other | configuration |",
              "|---|---|---:|---|"]
    worst = sorted([(x, "A", k, c) for k, x, c in ab] + [(x, "B", k, c) for k, x, c in ba], reverse=True)[:10]
    lines += [f"| `{k}` | {w} | {x:.3f} | `{c}` |" for x, w, k, c in worst]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.write:
        with open(args.write) as f:
            doc = json.load(f)
        doc["other_model"] = {
            "factor": p["p90"], "measured": True, "count": p["count"], "median": p["median"], "p90": p["p90"],
            "worst": p["worst"], "a_on_b": summary["a_on_b"], "b_on_a": summary["b_on_a"],
            "logs": {"a": [os.path.basename(x) for x in args.a], "b": [os.path.basename(x) for x in args.b]},
            "same_model": [{"logs": [l1, l2], **s} for l1, l2, s in same],
            "fit": "scripts/fit_other_model.py: each model's winner timed on the other model, both directions "
                   "pooled; the 90th percentile"}
        with open(args.write, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
