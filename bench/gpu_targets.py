#!/usr/bin/env python3
"""The open performance targets, read from the benchmarks' markdown tables: one PASS/MISS row per target.

    bench/gpu_targets.py [--given-only] FILE.md...

Each file is recognised by its title line (the benchmark that wrote it), so the files of a bench/gpu_check.sh run and
the committed ones of bench/results/ read alike. A target whose benchmark file or row is absent is NOT MEASURED;
with --given-only, the targets of a benchmark none of whose files is given are left out (for reading committed tables
older than a benchmark's targets).
Prints a markdown table; exits 0 whatever the results (a missed target is a finding, not a broken build), 2 on a
file that cannot be read.
"""
import os
import re
import sys

# (title prefix of the file, target, row filter {column: exact cell}, or {column: ("contains", text)}, column, how the
# cell reads as a number, comparison, threshold, unit)
TARGETS = [
    ("# Histogram benchmark", "u8, 256 bins, 512 MiB (uniform): % of the read roof",
     {"case": "u8/256 at 512 MiB", "distribution": "uniform"}, "% roof", "number", ">=", 95.0, "%"),
    ("# Range-histogram benchmark", "u8 range histogram, 256 irregular edges, 512 MiB (uniform): % of the read roof",
     {"case": "u8, 256 irregular edges, 512 MiB", "data": "uniform"}, "% roof", "number", ">=", 95.0, "%"),
    ("# Image histogram benchmark", "2D region, RGBA rows 30724 B apart: slowdown against the same pixels contiguous",
     {"case": ("contains", "rows 30724 B apart")}, "ours", "vs_contiguous", "<=", 5.0, "%"),
    ("# Histogram benchmark", "f16, 1000 even bins, 64M samples (uniform): speed-up over CUB",
     {"case": "f16/1000 bins at 64M samples", "distribution": "uniform"}, "vs CUB", "ratio", ">=", 5.0, "x"),
    ("# Histogram benchmark", "i8, 256 bins over [-128, 128), 512 MiB (uniform): % of the read roof",
     {"case": "i8/256 at 512 MiB", "distribution": "uniform"}, "% roof", "number", ">=", 95.0, "%"),
    ("# Range-histogram benchmark",
     "MultiHistogramRange, u8 RGBA, 3 of 4 channels, 256 irregular levels each, 512 MiB (uniform): speed-up over CUB",
     {"case": "u8 RGBA, 3 of 4 channels, 256 irregular levels per channel, 512 MiB", "data": "uniform"}, "vs CUB",
     "ratio", ">=", 1.5, "x"),
    ("# Segmented reduction benchmark",
     "bf16 argmax, 4096 segments x 128K (512M elements, 1 GiB): speed-up over CUB's segmented ArgMax",
     {"case": "bf16 argmax fixed:128K", "n": "512M"}, "vs CUB", "ratio", ">=", 1.5, "x"),
    ("# Arg-reduction benchmark", "f32 argmax at 1M (uniform): speed-up over CUB",
     {"case": "f32 argmax", "dist": "uniform", "n": "1M"}, "vs CUB", "ratio", ">=", 1.2, "x"),
    ("# Arg-reduction benchmark", "f64 argmax at 1M (uniform): speed-up over CUB",
     {"case": "f64 argmax", "dist": "uniform", "n": "1M"}, "vs CUB", "ratio", ">=", 1.2, "x"),
]
# The halves' reductions (bench/reduce_bench.cpp --quick; CUB is TransformReduce with a float accumulator): at 256M at
# the roof and at least CUB's speed, at 1M 1.2x CUB; and a user max within 3 % of the built-in max at 256M.
for _type in ("bf16", "f16"):
    for _op in ("sum", "absmax", "sumsq"):
        _case = f"{_type} {_op}"
        TARGETS += [
            ("# Reduction benchmark", f"{_case} at 256M: % of the read roof",
             {"case": _case, "n": "256M"}, "% roof", "number", ">=", 95.0, "%"),
            ("# Reduction benchmark", f"{_case} at 256M: speed-up over CUB",
             {"case": _case, "n": "256M"}, "vs CUB", "ratio", ">=", 1.0, "x"),
            ("# Reduction benchmark", f"{_case} at 1M: speed-up over CUB",
             {"case": _case, "n": "1M"}, "vs CUB", "ratio", ">=", 1.2, "x"),
        ]
TARGETS.append(("# Reduction benchmark", "f32 user max at 256M: slowdown against the built-in max",
                {"case": "f32 user max", "n": "256M"}, "vs built-in", "signed_percent", "<=", 3.0, "%"))
# The same for segmented reductions (bench/segreduce_bench.cpp --quick): the user max against the built-in max on the
# same 16K segments of 4K.
TARGETS.append(("# Segmented reduction benchmark",
                "f32 user max, segments of 4K at 64M: slowdown against the built-in segmented max",
                {"case": "f32 user max fixed:4K", "n": "64M"}, "vs built-in", "signed_percent", "<=", 3.0, "%"))


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables(text):
    """Every markdown table of `text` as a list of {header: cell} rows."""
    out, header, rows = [], None, []
    for line in text.splitlines():
        if line.startswith("|"):
            if header is None:
                header = cells(line)
            elif re.fullmatch(r"\|?[\s:|-]+\|?", line.strip()):
                continue
            else:
                row = cells(line)
                rows.append(dict(zip(header, row)))
        elif header is not None:
            out.append(rows)
            header, rows = None, []
    if header is not None:
        out.append(rows)
    return out


def number(cell, kind):
    text = cell.replace("*", "")
    if kind == "number":
        m = re.fullmatch(r"\s*([-+]?\d+(?:\.\d+)?)\s*", text)
    elif kind == "ratio":
        m = re.fullmatch(r"\s*([-+]?\d+(?:\.\d+)?)x\s*", text)
    elif kind == "signed_percent":  # "+1.2 %"
        m = re.fullmatch(r"\s*([-+]?\d+(?:\.\d+)?) %\s*", text)
    else:  # vs_contiguous: "...; +4.6 % vs contiguous (CUB +0.7 %)"
        m = re.search(r"([-+]?\d+(?:\.\d+)?) % vs contiguous", text)
    return float(m.group(1)) if m else None


def matches(row, wanted):
    for column, want in wanted.items():
        cell = row.get(column)
        if cell is None:
            return False
        if isinstance(want, tuple):
            if want[1] not in cell:
                return False
        elif cell != want:
            return False
    return True


def main(paths, given_only=False):
    by_title = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            print(f"gpu_targets.py: cannot read {path}: {e.strerror}", file=sys.stderr)
            return 2
        # The table's title: its first heading (a committed table may open with a line saying where it was measured).
        title = next((line for line in text.splitlines() if line.startswith("# ")), "")
        by_title.setdefault(title, []).append((path, text))
    print("| target | needed | measured | result | from |")
    print("|---|---:|---:|---|---|")
    counts = {"PASS": 0, "MISS": 0, "NOT MEASURED": 0}
    for prefix, name, wanted, column, kind, op, threshold, unit in TARGETS:
        if given_only and not any(title.startswith(prefix) for title in by_title):
            continue
        found = None
        for title, files in by_title.items():
            if not title.startswith(prefix):
                continue
            for path, text in files:
                for rows in tables(text):
                    for row in rows:
                        if matches(row, wanted) and column in row:
                            value = number(row[column], kind)
                            if value is not None:
                                found = (value, os.path.basename(path))
        need = f"{op} {threshold:g}{' ' if unit == '%' else ''}{unit}"
        if found is None:
            result, measured, source = "NOT MEASURED", "-", "-"
        else:
            value, source = found
            ok = value >= threshold if op == ">=" else value <= threshold
            result = "PASS" if ok else "MISS"
            measured = f"{value:g}{' ' if unit == '%' else ''}{unit}"
        counts[result] += 1
        print(f"| {name} | {need} | {measured} | **{result}** | {source} |")
    print()
    print(f"targets: {counts['PASS']} PASS, {counts['MISS']} MISS, {counts['NOT MEASURED']} NOT MEASURED")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    given_only = "--given-only" in args
    args = [a for a in args if a != "--given-only"]
    if not args:
        print("usage: bench/gpu_targets.py [--given-only] FILE.md...", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(args, given_only))
