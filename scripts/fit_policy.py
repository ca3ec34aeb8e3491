#!/usr/bin/env python3
"""Fits the measured default policy (kernel_templates/<family>/policy.json) from the output of
`autotune tune --preset standard` on one GPU, and says how well shapes transfer.

    scripts/fit_policy.py LOG [--gpu NAME] [--model-key KEY] [--date YYYY-MM-DD] [--commit SHA] [--write]

LOG is what `autotune tune --preset standard` printed (plain or .gz): every variant's measurement of every preset
problem. The fit, per family:
  - histograms: each preset shape at each size was tuned on uniform and narrow (skewed) samples, and a retune
    (bench/policy_retune.sh, HIST_DISTS) may add runs of equal samples or image-like ones; the policy entry is the
    configuration with the least worst-case slowdown across the distributions the log holds for that problem (the
    robust choice: an application's data is unknown, and a configuration that is fast on uniform data can be an order
    of magnitude slower on skewed data);
  - reductions: the winner at each size.
The runtime (runtime/policy.cpp) serves an untuned problem from the entry of the closest shape (the family's
shape_distance, then the nearest size) whose configuration is valid for the problem and fits the device.
Without --write it prints the entries and the transfer statistics only.

With --update, LOG holds some problems of the policy tuned again (e.g. `autotune tune --kernel reduce --op max
--type f64 --n 1M,16M` for each, after a new configuration field): their entries are replaced in place, every other
entry is kept, and the provenance lists the update (date, commit, command, data) after the original run's. A problem
of a shape the policy holds at other sizes only is added among that shape's entries (a new size). With
--add-shapes, a problem of a shape the policy does not hold yet is added too: the new shapes' entries follow the
others, by shape and size. A problem holds one entry per GPU it was measured on (an entry of another GPU than the
policy's says so: "gpu"), and the runtime serves each GPU its own entry, else the policy's GPU's
(runtime/policy.hpp, policy_shapes). By default an update's entry replaces every GPU's entry of its problem (the
variant space changed: the old measurements miss a field); with --beside only the entry measured on --gpu is
replaced, and one measured on another GPU stays (an H100's entries beside the H200's preset).
"""
import argparse
import gzip
import json
import math
import re
import sys
from collections import defaultdict

HEADER = re.compile(r"^== (\S+) \((?:(crossover)[^)]*\) \()?GPU \d+\)$")
ROW = re.compile(r"^\[\s*\d+/\d+\] (\S+) ok\s+([0-9.]+) ms")


def read_log(path):
    opener = gzip.open if path.endswith(".gz") else open
    times = defaultdict(dict)  # problem key -> config key -> ms (tuning runs only, not crossovers)
    current = None
    with opener(path, "rt") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEADER.match(line)
            if m:
                current = None if m.group(2) else m.group(1)
                continue
            if current is None:
                continue
            r = ROW.match(line)
            if r:
                ms = float(r.group(2))
                if ms > 0:
                    times[current][r.group(1)] = ms
    return times


def read_served(path):
    """--served's file: {problem key: config}. Exits naming the line that is not 'PROBLEM<TAB>CONFIG'."""
    served = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 2 or not parts[0].startswith(("histogram/", "reduce/")) or "=" not in parts[1]:
                sys.exit(f"{path}:{number}: not 'PROBLEM<TAB>CONFIG': {line.strip()[:120]}")
            served[parts[0]] = parts[1]
    return served


def field(key, name):
    m = re.search(r"(?:^|/)" + re.escape(name) + r"=([^/]*)", key)
    return m.group(1) if m else None


def with_field(key, name, value):
    return re.sub(r"(^|/)" + re.escape(name) + r"=[^/]*", lambda m: m.group(1) + name + "=" + value, key)


# The distributions besides uniform that a histogram entry is made robust over, where the log holds them.
ROBUST_OVER = ("narrow", "runs", "image")


def fit(times, per_dist=0.0, served=None):
    """Entries per family: {family: [(problem key (dist=uniform), config, worst slowdown, uniform ms)]}.

    With per_dist > 1, a histogram problem whose robust configuration runs more than per_dist times slower than the
    winner of one of its other distributions also gets that distribution's winner, keyed by it (dist=runs, say;
    slowdown 1, its time): the runtime serves it to problems of that distribution only (runtime/policy.cpp).
    `served` ({problem key: config}, --served) replaces the robust configuration in that comparison by what the lookup
    serves the problem today, where the log timed it: with --per-dist-only no robust entry is written at the log's
    size, so the robust configuration there is not what the problem would run without the new entry."""
    served = served or {}
    entries = defaultdict(list)
    for key in sorted(times):
        family = key.split("/", 1)[0]
        dist = field(key, "dist")
        if family == "histogram":
            if dist != "uniform":
                continue
            others = [times.get(with_field(key, "dist", d)) for d in ROBUST_OVER]
            runs = [times[key]] + [o for o in others if o]
            best = [min(r.values()) for r in runs]
            common = set(runs[0]).intersection(*runs[1:])
            worst = {c: max(r[c] / b for r, b in zip(runs, best)) for c in common}
            config = min(worst, key=lambda c: (worst[c], times[key][c]))
            entries[family].append((key, config, worst[config], times[key][config]))
            for d in ROBUST_OVER if per_dist > 1 else ():
                own = times.get(with_field(key, "dist", d))
                base = served.get(with_field(key, "dist", d))
                base = base if own and base in own else config
                if own and base in own and own[base] > per_dist * min(own.values()):
                    winner = min(own, key=own.get)
                    entries[family].append((with_field(key, "dist", d), winner, 1.0, own[winner]))
        else:
            config = min(times[key], key=times[key].get)
            entries[family].append((key, config, 1.0, times[key][config]))
    return entries


def shape_of(key):
    return re.sub(r"/n=\d+", "", key)


def transfer_stats(times, entries):
    """How often the nearest other shape's entry is within 5 % of a problem's own best, measured on the problem."""
    lines = []
    for family, es in entries.items():
        if family == "histogram":  # the robust entries (--per-dist adds entries of one distribution)
            es = [e for e in es if field(e[0], "dist") == "uniform"]
        within, total, worst = 0, 0, 1.0
        for key, _, _, _ in es:
            n = field(key, "n")
            own = times[key]
            best = min(own.values())
            others = [e for e in es if field(e[0], "n") == n and shape_of(e[0]) != shape_of(key)]
            if family == "histogram":
                typ = key.split("/")[1]
                others = [e for e in others if e[0].split("/")[1] == typ]
                bins = int(field(key, "bins"))
                # The histogram family's shape_distance: log2 of the bins ratio, twice when the other has more bins.
                def dist(e):
                    r = math.log2(int(field(e[0], "bins")) / bins)
                    return 2 * r if r > 0 else -r
            else:
                typ = key.split("/")[2]
                others = [e for e in others if e[0].split("/")[2] == typ]
                dist = lambda e: 0.0
            if not others:
                continue
            others = [e for e in others if e[1] in own]  # valid for this shape (the runtime checks the same)
            if not others:
                continue
            nearest = min(others, key=dist)
            ratio = own[nearest[1]] / best
            total += 1
            within += ratio <= 1.05
            worst = max(worst, ratio)
        lines.append(f"{family}: leave-one-out, the nearest other shape's valid entry (same type and size) is within "
                     f"5% of the problem's own best in {within} of {total} problems (worst {worst:.2f}x)")
    return lines


def log_arguments(doc, writes):
    """The command line of a script fitting shipped data from a preset log: the log, its provenance, --write."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--gpu", default="NVIDIA H200")
    ap.add_argument("--date", default="")
    ap.add_argument("--commit", default="")
    ap.add_argument("--source", default="", help="where the log is kept in the repository")
    ap.add_argument("--write", action="store_true", help="write " + writes)
    return ap


def update(family, es, args):
    """The family's policy.json with the entries of `es` replacing those of the same problem; None if it has none.
    With args.beside, only the problem's entry measured on args.gpu is replaced, and one measured on another GPU stays:
    the new entry is added after it (a problem holds one entry per GPU; the runtime serves the target GPU's own,
    runtime/policy.hpp policy_shapes)."""
    path = f"kernel_templates/{family}/policy.json"
    with open(path) as f:
        doc = json.load(f)
    own_gpu = doc["provenance"].get("gpu")
    gpu_of = lambda e: e.get("gpu", own_gpu)
    new = {k: (c, w, ms) for k, c, w, ms in es}
    mine = lambda e: e["problem"] in new and (not args.beside or gpu_of(e) == args.gpu)
    added = sorted(set(new) - {e["problem"] for e in doc["entries"] if mine(e)})
    unknown = [k for k in added if shape_of(k) not in {shape_of(e["problem"]) for e in doc["entries"]}]
    if unknown and not args.add_shapes:
        sys.exit(f"--update: {path} has no entry of the shape of " + ", ".join(unknown) + " (--add-shapes adds it)")
    for k in sorted(unknown, key=lambda k: (shape_of(k), int(field(k, "n")))):
        doc["entries"].append({"problem": k, "config": "", "time_ms": 0, "gpu": args.gpu})
    added = [k for k in added if k not in unknown]
    for k in added:  # a new size of a known shape (or, --beside, a new GPU's entry): among its shape's entries, by n
        same = [i for i, e in enumerate(doc["entries"]) if shape_of(e["problem"]) == shape_of(k)]
        after = [i for i in same if int(field(doc["entries"][i]["problem"], "n")) <= int(field(k, "n"))]
        doc["entries"].insert(after[-1] + 1 if after else same[0], {"problem": k, "config": "", "time_ms": 0,
                                                                     "gpu": args.gpu})
    kept, done = [], set()
    for e in doc["entries"]:
        if not mine(e):
            kept.append(e)
            continue
        if e["problem"] in done:  # without --beside, one entry replaces every GPU's entry of its problem
            print(f"  {e['problem']}: {e['config']} (measured on {gpu_of(e)}) dropped")
            continue
        done.add(e["problem"])
        c, w, ms = new[e["problem"]]
        was = f"{e['config']} ({e['time_ms']} ms)" if e["config"] else "(new)"
        print(f"  {e['problem']}: {was} -> {c} ({ms} ms)" + (f" on {args.gpu}" if args.beside else ""))
        e.update({"config": c, "worst_slowdown": round(w, 4), "time_ms": ms})
        if args.gpu != own_gpu:  # measured on another GPU than the policy's
            e["gpu"] = args.gpu
        else:
            e.pop("gpu", None)
        kept.append(e)
    doc["entries"] = kept
    doc["provenance"].setdefault("updates", []).append(
        {"date": args.date, "commit": args.commit, "gpu": args.gpu, "command": args.command, "data": args.source,
         "entries": len(new)} | ({"beside": True} if args.beside else {}))
    doc["provenance"]["data"] += "; updated from " + args.source
    return path, doc


def main():
    ap = log_arguments(__doc__, "kernel_templates/<family>/policy.json")
    ap.add_argument("--model-key", default="")
    ap.add_argument("--update", action="store_true", help="replace the entries of LOG's problems, keep the others")
    ap.add_argument("--add-shapes", action="store_true", help="with --update: also add shapes the policy lacks")
    ap.add_argument("--beside", action="store_true",
                    help="with --update: keep the entries of LOG's problems measured on other GPUs than --gpu and add "
                         "--gpu's beside them (the runtime serves each GPU its own); without it one entry replaces all")
    ap.add_argument("--command", default="", help="with --update: the commands that tuned LOG's problems")
    ap.add_argument("--per-dist", type=float, default=0.0, metavar="X",
                    help="histograms: also an entry of a distribution's own winner where the robust configuration "
                         "runs more than X times slower on it (X > 1; the runtime serves it to that distribution only)")
    ap.add_argument("--per-dist-only", action="store_true",
                    help="with --update and --per-dist: write only those entries; the policy's robust entries stay")
    ap.add_argument("--served", metavar="FILE",
                    help="with --per-dist-only: lines 'PROBLEM<TAB>CONFIG', what the lookup serves each of LOG's "
                         "problems without the new entries (bench/policy_served.py); a distribution's winner is "
                         "weighed against that configuration where LOG timed it, else against the robust one")
    args = ap.parse_args()
    if args.served and not args.per_dist_only:
        sys.exit("--served: with --per-dist-only (otherwise the robust entry at LOG's size is what the lookup serves)")
    served = read_served(args.served) if args.served else {}
    times = read_log(args.log)
    if not times:
        sys.exit(f"{args.log}: no measurements found")
    if args.per_dist and args.per_dist <= 1:
        sys.exit("--per-dist: X > 1 (a slowdown)")
    entries = fit(times, args.per_dist, served)
    stats = transfer_stats(times, entries)
    for family, es in entries.items():
        print(f"== {family}: {len(es)} entries")
        for key, config, worst, ms in es:
            print(f"  {key}  {config}  worst {worst:.2f}x  {ms:.4f} ms")
    print("\n".join(stats))
    if args.per_dist_only:
        if not (args.update and args.per_dist):
            sys.exit("--per-dist-only: with --update and --per-dist")
        entries = {f: [e for e in es if f != "histogram" or field(e[0], "dist") != "uniform"]
                   for f, es in entries.items() if f == "histogram"}
    if args.update:
        for family, es in entries.items():
            if not es:  # --per-dist-only where no distribution gained X: no update to record
                print(f"{family}: no entry to write")
                continue
            path, doc = update(family, es, args)
            if args.write:
                with open(path, "w") as f:
                    json.dump(doc, f, indent=1)
                    f.write("\n")
                print(f"wrote {path}")
        return
    if not args.write:
        return
    for family, es in entries.items():
        doc = {
            "format": 1,
            "family": family,
            "provenance": {
                "gpu": args.gpu, "model_key": args.model_key, "date": args.date, "commit": args.commit,
                "command": "autotune tune --preset standard", "data": args.source,
                "fit": ("robust: least worst-case slowdown across uniform and narrow samples (and runs or image-like ones "
                        "where a retune measured them)" if family == "histogram"
                        else "the winner of each problem"),
                "transfer": [s for s in stats if s.startswith(family + ":")],
            },
            "entries": [{"problem": k, "config": c, "worst_slowdown": round(w, 4), "time_ms": ms}
                        for k, c, w, ms in es],
        }
        path = f"kernel_templates/{family}/policy.json"
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
