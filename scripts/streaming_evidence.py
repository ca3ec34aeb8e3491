#!/usr/bin/env python3
"""What evict-first input loads (ld=cs) are worth by input size, from measurements that already hold both.

Reads, below the given folders or as given files:
- `autotune tune` logs (plain or .gz): every `[ i/N] CONFIG ok T ms` line under its `== PROBLEM` header, the GPU from
  the log's `tuning ... on GPU I (NAME, sm_XX)` line;
- autotune caches (`.db`, also inside `.tar.xz` / `.tgz` archives): every `ok` measurement, the GPU from its run's
  devices row (the exact tunings of the held-out grids keep every variant's time).
For each GPU and each problem with at least 3 configurations timed both with plain 16-byte loads and with `ld=cs`, it
takes the ten fastest plain ones and the ratio of each one's evict-first twin to it (a time below 1: evict-first
faster). A problem measured in several files keeps each configuration's best time. The L2 of each GPU comes from a
devices row of any cache read (a cache holding nothing but the devices row, e.g.
bench/results/2026-12-05h-data/h100-device-only.db, is enough), so that sizes print in MiB and as multiples of the
L2: the unit of runtime/streaming.hpp's bands. Prints one row per problem and one per input size over all problems.

    scripts/streaming_evidence.py bench/results            # every log, cache and archive below the folder
    scripts/streaming_evidence.py FILE [FILE ...]
"""
import argparse
import collections
import gzip
import pathlib
import re
import sqlite3
import statistics
import sys
import tarfile
import tempfile

ELEMENT_BYTES = dict(u8=1, i8=1, u16=2, i16=2, f16=2, bf16=2, i32=4, u32=4, f32=4, i64=8, u64=8, f64=8)
HEADER = re.compile(r"^== (\S+)")
GPU = re.compile(r"^autotune .*tuning .* on GPU \d+ \(([^,]+), sm_\d+\)")
LINE = re.compile(r"^\[ *\d+/\d+\] (\S+) ok +([0-9.]+) ms")
UNKNOWN = "an unnamed GPU"


def files(paths):
    for p in map(pathlib.Path, paths):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*") if q.is_file())
        else:
            yield p


def read_log(path, times):
    opener = gzip.open if path.name.endswith(".gz") else open
    gpu, problem = UNKNOWN, None
    with opener(path, "rt", errors="replace") as f:
        for line in f:
            if m := GPU.match(line):
                gpu = m.group(1)
            elif m := HEADER.match(line):
                problem = m.group(1)
            elif (m := LINE.match(line)) and problem:
                config, ms = m.group(1), float(m.group(2))
                t = times[gpu, problem]
                t[config] = min(ms, t.get(config, ms))


def read_db(path, times, l2):
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        for name, l2_bytes in db.execute("select name, l2_bytes from devices"):
            if l2_bytes:
                l2[name] = l2_bytes
        rows = db.execute("select d.name, p.key, m.config, m.median_ms from measurements m "
                          "join runs r on m.run_id = r.id join problems p on r.problem_id = p.id "
                          "join devices d on r.device_id = d.id where m.status = 'ok'").fetchall()
    except sqlite3.DatabaseError as e:
        print(f"streaming_evidence: {path} skipped: {e}", file=sys.stderr)
        return
    for gpu, problem, config, ms in rows:
        t = times[gpu, problem]
        t[config] = min(ms, t.get(config, ms))


def read(paths):
    times, l2 = collections.defaultdict(dict), {}
    with tempfile.TemporaryDirectory() as scratch:
        for path in files(paths):
            name = path.name
            if name.endswith((".log", ".log.gz")):
                read_log(path, times)
            elif name.endswith(".db"):
                read_db(path, times, l2)
            elif name.endswith((".tar.xz", ".tgz", ".tar.gz")):
                with tarfile.open(path) as tar:
                    for i, member in enumerate(tar.getmembers()):
                        if member.isfile() and member.name.endswith(".db"):
                            out = pathlib.Path(scratch) / f"{len(list(pathlib.Path(scratch).iterdir()))}-{i}.db"
                            out.write_bytes(tar.extractfile(member).read())
                            read_db(out, times, l2)
    return times, l2


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
    times, l2 = read(args.paths)
    rows = []
    for (gpu, problem), t in times.items():
        mib = input_mib(problem)
        pairs = sorted((ms, t[c + ",ld=cs"] / ms) for c, ms in t.items() if "ld=cs" not in c and c + ",ld=cs" in t)
        if mib is None or len(pairs) < 3:
            continue
        ratios = [r for _, r in pairs[:10]]
        of_l2 = mib * 2**20 / l2[gpu] if gpu in l2 else None
        rows.append((gpu, problem.split("/")[0], mib, of_l2, problem, len(pairs), statistics.median(ratios),
                     min(ratios), max(ratios)))
    if not rows:
        sys.exit("streaming_evidence: no problem with plain and ld=cs twins in " + " ".join(args.paths))
    for gpu in sorted({r[0] for r in rows}):
        size = f"{l2[gpu] / 2**20:.0f} MiB of L2" if gpu in l2 else "L2 unknown: no devices row read"
        print(f"## {gpu} ({size})\n")
        print("| family | input | of the L2 | problem | twins | ld=cs / plain, median of the ten fastest | least | largest |")
        print("|---|---:|---:|---|---:|---:|---:|---:|")
        mine = sorted((r for r in rows if r[0] == gpu), key=lambda r: (r[2], r[1], r[4]))
        for _, fam, mib, of_l2, problem, count, med, lo, hi in mine:
            shown = "-" if of_l2 is None else f"{of_l2:.2f}"
            print(f"| {fam} | {mib:.1f} MiB | {shown} | `{problem}` | {count} | {med:.3f} | {lo:.3f} | {hi:.3f} |")
        print()
        print("| input | problems | median of the problems' medians | least median | largest median |")
        print("|---:|---:|---:|---:|---:|")
        by_size = collections.defaultdict(list)
        for r in mine:
            by_size[round(r[2])].append(r[6])
        for mib in sorted(by_size):
            m = by_size[mib]
            print(f"| {mib} MiB | {len(m)} | {statistics.median(m):.3f} | {min(m):.3f} | {max(m):.3f} |")
        print()
    print("## Every GPU, by input as a multiple of its L2\n")
    print("| input / L2 | problems | median of the problems' medians | least median | largest median |")
    print("|---|---:|---:|---:|---:|")
    edges = [0, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16, float("inf")]
    for lo, hi in zip(edges, edges[1:]):
        m = [r[6] for r in rows if r[3] is not None and lo <= r[3] < hi]
        if m:
            label = f"{lo:g} to {hi:g}" if hi != float("inf") else f"from {lo:g}"
            print(f"| {label} | {len(m)} | {statistics.median(m):.3f} | {min(m):.3f} | {max(m):.3f} |")


if __name__ == "__main__":
    main()
