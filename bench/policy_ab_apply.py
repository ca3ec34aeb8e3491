#!/usr/bin/env python3
"""Keep a policy refit's entries that its A/B does not show slower (the step after bench/policy_ab.sh).

    bench/policy_ab_apply.py BIN BEFORE_DIR AFTER_DIR OUT_DIR AB_LOG... [--tolerance 0.02] [--worst 0.10]
                             [--replace-gain G] [--cache FILE [--model KEY]]

Each AB_LOG is a policy_ab.sh OUT/policy-ab.log (several: repeated rounds; a row's times are taken in geometric mean
over the logs that ran the same two configurations): per problem the handle of the refit policy (AFTER_DIR, served
through AUTOTUNE_POLICY_DIR) as "tuned", the handle of BEFORE_DIR's as "compared", timed in the same rounds.
`autotune best` (no GPU: the policies and the H200's devices row, as bench/policy_changed.py asks) names the entry
that serves each row ("policy: tuned for n=N of SHAPE"); an A/B of another GPU names that GPU's model key with
--model and a cache holding its devices row with --cache (e.g. the tuned cache bench/policy_new_size.sh timed). An
entry whose configuration the refit added or changed goes back to what BEFORE_DIR holds for its problem (or is
dropped where the refit added it) when its rows, those still
served the configuration the A/B timed, ran slower than with the old policy by more than --tolerance in geometric
mean, or one of them by more than --worst, or when it would serve an A/B row a configuration that neither of
the row's handles ran (an entry put back handed the row over: a change no round measured). With --replace-gain G (a refit measured on another GPU than the entries it
replaces), a changed entry stays only where A/B rows measured it at least G faster. An entry re-measured with its
configuration unchanged keeps its old measurement. The lookups are asked again until no entry moves.

OUT_DIR gets <family>.json for every family of AFTER_DIR: a family left as it was gets BEFORE_DIR's file, the others
record the step in provenance.updates. The lines printed say which entry went back or stayed, and why.
"""
import argparse
import copy
import json
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import held_out_table  # noqa: E402  (read: the A/B log's rows)
import policy_changed  # noqa: E402  (MODEL, DEVICE_ONLY)
import replay_grid  # noqa: E402  (flags_of)

# "policy: tuned for n=A[, n=B ... and n=C][; adapted: CHANGES] of SHAPE[, measured on GPU]" (runtime/size_table.cpp):
# every size named is an entry of SHAPE that serves the row, measured on GPU where it is not the policy's own GPU.
SERVED = re.compile(r"policy: tuned for (n=\d+(?:(?:, | and )n=\d+)*)(?:; adapted: .*?)? of (\w+/\S+?/dist=[A-Za-z0-9_-]+)"
                    r"(?:, measured on ([^;)]+))?")


# An entry is its problem and the GPU it was measured on ("" for the policy's own GPU): since 2026-12-06h a problem
# may hold one entry per GPU (scripts/fit_policy.py --beside), and only that pair names one.
def entry_id(doc, e):
    gpu = e.get("gpu", "")
    return (e["problem"], "" if gpu == doc.get("provenance", {}).get("gpu") else gpu)


def entry_name(entry):
    problem, gpu = entry
    return f"{problem} (measured on {gpu})" if gpu else problem


def entry_key(shape, n):
    """The policy entry's problem key of `shape` (a key ending in /dist=D) at n."""
    head, dist = shape.rsplit("/dist=", 1)
    return f"{head}/n={n}/dist={dist}"


def served_entries(autotune, cache, key, policy_dir, model):
    """([entry keys], configuration) of the policy entries that serve `key` (no entries: not served by the policy)."""
    env = dict(os.environ, AUTOTUNE_POLICY_DIR=policy_dir)
    cmd = [autotune, "best", "--cache", cache, "--device-model", model, *replay_grid.flags_of(key),
           "--json"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"policy_ab_apply: {' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()}")
    answer = json.loads(out.stdout)
    return entries_named(answer.get("range", "")), answer["config"]


def entries_named(range_text):
    """The policy entries (entry_id) a lookup's range text names as serving it (none: served otherwise)."""
    m = SERVED.search(range_text)
    return [(entry_key(m.group(2), n), (m.group(3) or "").strip()) for n in re.findall(r"n=(\d+)", m.group(1))] if m else []


def merged(logs):
    """Each row's times in geometric mean over the logs that timed the same two configurations as the first one."""
    rows = {}
    for key in {k for log in logs for k in log}:
        runs = [log[key] for log in logs if key in log]
        pair = (runs[0]["config"], runs[0]["compared_config"])
        same = [r for r in runs if (r["config"], r["compared_config"]) == pair and r["tuned"] > 0 and r["compared"] > 0]
        if not same:
            continue
        row = dict(same[0], rounds=len(same))
        for field in ("tuned", "compared"):
            row[field] = math.exp(sum(math.log(r[field]) for r in same) / len(same))
        rows[key] = row
    return rows


def load(path):
    with open(path) as f:
        return json.load(f)


class Policies:
    """OUT_DIR's policy files against BEFORE_DIR's: which entries the refit changed, and putting one back."""

    def __init__(self, before_dir, out_dir):
        self.before_dir, self.out_dir = before_dir, out_dir

    def path(self, family):
        return os.path.join(self.out_dir, family + ".json")

    def entries(self, family):
        doc = load(self.path(family))
        return {entry_id(doc, e): e for e in doc["entries"]}

    def old(self, family):
        path = os.path.join(self.before_dir, family + ".json")
        if not os.path.isfile(path):
            return {}
        doc = load(path)
        return {entry_id(doc, e): e for e in doc["entries"]}

    def put_back(self, entry):
        """The entry (entry_id) as BEFORE_DIR has it, or none where the refit added it; True where it was added."""
        family = entry[0].split("/", 1)[0]
        doc, old = load(self.path(family)), self.old(family)
        doc["entries"] = [copy.deepcopy(old[entry]) if entry_id(doc, e) == entry else e for e in doc["entries"]
                          if entry_id(doc, e) != entry or entry in old]
        with open(self.path(family), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        return entry not in old

    def record(self, args, back):
        """A family whose entries are all as before gets its old file back (the refit's update records with it);
        the others record the A/B step in their provenance."""
        for name in sorted(os.listdir(self.out_dir)):
            if not name.endswith(".json"):
                continue
            family, before = name[:-5], os.path.join(self.before_dir, name)
            doc = load(self.path(family))
            if os.path.isfile(before) and doc["entries"] == load(before)["entries"]:
                shutil.copy(before, self.path(family))
                continue
            doc["provenance"].setdefault("updates", []).append(
                {"ab": "bench/policy_ab_apply.py", "logs": [os.path.basename(os.path.dirname(os.path.abspath(log))) +
                                                            "/" + os.path.basename(log) for log in args.ab_logs],
                 "rule": f"put back: slower than {1 + args.tolerance:.2f}x in geometric mean or one row over "
                         f"{1 + args.worst:.2f}x" + ("; serving an A/B row a configuration no round timed"
                                                    if args.untimed == "put-back" else
                                                    "; rows served a configuration no round timed listed") +
                         ("" if args.replace_gain is None else
                                                    f"; a replacing entry gaining under {args.replace_gain:.2f}"),
                 "put_back_in_all_families": back})
            with open(self.path(family), "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")

    def changed(self):
        """(entry, added) of every entry whose configuration the refit added or changed."""
        out = []
        for name in sorted(os.listdir(self.out_dir)):
            if name.endswith(".json"):
                family = name[:-5]
                old = self.old(family)
                out += [(k, k not in old) for k, e in self.entries(family).items()
                        if k not in old or old[k]["config"] != e["config"]]
        return out

    def same_config(self):
        """Entries the refit re-measured without changing their configuration."""
        out = []
        for name in sorted(os.listdir(self.out_dir)):
            if name.endswith(".json"):
                old = self.old(name[:-5])
                out += [k for k, e in self.entries(name[:-5]).items()
                        if k in old and old[k]["config"] == e["config"] and old[k] != e]
        return out


def served_rows(autotune, cache, rows, policies, model):
    """Per entry, the A/B rows it serves: ("timed", row) where the row still runs the configuration the new handle
    was timed with, ("untimed", row) where it runs one that neither handle of the A/B ran (an entry put back handed
    the row to another: a change no round measured)."""
    groups = {}
    for key, v in sorted(rows.items()):
        entries, config = served_entries(autotune, cache, key, policies.out_dir, model)
        kind = "timed" if config == v["config"] else None if config == v["compared_config"] else "untimed"
        for entry in entries if kind else []:
            groups.setdefault(entry, []).append((kind, key, v))
    return groups


def verdict(rows, added, args):
    """None to keep the entry, else why it goes back."""
    untimed = [k for kind, k, _ in rows if kind == "untimed"]
    if untimed and args.untimed == "put-back":
        return f"it would serve {len(untimed)} A/B row(s) a configuration no round timed: {', '.join(untimed)}"
    served = [(k, v) for kind, k, v in rows if kind == "timed"]
    if not served:
        return None if added or args.replace_gain is None else "no A/B row measured it"
    ratios = [v["tuned"] / v["compared"] for _, v in served]
    mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    if mean > 1 + args.tolerance:
        return f"{mean:.3f}x the old policy's time in geometric mean"
    if max(ratios) > 1 + args.worst:
        return f"one row {max(ratios):.3f}x the old policy's time"
    if not added and args.replace_gain is not None and mean > 1 - args.replace_gain:
        return f"{mean:.3f}x the old policy's time in geometric mean, not the {args.replace_gain:.2f} gain asked"
    return None


def describe(rows):
    served = [(k, v) for kind, k, v in rows if kind == "timed"]
    if not served:
        return "no A/B row"
    ratios = [v["tuned"] / v["compared"] for _, v in served]
    return (f"{len(served)} A/B rows, new/old time {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} in "
            f"geometric mean, worst {max(ratios):.3f}: "
            + "; ".join(f"{k} {v['tuned']:.2f} us against {v['compared']:.2f}" for k, v in served))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin")
    ap.add_argument("before_dir")
    ap.add_argument("after_dir")
    ap.add_argument("out_dir")
    ap.add_argument("ab_logs", nargs="+", metavar="ab_log")
    ap.add_argument("--tolerance", type=float, default=0.02,
                    help="an entry whose rows ran slower than before by more than this fraction in geometric mean goes "
                    "back (default 0.02)")
    ap.add_argument("--worst", type=float, default=0.10,
                    help="... or one of whose rows ran slower by more than this (default 0.10)")
    ap.add_argument("--replace-gain", type=float, default=None,
                    help="an entry that replaces another configuration stays only where its rows ran at least this "
                    "fraction faster in geometric mean, and where some A/B row measured it: for a refit measured on "
                    "another GPU than the entries it replaces (default: off)")
    ap.add_argument("--untimed", choices=("put-back", "list"), default="put-back",
                    help="an entry that would serve an A/B row a configuration neither handle ran: put-back (default) "
                    "puts it back; list keeps it and writes those rows to OUT_DIR/untimed.txt, the problems to time "
                    "next with OUT_DIR's policies (another A/B log, given first, then decides)")
    ap.add_argument("--cache", default=policy_changed.DEVICE_ONLY)
    ap.add_argument("--model", default=policy_changed.MODEL,
                    help="the GPU model the A/B ran on, as --cache's devices row names it (default: the H200's)")
    args = ap.parse_args()
    autotune = os.path.join(args.bin, "autotune")
    rows = {k: v for k, v in merged([held_out_table.read(log) for log in args.ab_logs]).items() if v["compared"] > 0}
    slower = sum(1 for v in rows.values() if v["tuned"] > v["compared"] * (1 + args.tolerance))
    print(f"policy_ab_apply: {len(rows)} A/B rows, {slower} slower than before by more than "
          f"{100 * args.tolerance:.0f} %")
    os.makedirs(args.out_dir, exist_ok=True)
    for name in os.listdir(args.after_dir):
        if name.endswith(".json"):
            shutil.copy(os.path.join(args.after_dir, name), os.path.join(args.out_dir, name))
    policies = Policies(args.before_dir, args.out_dir)
    for entry in policies.same_config():  # re-measured, unchanged: the earlier measurement stays
        policies.put_back(entry)
    back = 0
    for _ in range(16):  # a reverted entry hands its rows to other entries: ask again
        groups = served_rows(autotune, args.cache, rows, policies, args.model)
        moves = [(entry, added, why) for entry, added in policies.changed()
                 if (why := verdict(groups.get(entry, []), added, args))]
        for entry, added, why in moves:
            policies.put_back(entry)
            print(f"{entry_name(entry)}: {'dropped' if added else 'put back'} ({why}); "
                  f"{describe(groups.get(entry, []))}")
        back += len(moves)
        if not moves:
            break
    for entry, added in policies.changed():
        print(f"{entry_name(entry)}: kept ({'added' if added else 'changed'}); {describe(groups.get(entry, []))}")
    untimed = sorted({k for rows_ in groups.values() for kind, k, _ in rows_ if kind == "untimed"})
    if args.untimed == "list":
        with open(os.path.join(args.out_dir, "untimed.txt"), "w") as f:
            f.writelines(k + "\n" for k in untimed)
        print(f"policy_ab_apply: {len(untimed)} A/B rows served a configuration no round timed: "
              f"{os.path.join(args.out_dir, 'untimed.txt')}")
    policies.record(args, back)
    print(f"policy_ab_apply: {back} entries put back or dropped; the policies are in {args.out_dir}")


if __name__ == "__main__":
    main()
