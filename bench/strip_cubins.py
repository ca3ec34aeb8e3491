#!/usr/bin/env python3
"""A copy of an autotune cache without its winners' cubins: small enough to keep under bench/results for offline
replays (bench/replay_grid.py, bench/replay_sizes.py, bench/policy_changed.py --cache), where the lookup reads the
measurements and winners and never loads a kernel.

    bench/strip_cubins.py SRC DST        DST must not exist; SRC is only read

Every row is kept; each winner's cubin and its SHA-256 are cleared together (the schema keeps no hash without its
cubin: `autotune check`), and the file is vacuumed. A handle served from the copy compiles its kernels with NVRTC, as
from a cache whose cubins were never stored. Run on the GPU machine before sending a tuned cache back (python3 is
there), then compress it (xz) to commit it.
"""
import argparse
import os
import shutil
import sqlite3
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    args = ap.parse_args()
    if os.path.exists(args.dst):
        sys.exit(f"strip_cubins: {args.dst} exists; name a new file")
    try:
        source = sqlite3.connect(f"file:{args.src}?mode=ro", uri=True)
        source.execute("select cubin, cubin_sha256 from winners limit 1").fetchall()
    except sqlite3.Error as e:
        sys.exit(f"strip_cubins: {args.src} is not an autotune cache: {e}")
    target = sqlite3.connect(args.dst)
    try:
        source.backup(target)  # a consistent copy, write-ahead log included
        with target:
            target.execute("update winners set cubin = null, cubin_sha256 = null")
        target.execute("vacuum")
    except sqlite3.Error as e:
        target.close()
        os.remove(args.dst)
        sys.exit(f"strip_cubins: {e}")
    finally:
        source.close()
    winners = target.execute("select count(*) from winners").fetchone()[0]
    target.close()
    print(f"strip_cubins: {args.dst}: {winners} winners without cubins, "
          f"{os.path.getsize(args.src) >> 10} KiB -> {os.path.getsize(args.dst) >> 10} KiB")


if __name__ == "__main__":
    main()
