#!/usr/bin/env python3
"""Fits the lookup's transfer costs (runtime/transfer_costs.json): how much slower than a problem's own best a
configuration taken from other evidence runs, per kind of evidence and distance, from leave-one-out over the output of
`autotune tune --preset standard` on one GPU, which measured EVERY variant on every preset problem.

    scripts/fit_transfer_costs.py LOG [--gpu NAME] [--date YYYY-MM-DD] [--commit SHA] [--source PATH]
                                      [--write] [--markdown FILE]

For each preset problem P (its best time: the fastest variant measured on it) and each piece of evidence the lookup
could hold instead of P's own result, the evidence's configuration is looked up among P's measurements and its
slowdown is time / best. Kinds (the ConfigSource the runtime gives them, include/autotune/resolution.hpp):
  - nearest_size:    the winner of P's shape at another tuned size (distance: doublings of n, |log2(n_P / n_Q)|);
  - similar_problem: the winner of another shape of P's family on the same GPU at any size (the family's
                     shape_distance: another bins count, another operator, ...; and the doublings of n);
  - policy:          the shipped policy's entries (fit as scripts/fit_policy.py fits them: a histogram's robust
                     configuration, a reduction's winner), by the family's policy_distance and the doublings of n; an
                     entry of P itself is served as is (the shipped policy holds it), the others are transfers;
  - fallback:        the family's built-in default configuration (the tuner's "vs default" line);
  - other_dist:      the winner of P's shape and size measured on the other input distribution (histograms: uniform
                     and narrow), a factor the runtime applies to evidence measured on another distribution.
Each curve point gets the median, the 90th percentile and the worst of its slowdowns; the runtime ranks candidates
by the 90th percentile made non-decreasing along the curve (the `predicted` column): a candidate that is usually right
but sometimes 3x slower must lose to one that is always within 5 %. Configurations P cannot run (not among its
measurements) are counted apart: the runtime adapts them, which this log cannot price.

A configuration of the same problem tuned on another GPU model (similar_device), or a policy fitted on another model,
is not in one GPU's log: scripts/fit_other_model.py measures that factor (`other_model`) from two models' logs, and a
refit here keeps it; without it the file carries an unmeasured factor, said as such.

--markdown writes the leave-one-out tables (bench/results/...-leave-one-out.md), with the size-table regret: each
tuned size that has a tuned neighbour on both sides, left out, served from one neighbour by the size table's rule.
"""
import gzip
import json
import math
import re
import statistics
import sys
from collections import defaultdict

from fit_policy import ROW, field, fit, log_arguments, read_log, shape_of, with_field

SUMMARY = re.compile(r"^(\S+) on .*: \d+ variants in ")
DEFAULT = re.compile(r"^  vs default \((\S+)\): ")
INTEGER_TYPES = {"u8", "u16", "u32", "i32", "u64", "i64"}

# Bucket upper edges (inclusive); the last bucket is open. Shape: the family's shape_distance / policy_distance
# (histogram: log2 of the bins ratio, twice when the evidence has more bins; reduce: 1 per operator or accumulator
# change). Size: doublings of n between the evidence and the problem.
SHAPE_EDGES = [0, 1, 2, 4, 8, 16]
# Size transfers between two large sizes cost far less than those involving a small one (launch-bound at 64K,
# bandwidth-bound from 1M up): the size curves are fitted apart for pairs whose smaller n is at least this.
LARGE_FROM = 1 << 20
# Not measurable from one GPU's log: evidence from another GPU model of the same architecture is taken to cost this
# much more than the same evidence measured on the problem's own model, until scripts/fit_other_model.py measured it.
OTHER_MODEL_FACTOR = 1.10


def read_defaults(path):
    """problem key -> the built-in default configuration's key, from the tuner's "vs default (CONFIG)" lines."""
    opener = gzip.open if path.endswith(".gz") else open
    out, current = {}, None
    with opener(path, "rt") as f:
        for line in f:
            m = SUMMARY.match(line)
            if m:
                current = m.group(1)
                continue
            d = DEFAULT.match(line)
            if d and current:
                out[current] = d.group(1)
    return out


def family_of(key):
    return key.split("/", 1)[0]


def hist_parts(key):
    lo, hi = re.match(r"\[([^,]+),([^)]+)\)", field(key, "range")).groups()
    return key.split("/")[1], int(field(key, "bins")), float(lo), float(hi), field(key, "dist")


def bins_term(wanted_bins, tuned_bins):
    more = math.log2(tuned_bins / wanted_bins)
    return 2 * more if more > 0 else -more


def shape_distance(wanted, tuned):
    """kernel_templates/<family>/family.cpp's shape_distance, for the two families of the preset."""
    if family_of(wanted) != family_of(tuned):
        return None
    if family_of(wanted) == "histogram":
        ta, ba, la, ua, da = hist_parts(wanted)
        tb, bb, lb, ub, db = hist_parts(tuned)
        if ta != tb or da != db:
            return None
        d = bins_term(ba, bb)
        if ta in INTEGER_TYPES:
            d += abs(math.log2(((ua - la) / ba) / ((ub - lb) / bb)))
        return d
    opa, ta, acca = wanted.split("/")[1:4]
    opb, tb, accb = tuned.split("/")[1:4]
    if ta != tb or field(wanted, "dist") != field(tuned, "dist"):
        return None
    return (0.0 if opa == opb else 1.0) + (0.0 if acca == accb else 1.0)


def policy_distance(wanted, tuned):
    """The family's policy_distance: the histogram's also prices another sample type (reduce: shape_distance)."""
    d = shape_distance(wanted, tuned)
    if d is not None or family_of(wanted) != "histogram" or family_of(tuned) != "histogram":
        return d
    ta, ba, _, _, da = hist_parts(wanted)
    tb, bb, _, _, db = hist_parts(tuned)
    if da != db:
        return None
    return (4.0 if ta == tb else 8.0) + bins_term(ba, bb)


def doublings(a, b):
    return abs(math.log2((int(a) + 1) / (int(b) + 1)))


def bucket(value, edges):
    """Index of the first edge >= value (tolerance for the float log), len(edges) for the open bucket."""
    for i, e in enumerate(edges):
        if value <= e + 1e-9:
            return i
    return len(edges)


def quantile(xs, q):
    xs = sorted(xs)
    if len(xs) == 1:
        return xs[0]
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def observations(times, defaults):
    """Every leave-one-out slowdown: (family, kind, shape distance, signed doublings of n, the problem's n) ->
    [slowdown]; an evidence configuration the problem cannot run is recorded as None. Signed doublings: > 0 when the
    evidence was measured at a larger n than the problem's."""
    obs = defaultdict(list)
    winners = {k: min(v, key=v.get) for k, v in times.items()}
    policy = [(key, config) for es in fit(times).values() for key, config, _, _ in es]
    for p, own in sorted(times.items()):
        family, best, n = family_of(p), min(own.values()), int(field(p, "n"))

        def add(kind, shape_d, evidence_n, config):
            size = math.log2((int(evidence_n) + 1) / (n + 1))
            obs[(family, kind, round(shape_d, 6), round(size, 6), n)].append(own[config] / best if config in own else None)

        for q, config in winners.items():
            if q == p:
                continue
            if shape_of(q) == shape_of(p):
                add("nearest_size", 0.0, field(q, "n"), config)
            elif field(q, "n") == str(n) and shape_of(with_field(q, "dist", field(p, "dist"))) == shape_of(p):
                add("other_dist", 0.0, n, config)
            else:
                d = shape_distance(p, q)
                if d is not None:
                    add("similar_problem", d, field(q, "n"), config)
        for key, config in policy:
            d = policy_distance(p, with_field(key, "dist", field(p, "dist")))
            if d is not None:
                add("policy", d, field(key, "n"), config)
        if p in defaults:
            add("fallback", 0.0, n, defaults[p])
    return obs


def stats(xs):
    runnable = [x for x in xs if x is not None]
    out = {"count": len(runnable), "not_runnable": len(xs) - len(runnable)}
    if runnable:
        p90 = round(quantile(runnable, 0.9), 4)
        out.update(median=round(statistics.median(runnable), 4), p90=p90, worst=round(max(runnable), 4), predicted=p90)
    return out


def points(groups):
    """{bucket: [(distance, slowdown)]} -> curve points [{at: mean distance, p90, median, worst, count, predicted}],
    ascending. `predicted` is the p90 made non-decreasing along the curve: farther evidence never predicts less than
    nearer evidence of the same kind (raw buckets can dip where they mix unlike transfers: the histogram policy's
    8..16 bucket is mostly another sample type at the same bins, a mild change)."""
    out, floor = [], 1.0
    for _, pairs in sorted(groups.items()):
        st = stats([x for _, x in pairs])
        if not st["count"]:
            continue
        at = statistics.mean(d for d, x in pairs if x is not None)
        floor = max(floor, st["p90"])
        out.append({"at": round(at, 4), **st, "predicted": floor})
    return out


def curves(obs):
    """The fitted table, per family: the size curves (nearest_size, by direction), the shape curves of
    similar_problem and policy at the problem's own n, the fallback and the distribution factors."""
    fams = {}
    for family in sorted({k[0] for k in obs}):
        size = {k: defaultdict(list) for k in ("from_larger", "from_smaller", "large_from_larger", "large_from_smaller")}
        shape = {"similar_problem": defaultdict(list), "policy": defaultdict(list)}
        flat = defaultdict(list)
        for (fam, kind, d, z, n), xs in obs.items():
            if fam != family:
                continue
            if kind == "nearest_size":
                large = "large_" if min(n, n * 2 ** z) >= LARGE_FROM * 0.999 else ""
                size[large + ("from_larger" if z > 0 else "from_smaller")][round(abs(z))] += [(abs(z), x) for x in xs]
            elif kind in shape and abs(z) < 1e-6 and d > 0:
                shape[kind][bucket(d, SHAPE_EDGES)] += [(d, x) for x in xs]
            elif kind in ("fallback", "other_dist") or (kind == "policy" and d == 0 and abs(z) < 1e-6):
                flat["policy_own" if kind == "policy" else kind] += xs
        fams[family] = {"size": {**{k: points(v) for k, v in size.items()}, "large_from": LARGE_FROM},
                        "shape": {k: points(v) for k, v in shape.items()},
                        **{k: stats(v) for k, v in flat.items()}}
    return fams


def interpolate(pts, x):
    """The runtime's curve (runtime/rank.cpp): 1 at distance 0, linear between the measured points, flat after the
    last."""
    prev_at, prev = 0.0, 1.0
    for pt in pts:
        if x <= pt["at"]:
            return prev + (pt["predicted"] - prev) * (x - prev_at) / (pt["at"] - prev_at)
        prev_at, prev = pt["at"], pt["predicted"]
    return prev


def ranked_side(table, family, a, n, b):
    """Which tuned neighbour the ranking serves n from: 'lower' (a) or 'upper' (b), by the fitted size curves; a tie
    goes to the lower (the nearer in doublings wins ties in the runtime only when the costs are equal)."""
    size = table[family]["size"]

    def curve(direction, other):
        large = size["large_" + direction]
        return large if min(n, other) >= size["large_from"] and large else size[direction]
    lower = interpolate(curve("from_smaller", a), doublings(n, a))
    upper = interpolate(curve("from_larger", b), doublings(n, b))
    return "upper" if upper < lower else "lower"


def size_regret(times):
    """Leave-one-out of the size table: each tuned size with tuned neighbours a < n < b, served from a or b."""
    by_shape = defaultdict(dict)
    winners = {k: min(v, key=v.get) for k, v in times.items()}
    for k in times:
        by_shape[shape_of(k)][int(field(k, "n"))] = k
    out = []
    for shape, sizes in sorted(by_shape.items()):
        ns = sorted(sizes)
        for i in range(1, len(ns) - 1):
            a, n, b = ns[i - 1], ns[i], ns[i + 1]
            own = times[sizes[n]]
            best = min(own.values())
            lower = own.get(winners[sizes[a]])
            upper = own.get(winners[sizes[b]])
            out.append((shape, a, n, b, lower and lower / best, upper and upper / best))
    return out


CROSSOVER = re.compile(r"^== (\S+) \(crossover of n=(\w+) and n=(\w+): (\S+) vs (\S+)\) \(GPU \d+\)$")


def read_crossovers(path):
    """The tuner's crossover runs: at the geometric mean of two tuned sizes, the time of each one's winner.
    [(problem key, a, b, time of a's winner, time of b's winner)]."""
    opener = gzip.open if path.endswith(".gz") else open
    out, current = [], None
    unit = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    size = lambda t: int(t[:-1]) * unit[t[-1]] if t[-1] in unit else int(t)
    with opener(path, "rt") as f:
        for line in f:
            m = CROSSOVER.match(line.rstrip("\n"))
            if m:
                current = [m.group(1), size(m.group(2)), size(m.group(3)), m.group(4), m.group(5), {}]
                out.append(current)
                continue
            if line.startswith("== "):
                current = None
                continue
            r = ROW.match(line) if current else None
            if r:
                current[5][r.group(1)] = float(r.group(2))
    return [(k, a, b, t[ca], t[cb]) for k, a, b, ca, cb, t in out if ca in t and cb in t]


def summary(xs):
    return f"{100 * (statistics.median(xs) - 1):+.1f} %", f"{100 * (max(xs) - 1):+.1f} %", len(xs)


def point_rows(family, kind, pts):
    return [f"| {family} | {kind} | {pt['at']:g} | {pt['count']} | {pt['median']:.3f} | {pt['p90']:.3f} | "
            f"{pt['predicted']:.3f} | {pt['worst']:.3f} | {pt['not_runnable']} |" for pt in pts]


def markdown(args, table, regrets, crossovers):
    lines = [f"# Leave-one-out transfer costs: {args.gpu}, `autotune tune --preset standard`", "",
             f"Data: {args.source or args.log} (every variant measured on every preset problem: histograms of 11 "
             "shapes on uniform and narrow samples at 64K, 1M, 16M; sum/min/max of 6 types at 64K, 1M, 16M, 256M). "
             "Written by scripts/fit_transfer_costs.py; the lookup ranks candidates by the `predicted` column (the p90, "
             "made non-decreasing along each curve), read from runtime/transfer_costs.json (runtime/rank.cpp).", "",
             "Slowdown = the evidence's configuration's time on the problem / the problem's best time. `at`: the mean "
             "distance of the point's observations (size curves: doublings of n between the evidence and the problem; "
             "shape curves: the family's shape_distance, for policy its policy_distance, at the problem's own n). "
             "`not runnable`: evidence whose configuration is not among the problem's measured variants (the runtime "
             "adapts or runs it; this log cannot price it). The runtime predicts 1 at distance 0, interpolates "
             "linearly between the points and stays flat after the last; a candidate's prediction is the product of "
             "its shape, size, distribution and GPU-model factors.", "",
             "| family | curve | at | count | median | p90 | predicted | worst | not runnable |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for family, t in table.items():
        for direction, pts in t["size"].items():
            if direction != "large_from":
                band = "both n >= 1M" if direction.startswith("large_") else "the smaller n < 1M"
                lines += point_rows(family, f"nearest size, evidence {direction.replace('large_', '').replace('_', ' ')}"
                                            f" n ({band})", pts)
        for kind, pts in t["shape"].items():
            lines += point_rows(family, f"{kind} (shape)", pts)
        for name in ("fallback", "other_dist", "policy_own"):
            if name in t and t[name]["count"]:
                lines += point_rows(family, {"fallback": "fallback (built-in default)",
                                             "other_dist": "winner measured on the other distribution",
                                             "policy_own": "the policy's entry of the problem itself"}[name],
                                    [{"at": 0, **t[name]}])
    lines += ["", f"Not measured by one GPU's log: evidence from another GPU model (similar_device; on a GPU other than "
              f"this log's, the shipped policy and the built-in default's measured cost) is priced "
              f"{OTHER_MODEL_FACTOR}x the same evidence from the GPU itself (a prior, not a measurement).", "",
              "## Size table: leave-one-out regret", "",
              "Each tuned size n with tuned neighbours a < n < b (16x apart), left out and served from one neighbour's "
              "winner; slowdown against n's own best. Before: the geometric-mean switch (n = sqrt(ab) goes to a). "
              "After: the ranked choice (the neighbour whose size curve above predicts less: histogram winners carry "
              "down in n better than up, reduction winners up better than down). Only problems where both neighbours' "
              "winners are among n's measured variants. The ranked rule's curves are fitted on these same pairs "
              "(in-sample); the crossover runs below are out of sample.", "",
              "| family | rule | problems | median | worst |", "|---|---|---:|---:|---:|"]
    for family in table:
        fr = [r for r in regrets if family_of(r[0]) == family and r[4] is not None and r[5] is not None]
        if not fr:
            continue
        before = [lo for _, _, _, _, lo, _ in fr]
        after = [(lo, up)[ranked_side(table, family, a, n, b) == "upper"] for _, a, n, b, lo, up in fr]
        oracle = [min(lo, up) for _, _, _, _, lo, up in fr]
        for name, xs in (("before: geometric mean", before), ("after: ranked", after), ("oracle", oracle)):
            lines.append(f"| {family} | {name} | " + " | ".join(map(str, summary(xs)[2:] + summary(xs)[:2])) + " |")
    lines += ["", "Crossover runs (the tuner's check at the geometric mean m of two tuned sizes a < b, timing both "
              "winners at m): the slowdown of the rule's choice against the faster of the two.", "",
              "| family | rule | runs | median | worst |", "|---|---|---:|---:|---:|"]
    for family in table:
        fc = [c for c in crossovers if family_of(c[0]) == family]
        if not fc:
            continue
        before, after = [], []
        for key, a, b, ta, tb in fc:
            best = min(ta, tb)
            before.append(ta / best)  # the geometric mean itself goes to a: (m+1)^2 < (a+1)(b+1)
            side = ranked_side(table, family, a, int(field(key, "n")), b)
            after.append((tb if side == "upper" else ta) / best)
        for name, xs in (("before: geometric mean", before), ("after: ranked", after)):
            lines.append(f"| {family} | {name} | " + " | ".join(map(str, summary(xs)[2:] + summary(xs)[:2])) + " |")
    lines += ["", "Per problem (lower = a's winner on n, upper = b's winner on n):", "",
              "| shape | a | n | b | lower | upper |", "|---|---:|---:|---:|---:|---:|"]
    for shape, a, n, b, lo, up in regrets:
        f = lambda x: "not runnable" if x is None else f"{x:.3f}"
        lines.append(f"| {shape} | {a} | {n} | {b} | {f(lo)} | {f(up)} |")
    return "\n".join(lines) + "\n"


def main():
    ap = log_arguments(__doc__, "runtime/transfer_costs.json")
    ap.add_argument("--markdown", default="", help="write the leave-one-out tables to this file")
    args = ap.parse_args()
    times = read_log(args.log)
    if not times:
        sys.exit(f"{args.log}: no measurements found")
    table = curves(observations(times, read_defaults(args.log)))
    print(json.dumps(table, indent=1))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(args, table, size_regret(times), read_crossovers(args.log)))
        print(f"wrote {args.markdown}")
    if not args.write:
        return
    # other_model is measured across two GPU models by scripts/fit_other_model.py: a refit of one GPU's log keeps it.
    # So is concentrated, measured by an A/B of held-out problems (runtime/rank.hpp).
    other_model = {"factor": OTHER_MODEL_FACTOR, "measured": False}
    concentrated = None
    try:
        with open("runtime/transfer_costs.json") as f:
            shipped = json.load(f)
        if shipped.get("other_model", {}).get("measured"):
            other_model = shipped["other_model"]
        concentrated = shipped.get("concentrated")
    except (OSError, ValueError, AttributeError):
        pass
    doc = {
        "format": 1,
        "provenance": {"gpu": args.gpu, "date": args.date, "commit": args.commit,
                       "command": "autotune tune --preset standard", "data": args.source,
                       "fit": "leave-one-out slowdowns (scripts/fit_transfer_costs.py); the runtime reads `predicted`: "
                              "the p90, non-decreasing along each curve"},
        "other_model": other_model,
        **({"concentrated": concentrated} if concentrated else {}),
        # Families without preset data are priced with the histogram's table, the costlier of the two measured.
        "default_family": "histogram",
        "families": table,
    }
    with open("runtime/transfer_costs.json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote runtime/transfer_costs.json")


if __name__ == "__main__":
    main()
