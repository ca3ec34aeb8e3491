#!/usr/bin/env python3
"""For an experiment only: copies caches with their histogram runs re-stamped to the template hash of the new code.

    restamp.py NEW_DB IN1 OUT1 [IN2 OUT2 ...]

NEW_DB holds a run of the new histogram template (its templates row names the hash). The fix under test changes only
a partial tile's path; the runs re-stamped here were measured at sizes whose configurations the lookup then serves
unchanged, so that the A/B times the same configurations with the old code and the new."""
import shutil
import sqlite3
import sys

new = sqlite3.connect(sys.argv[1]).execute("SELECT hash FROM templates WHERE family = 'histogram'").fetchall()
if len(new) != 1:
    sys.exit(f"restamp: {sys.argv[1]} has {len(new)} histogram template hashes, expected 1")
new_hash = new[0][0]
pairs = sys.argv[2:]
for src, dst in zip(pairs[::2], pairs[1::2]):
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    db.execute("INSERT OR IGNORE INTO templates (family, hash, first_seen) VALUES ('histogram', ?, datetime('now'))",
               (new_hash,))
    n = db.execute("UPDATE runs SET template_hash = ? WHERE problem_id IN "
                   "(SELECT id FROM problems WHERE family = 'histogram')", (new_hash,)).rowcount
    db.commit()
    print(f"restamp: {dst}: {n} histogram runs -> {new_hash}")
