#!/usr/bin/env python3
"""The held-out grid's table (shape_bench --held-out, one process per row: .device-style logs of its stderr lines).

    bench/held_out_table.py NEW.log [NEW.log ...] [--before OLD.log] [--title TEXT] [--compared policy]

Reads each `shape_bench: KEY policy P us, tuned T us (CONFIG), exact E us, CUB C us` line (the last one per key wins),
prints a markdown table of every row (the tuned cache's handle against CUB, and the same row of OLD.log where given)
and a summary: the geometric mean of CUB's time over the handle's per family, the least ratio, the rows under 0.95x.
Several NEW logs (a grid measured over several device calls) are read as one, a later line of a key winning. Where
the two runs do not hold the same rows (a run cut by its deadline), the summary is also given over the rows both
hold ("before, paired" and "after, paired"), the only before/after comparison that is like for like.
Rows without a CUB call (CUB has no such operator or type here, or the baseline refuses it) count in neither. Where
the rows were tuned exactly (untuned_grid.sh's HELD_OUT_EXACT=1: an exact time above 0), the regret of the tuned
cache's handle against the exact winner too, and its median and worst per family. Where the lines carry
`, compared X us (CONFIG)` (untuned_grid.sh's HELD_OUT_COMPARE_LOADS=1: the tuned cache's handle made without the
evict-first size rule, runtime/streaming.hpp, timed in the same rounds), an "as measured" column, and per family the
rows whose configuration the rule changed with the geometric mean of the time without it over the time with it.
With --compared policy the compared handle is the one made from another policy (shape_bench --compare-policy DIR:
an older policy.json against the embedded one), and the columns say so; with --compared atomic, the handle serving
one-launch merges as measured (--compared one_launch: shape_bench --compare-self-zero-as-measured, the rule of
runtime/one_launch.hpp off). With --compared preset it is the handle from the tuned cache with `--preset standard`
added (untuned_grid.sh's HELD_OUT_COMPARE_CACHE), and the rows it makes more than 2 % slower are listed (#26: never
worse with the preset). With --compared zero it is the same
configuration with its output zeroed by a memset (untuned_grid.sh's HELD_OUT_COMPARE_ZERO=1, shape_bench
--compare-memset-zero), and the gain is given over the rows whose configuration merges with atomics into the zeroed
output (merge=atomic, no global copies: the rows the zeroing kernel changes) and, as a control, over the others.
"""
import argparse
import math
import re

LINE = re.compile(r"shape_bench: (\S+) policy ([\d.]+) us, tuned ([\d.]+) us \(([^)]*)\), exact ([\d.]+) us, "
                  r"CUB ([\d.]+) us(?:, compared ([\d.]+) us \(([^)]*)\))?")


def read(path):
    rows = {}
    for line in open(path):
        m = LINE.search(line)
        if m:
            rows[m.group(1)] = {"policy": float(m.group(2)), "tuned": float(m.group(3)), "config": m.group(4),
                                "exact": float(m.group(5)), "cub": float(m.group(6)),
                                "compared": float(m.group(7)) if m.group(7) else 0.0, "compared_config": m.group(8)}
    return rows


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def summary(rows, label):
    out = []
    for family in ("histogram", "reduce"):
        r = [v["cub"] / v["tuned"] for k, v in rows.items() if k.startswith(family + "/") and v["cub"] > 0]
        if r:
            out.append(f"| {label} | {family} | {len(r)} | {geomean(r):.2f}x | {min(r):.2f}x | "
                       f"{sum(1 for x in r if x < 0.95)} |")
    return out


def regrets(rows):
    out = []
    for family in ("histogram", "reduce"):
        r = sorted(v["tuned"] / v["exact"] - 1 for k, v in rows.items() if k.startswith(family + "/") and v["exact"] > 0)
        if r:
            median = r[len(r) // 2] if len(r) % 2 else (r[len(r) // 2 - 1] + r[len(r) // 2]) / 2
            out.append(f"| {family} | {len(r)} | {100 * median:+.1f} % | {100 * r[-1]:+.1f} % |")
    return out


def zeroed_by_kernel(config):
    """Whether a histogram configuration zeroes its output with the overlapped zeroing kernel (HistogramKernel:
    merge=atomic, no copies of a global histogram, no cluster)."""
    global_copies = "priv=global" in config and not re.search(r"(^|,)R=1(,|$)", config)
    return "merge=atomic" in config and not global_copies and "cluster=" not in config


def compared_gain(rows, compared="loads"):
    """Per family: the rows whose configuration the compared handle changed (the evict-first size rule off, or another
    policy), and the geometric mean of the compared handle's time over the tuned one's (above 1: the tuned faster).
    For compared == "zero": the histogram rows the zeroing kernel serves, and the others (a control)."""
    out = []
    groups = ([("histogram", "histogram/", lambda k, v: v["compared_config"] != v["config"]),
               ("reduce", "reduce/", lambda k, v: v["compared_config"] != v["config"])] if compared != "zero" else
              [("histogram, zeroing kernel", "histogram/", lambda k, v: zeroed_by_kernel(v["config"])),
               ("histogram, other merges (control)", "histogram/", lambda k, v: not zeroed_by_kernel(v["config"])),
               ("reduce (control)", "reduce/", lambda k, v: True)])
    for label, prefix, keep in groups:
        r = [v["compared"] / v["tuned"] for k, v in rows.items()
             if k.startswith(prefix) and v["compared"] > 0 and keep(k, v)]
        if r:
            out.append(f"| {label} | {len(r)} | {geomean(r):.3f} | {min(r):.3f} | {max(r):.3f} |")
    return out


def preset_worse(rows, noise=1.02):
    """#26's "never worse than without the preset, problem by problem, beyond noise (2 %)": every row whose handle
    from the preset's cache ran more than `noise` times the plain cache's, and whether it ran another configuration
    (the same one slower is the run's spread, not a choice)."""
    timed = {k: v for k, v in rows.items() if v["compared"] > 0 and v["tuned"] > 0}
    worse = sorted(((v["compared"] / v["tuned"], k, v) for k, v in timed.items() if v["compared"] > noise * v["tuned"]),
                   reverse=True)
    out = [f"\nWith the preset, slower than without it by more than {100 * (noise - 1):.0f} %: {len(worse)} of "
           f"{len(timed)} rows ({sum(1 for r, k, v in worse if v['compared_config'] != v['config'])} of them with "
           "another configuration)."]
    # The run's own spread: rows where both handles ran the same configuration time the same kernel twice in the same
    # rounds, so their ratios are what noise alone does to a row here.
    same = sorted(v["compared"] / v["tuned"] for v in timed.values() if v["compared_config"] == v["config"])
    if len(same) >= 20:
        at = lambda q: same[round(q * (len(same) - 1))]
        out.append(f"The run's spread, from the {len(same)} rows that ran the same configuration with and without the "
                   f"preset: 5th-95th percentile {at(0.05):.3f}-{at(0.95):.3f}, least {same[0]:.3f}, most {same[-1]:.3f}.")
    if worse:
        out.append("\n| problem | without (us) | with the preset (us) | slower | configuration with the preset |\n"
                   "|---|---:|---:|---:|---|")
        out += [f"| `{k}` | {v['tuned']:.1f} | {v['compared']:.1f} | {100 * (r - 1):+.1f} % | "
                + ("the same" if v["compared_config"] == v["config"] else f"`{v['compared_config']}`") + " |"
                for r, k, v in worse]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("new", nargs="+")
    ap.add_argument("--before")
    ap.add_argument("--title", default="The held-out grid")
    ap.add_argument("--compared", choices=("loads", "policy", "zero", "one_launch", "preset"), default="loads",
                    help="what the compared handle is: the size rule off (loads), another policy (policy), or the "
                         "output zeroed by a memset (zero)")
    a = ap.parse_args()
    what, column = {
        "loads": (("rows the evict-first size rule changed", "time without it / with it"), "as measured (us)"),
        "policy": (("rows the other policy serves differently",
                    "time with the other policy (--compare-policy) / with the handle's own (AUTOTUNE_POLICY_DIR, "
                    "else the embedded one)"),
                   "other policy (us)"),
        "zero": (("rows", "time zeroed by memset / by the overlapped kernel"), "memset zeroing (us)"),
        "one_launch": (("rows the one-launch rule changed", "time with self_zero as measured / with the rule"),
                       "self_zero as measured (us)"),
        "preset": (("rows the preset's cache serves differently", "time with the preset / without it"),
                   "with the preset (us)"),
    }[a.compared]
    new = {}
    for path in a.new:
        new.update(read(path))
    old = read(a.before) if a.before else {}
    print(f"# {a.title}\n")
    print("| run | family | rows with CUB | geometric mean vs CUB | least | under 0.95x |\n|---|---|---:|---:|---:|---:|")
    if old:
        print("\n".join(summary(old, "before")))
    print("\n".join(summary(new, "after")))
    both = set(old) & set(new)
    if both and set(old) != set(new):
        print("\n".join(summary({k: old[k] for k in both}, "before, paired")))
        print("\n".join(summary({k: new[k] for k in both}, "after, paired")))
    exact = regrets(new)
    if exact:
        print("\n| family | rows tuned exactly | median regret | worst regret |\n|---|---:|---:|---:|")
        print("\n".join(exact))
    compared = any(v["compared"] > 0 for v in new.values())
    if compared:
        print(f"\n| family | {what[0]} | {what[1]}, geometric mean | least | most |\n|---|---:|---:|---:|---:|")
        print("\n".join(compared_gain(new, a.compared)))
        if a.compared == "preset":
            print("\n".join(preset_worse(new)))
    print("\n| problem | policy (us) | tuned (us) | CUB (us) | vs CUB |" + (" regret |" if exact else "")
          + (f" {column} |" if compared else "") + (" before (us) | before vs CUB |" if old else "")
          + " configuration |")
    print("|---|---:|---:|---:|---:|" + ("---:|" if exact else "") + ("---:|" if compared else "")
          + ("---:|---:|" if old else "") + "---|")
    for key, v in new.items():
        ratio = f"{v['cub'] / v['tuned']:.2f}x" if v["cub"] > 0 else "-"
        cells = f"| `{key}` | {v['policy']:.1f} | {v['tuned']:.1f} | {v['cub'] or '-'} | {ratio} |"
        if exact:
            cells += f" {100 * (v['tuned'] / v['exact'] - 1):+.1f} % |" if v["exact"] > 0 else " - |"
        if compared:
            cells += f" {v['compared']:.1f} |" if v["compared"] > 0 else " - |"
        if old:
            o = old.get(key)
            cells += (f" {o['tuned']:.1f} | {o['cub'] / o['tuned']:.2f}x |" if o and o["cub"] > 0
                      else (f" {o['tuned']:.1f} | - |" if o else " - | - |"))
        print(cells + f" `{v['config']}` |")


if __name__ == "__main__":
    main()
