#!/usr/bin/env python3
"""Writes a family's measured default policy (kernel_templates/<family>/policy.json) from a benchmark table in which
every variant of the space was verified and timed on the GPU and the fastest one is named per case: the families
that have no `autotune tune --preset standard` data yet (scripts/fit_policy.py fits from that).

    scripts/policy_from_bench.py FAMILY TABLE.md [--write]
    scripts/policy_from_bench.py FAMILY TABLE.md --update --date D --commit C [--write]

FAMILY is argreduce, histogram_range or segreduce; TABLE.md is its benchmark's Markdown output
(bench/argreduce_bench.cpp, bench/histogram_range_bench.cpp, bench/segreduce_bench.cpp). Only rows measured on uniform
data are used (one entry per shape and size); segreduce's rows are segment-length distributions, each its own entry. The runtime serves an untuned problem from the closest shape's entries
(KernelFamily::policy_distance), each size a range of the handle's size table (runtime/policy.cpp).
Without --write it prints the entries. With --update the table's entries replace those of the same problem in the
family's policy.json (or are added, by n among their shape's), every other entry is kept, and provenance.updates
records the table, the date and the commit the table was measured at.
"""
import argparse
import json
import re
import sys

SIZE = re.compile(r"^(\d+)([KMG]?)$")


def size(text):
    m = SIZE.match(text.strip())
    if not m:
        raise ValueError(f"not a size: {text!r}")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def rows(path):
    """The table's rows as lists of cells, with the header's column names."""
    header, out = None, []
    for line in open(path, encoding="utf-8"):
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif not set("".join(cells)) <= set("-: "):
            out.append(dict(zip(header, cells)))
    return out


def argreduce_entries(path):
    for r in rows(path):
        if r["dist"] != "uniform":
            continue
        typ, op = r["case"].split()
        yield f"argreduce/{op}/{typ}/n={size(r['n'])}/dist=uniform", r["winner"].strip("`"), float(r["time (us)"])


RANGE_CASE = re.compile(r"^(u8|u16|i32|u32|f32|f64), (\d+) (irregular|even) edges")


def histogram_range_entries(path):
    for r in rows(path):
        if r["data"] != "uniform":
            continue
        m = RANGE_CASE.match(r["case"])
        if not m:
            raise ValueError(f"case not understood: {r['case']!r}")
        typ, edges, layout = m.group(1), int(m.group(2)), m.group(3)
        key = f"histogram_range/{typ}/bins={edges - 1}/edges={layout}/n={int(r['n'])}/dist=uniform"
        yield key, r["winner"].strip("`"), float(r["time (us)"])


SEG_CASE = re.compile(r"^(f32|f64|i32|u32|i64|u64) (sum|min|max|argmin|argmax) (\S+)( offsets=64)?$")


def segreduce_entries(path):
    for r in rows(path):
        if r["winner"].startswith("no correct"):
            continue
        m = SEG_CASE.match(r["case"])
        if not m:
            raise ValueError(f"case not understood: {r['case']!r}")
        typ, op, spec, wide = m.groups()
        acc = {"i32": "i64", "u32": "u64"}.get(typ, typ) if op == "sum" else typ
        key = f"segreduce/{op}/{typ}/acc={acc}/n={size(r['n'])}/dist={spec}" + ("/offsets=64" if wide else "")
        yield key, r["winner"].strip("`"), float(r["time (us)"])


def n_of(key):
    return int(re.search(r"/n=(\d+)/", key).group(1))


def updated(family, entries, table, date, commit):
    """The family's policy document with `entries` replacing (or added beside) those of the same problem."""
    path = f"kernel_templates/{family}/policy.json"
    doc = json.load(open(path, encoding="utf-8"))
    shape = lambda key: key.split("/n=")[0]
    for new in entries:
        old = [e for e in doc["entries"] if e["problem"] == new["problem"]]
        if old:
            print(f"  {new['problem']}: {old[0]['config']} ({old[0]['time_ms']} ms) -> {new['config']} "
                  f"({new['time_ms']} ms)")
            old[0].clear()
            old[0].update(new)
            continue
        same = [i for i, e in enumerate(doc["entries"]) if shape(e["problem"]) == shape(new["problem"])]
        if not same:
            sys.exit(f"policy_from_bench: {path} has no entry of the shape of {new['problem']}")
        before = [i for i in same if n_of(doc["entries"][i]["problem"]) < n_of(new["problem"])]
        doc["entries"].insert(before[-1] + 1 if before else same[0], new)
        print(f"  {new['problem']}: (new) -> {new['config']} ({new['time_ms']} ms)")
    doc["provenance"].setdefault("updates", []).append(
        {"date": date, "commit": commit, "command": f"scripts/policy_from_bench.py {family} {table} --update",
         "data": table, "entries": len(entries)})
    doc["provenance"]["data"] += "; updated from " + table
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("family", choices=["argreduce", "histogram_range", "segreduce"])
    ap.add_argument("table")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--update", action="store_true", help="replace the table's problems' entries, keep the others")
    ap.add_argument("--date", default="", help="with --update: the day the table was measured")
    ap.add_argument("--commit", default="", help="with --update: the commit the table was measured at")
    a = ap.parse_args()
    if a.update and not (a.date and a.commit):
        sys.exit("policy_from_bench: --update needs --date and --commit (the table's measurement)")
    fit = {"argreduce": argreduce_entries, "histogram_range": histogram_range_entries,
           "segreduce": segreduce_entries}[a.family]
    entries, seen = [], set()
    for key, config, us in fit(a.table):
        if key in seen:
            sys.exit(f"policy_from_bench: {key} appears twice in {a.table}")
        seen.add(key)
        entries.append({"problem": key, "config": config, "time_ms": round(us / 1000.0, 7)})
    if not entries:
        sys.exit(f"policy_from_bench: no usable rows in {a.table}")
    if a.update:
        doc = updated(a.family, entries, a.table, a.date, a.commit)
        if a.write:
            with open(f"kernel_templates/{a.family}/policy.json", "w", encoding="utf-8") as f:
                f.write(json.dumps(doc, indent=1) + "\n")
        return
    header = open(a.table, encoding="utf-8").readline()
    gpu = re.search(r": (NVIDIA [^(]+?) \(", header)
    doc = {
        "format": 1,
        "family": a.family,
        "provenance": {
            "gpu": gpu.group(1) if gpu else "?",
            "date": "2026-12-01",
            "command": f"scripts/policy_from_bench.py {a.family} {a.table} --write",
            "data": a.table,
            "fit": "the fastest verified variant of the whole space per benchmark case (uniform data)"
            if a.family != "segreduce" else
            "the fastest verified variant of the whole space per benchmark case (segment-length distribution)",
        },
        "entries": entries,
    }
    text = json.dumps(doc, indent=1) + "\n"
    if a.write:
        with open(f"kernel_templates/{a.family}/policy.json", "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
