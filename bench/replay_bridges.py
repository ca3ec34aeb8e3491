#!/usr/bin/env python3
"""Prices a crossover's candidates offline, from a cache whose sizes were tuned with every variant measured.

For each shape with three or more exhaustively tuned sizes, each interior size s (between its neighbours lo and hi)
is treated as the crossover of lo and hi: the candidates are lo's and hi's winners, then the first K bridges
(tuner/ladder.hpp, bridge_candidates: measured at both neighbours, by the sum of their log slowdowns there, the two
winners left out). The crossover records the fastest candidate at s, so its regret is the fastest candidate's time
at s over the fastest variant's at s, both from s's own run. Prints the regrets for K = 0, 1, 2, 4.

    bench/replay_bridges.py CACHE.db [--rows]

CACHE.db: e.g. `xz -dk bench/results/2026-12-03d-data/preset-measurements.db.xz` (the standard preset on an H200,
cubins removed).
"""
import math
import sqlite3
import statistics
import sys


def runs_by_shape(db):
    data = {}
    q = """SELECT p.shape_key, p.n, m.config, m.median_ms FROM runs r JOIN problems p ON p.id = r.problem_id
           JOIN measurements m ON m.run_id = r.id
           WHERE r.strategy = 'exhaustive' AND r.stale = 0 AND m.status = 'ok' AND m.median_ms > 0"""
    for shape, n, config, ms in db.execute(q):
        times = data.setdefault(shape, {}).setdefault(n, {})
        times[config] = min(ms, times.get(config, ms))
    return data


def bridges(lo, hi, w_lo, w_hi, k):
    best_lo, best_hi = min(lo.values()), min(hi.values())
    both = [c for c in lo if c in hi and c not in (w_lo, w_hi)]
    both.sort(key=lambda c: (math.log(lo[c] / best_lo) + math.log(hi[c] / best_hi), c))
    return both[:k]


def main():
    db = sqlite3.connect(sys.argv[1])
    regrets = {k: [] for k in (0, 1, 2, 4)}
    for shape, sizes in sorted(runs_by_shape(db).items()):
        ns = sorted(sizes)
        for i in range(1, len(ns) - 1):
            lo, mid, hi = sizes[ns[i - 1]], sizes[ns[i]], sizes[ns[i + 1]]
            w_lo, w_hi = min(lo, key=lo.get), min(hi, key=hi.get)
            row = []
            for k in regrets:
                measured = [c for c in [w_lo, w_hi] + bridges(lo, hi, w_lo, w_hi, k) if c in mid]
                if not measured:
                    continue
                r = min(mid[c] for c in measured) / min(mid.values()) - 1
                regrets[k].append(r)
                row.append(f"K={k} {100 * r:+.1f} %")
            if "--rows" in sys.argv:
                print(f"| `{shape}` | {ns[i]} | " + " | ".join(row) + " |")
    print("| candidates at the crossover | sizes | median | mean | 90th percentile | worst |")
    print("|---|---:|---:|---:|---:|---:|")
    for k, v in regrets.items():
        v = sorted(v)
        print(f"| the two winners + {k} bridges | {len(v)} | {100 * statistics.median(v):+.2f} % | "
              f"{100 * statistics.mean(v):+.2f} % | {100 * v[int(0.9 * len(v))]:+.1f} % | {100 * v[-1]:+.1f} % |")


if __name__ == "__main__":
    main()
