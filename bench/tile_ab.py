#!/usr/bin/env python3
"""Compares two binaries' tunings of the same small reductions, variant by variant, grouped by how many tiles of its
own the variant's one block reads (bench/results/2026-12-04f-summary.md: the L2 prefetch of the second tile).

    bench/tile_ab.py DIR

DIR holds `autotune tune` logs named TAG-ROUND-I.log (TAG old or new, ROUND 1.., I the problem), as
.device/sh/call11.sh and call13.sh wrote them. For each problem it prints, per group (one tile, two tiles in one
block, more), the median over variants of new/old (each side the least of its rounds) and each side's best time.
The one-tile and many-tile variants run the same code in both binaries: their ratio is the run-to-run drift.
"""
import collections
import glob
import os
import re
import statistics
import sys

ROW = re.compile(r"^\[\s*\d+/\d+\] (\S+) ok\s+([0-9.]+) ms")
HEAD = re.compile(r"^(\S+) on .* variants in")
SIZES = {"i8": 1, "i16": 2, "f16": 2, "bf16": 2, "i32": 4, "u32": 4, "f32": 4, "i64": 8, "u64": 8, "f64": 8}


def read(path):
    times, problem = {}, None
    with open(path) as f:
        for line in f:
            if m := ROW.match(line):
                times[m.group(1)] = float(m.group(2)) * 1000
            elif m := HEAD.match(line):
                problem = m.group(1)
    return problem, times


def group(config, elem, n):
    d = dict(item.split("=") for item in config.split(","))
    per_load = int(d["vec"]) // elem if int(d["vec"]) else 1
    tiles = -(-n // (int(d["block"]) * int(d["loads"]) * per_load))
    return "one tile" if tiles == 1 else "two tiles, one block" if tiles == 2 else "more"


def main(folder):
    runs = collections.defaultdict(lambda: collections.defaultdict(list))  # problem index -> tag -> [times]
    names = {}
    for path in sorted(glob.glob(os.path.join(folder, "*-*-*.log"))):
        tag, _, index = os.path.basename(path)[:-4].split("-")
        problem, times = read(path)
        if problem:
            names[index] = problem
            runs[index][tag].append(times)
    for index in sorted(runs, key=int):
        problem = names[index]
        n = int(re.search(r"/n=(\d+)", problem).group(1))
        elem = SIZES[next(part for part in problem.split("/") if part in SIZES)]
        old, new = runs[index]["old"], runs[index]["new"]
        groups = collections.defaultdict(list)
        for config in old[0]:
            if all(config in t for t in old + new):
                groups[group(config, elem, n)].append((min(t[config] for t in old), min(t[config] for t in new)))
        print(problem)
        for name, pairs in sorted(groups.items()):
            ratio = statistics.median(b / a for a, b in pairs)
            print(f"  {name:22s} {len(pairs):4d} variants  new/old median {ratio:.3f}  "
                  f"best old {min(a for a, _ in pairs):.2f} us, new {min(b for _, b in pairs):.2f} us")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
