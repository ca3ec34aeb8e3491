#!/usr/bin/env python3
"""Every doctest suite of the test sources is run by CTest (CTest cpu.suites_registered).

CTest runs one test per suite name (tests/CMakeLists.txt: autotune_add_suites, the GPU suites' loop), so a
TEST_SUITE("x") whose name no list holds compiles and never runs: its checks can fail and nobody sees them (the
`rank` suite ran in no CI for three days, and one of its checks had gone stale meanwhile).

    tests/suites_check.py TESTS_DIR --cpu NAME... --gpu NAME... --cub NAME...

TESTS_DIR/cpu/*.cpp, gpu/*.cpp and cub/*.cpp are read; each suite found there must be in its list, and each listed
name must be a suite there; and each of those files must be named in TESTS_DIR/CMakeLists.txt (a source that no
target compiles runs nothing either). Exit 0 when they agree, 1 with the differences.
"""
import argparse
import glob
import os
import re
import sys

SUITE = re.compile(r'^\s*TEST_SUITE\("([A-Za-z0-9_]+)"\)', re.M)


def suites_in(folder):
    found = set()
    for path in glob.glob(os.path.join(folder, "*.cpp")):
        with open(path, encoding="utf-8") as f:
            found |= set(SUITE.findall(f.read()))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests_dir")
    for kind in ("cpu", "gpu", "cub"):
        ap.add_argument(f"--{kind}", nargs="*", default=[])
    args = ap.parse_args()
    problems = []
    with open(os.path.join(args.tests_dir, "CMakeLists.txt"), encoding="utf-8") as f:
        cmake = f.read()
    for kind in ("cpu", "gpu", "cub"):
        for path in sorted(glob.glob(os.path.join(args.tests_dir, kind, "*.cpp"))):
            name = f"{kind}/{os.path.basename(path)}"
            if not re.search(r"(^|[\s/(])" + re.escape(name) + r"($|[\s)])", cmake, re.M):
                problems.append(f"{name}: named by no target of CMakeLists.txt (it is never compiled)")
        found, listed = suites_in(os.path.join(args.tests_dir, kind)), set(getattr(args, kind))
        problems += [f"{kind}/: suite '{s}' is in no CTest list (it never runs)" for s in sorted(found - listed)]
        problems += [f"{kind}/: CTest lists '{s}', which no TEST_SUITE defines" for s in sorted(listed - found)]
    if problems:
        print("\n".join(problems))
        return 1
    print("suites_check: every suite of cpu/, gpu/ and cub/ is run by CTest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
