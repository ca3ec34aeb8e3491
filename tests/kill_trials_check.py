#!/usr/bin/env python3
"""Checks of tests/kill_trials.sh on cache files and `autotune export` documents (standard library only).

  integrity FILE                 PRAGMA integrity_check of the file is "ok" (exit 1 otherwise, printing it)
  contains BEFORE.json AFTER.json
                                 every device, problem, template, run and measurement of BEFORE is in AFTER with the
                                 same values, and a run finished in BEFORE is finished in AFTER (winners may change:
                                 a newer result replaces one)
  complete DOC.json N            every finished run of the document has exactly N measurements (no half runs)
  same-writer-content A.json B.json
                                 A and B hold the same finished runs (ignoring their times: a killed writer's re-run
                                 starts new runs), as sets, and the same winners except where several writers
                                 compete for one problem
"""
import json
import sqlite3
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def run_key(r):
    return (r["device"], r["problem"], r["started_at"], r["tool_version"], r["strategy"])


def integrity(path):
    con = sqlite3.connect(path)
    rows = [row[0] for row in con.execute("PRAGMA integrity_check")]
    con.close()
    if rows != ["ok"]:
        print("integrity_check:", "; ".join(rows))
        return 1
    return 0


def contains(before_path, after_path):
    before, after = load(before_path), load(after_path)
    missing = []
    for table, key in (("devices", "model_key"), ("problems", "key")):
        have = {row[key]: row for row in after[table]}
        for row in before[table]:
            if row[key] not in have:
                missing.append(f"{table} {row[key]}")
    have_t = {(t["family"], t["hash"]) for t in after["templates"]}
    missing += [f"template {t['hash']}" for t in before["templates"] if (t["family"], t["hash"]) not in have_t]
    runs = {run_key(r): r for r in after["runs"]}
    for r in before["runs"]:
        k = run_key(r)
        if k not in runs:
            missing.append(f"run {k}")
            continue
        if r["finished_at"] is not None and runs[k]["finished_at"] is None:
            missing.append(f"run {k} is no longer finished")
        ms = {m["config"]: m for m in runs[k]["measurements"]}
        for m in r["measurements"]:
            if ms.get(m["config"]) != m:
                missing.append(f"measurement {m['config']} of run {k}")
    for line in missing[:10]:
        print("missing:", line)
    return 1 if missing else 0


def complete(path, n):
    doc = load(path)
    half = [run_key(r) for r in doc["runs"] if r["finished_at"] is not None and len(r["measurements"]) != n]
    for k in half[:10]:
        print("half a run:", k)
    return 1 if half else 0


def writer_content(doc):
    runs = set()
    winners = {}
    problems_of = {}
    for r in doc["runs"]:
        if r["finished_at"] is None:
            continue  # an interrupted run: kept, but a re-run starts a new one
        runs.add(json.dumps([r["device"], r["problem"], r["tool_version"], r["strategy"], r["measurements"]],
                            sort_keys=True))
        problems_of.setdefault(r["problem"], set()).add(r["tool_version"])
        if r["winner"] is not None:
            w = dict(r["winner"])
            w.pop("tuned_at")
            winners[(r["device"], r["problem"])] = json.dumps([r["tool_version"], w], sort_keys=True)
    return runs, winners, problems_of


def same_writer_content(a_path, b_path):
    (ra, wa, pa), (rb, wb, pb) = writer_content(load(a_path)), writer_content(load(b_path))
    bad = []
    if ra != rb:
        bad.append(f"finished runs differ: {len(ra - rb)} only in the first, {len(rb - ra)} only in the second")
    contested = {p for p, writers in list(pa.items()) + list(pb.items()) if len(writers) > 1}
    wa = {k: v for k, v in wa.items() if k[1] not in contested}
    wb = {k: v for k, v in wb.items() if k[1] not in contested}
    if wa != wb:
        bad.append(f"winners differ for {sorted(k[1] for k in set(wa) ^ set(wb) | {k for k in wa if wa.get(k) != wb.get(k)})[:3]}")
    for line in bad:
        print(line)
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2:
        if argv[1] == "integrity" and len(argv) == 3:
            return integrity(argv[2])
        if argv[1] == "contains" and len(argv) == 4:
            return contains(argv[2], argv[3])
        if argv[1] == "complete" and len(argv) == 4:
            return complete(argv[2], int(argv[3]))
        if argv[1] == "same-writer-content" and len(argv) == 4:
            return same_writer_content(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
