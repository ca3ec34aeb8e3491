#!/usr/bin/env python3
"""What evict-first input loads (ld=cs) are worth by input size, from tuning logs that already hold both.

Reads `autotune tune` logs (plain or .gz; every `[ i/N] CONFIG ok T ms` line under its `== PROBLEM` header) and, for
each problem whose log times at least 3 configurations both with plain 16-byte loads and with `ld=cs`, takes the
ten fastest plain ones and the ratio of each one's evict-first twin to it (a time below 1: evict-first faster). A
problem tuned in several logs keeps each configuration's best time. Prints one row per problem (input bytes, the
median, least and largest ratio) and one per input size over all problems: the evidence of runtime/streaming.hpp.

    scripts/streaming_evidence.py bench/results            # every log below the folder
    scripts/streaming_evidence.py LOG [LOG ...]
"""
import argparse
import collections
import gzip
import pathlib
import re
import statistics
import sys

ELEMENT_BYTES = dict(u8=1, i8=1, u16=2, i16=2, f16=2, bf16=2, i32=4, u32=4, f32=4, i64=8, u64=8, f64=8)
HEADER = re.compile(r"^== (\S+)")
LINE = re.compile(r"^\[ *\d+/\d+\] (\S+) ok +([0-9.]+) ms")


def logs(paths):
    for p in map(pathlib.Path, paths):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*") if q.name.endswith((".log", ".log.gz")))
        else:
            yield p


def read(paths):
    times = collections.defaultdict(dict)
    for path in logs(paths):
        opener = gzip.open if path.name.endswith(".gz") else open
        problem = None
        with opener(path, "rt", errors="replace") as f:
            for line in f:
                if m := HEADER.match(line):
                    problem = m.group(1)
                elif (m := LINE.match(line)) and problem:
                    config, ms = m.group(1), float(m.group(2))
                    times[problem][config] = min(ms, times[problem].get(config, ms))
    return times


def input_mib(problem):
    parts = problem.split("/")
    n = re.search(r"/n=(\d+)", problem)
    element = parts[2] if parts[0] in ("reduce", "argreduce") else parts[1]
    if not n or element not in ELEMENT_BYTES or "channels=" in problem or "row=" in problem:
        return None
    return int(n.group(1)) * ELEMENT_BYTES[element] / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    rows = []
    for problem, t in read(args.paths).items():
        mib = input_mib(problem)
        pairs = sorted((ms, t[c + ",ld=cs"] / ms) for c, ms in t.items() if "ld=cs" not in c and c + ",ld=cs" in t)
        if mib is None or len(pairs) < 3:
            continue
        ratios = [r for _, r in pairs[:10]]
        rows.append((problem.split("/")[0], mib, problem, len(pairs), statistics.median(ratios), min(ratios), max(ratios)))
    if not rows:
        sys.exit("streaming_evidence: no problem with plain and ld=cs twins in " + " ".join(args.paths))
    print("| family | input | problem | twins | ld=cs / plain, median of the ten fastest | least | largest |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for fam, mib, problem, count, med, lo, hi in sorted(rows, key=lambda r: (r[1], r[0], r[2])):
        print(f"| {fam} | {mib:.0f} MiB | `{problem}` | {count} | {med:.3f} | {lo:.3f} | {hi:.3f} |")
    print()
    print("| input | problems | median of the problems' medians | least median | largest median |")
    print("|---:|---:|---:|---:|---:|")
    by_size = collections.defaultdict(list)
    for r in rows:
        by_size[round(r[1])].append(r[4])
    for mib in sorted(by_size):
        m = by_size[mib]
        print(f"| {mib} MiB | {len(m)} | {statistics.median(m):.3f} | {min(m):.3f} | {max(m):.3f} |")


if __name__ == "__main__":
    main()
